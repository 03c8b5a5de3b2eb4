package chatcore_test

import (
	"fmt"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
)

// TestRenderMentionNameAndID checks Zulip's rule for @**Name|id**: the user is
// mentioned only when Name is exactly their full name; otherwise the text
// stays as written and nobody is mentioned (so no outgoing webhook fires).
func TestRenderMentionNameAndID(t *testing.T) {
	e := newMxEnv(t)
	hamlet := fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@King Hamlet</span>`, e.member.ID)
	bot := fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@Helper Bot</span>`, e.bot.ID)
	for _, tc := range []struct {
		name      string
		in        string
		want      string
		mentioned []chatcore.UserID
	}{
		{"exact name and id", fmt.Sprintf("@**King Hamlet|%d**", e.member.ID), "<p>" + hamlet + "</p>", []chatcore.UserID{e.member.ID}},
		{"id alone", fmt.Sprintf("@**|%d**", e.member.ID), "<p>" + hamlet + "</p>", []chatcore.UserID{e.member.ID}},
		{"wrong name", fmt.Sprintf("@**Wrong Name|%d**", e.member.ID), fmt.Sprintf("<p>@**Wrong Name|%d**</p>", e.member.ID), nil},
		{"another user's name", fmt.Sprintf("@**Othello|%d**", e.member.ID), fmt.Sprintf("<p>@**Othello|%d**</p>", e.member.ID), nil},
		{"name in another case", fmt.Sprintf("@**king hamlet|%d**", e.member.ID), fmt.Sprintf("<p>@**king hamlet|%d**</p>", e.member.ID), nil},
		{"silent with a wrong name", fmt.Sprintf("@_**Wrong|%d**", e.member.ID), fmt.Sprintf("<p>@_**Wrong|%d**</p>", e.member.ID), nil},
		{"webhook bot by the wrong name", fmt.Sprintf("@**Helper|%d**", e.bot.ID), fmt.Sprintf("<p>@**Helper|%d**</p>", e.bot.ID), nil},
		{"webhook bot by its name", fmt.Sprintf("@**Helper Bot|%d**", e.bot.ID), "<p>" + bot + "</p>", []chatcore.UserID{e.bot.ID}},
		{"wrong name beside a good mention", fmt.Sprintf("@**Wrong|%d** @**King Hamlet**", e.bot.ID),
			fmt.Sprintf("<p>@**Wrong|%d** %s</p>", e.bot.ID, hamlet), []chatcore.UserID{e.member.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, mentioned, _ := mxRender(t, e, tc.in)
			is.Equal(got, tc.want)            // rendered as a mention only with the exact name
			is.Equal(mentioned, tc.mentioned) // only real mentions count
		})
	}
}
