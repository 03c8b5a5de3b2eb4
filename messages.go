package chatcore

// Messages: who may read a message and the message-list wire format. Sending
// is in messages_send.go; reading (GET /messages, narrows) is package
// messages.
//
// What the area packages (package scheduled's delivery among them) and the
// outgoing-webhook replies build on, all exported:
// [Service.SendInTx] validates and sends one message inside the caller's
// transaction exactly as SendMessage does; [CanSee] and [StreamAccessFor]
// are the rules of reading; [Service.BuildMessageView] builds the
// message-list object; [NormalizeContent], [NormalizeTopic],
// [CanSendToStream] and [ActiveRecipients] are the checks of sending; rendering ([Service.Prerender],
// [Service.RenderChecked]) is in render.go.

import (
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore/internal/slicex"
)

// Limits of message content and topics, as in Zulip.
const (
	// MaxMessageLength is the largest message content in bytes; longer content
	// is cut and ends with messageTruncatedMarker.
	MaxMessageLength = 10000
	// MaxTopicLength is the largest topic in characters; longer topics are cut
	// and end with "...".
	MaxTopicLength = 60
	// MaxMessagesPerFetch bounds num_before and num_after of GET /messages.
	MaxMessagesPerFetch = 1000

	messageTruncatedMarker = "\n[message truncated]"
	topicTruncatedMarker   = "..."
)

// CanSee reports whether viewer may read m: messages of another realm never;
// direct messages when viewer takes part; channel messages of public channels
// for non-guests; otherwise with an active subscription, and in a channel with
// protected history only from the subscription's FirstVisibleMessageID on.
func CanSee(ctx context.Context, tx Tx, viewer *User, m *Message) (bool, error) {
	return NewAccessCache().CanSee(ctx, tx, viewer, m)
}

// StreamAccess is what a viewer may read of one channel.
type StreamAccess struct {
	// OK reports that the viewer may read the channel's messages at all.
	OK bool
	// MinID is the smallest readable message id (protected history), 0 for all.
	MinID MessageID
}

// Allows reports whether the viewer may read message id of the channel.
func (a StreamAccess) Allows(id MessageID) bool { return a.OK && id >= a.MinID }

// StreamAccessFor computes the viewer's read access to st.
func StreamAccessFor(ctx context.Context, tx Tx, viewer *User, st *Stream) (StreamAccess, error) {
	if !st.InviteOnly && viewer.Role != RoleGuest {
		return StreamAccess{OK: true}, nil
	}
	sub, err := tx.Subscription(ctx, st.ID, viewer.ID)
	if errors.Is(err, ErrNotFound) {
		return StreamAccess{}, nil
	}
	if err != nil {
		return StreamAccess{}, err
	}
	if !sub.Active {
		return StreamAccess{}, nil
	}
	acc := StreamAccess{OK: true}
	if !st.HistoryPublicToSubscribers {
		acc.MinID = sub.FirstVisibleMessageID
	}
	return acc, nil
}

// StreamAccessMap returns the viewer's read access to every channel of the
// viewer's realm (channels the viewer may not read are absent), and those
// channels.
func StreamAccessMap(ctx context.Context, tx Tx, viewer *User) (map[StreamID]StreamAccess, []Stream, error) {
	streams, err := tx.Streams(ctx, viewer.RealmID)
	if err != nil {
		return nil, nil, err
	}
	subs, err := tx.Subscriptions(ctx, 0, viewer.ID)
	if err != nil {
		return nil, nil, err
	}
	active := map[StreamID]Subscription{}
	for _, sub := range subs {
		if sub.Active {
			active[sub.StreamID] = sub
		}
	}
	acc := make(map[StreamID]StreamAccess, len(streams))
	for _, st := range streams {
		switch sub, ok := active[st.ID]; {
		case !st.InviteOnly && viewer.Role != RoleGuest:
			acc[st.ID] = StreamAccess{OK: true}
		case ok && st.HistoryPublicToSubscribers:
			acc[st.ID] = StreamAccess{OK: true}
		case ok:
			acc[st.ID] = StreamAccess{OK: true, MinID: sub.FirstVisibleMessageID}
		}
	}
	return acc, streams, nil
}

// AccessCache answers [CanSee] for many messages of one viewer in one
// transaction, looking up each channel's access once.
type AccessCache struct{ streams map[StreamID]StreamAccess }

// NewAccessCache returns an empty cache, for one viewer and one transaction.
func NewAccessCache() *AccessCache { return &AccessCache{streams: map[StreamID]StreamAccess{}} }

// CanSee reports whether viewer may read m, by the rule of [CanSee].
func (c *AccessCache) CanSee(ctx context.Context, tx Tx, viewer *User, m *Message) (bool, error) {
	if m.RealmID != viewer.RealmID {
		return false, nil
	}
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, viewer.ID), nil
	}
	acc, ok := c.streams[m.StreamID]
	if !ok {
		st, err := StreamInRealm(ctx, tx, viewer.RealmID, m.StreamID)
		if err == nil {
			acc, err = StreamAccessFor(ctx, tx, viewer, st)
		} else if errors.Is(err, ErrNotFound) {
			err = nil
		}
		if err != nil {
			return false, err
		}
		c.streams[m.StreamID] = acc
	}
	return acc.Allows(m.ID), nil
}

// DisplayRecipient is one participant of a direct message in display_recipient.
type DisplayRecipient struct {
	ID            UserID `json:"id"`
	Email         string `json:"email"`
	FullName      string `json:"full_name"`
	IsMirrorDummy bool   `json:"is_mirror_dummy"`
}

// TopicLink is one link of topic_links: a linkifier match or a URL in the topic.
type TopicLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// EditHistoryView is one entry of edit_history on the wire. Prev/new fields are
// present only for what changed.
type EditHistoryView struct {
	UserID              UserID   `json:"user_id"`
	Timestamp           int64    `json:"timestamp"`
	PrevContent         *string  `json:"prev_content,omitempty"`
	PrevRenderedContent *string  `json:"prev_rendered_content,omitempty"`
	PrevStream          StreamID `json:"prev_stream,omitzero"`
	Stream              StreamID `json:"stream,omitzero"`
	PrevTopic           *string  `json:"prev_topic,omitempty"`
	Topic               *string  `json:"topic,omitempty"`
}

// MessageView is a message in Zulip's message-list format (GET /messages, the
// "message" of outgoing webhooks). DisplayRecipient is the channel name (a
// string) for channel messages and a []DisplayRecipient for direct messages.
// EditHistory, LastEditTimestamp and LastMovedTimestamp are absent unless the
// message was edited or moved; StreamID is absent for direct messages.
type MessageView struct {
	AvatarURL          *string           `json:"avatar_url"`
	Client             string            `json:"client"`
	Content            string            `json:"content"`
	ContentType        string            `json:"content_type"`
	DisplayRecipient   any               `json:"display_recipient"`
	EditHistory        []EditHistoryView `json:"edit_history,omitempty"`
	ID                 MessageID         `json:"id"`
	IsMeMessage        bool              `json:"is_me_message"`
	LastEditTimestamp  int64             `json:"last_edit_timestamp,omitzero"`
	LastMovedTimestamp int64             `json:"last_moved_timestamp,omitzero"`
	Reactions          []Reaction        `json:"reactions"`
	RecipientID        RecipientID       `json:"recipient_id"`
	SenderEmail        string            `json:"sender_email"`
	SenderFullName     string            `json:"sender_full_name"`
	SenderID           UserID            `json:"sender_id"`
	SenderRealmStr     string            `json:"sender_realm_str"`
	StreamID           StreamID          `json:"stream_id,omitzero"`
	Subject            string            `json:"subject"`
	Submessages        []Submessage      `json:"submessages"`
	Timestamp          int64             `json:"timestamp"`
	TopicLinks         []TopicLink       `json:"topic_links"`
	Type               MessageType       `json:"type"`
	// RenderedContent is the HTML whatever ApplyMarkdown says. It is not part
	// of the message-list object (Zulip has no rendered_content there); the
	// outgoing-webhook payload carries it.
	RenderedContent string `json:"-"`
	// Flags are the viewer's flags on the message (GET /messages and GET
	// /messages/{id}); nil, and left out, elsewhere.
	Flags []string `json:"flags,omitzero"`
}

// ViewCache memoises what building many MessageViews looks up repeatedly.
type ViewCache struct {
	users   map[UserID]*User
	streams map[StreamID]*Stream
	// listed are streams read in the same transaction (see KeepStreams),
	// indexed into streams at the first stream BuildMessageView needs.
	listed     []Stream
	realms     map[RealmID]*Realm
	linkifiers map[RealmID][]compiledLinkifier
}

// NewViewCache returns an empty cache, for one transaction's views.
func NewViewCache() *ViewCache {
	return &ViewCache{
		users:      map[UserID]*User{},
		streams:    map[StreamID]*Stream{},
		realms:     map[RealmID]*Realm{},
		linkifiers: map[RealmID][]compiledLinkifier{},
	}
}

// LoadUsers reads the senders and direct-message members of msgs that c
// does not hold yet in one store read, so that building their views reads
// no user one at a time. A user it does not find is left to
// BuildMessageView, which reads it alone and fails as that read does.
func (c *ViewCache) LoadUsers(ctx context.Context, tx Tx, msgs []Message) error {
	var ids []UserID
	want := func(id UserID) {
		if _, ok := c.users[id]; !ok {
			ids = append(ids, id)
		}
	}
	for i := range msgs {
		want(msgs[i].SenderID)
		if msgs[i].Type == MessageTypePrivate {
			for _, id := range msgs[i].DirectMembers {
				want(id)
			}
		}
	}
	ids = slicex.SortedSet(ids)
	if len(ids) < 2 { // one read either way
		return nil
	}
	users, err := tx.Users(ctx, UserFilter{IDs: ids})
	if err != nil {
		return err
	}
	for i := range users {
		c.users[users[i].ID] = &users[i]
	}
	return nil
}

func (c *ViewCache) user(ctx context.Context, tx Tx, id UserID) (*User, error) {
	if u, ok := c.users[id]; ok {
		return u, nil
	}
	u, err := tx.User(ctx, id)
	if err != nil {
		return nil, err
	}
	c.users[id] = u
	return u, nil
}

// KeepStreams gives c streams read in its transaction (say a realm's, from
// [StreamAccessMap]), so that building views reads none of them again. c
// keeps the slice; the caller must not modify it afterwards.
func (c *ViewCache) KeepStreams(streams []Stream) {
	c.listed = append(c.listed, streams...)
}

func (c *ViewCache) stream(ctx context.Context, tx Tx, id StreamID) (*Stream, error) {
	if len(c.listed) > 0 {
		for i := range c.listed {
			if _, ok := c.streams[c.listed[i].ID]; !ok {
				c.streams[c.listed[i].ID] = &c.listed[i]
			}
		}
		c.listed = nil
	}
	if st, ok := c.streams[id]; ok {
		return st, nil
	}
	st, err := tx.Stream(ctx, id)
	if err != nil {
		return nil, err
	}
	c.streams[id] = st
	return st, nil
}

// Realm returns realm id, read once per cache.
func (c *ViewCache) Realm(ctx context.Context, tx Tx, id RealmID) (*Realm, error) {
	if r, ok := c.realms[id]; ok {
		return r, nil
	}
	r, err := tx.Realm(ctx, id)
	if err != nil {
		return nil, err
	}
	c.realms[id] = r
	return r, nil
}

func (c *ViewCache) realmLinkifiers(ctx context.Context, tx Tx, id RealmID) ([]compiledLinkifier, error) {
	if l, ok := c.linkifiers[id]; ok {
		return l, nil
	}
	l, err := loadLinkifiers(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	c.linkifiers[id] = l
	return l, nil
}

// messageView is BuildMessageView with a cache of its own.
func (s *Service) messageView(ctx context.Context, tx Tx, m *Message, applyMarkdown bool) (MessageView, error) {
	return s.BuildMessageView(ctx, tx, NewViewCache(), m, applyMarkdown)
}

// BuildMessageView builds the message-list object of m (GET /messages, the
// message event). With applyMarkdown, content is the rendered HTML
// (content_type text/html); otherwise it is the raw Markdown
// (text/x-markdown), as outgoing webhooks send it. The empty topic is "" in
// subject. The view is the same for every viewer: flags are added by the
// caller, and it does not check that anyone may see m. c caches the senders,
// realms and linkifiers that the views built in one transaction share.
func (s *Service) BuildMessageView(ctx context.Context, tx Tx, c *ViewCache, m *Message, applyMarkdown bool) (MessageView, error) {
	sender, err := c.user(ctx, tx, m.SenderID)
	if err != nil {
		return MessageView{}, err
	}
	realm, err := c.Realm(ctx, tx, sender.RealmID)
	if err != nil {
		return MessageView{}, err
	}
	senderEmail := s.APIEmail(sender)
	avatar := s.avatarURL(sender.AvatarSource, senderEmail)
	v := MessageView{
		AvatarURL:       &avatar,
		Client:          m.Client,
		ID:              m.ID,
		IsMeMessage:     m.IsMeMessage,
		Reactions:       m.Reactions,
		RecipientID:     m.RecipientID,
		SenderEmail:     senderEmail,
		SenderFullName:  sender.FullName,
		SenderID:        sender.ID,
		SenderRealmStr:  realm.StringID,
		Subject:         m.Topic,
		Submessages:     m.Submessages,
		Timestamp:       m.SentAt.Unix(),
		Type:            m.Type,
		RenderedContent: m.RenderedContent,
		TopicLinks:      []TopicLink{},
	}
	if v.Reactions == nil {
		v.Reactions = []Reaction{}
	}
	if v.Submessages == nil {
		v.Submessages = []Submessage{}
	}
	if applyMarkdown {
		v.Content, v.ContentType = m.RenderedContent, "text/html"
	} else {
		v.Content, v.ContentType = m.Content, "text/x-markdown"
	}
	if !m.LastEditedAt.IsZero() {
		v.LastEditTimestamp = m.LastEditedAt.Unix()
	}
	if !m.LastMovedAt.IsZero() {
		v.LastMovedTimestamp = m.LastMovedAt.Unix()
	}
	if len(m.EditHistory) > 0 {
		v.EditHistory = make([]EditHistoryView, 0, len(m.EditHistory))
		for _, e := range m.EditHistory {
			ev := EditHistoryView{
				UserID:     e.UserID,
				Timestamp:  e.Timestamp.Unix(),
				PrevStream: e.PrevStreamID,
				Stream:     e.StreamID,
				PrevTopic:  e.PrevTopic,
				Topic:      e.Topic,
			}
			if e.PrevContent != "" || e.PrevRenderedContent != "" {
				ev.PrevContent = new(e.PrevContent)
				ev.PrevRenderedContent = new(e.PrevRenderedContent)
			}
			v.EditHistory = append(v.EditHistory, ev)
		}
	}
	if m.Type == MessageTypeStream {
		st, err := c.stream(ctx, tx, m.StreamID)
		if err != nil {
			return MessageView{}, err
		}
		v.DisplayRecipient = st.Name
		v.StreamID = st.ID
		links, err := c.realmLinkifiers(ctx, tx, m.RealmID)
		if err != nil {
			return MessageView{}, err
		}
		v.TopicLinks = topicLinks(links, m.Topic)
	} else {
		recips := make([]DisplayRecipient, 0, len(m.DirectMembers))
		for _, id := range m.DirectMembers {
			u, err := c.user(ctx, tx, id)
			if err != nil {
				return MessageView{}, err
			}
			recips = append(recips, DisplayRecipient{ID: u.ID, Email: s.APIEmail(u), FullName: u.FullName})
		}
		slices.SortFunc(recips, func(a, b DisplayRecipient) int { return int(a.ID - b.ID) })
		v.DisplayRecipient = recips
	}
	return v, nil
}

// InvalidMessageError is Zulip's error for a message the caller cannot see.
func InvalidMessageError() *Error { return BadRequest("Invalid message(s)") }

// MaxReadableMessageID returns the largest id of a message u may read, as
// Zulip's max_message_id (the newest message in the user's history: the
// newest message GET /messages gives with no narrow), 0 when there is none.
func MaxReadableMessageID(ctx context.Context, tx Tx, u *User) (MessageID, error) {
	access, streams, err := StreamAccessMap(ctx, tx, u)
	if err != nil {
		return 0, err
	}
	q := MessageQuery{RealmID: u.RealmID, Recipients: []RecipientID{}, FlagUser: u.ID, Newest: true, Limit: 1}
	for _, st := range streams {
		if access[st.ID].OK {
			q.Recipients = append(q.Recipients, st.RecipientID)
		}
	}
	dms, err := tx.DirectRecipients(ctx, u.ID)
	if err != nil {
		return 0, err
	}
	q.Recipients = append(q.Recipients, dms...)
	got, err := FetchVisible(ctx, tx, q, 1, func(m *Message) bool { return Readable(u, access, m) })
	if err != nil || len(got) == 0 {
		return 0, err
	}
	return got[0].ID, nil
}

// Readable reports whether viewer may read m, given viewer's channel access
// (see [StreamAccessMap]): a direct message they are a member of, or a
// channel message their access to its channel covers.
func Readable(viewer *User, access map[StreamID]StreamAccess, m *Message) bool {
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, viewer.ID)
	}
	return access[m.StreamID].Allows(m.ID)
}

// FetchVisible returns up to limit messages of q that ok accepts, in q's
// order, reading in batches so that hidden messages do not shorten the
// result. Errors come from the store.
func FetchVisible(ctx context.Context, tx Tx, q MessageQuery, limit int, ok func(*Message) bool) ([]Message, error) {
	var out []Message
	for len(out) < limit {
		q.Limit = limit - len(out)
		batch, err := tx.Messages(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range batch {
			if ok(&batch[i]) {
				out = append(out, batch[i])
				if len(out) == limit {
					break
				}
			}
		}
		if len(batch) < q.Limit {
			break
		}
		last := batch[len(batch)-1].ID
		if q.Newest {
			q.BeforeID = last
		} else {
			q.AfterID = last
		}
	}
	return out, nil
}
