package reactions

import (
	"context"

	"github.com/chatcore/chatcore"
)

// ResolveEmoji checks an emoji a user picks (for a status), as Zulip's
// get_emoji_data and check_emoji_request: a missing code or type is looked
// up from the name, then name, code and type must name one emoji. It
// returns the code and type; a realm emoji is looked up in realm. Errors are
// those of [Add] for the emoji.
func ResolveEmoji(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, name string, code, typ *string) (string, string, error) {
	var c, t string
	if code == nil || typ == nil {
		var err error
		if c, t, err = emojiByName(ctx, tx, realm, name); err != nil {
			return "", "", err
		}
	}
	if code != nil {
		c = *code
	}
	if typ != nil {
		t = *typ
	}
	if err := checkEmoji(ctx, tx, realm, name, c, t); err != nil {
		return "", "", err
	}
	return c, t, nil
}

// UnicodeEmoji is the reaction type of Unicode emoji, which Zulip stores
// with a status that has no emoji.
const UnicodeEmoji = chatcore.ReactionUnicodeEmoji
