package chatcore

import (
	"context"
	"strconv"
)

// ActiveRealmEmoji returns the realm's active custom emoji named name, or
// nil when there is none.
func ActiveRealmEmoji(ctx context.Context, tx Tx, realm RealmID, name string) (*RealmEmoji, error) {
	es, err := tx.RealmEmojis(ctx, realm)
	if err != nil {
		return nil, err
	}
	for i := range es {
		if es[i].Name == name && !es[i].Deactivated {
			return &es[i], nil
		}
	}
	return nil, nil
}

// RealmEmojiKey is the storage key of the image fileName of a custom emoji
// of the realm; "/" and the key are the image's URL, Zulip's source_url.
func RealmEmojiKey(realm RealmID, fileName string) string {
	return "user_avatars/" + strconv.FormatInt(int64(realm), 10) + "/emoji/images/" + fileName
}

// activeRealmEmojiURLs returns the image URL of each of the realm's active
// custom emoji, by name: what :name: shows.
func activeRealmEmojiURLs(ctx context.Context, tx Tx, realm RealmID) (map[string]string, error) {
	es, err := tx.RealmEmojis(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(es))
	for _, e := range es {
		if !e.Deactivated {
			out[e.Name] = "/" + RealmEmojiKey(e.RealmID, e.FileName)
		}
	}
	return out, nil
}

// CheckRealmEmojiReaction checks a new realm_emoji reaction as Zulip's
// check_emoji_request: code is the emoji's id, name must be its name, and
// it must not be deactivated.
func CheckRealmEmojiReaction(ctx context.Context, tx Tx, realm RealmID, name, code string) error {
	es, err := tx.RealmEmojis(ctx, realm)
	if err != nil {
		return err
	}
	for _, e := range es {
		if strconv.FormatInt(int64(e.ID), 10) != code {
			continue
		}
		if e.Name != name {
			return BadRequest("Invalid custom emoji name.")
		}
		if e.Deactivated {
			return BadRequest("This custom emoji has been deactivated.")
		}
		return nil
	}
	return BadRequest("Invalid custom emoji.")
}
