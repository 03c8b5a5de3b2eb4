package eventqueue

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/mutedusers"
	"github.com/chatcore/chatcore/userstatus"
)

// PersonalState is the part of [State] of users' own settings.
type PersonalState struct {
	// MutedUsers is the muted_users section: whom the actor muted, by id.
	MutedUsers []mutedusers.View
	// UserStatus is the user_status section: the statuses of the realm's
	// active users that show anything, by user id.
	UserStatus map[string]userstatus.View
	// AlertWords is the alert_words section: the actor's words as added.
	AlertWords []string
}

// registerPersonal fills the sections of users' own settings: muted_topics
// (unless user_topic is asked for too), user_topic, muted_users,
// user_status and alert_words.
func registerPersonal(ctx context.Context, tx chatcore.Tx, u *chatcore.User, req RegisterRequest, want func(string) bool, st *State) error {
	var err error
	if want("muted_topics") && (req.Sections == nil || !want("user_topic")) {
		if st.MutedTopics, err = chatcore.MutedTopics(ctx, tx, u.ID); err != nil {
			return err
		}
	}
	if want("user_topic") {
		streams, err := tx.Streams(ctx, u.RealmID)
		if err != nil {
			return err
		}
		byID := make(map[chatcore.StreamID]*chatcore.Stream, len(streams))
		for i := range streams {
			byID[streams[i].ID] = &streams[i]
		}
		if st.UserTopics, err = chatcore.UserTopicViews(ctx, tx, u.ID, byID); err != nil {
			return err
		}
		if !req.EmptyTopicName {
			// As its events say it to such clients: by the realm's name.
			realm, err := tx.Realm(ctx, u.RealmID)
			if err != nil {
				return err
			}
			for i := range st.UserTopics {
				if st.UserTopics[i].TopicName == "" {
					st.UserTopics[i].TopicName = chatcore.DisplayedEmptyTopic(realm)
				}
			}
		}
	}
	if want("muted_users") {
		if st.Personal.MutedUsers, err = mutedusers.Views(ctx, tx, u.ID); err != nil {
			return err
		}
	}
	if want("user_status") {
		if st.Personal.UserStatus, err = userstatus.State(ctx, tx, u.RealmID); err != nil {
			return err
		}
	}
	if want("alert_words") {
		words, err := tx.AlertWords(ctx, u.ID)
		if err != nil {
			return err
		}
		st.Personal.AlertWords = append([]string{}, words...)
	}
	return nil
}
