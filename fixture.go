package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/chatcore/chatcore/internal/jsonshape"
)

// The fixture format, one JSON object holding a list of realms; the
// repository's testdata/demo.json is a complete example. Every key of every
// object is listed here; anything else in a file is an error.
type (
	fixtureFile struct {
		Realms []fixtureRealm `json:"realms"`
	}
	fixtureRealm struct {
		ID                    RealmID            `json:"id"`
		StringID              string             `json:"string_id"`
		Name                  string             `json:"name"`
		NameChangesDisabled   bool               `json:"name_changes_disabled"`
		EmailChangesDisabled  bool               `json:"email_changes_disabled"`
		RequireUniqueNames    bool               `json:"require_unique_names"`
		EmptyTopicDisplayName *string            `json:"empty_topic_display_name"`
		Users                 []fixtureUser      `json:"users"`
		Bots                  []fixtureBot       `json:"bots"`
		Groups                []fixtureGroup     `json:"groups"`
		Channels              []fixtureChannel   `json:"channels"`
		Messages              []fixtureMessage   `json:"messages"`
		ScheduledMessages     []fixtureScheduled `json:"scheduled_messages"`
		Reminders             []fixtureReminder  `json:"reminders"`
		Linkifiers            []fixtureLinkifier `json:"linkifiers"`
		Drafts                []fixtureDraft     `json:"drafts"`
	}
	fixtureUser struct {
		ID       UserID                     `json:"id"`
		Email    string                     `json:"email"`
		FullName string                     `json:"full_name"`
		Role     *string                    `json:"role"`
		APIKey   string                     `json:"api_key"`
		Password *string                    `json:"password"`
		IsActive *bool                      `json:"is_active"`
		Timezone *string                    `json:"timezone"`
		Settings map[string]json.RawMessage `json:"settings"`
	}
	fixtureBot struct {
		ID       UserID          `json:"id"`
		Email    string          `json:"email"`
		FullName string          `json:"full_name"`
		OwnerID  UserID          `json:"owner_id"`
		APIKey   string          `json:"api_key"`
		IsActive *bool           `json:"is_active"`
		BotType  string          `json:"bot_type"`
		Service  *fixtureService `json:"service"`
	}
	fixtureService struct {
		BaseURL   string `json:"base_url"`
		Token     string `json:"token"`
		Interface string `json:"interface"`
	}
	fixtureGroup struct {
		ID          GroupID   `json:"id"`
		Name        string    `json:"name"`
		Description string    `json:"description"`
		Members     []UserID  `json:"members"`
		Subgroups   []GroupID `json:"subgroups"`
	}
	fixtureChannel struct {
		ID                         StreamID `json:"id"`
		Name                       string   `json:"name"`
		Description                string   `json:"description"`
		InviteOnly                 bool     `json:"invite_only"`
		HistoryPublicToSubscribers *bool    `json:"history_public_to_subscribers"`
		IsArchived                 bool     `json:"is_archived"`
		Subscribers                []UserID `json:"subscribers"`
	}
	fixtureMessage struct {
		ID        MessageID         `json:"id"`
		SenderID  UserID            `json:"sender_id"`
		ChannelID StreamID          `json:"channel_id"`
		Topic     *string           `json:"topic"`
		To        []UserID          `json:"to"`
		Content   string            `json:"content"`
		Timestamp *int64            `json:"timestamp"`
		Client    string            `json:"client"`
		Reactions []fixtureReaction `json:"reactions"`
	}
	fixtureReaction struct {
		UserID       UserID `json:"user_id"`
		EmojiName    string `json:"emoji_name"`
		EmojiCode    string `json:"emoji_code"`
		ReactionType string `json:"reaction_type"`
	}
	fixtureScheduled struct {
		ID                         ScheduledMessageID `json:"id"`
		SenderID                   UserID             `json:"sender_id"`
		ChannelID                  StreamID           `json:"channel_id"`
		Topic                      *string            `json:"topic"`
		To                         []UserID           `json:"to"`
		Content                    string             `json:"content"`
		ScheduledDeliveryTimestamp int64              `json:"scheduled_delivery_timestamp"`
		Delivered                  bool               `json:"delivered"`
		Failed                     bool               `json:"failed"`
	}
	fixtureReminder struct {
		ID                         ScheduledMessageID `json:"id"`
		UserID                     UserID             `json:"user_id"`
		MessageID                  MessageID          `json:"message_id"`
		Note                       string             `json:"note"`
		ScheduledDeliveryTimestamp int64              `json:"scheduled_delivery_timestamp"`
		Delivered                  bool               `json:"delivered"`
		Failed                     bool               `json:"failed"`
	}
	fixtureLinkifier struct {
		ID          LinkifierID `json:"id"`
		Pattern     string      `json:"pattern"`
		URLTemplate string      `json:"url_template"`
		Order       *int        `json:"order"`
	}
	fixtureDraft struct {
		ID        DraftID  `json:"id"`
		UserID    UserID   `json:"user_id"`
		ChannelID StreamID `json:"channel_id"`
		Topic     *string  `json:"topic"`
		To        []UserID `json:"to"`
		Content   string   `json:"content"`
		Timestamp *int64   `json:"timestamp"`
	}
)

// maxFixtureErrors bounds how many problems one LoadFixture error lists.
const maxFixtureErrors = 100

// LoadFixture loads the organizations described by the JSON fixture in r (a
// list of realms, each with its users, bots, groups, linkifiers, channels,
// messages, scheduled messages, reminders and drafts, as in the repository's
// testdata/demo.json) into the Service's store, keeping every explicit id;
// ids the running Service assigns later are above the loaded ones.
//
// The whole file is checked before anything is written: malformed JSON,
// unknown or duplicate keys, values of the wrong JSON type, duplicate ids
// (per kind across the file; scheduled messages and reminders share one id
// space), duplicate e-mails (per realm, case-insensitively) or API keys,
// references to objects missing from the same realm, invalid roles, settings,
// API keys, linkifier patterns or templates. A problem is reported as a
// BAD_REQUEST [*Error] whose Msg names the JSON path of the offending value,
// for example "realms[0].messages[3].sender_id: no user 99 in realm acme";
// Data["errors"] lists every problem found (up to 100). Then everything is
// written in one transaction: passwords are hashed, API keys stored hashed,
// message content rendered, and settings applied on top of [DefaultSettings]
// without counting as edited by the user. An id or name already used in the
// store makes the transaction fail with a BAD_REQUEST error and nothing is
// written. Other errors are store or context failures.
func (s *Service) LoadFixture(ctx context.Context, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("chatcore: reading fixture: %w", err)
	}
	f, err := decodeFixture(data)
	if err != nil {
		return err
	}
	plan, err := s.checkFixture(f)
	if err != nil {
		return err
	}
	if err := plan.hashPasswords(s.boundedHasher(ctx)); err != nil {
		return err
	}
	return s.update(ctx, func(tx Tx, fx *effects) error {
		return s.writeFixture(ctx, tx, plan)
	})
}

// IsEmpty reports whether the store holds no realm at all, as a fresh store
// does before a fixture is loaded.
func (s *Service) IsEmpty(ctx context.Context) (bool, error) {
	var empty bool
	err := s.view(ctx, func(tx Tx) error {
		rs, err := tx.Realms(ctx)
		empty = len(rs) == 0
		return err
	})
	return empty, err
}

// fixtureError returns the BAD_REQUEST error of a rejected fixture.
func fixtureError(problems []string) *Error {
	e := BadRequest(problems[0])
	e.Data = map[string]any{"errors": problems}
	return e
}

// decodeFixture checks the shape of data (JSON syntax, known keys, JSON types)
// with precise paths, then decodes it.
func decodeFixture(data []byte) (*fixtureFile, error) {
	if err := jsonshape.Check(data, reflect.TypeFor[fixtureFile](), "fixture"); err != nil {
		return nil, fixtureError([]string{err.Error()})
	}
	var f fixtureFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		// The walk accepted the file, so this is a shape the walk misses.
		return nil, fixtureError([]string{"fixture: " + err.Error()})
	}
	return &f, nil
}

// fixturePlan is a checked fixture turned into model values, ready to write.
type fixturePlan struct {
	realms []*realmPlan
}

type realmPlan struct {
	realm      Realm
	users      []*User
	passwords  map[UserID]string // plain text, hashed before the transaction
	services   []BotService
	groups     []Group
	streams    []*Stream
	subs       []Subscription
	messages   []*Message
	scheduled  []*ScheduledMessage
	linkifiers []Linkifier
	drafts     []Draft
	// reminderTargets maps a reminder id to its message, for building content.
	reminderTargets map[ScheduledMessageID]*Message
}

func (p *fixturePlan) hashPasswords(h PasswordHasher) error {
	for _, rp := range p.realms {
		for _, u := range rp.users {
			if pw, ok := rp.passwords[u.ID]; ok {
				hash, err := h.Hash(pw)
				if err != nil {
					return fmt.Errorf("chatcore: hashing the password of user %d: %w", u.ID, err)
				}
				u.PasswordHash = hash
			}
		}
	}
	return nil
}
