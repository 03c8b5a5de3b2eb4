package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

func TestTargetUsersIDCap(t *testing.T) {
	skip := true
	ids := func(n int) []chatcore.UserID {
		out := make([]chatcore.UserID, n)
		for i := range out {
			out[i] = chatcore.UserID(i + 1)
		}
		return out
	}
	groups := func(n int) []chatcore.GroupID {
		out := make([]chatcore.GroupID, n)
		for i := range out {
			out[i] = chatcore.GroupID(i + 1)
		}
		return out
	}
	t.Run("AtLimit", func(t *testing.T) {
		is := is.New(t)
		u := chatcore.SettingsUpdate{TargetUsers: &chatcore.TargetUsers{UserIDs: ids(chatcore.MaxBulkTargetIDs), SkipIfAlreadyEdited: &skip}}
		is.NoErr(u.Validate()) // exactly the limit is accepted
	})
	t.Run("UserIDsOverLimit", func(t *testing.T) {
		u := chatcore.SettingsUpdate{TargetUsers: &chatcore.TargetUsers{UserIDs: ids(chatcore.MaxBulkTargetIDs + 1), SkipIfAlreadyEdited: &skip}}
		wantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, `target_users["user_ids"] is too long (limit: 10000 items)`)
	})
	t.Run("GroupIDsOverLimit", func(t *testing.T) {
		u := chatcore.SettingsUpdate{TargetUsers: &chatcore.TargetUsers{GroupIDs: groups(chatcore.MaxBulkTargetIDs + 1), SkipIfAlreadyEdited: &skip}}
		wantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, `target_users["group_ids"] is too long (limit: 10000 items)`)
	})
}
