package httpadapter

import "github.com/chatcore/chatcore/eventqueue"

// addPersonalSections puts the sections of users' own settings into state
// under Zulip's names: muted_users, user_status and alert_words.
func addPersonalSections(state map[string]any, p eventqueue.PersonalState) {
	if p.MutedUsers != nil {
		state["muted_users"] = p.MutedUsers
	}
	if p.UserStatus != nil {
		state["user_status"] = p.UserStatus
	}
	if p.AlertWords != nil {
		state["alert_words"] = p.AlertWords
	}
}
