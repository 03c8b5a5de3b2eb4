// Package drafts applies Zulip's rules for synchronised drafts: GET, POST
// /drafts, PATCH and DELETE /drafts/{draft_id}, the drafts events and the
// drafts section of POST /register.
package drafts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// MaxPerRequest bounds the drafts one POST /drafts creates (Zulip sets no
// bound; the web app sends one at a time).
const MaxPerRequest = 100

// MaxInRegister is how many drafts the drafts section of POST /register
// holds at most, the most recently edited ones (Zulip's
// MAX_DRAFTS_IN_REGISTER_RESPONSE).
const MaxInRegister = 1000

// maxTimestamp is the largest timestamp a draft may carry: the end of year
// 9999, the last one Zulip's datetime conversion accepts.
const maxTimestamp = 253402300799

// Request is one draft as Zulip's DraftData: its type ("stream", "private"
// or "" for no recipient yet), its recipients (one channel id, or user ids),
// its topic (ignored for a direct message), its content and the time it was
// last edited (Unix seconds, now when absent).
type Request struct {
	Type      *string  `json:"type" wire:"required"`
	To        *[]int64 `json:"to" wire:"required"`
	Topic     *string  `json:"topic" wire:"required"`
	Content   *string  `json:"content" wire:"required"`
	Timestamp *float64 `json:"timestamp"`
}

// View is a draft as Zulip's Draft.to_dict shows it: "to" holds the
// channel id of a channel draft, the other participants of a direct one
// (the user themself for a draft to themself), nothing for a draft without
// recipients; timestamp is the last edit in whole Unix seconds.
type View struct {
	ID        chatcore.DraftID `json:"id"`
	Type      string           `json:"type"`
	To        []int64          `json:"to"`
	Topic     string           `json:"topic"`
	Content   string           `json:"content"`
	Timestamp int64            `json:"timestamp"`
}

// ViewOf returns the View of d.
func ViewOf(d *chatcore.Draft) View {
	v := View{ID: d.ID, Type: string(d.Type), To: []int64{}, Topic: d.Topic, Content: d.Content, Timestamp: d.LastEdit.Unix()}
	switch d.Type {
	case chatcore.MessageTypeStream:
		v.To = []int64{int64(d.StreamID)}
	case chatcore.MessageTypePrivate:
		for _, id := range d.To {
			v.To = append(v.To, int64(id))
		}
	}
	return v
}

// List returns the actor's drafts, the least recently edited first, as
// Zulip's GET /drafts. Errors: BAD_REQUEST "User has disabled synchronizing
// drafts." when the actor's enable_drafts_synchronization is off.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]View, error) {
	var out []View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := syncingActor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		ds, err := tx.Drafts(ctx, u.ID)
		if err != nil {
			return err
		}
		slices.SortStableFunc(ds, func(a, b chatcore.Draft) int { return a.LastEdit.Compare(b.LastEdit) })
		out = make([]View, len(ds))
		for i := range ds {
			out[i] = ViewOf(&ds[i])
		}
		return nil
	})
	return out, err
}

// State returns the drafts section of POST /register for u: at most
// [MaxInRegister] drafts, the most recently edited first. It lists what is
// stored whatever u's enable_drafts_synchronization (turning it off
// deletes the drafts).
func State(ctx context.Context, tx chatcore.Tx, u *chatcore.User) ([]View, error) {
	ds, err := tx.RecentDrafts(ctx, u.ID, MaxInRegister)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(ds))
	for i := range ds {
		out[i] = ViewOf(&ds[i])
	}
	return out, nil
}

// Create stores the drafts for the actor in one transaction and returns
// their ids in request order, as Zulip's do_create_drafts; a "drafts"
// event (op add) with their views goes to the actor's queues. Each draft is
// checked as Zulip's further_validated_draft_dict (see [Edit]); the first
// bad one refuses them all. Errors besides those of Edit: BAD_REQUEST
// "Too many drafts (limit: 100)" for more than [MaxPerRequest].
func Create(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, reqs []Request) ([]chatcore.DraftID, error) {
	if len(reqs) > MaxPerRequest {
		return nil, chatcore.BadRequestf("Too many drafts (limit: %d)", MaxPerRequest)
	}
	var ids []chatcore.DraftID
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := syncingActor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		ids = make([]chatcore.DraftID, 0, len(reqs))
		views := make([]View, 0, len(reqs))
		for i, req := range reqs {
			d, err := validate(ctx, svc, tx, u, fmt.Sprintf("drafts[%d]", i), req)
			if err != nil {
				return err
			}
			if err := tx.CreateDraft(ctx, d); err != nil {
				return err
			}
			ids = append(ids, d.ID)
			views = append(views, ViewOf(d))
		}
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "drafts", "op": "add", "drafts": views})
		return nil
	})
	return ids, err
}

// Edit replaces the actor's draft id with req, as Zulip's do_edit_draft; a
// "drafts" event (op update) goes to the actor's queues.
//
// Errors (BAD_REQUEST): "User has disabled synchronizing drafts."; "Draft
// does not exist" (HTTP 404) for a draft that is not the actor's;
// `draft["content"] cannot be blank` (content is stripped first) and "Message
// must not contain null bytes"; "Timestamp must not be negative." (and "Timestamp is too large."
// past the year 9999); `Invalid draft["type"]` for a type other than
// "stream", "private" and ""; for a channel draft "Topic must
// not contain null bytes", "Must specify exactly 1 channel ID for channel
// messages" and "Invalid channel ID" (a channel the actor cannot access);
// for a direct one "Invalid user ID n".
func Edit(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.DraftID, req Request) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := syncingActor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if _, err := ownDraft(ctx, tx, u, id); err != nil {
			return err
		}
		d, err := validate(ctx, svc, tx, u, "draft", req)
		if err != nil {
			return err
		}
		d.ID = id
		if err := tx.UpdateDraft(ctx, d); err != nil {
			return err
		}
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "drafts", "op": "update", "draft": ViewOf(d)})
		return nil
	})
}

// Delete deletes the actor's draft id, as Zulip's do_delete_draft; a
// "drafts" event (op remove) goes to the actor's queues. Errors:
// BAD_REQUEST "User has disabled synchronizing drafts."; "Draft does not
// exist" (HTTP 404) for a draft that is not the actor's.
func Delete(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.DraftID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := syncingActor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if _, err := ownDraft(ctx, tx, u, id); err != nil {
			return err
		}
		if err := tx.DeleteDraft(ctx, id); err != nil {
			return err
		}
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "drafts", "op": "remove", "draft_id": id})
		return nil
	})
}

// syncingActor returns the actor, refusing one who turned draft
// synchronisation off (Zulip's draft_endpoint).
func syncingActor(ctx context.Context, tx chatcore.Tx, actorID chatcore.UserID) (*chatcore.User, error) {
	u, err := chatcore.Actor(ctx, tx, actorID)
	if err != nil {
		return nil, err
	}
	if !u.Settings.EnableDraftsSynchronization {
		return nil, chatcore.BadRequest("User has disabled synchronizing drafts.")
	}
	return u, nil
}

// ownDraft returns u's draft id, or Zulip's 404 "Draft does not exist".
func ownDraft(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.DraftID) (*chatcore.Draft, error) {
	d, err := tx.Draft(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && d.UserID != u.ID) {
		return nil, chatcore.NotFound("Draft does not exist")
	}
	return d, err
}

// validate checks req, the parameter name, as Zulip's DraftData and
// further_validated_draft_dict, and returns the draft to store for u
// (without an id).
func validate(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, name string, req Request) (*chatcore.Draft, error) {
	typ, to := *req.Type, *req.To
	if typ != "" && typ != string(chatcore.MessageTypeStream) && typ != string(chatcore.MessageTypePrivate) {
		return nil, chatcore.BadRequestf(`Invalid %s["type"]`, name)
	}
	// DraftData's content is stripped and must not be blank, as Zulip's
	// RequiredStringConstraint, before the message-body rules.
	content := strings.TrimSpace(*req.Content)
	if content == "" {
		return nil, chatcore.BadRequestf(`%s["content"] cannot be blank`, name)
	}
	content, err := chatcore.NormalizeContent(content)
	if err != nil {
		return nil, err
	}
	ts := float64(svc.Now().UnixMicro()) / 1e6
	if req.Timestamp != nil {
		ts = math.Round(*req.Timestamp*1e6) / 1e6
	}
	if ts < 0 {
		return nil, chatcore.BadRequest("Timestamp must not be negative.")
	}
	if ts > maxTimestamp {
		return nil, chatcore.BadRequest("Timestamp is too large.")
	}
	d := &chatcore.Draft{UserID: u.ID, Content: content, LastEdit: time.UnixMicro(int64(math.Round(ts * 1e6))).UTC()}
	switch {
	case typ == string(chatcore.MessageTypeStream):
		topic := truncateTopic(*req.Topic)
		if strings.IndexByte(topic, 0) >= 0 {
			return nil, chatcore.BadRequest("Topic must not contain null bytes")
		}
		if len(to) != 1 {
			return nil, chatcore.BadRequest("Must specify exactly 1 channel ID for channel messages")
		}
		if err := accessChannel(ctx, tx, u, chatcore.StreamID(to[0])); err != nil {
			return nil, err
		}
		d.Type, d.StreamID, d.Topic = chatcore.MessageTypeStream, chatcore.StreamID(to[0]), topic
	case typ == string(chatcore.MessageTypePrivate) && len(to) > 0:
		members, err := directMembers(ctx, tx, u, to)
		if err != nil {
			return nil, err
		}
		d.Type, d.To = chatcore.MessageTypePrivate, members
	}
	return d, nil
}

// accessChannel refuses a channel u cannot reach, as Zulip's
// access_stream_by_id: "Invalid channel ID".
func accessChannel(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.StreamID) error {
	invalid := chatcore.BadRequest("Invalid channel ID")
	if id <= 0 {
		return invalid
	}
	st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, id)
	if errors.Is(err, store.ErrNotFound) {
		return invalid
	}
	if err != nil {
		return err
	}
	acc, err := chatcore.StreamAccessFor(ctx, tx, u, st)
	if err != nil {
		return err
	}
	if !acc.OK {
		return invalid
	}
	return nil
}

// directMembers resolves the recipients of a direct draft: users of u's
// realm (deactivated ones too), else "Invalid user ID n" for the first
// that is not, as Zulip's get_user_profiles_by_ids. It returns the
// participants other than u, ascending, or u alone for a draft to
// themself.
func directMembers(ctx context.Context, tx chatcore.Tx, u *chatcore.User, to []int64) ([]chatcore.UserID, error) {
	ids := make([]chatcore.UserID, 0, len(to))
	for _, id := range to {
		if id <= 0 {
			return nil, chatcore.BadRequestf("Invalid user ID %d", id)
		}
		ids = append(ids, chatcore.UserID(id))
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, IDs: ids})
	if err != nil {
		return nil, err
	}
	known := make(map[chatcore.UserID]bool, len(users))
	for _, x := range users {
		known[x.ID] = true
	}
	for _, id := range to {
		if !known[chatcore.UserID(id)] {
			return nil, chatcore.BadRequestf("Invalid user ID %d", id)
		}
	}
	others := slices.DeleteFunc(ids, func(id chatcore.UserID) bool { return id == u.ID })
	if len(others) == 0 {
		return []chatcore.UserID{u.ID}, nil
	}
	return others, nil
}

// truncateTopic cuts a topic over MaxTopicLength characters to end with
// "...", as Zulip's truncate_topic (drafts keep the topic otherwise as
// given).
func truncateTopic(topic string) string {
	if utf8.RuneCountInString(topic) <= chatcore.MaxTopicLength {
		return topic
	}
	return string([]rune(topic)[:chatcore.MaxTopicLength-3]) + "..."
}
