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
