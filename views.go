package chatcore

// Views: the message-list wire format ([MessageView]) and what building many
// views in one transaction shares ([ViewCache]). Who may read a message is
// in access.go; sending is in messages_send.go; reading (GET /messages,
// narrows) is package messages.

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/internal/slicex"
)

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
	// MatchContent and MatchSubject are set by a narrow with a search term:
	// the rendered content and the HTML-escaped topic with the matching
	// words wrapped in <span class="highlight">.
	MatchContent *string `json:"match_content,omitempty"`
	MatchSubject *string `json:"match_subject,omitempty"`
}

// ViewCache memoises what building many [MessageView]s looks up repeatedly.
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

// realmLinkifiers returns the realm's compiled linkifiers as tx sees them
// (see Service.linkifiersIn), read once per ViewCache.
func (c *ViewCache) realmLinkifiers(ctx context.Context, tx Tx, s *Service, id RealmID) ([]compiledLinkifier, error) {
	if l, ok := c.linkifiers[id]; ok {
		return l, nil
	}
	l, err := s.linkifiersIn(ctx, tx, id)
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
	avatar := s.avatarURL(sender, senderEmail, false)
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
		links, err := c.realmLinkifiers(ctx, tx, s, m.RealmID)
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
