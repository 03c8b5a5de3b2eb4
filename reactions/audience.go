package reactions

import (
	"context"

	"github.com/chatcore/chatcore"
)

// Audience returns who hears of a change to m that every reader of m
// sees (a reaction, a submessage): the participants of a direct message;
// for a channel message its active subscribers (only those who received m
// when its history is protected) and, for a public channel, the users (not
// guests) who hold a flag row for m. The list may repeat a user.
func Audience(ctx context.Context, tx chatcore.Tx, m *chatcore.Message) ([]chatcore.UserID, error) {
	return reactionAudience(ctx, tx, m)
}
