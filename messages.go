package chatcore

// Messages: sending, the message-list wire format and reading.
//
// Internal API for other parts of the Service (scheduled delivery, reminders,
// outgoing-webhook replies):
//
//   - sendInTx(ctx, tx, fx, sender, dest, content, client) validates and sends
//     one message inside the caller's transaction, exactly as SendMessage does
//     (same checks, same error texts), records the "message" event and hands the
//     message to afterSend (via fx.sentMsg) once the caller's transaction commits.
//     Destination{StreamID, Topic} is a channel message; Destination{To} a direct
//     message (the sender is added to the participants). SkipAccessCheck bypasses
//     the channel-access check (outgoing-webhook replies, as Zulip does).
//   - canSee(ctx, tx, viewer, m) reports whether viewer may read m (the rule of
//     Message and Messages; reminders use it for "a message the user can access").
//   - messageView(ctx, tx, m, viewer, applyMarkdown) builds the message-list object;
//     applyMarkdown=false gives raw Markdown in content with content_type
//     text/x-markdown, as outgoing webhooks send it.
//   - The pieces of sendInTx, for code that checks without sending (scheduled
//     messages): parseDestination (type/to/topic parameters), normalizeContent,
//     normalizeTopic, canSendToStream, errChannelIDDoesNotExist.
//   - renderMessage / render, prerender / renderChecked (rendering outside the
//     write transaction), compiled linkifiers and topicLinks live in render.go.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of message content and topics, as in Zulip.
const (
	// MaxMessageLength is the largest message content in bytes; longer content
	// is cut and ends with messageTruncatedMarker.
	MaxMessageLength = 10000
	// MaxTopicLength is the largest topic in characters; longer topics are cut
	// and end with "...".
	MaxTopicLength = 60
	// MaxMessagesPerFetch bounds num_before and num_after of [Service.Messages].
	MaxMessagesPerFetch = 1000

	messageTruncatedMarker = "\n[message truncated]"
	topicTruncatedMarker   = "..."
)

// Destination says where sendInTx delivers a message: a channel and topic when
// StreamID is set, otherwise a direct message to To (the sender need not be
// listed).
type Destination struct {
	StreamID StreamID
	Topic    string
	To       []UserID
	// SkipAccessCheck sends to a channel without checking that the sender may
	// post there (outgoing-webhook replies). The channel must still exist in the
	// sender's realm.
	SkipAccessCheck bool
}

// SendMessageRequest holds the parameters of POST /messages. Plain string fields
// are taken literally; To is parsed by [Service.SendMessage] itself (a channel
// name or id, a JSON list of user ids or e-mails, or comma-separated e-mails).
type SendMessageRequest struct {
	// Type is "stream", "channel", "private" or "direct".
	Type string `json:"type" wire:"required"`
	// To is the channel (name or id) or the direct-message recipients.
	To *string `json:"to"`
	// Topic is the channel message's topic ("subject" is accepted as its
	// legacy name).
	Topic   *string `json:"topic" wire:"alias=subject"`
	Content string  `json:"content" wire:"required"`
	// LocalID, QueueID and ReadBySender are read, as Zulip reads them, but
	// have no effect: chatcore has no event queues or read flags.
	LocalID      *string `json:"local_id"`
	QueueID      *string `json:"queue_id"`
	ReadBySender *bool   `json:"read_by_sender"`
	// Client names the sending client ("website", "ZulipPython", ...); empty
	// means "API".
	Client string `json:"-"`
}

// SendMessage sends a message as actor and returns its id. Errors (BAD_REQUEST
// unless noted): "Invalid type" / "Missing 'type' argument"; "Message must not be
// empty"; "Message must not contain null bytes"; "Message must be valid UTF-8";
// "Missing channel", "Invalid data type for channel", STREAM_DOES_NOT_EXIST
// ("Channel 'x' does not exist", "Channel with ID 'n' does not exist"),
// "Not authorized to send to channel 'x'"; "Missing topic", "Invalid character
// in topic, at position N!"; "Message must have recipients", "Invalid email 'x'",
// "Invalid user ID n", "'x' is no longer using Zulip.", "Invalid data type for
// recipients", "Recipient lists may contain emails or user IDs, but not both.".
// Content over [MaxMessageLength] bytes and topics over [MaxTopicLength]
// characters are truncated, not refused.
func (s *Service) SendMessage(ctx context.Context, actorID UserID, req SendMessageRequest) (MessageID, error) {
	var id MessageID
	pre := s.prerenderFor(ctx, actorID, req.Content) // before the write lock; see render.go
	err := s.update(ctx, func(tx Tx, fx *effects) error {
		sender, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		dest, err := s.parseDestination(ctx, tx, sender, req)
		if err != nil {
			return err
		}
		client := req.Client
		if client == "" {
			client = "API"
		}
		m, err := s.sendPrerendered(ctx, tx, fx, sender, dest, req.Content, client, pre)
		if err != nil {
			return err
		}
		id = m.ID
		return nil
	})
	return id, err
}

// parseDestination turns the type/to/topic parameters into a Destination.
func (s *Service) parseDestination(ctx context.Context, tx Tx, sender *User, req SendMessageRequest) (Destination, error) {
	var dest Destination
	switch req.Type {
	case "stream", "channel":
		if req.To == nil {
			return dest, BadRequest("Missing channel")
		}
		st, err := channelFromIndicator(ctx, tx, sender.RealmID, *req.To)
		if err != nil {
			return dest, err
		}
		if req.Topic == nil {
			return dest, BadRequest("Missing topic")
		}
		dest.StreamID = st.ID
		dest.Topic = *req.Topic
	case "private", "direct":
		if req.To == nil {
			return dest, BadRequest("Message must have recipients")
		}
		to, err := directRecipientsFromParam(ctx, tx, sender.RealmID, *req.To)
		if err != nil {
			return dest, err
		}
		if len(to) == 0 {
			return dest, BadRequest("Message must have recipients")
		}
		dest.To = to
	case "":
		return dest, MissingArgument("type")
	default:
		return dest, BadRequest("Invalid type: Value error, Not in the list of possible values")
	}
	return dest, nil
}

// channelFromIndicator resolves Zulip's "to" of a channel message: a raw name, a
// JSON string, a JSON integer id, or a one-element JSON list of either.
func channelFromIndicator(ctx context.Context, tx Tx, realm RealmID, to string) (*Stream, error) {
	var data any
	dec := json.NewDecoder(strings.NewReader(to))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil || dec.More() {
		return streamByNameForSend(ctx, tx, realm, to)
	}
	if list, ok := data.([]any); ok {
		if len(list) != 1 {
			return nil, BadRequest("Expected exactly one channel")
		}
		data = list[0]
	}
	switch v := data.(type) {
	case string:
		return streamByNameForSend(ctx, tx, realm, v)
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil {
			return nil, BadRequest("Invalid data type for channel")
		}
		st, err := streamInRealm(ctx, tx, realm, StreamID(n))
		if errors.Is(err, ErrNotFound) {
			return nil, errChannelIDDoesNotExist(StreamID(n))
		}
		return st, err
	}
	return nil, BadRequest("Invalid data type for channel")
}

func streamByNameForSend(ctx context.Context, tx Tx, realm RealmID, name string) (*Stream, error) {
	name = strings.TrimSpace(name)
	st, err := tx.StreamByName(ctx, realm, name)
	if errors.Is(err, ErrNotFound) || (err == nil && st.RealmID != realm) {
		// Zulip HTML-escapes the name it echoes (django.utils.html.escape).
		escaped := djangoEscaper.Replace(name)
		return nil, &Error{Code: CodeStreamDoesNotExist, Kind: KindInvalid,
			Msg: fmt.Sprintf("Channel '%s' does not exist", escaped), Data: map[string]any{"stream": escaped}}
	}
	return st, err
}

// djangoEscaper escapes text as django.utils.html.escape does.
var djangoEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

func errChannelIDDoesNotExist(id StreamID) *Error {
	return &Error{Code: CodeStreamDoesNotExist, Kind: KindInvalid,
		Msg: fmt.Sprintf("Channel with ID '%d' does not exist", id), Data: map[string]any{"stream_id": int64(id)}}
}

// directRecipientsFromParam parses the "to" of a direct message: a JSON list of
// user ids or of e-mails, or comma-separated e-mails, and resolves them to the
// realm's users.
func directRecipientsFromParam(ctx context.Context, tx Tx, realm RealmID, to string) ([]UserID, error) {
	var data any
	dec := json.NewDecoder(strings.NewReader(to))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil || dec.More() {
		data = to
	}
	if s, ok := data.(string); ok {
		parts := strings.Split(s, ",")
		list := make([]any, 0, len(parts))
		for _, p := range parts {
			list = append(list, p)
		}
		data = list
	}
	list, ok := data.([]any)
	if !ok {
		return nil, BadRequest("Invalid data type for recipients")
	}
	if len(list) == 0 {
		return nil, nil
	}
	mixed := BadRequest("Recipient lists may contain emails or user IDs, but not both.")
	var ids []UserID
	switch list[0].(type) {
	case string:
		for _, item := range list {
			email, ok := item.(string)
			if !ok {
				return nil, mixed
			}
			email = strings.TrimSpace(email)
			if email == "" {
				continue
			}
			u, err := tx.UserByEmail(ctx, realm, email)
			if errors.Is(err, ErrNotFound) || (err == nil && u.RealmID != realm) {
				return nil, BadRequestf("Invalid email '%s'", email)
			}
			if err != nil {
				return nil, err
			}
			ids = append(ids, u.ID)
		}
	case json.Number:
		for _, item := range list {
			n, ok := item.(json.Number)
			if !ok {
				return nil, mixed
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return nil, BadRequest("Invalid data type for recipients")
			}
			ids = append(ids, UserID(v))
		}
	default:
		return nil, BadRequest("Invalid data type for recipients")
	}
	return ids, nil
}

// normalizeContent applies Zulip's message-body rules: trailing whitespace and
// leading newlines are dropped, empty or NUL-containing content is refused, and
// content over MaxMessageLength bytes is cut to end with the truncation marker.
func normalizeContent(content string) (string, error) {
	if !utf8.ValidString(content) {
		return "", BadRequest("Message must be valid UTF-8")
	}
	content = strings.TrimRightFunc(content, unicode.IsSpace)
	content = strings.TrimLeft(content, "\n")
	if content == "" {
		return "", BadRequest("Message must not be empty")
	}
	if strings.IndexByte(content, 0) >= 0 {
		return "", BadRequest("Message must not contain null bytes")
	}
	return truncateBytes(content, MaxMessageLength, messageTruncatedMarker), nil
}

// truncateBytes cuts s to at most limit bytes, ending in marker, without
// splitting a UTF-8 sequence.
func truncateBytes(s string, limit int, marker string) string {
	if len(s) <= limit {
		return s
	}
	cut := limit - len(marker)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + marker
}

// normalizeTopic applies Zulip's topic rules: surrounding whitespace is
// dropped, the realm's empty-topic display name (and "(no topic)") means the
// empty topic, unprintable characters are refused and topics over
// MaxTopicLength characters are cut to end with "...".
func normalizeTopic(realm *Realm, topic string) (string, error) {
	if !utf8.ValidString(topic) {
		return "", BadRequest("Topic must be valid UTF-8")
	}
	topic = strings.TrimSpace(topic)
	if topic == emptyTopicDisplayName(realm) || topic == noTopicName {
		return "", nil
	}
	pos := 0
	for _, r := range topic {
		pos++
		if unicode.IsControl(r) || unicode.Is(unicode.Cs, r) || !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cf, unicode.Co) {
			return "", BadRequestf("Invalid character in topic, at position %d!", pos)
		}
	}
	if utf8.RuneCountInString(topic) > MaxTopicLength {
		runes := []rune(topic)
		topic = string(runes[:MaxTopicLength-utf8.RuneCountInString(topicTruncatedMarker)]) + topicTruncatedMarker
	}
	return topic, nil
}

// noTopicName is the legacy name of the empty topic, which Zulip also maps to "".
const noTopicName = "(no topic)"

// emptyTopicDisplayName returns how the realm shows the empty topic.
func emptyTopicDisplayName(r *Realm) string {
	if r == nil || r.EmptyTopicDisplayName == "" {
		return DefaultEmptyTopicDisplayName
	}
	return r.EmptyTopicDisplayName
}

// sendInTx validates and sends one message from sender inside tx, and records
// its event and its afterSend hand-off in fx. It returns the stored message.
// The errors are those listed on [Service.SendMessage] for the content, the
// topic, the channel and the recipients; a channel of another realm is
// "Channel with ID 'n' does not exist", a recipient of another realm or a
// missing one "Invalid user ID n".
func (s *Service) sendInTx(ctx context.Context, tx Tx, fx *effects, sender *User, dest Destination, content string, client string) (*Message, error) {
	return s.sendPrerendered(ctx, tx, fx, sender, dest, content, client, nil)
}

// sendPrerendered is sendInTx reusing pre, a rendering of content made before
// the transaction, when it still holds (see renderChecked); pre may be nil.
func (s *Service) sendPrerendered(ctx context.Context, tx Tx, fx *effects, sender *User, dest Destination, content string, client string, pre *prerendered) (*Message, error) {
	body, err := normalizeContent(content)
	if err != nil {
		return nil, err
	}
	realm, err := tx.Realm(ctx, sender.RealmID)
	if err != nil {
		return nil, err
	}
	m := &Message{
		RealmID:  sender.RealmID,
		SenderID: sender.ID,
		Content:  body,
		Client:   client,
		SentAt:   s.clock.Now().UTC(),
	}
	var st *Stream
	var eventUsers []UserID
	if dest.StreamID != 0 {
		topic, err := normalizeTopic(realm, dest.Topic)
		if err != nil {
			return nil, err
		}
		st, err = streamInRealm(ctx, tx, sender.RealmID, dest.StreamID)
		if errors.Is(err, ErrNotFound) {
			return nil, errChannelIDDoesNotExist(dest.StreamID)
		}
		if err != nil {
			return nil, err
		}
		if !dest.SkipAccessCheck {
			if err := canSendToStream(ctx, tx, sender, st); err != nil {
				return nil, err
			}
		}
		m.Type = MessageTypeStream
		m.StreamID = st.ID
		m.RecipientID = st.RecipientID
		m.Topic = topic
		subs, err := tx.Subscriptions(ctx, st.ID, 0)
		if err != nil {
			return nil, err
		}
		for _, sub := range subs {
			if sub.Active {
				eventUsers = append(eventUsers, sub.UserID)
			}
		}
	} else {
		if len(dest.To) == 0 {
			return nil, BadRequest("Message must have recipients")
		}
		members := []UserID{sender.ID}
		for _, id := range dest.To {
			u, err := userInRealm(ctx, tx, sender.RealmID, id)
			if errors.Is(err, ErrNotFound) {
				return nil, BadRequestf("Invalid user ID %d", id)
			}
			if err != nil {
				return nil, err
			}
			if !u.IsActive {
				return nil, BadRequestf("'%s' is no longer using Zulip.", u.Email)
			}
			members = append(members, u.ID)
		}
		slices.Sort(members)
		members = slices.Compact(members)
		rid, err := tx.DirectRecipient(ctx, sender.RealmID, members)
		if err != nil {
			return nil, err
		}
		m.Type = MessageTypePrivate
		m.RecipientID = rid
		m.DirectMembers = members
		eventUsers = members
	}
	r, err := s.renderChecked(ctx, tx, sender.RealmID, body, pre)
	if err != nil {
		return nil, err
	}
	m.RenderedContent = r.html
	m.IsMeMessage = r.isMe
	if err := tx.CreateMessage(ctx, m); err != nil {
		return nil, err
	}
	if st != nil && st.FirstMessageID == 0 {
		st.FirstMessageID = m.ID
		if err := tx.UpdateStream(ctx, st); err != nil {
			return nil, err
		}
	}
	view, err := s.messageView(ctx, tx, m, sender, true)
	if err != nil {
		return nil, err
	}
	fx.event(sender.RealmID, eventUsers, map[string]any{"type": "message", "message": view, "flags": []string{}})
	fx.sentMsg(m, r.mentioned)
	return m, nil
}

// canSendToStream applies Zulip's rule for posting to a channel: archived
// channels take no messages; non-guests may post to public channels; everyone
// else needs an active subscription (a bot may also use its owner's).
func canSendToStream(ctx context.Context, tx Tx, sender *User, st *Stream) error {
	denied := BadRequestf("Not authorized to send to channel '%s'", st.Name)
	if st.IsArchived {
		return denied
	}
	if !st.InviteOnly && sender.Role != RoleGuest {
		return nil
	}
	ok, err := subscribed(ctx, tx, st.ID, sender.ID)
	if err != nil || ok {
		return err
	}
	if sender.IsBot && sender.BotOwnerID != 0 {
		ok, err := subscribed(ctx, tx, st.ID, sender.BotOwnerID)
		if err != nil || ok {
			return err
		}
	}
	return denied
}

// subscribed reports whether the user has an active subscription to the channel.
func subscribed(ctx context.Context, tx Tx, stream StreamID, user UserID) (bool, error) {
	sub, err := tx.Subscription(ctx, stream, user)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return sub.Active, nil
}

// canSee reports whether viewer may read m: messages of another realm never;
// direct messages when viewer takes part; channel messages of public channels
// for non-guests; otherwise with an active subscription, and in a channel with
// protected history only from the subscription's FirstVisibleMessageID on.
func canSee(ctx context.Context, tx Tx, viewer *User, m *Message) (bool, error) {
	if m.RealmID != viewer.RealmID {
		return false, nil
	}
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, viewer.ID), nil
	}
	st, err := streamInRealm(ctx, tx, viewer.RealmID, m.StreamID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	acc, err := streamAccessFor(ctx, tx, viewer, st)
	if err != nil {
		return false, err
	}
	return acc.allows(m.ID), nil
}

// streamAccess is what a viewer may read of one channel.
type streamAccess struct {
	ok bool
	// minID is the smallest readable message id (protected history), 0 for all.
	minID MessageID
}

func (a streamAccess) allows(id MessageID) bool { return a.ok && id >= a.minID }

// streamAccessFor computes the viewer's read access to st.
func streamAccessFor(ctx context.Context, tx Tx, viewer *User, st *Stream) (streamAccess, error) {
	if !st.InviteOnly && viewer.Role != RoleGuest {
		return streamAccess{ok: true}, nil
	}
	sub, err := tx.Subscription(ctx, st.ID, viewer.ID)
	if errors.Is(err, ErrNotFound) {
		return streamAccess{}, nil
	}
	if err != nil {
		return streamAccess{}, err
	}
	if !sub.Active {
		return streamAccess{}, nil
	}
	acc := streamAccess{ok: true}
	if !st.HistoryPublicToSubscribers {
		acc.minID = sub.FirstVisibleMessageID
	}
	return acc, nil
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
	RenderedContent    string            `json:"rendered_content"`
}

// viewCache memoises what building many MessageViews looks up repeatedly.
type viewCache struct {
	users      map[UserID]*User
	streams    map[StreamID]*Stream
	realms     map[RealmID]*Realm
	linkifiers map[RealmID][]compiledLinkifier
}

func newViewCache() *viewCache {
	return &viewCache{
		users:      map[UserID]*User{},
		streams:    map[StreamID]*Stream{},
		realms:     map[RealmID]*Realm{},
		linkifiers: map[RealmID][]compiledLinkifier{},
	}
}

func (c *viewCache) user(ctx context.Context, tx Tx, id UserID) (*User, error) {
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

func (c *viewCache) stream(ctx context.Context, tx Tx, id StreamID) (*Stream, error) {
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

func (c *viewCache) realm(ctx context.Context, tx Tx, id RealmID) (*Realm, error) {
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

func (c *viewCache) realmLinkifiers(ctx context.Context, tx Tx, id RealmID) ([]compiledLinkifier, error) {
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

// messageView builds the message-list object of m as viewer sees it. With
// applyMarkdown, content is the rendered HTML (content_type text/html);
// otherwise it is the raw Markdown (text/x-markdown). The empty topic is "" in
// subject. It does not check that viewer may see m.
func (s *Service) messageView(ctx context.Context, tx Tx, m *Message, viewer *User, applyMarkdown bool) (MessageView, error) {
	return s.buildView(ctx, tx, newViewCache(), m, viewer, applyMarkdown)
}

func (s *Service) buildView(ctx context.Context, tx Tx, c *viewCache, m *Message, _ *User, applyMarkdown bool) (MessageView, error) {
	sender, err := c.user(ctx, tx, m.SenderID)
	if err != nil {
		return MessageView{}, err
	}
	realm, err := c.realm(ctx, tx, sender.RealmID)
	if err != nil {
		return MessageView{}, err
	}
	senderEmail := s.apiEmail(sender)
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
			recips = append(recips, DisplayRecipient{ID: u.ID, Email: s.apiEmail(u), FullName: u.FullName})
		}
		slices.SortFunc(recips, func(a, b DisplayRecipient) int { return int(a.ID - b.ID) })
		v.DisplayRecipient = recips
	}
	return v, nil
}

// errInvalidMessage is Zulip's error for a message the caller cannot see.
func errInvalidMessage() *Error { return BadRequest("Invalid message(s)") }

// Message returns one message as actor sees it (content rendered as HTML) and
// its raw Markdown. A missing message, one of another realm, or one the actor
// may not read gives BAD_REQUEST "Invalid message(s)". An empty channel topic
// is shown as the realm's empty-topic display name in subject.
func (s *Service) Message(ctx context.Context, actorID UserID, id MessageID) (MessageView, string, error) {
	var view MessageView
	var raw string
	err := s.view(ctx, func(tx Tx) error {
		viewer, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := tx.Message(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return errInvalidMessage()
		}
		if err != nil {
			return err
		}
		ok, err := canSee(ctx, tx, viewer, m)
		if err != nil {
			return err
		}
		if !ok {
			return errInvalidMessage()
		}
		c := newViewCache()
		view, err = s.buildView(ctx, tx, c, m, viewer, true)
		if err != nil {
			return err
		}
		if view.Type == MessageTypeStream && view.Subject == "" {
			r, err := c.realm(ctx, tx, viewer.RealmID)
			if err != nil {
				return err
			}
			view.Subject = emptyTopicDisplayName(r)
		}
		raw = m.Content
		return nil
	})
	return view, raw, err
}

// largerThanMaxMessageID is the anchor Zulip reports for anchor=newest.
const largerThanMaxMessageID MessageID = 10000000000000000

// NarrowTerm is one element of a narrow: {"operator": ..., "operand": ...}
// (or, in the legacy form, ["operator", "operand"]). Operand is raw JSON: a
// channel id or name, a topic string, or for dm a list of user ids (or
// e-mails, or a comma-separated e-mail string).
type NarrowTerm struct {
	Operator string          `json:"operator"`
	Operand  json.RawMessage `json:"operand"`
	Negated  bool            `json:"negated"`
}

// MessagesRequest holds the parameters of GET /messages. Nil fields take
// Zulip's defaults: anchor "newest", num_before and num_after 0, no narrow,
// apply_markdown true, allow_empty_topic_name false.
type MessagesRequest struct {
	// Anchor is "newest", "oldest", "first_unread" (treated as "newest":
	// chatcore keeps no unread state) or a message id.
	Anchor    *string `json:"anchor"`
	NumBefore *int    `json:"num_before"`
	NumAfter  *int    `json:"num_after"`
	// Narrow holds terms built by Go callers; NarrowJSON is the wire
	// parameter "narrow", a JSON list whose elements are either objects
	// {"operator", "operand", "negated"} or legacy [operator, operand] string
	// pairs (null or [] is no narrow). When both are set, all their terms
	// apply. A malformed NarrowJSON gives BAD_REQUEST with Zulip's texts:
	// "narrow is not a list", "Invalid narrow[i]: Value error, element is not
	// a string pair" (a list that is not two strings), "... operand is
	// missing", "... operator is missing", "... dict or list required",
	// `narrow[i]["operator"] is not a string`, `narrow[i]["negated"] is not a
	// boolean`.
	Narrow     []NarrowTerm    `json:"-"`
	NarrowJSON json.RawMessage `json:"narrow"`
	// IncludeAnchor, when false, leaves the anchor message out.
	IncludeAnchor *bool `json:"include_anchor"`
	// ApplyMarkdown false gives raw Markdown in content.
	ApplyMarkdown *bool `json:"apply_markdown"`
	// AllowEmptyTopicName true keeps the empty topic as "" in subject instead
	// of the realm's empty-topic display name.
	AllowEmptyTopicName *bool `json:"allow_empty_topic_name"`
	// ClientGravatar is accepted for compatibility; avatar_url is always set.
	ClientGravatar *bool `json:"client_gravatar"`
	// UseFirstUnreadAnchor is the legacy spelling of anchor=first_unread.
	UseFirstUnreadAnchor *bool `json:"use_first_unread_anchor"`
}

// MessagesResult is the answer of GET /messages.
type MessagesResult struct {
	Messages    []MessageView `json:"messages"`
	FoundAnchor bool          `json:"found_anchor"`
	FoundOldest bool          `json:"found_oldest"`
	FoundNewest bool          `json:"found_newest"`
	Anchor      MessageID     `json:"anchor"`
}

// narrowSpec is a parsed narrow.
type narrowSpec struct {
	stream   *Stream
	topicKey *string
	dm       []UserID // participants, viewer included, sorted; nil: no dm term
	sender   UserID   // only messages from this user, when non-zero
	onlyDMs  bool     // is:dm
}

// errBadNarrow is Zulip's BadNarrowOperatorError.
func errBadNarrow(desc string) *Error { return BadRequest("Invalid narrow operator: " + desc) }

// narrowTerms decodes the wire form of a narrow (see
// [MessagesRequest.NarrowJSON]) into terms.
func narrowTerms(raw json.RawMessage) ([]NarrowTerm, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		if !json.Valid(raw) {
			return nil, BadRequest("narrow is not valid JSON")
		}
		return nil, BadRequest("narrow is not a list")
	}
	terms := make([]NarrowTerm, 0, len(elems))
	for i, elem := range elems {
		valueError := func(msg string) error {
			return BadRequestf("Invalid narrow[%d]: Value error, %s", i, msg)
		}
		switch elem[0] {
		case '[':
			var pair []json.RawMessage
			if err := json.Unmarshal(elem, &pair); err != nil {
				return nil, err // cannot happen: elem is valid JSON
			}
			var op string
			if len(pair) != 2 || !isJSONString(pair[0]) || !isJSONString(pair[1]) || json.Unmarshal(pair[0], &op) != nil {
				return nil, valueError("element is not a string pair")
			}
			terms = append(terms, NarrowTerm{Operator: op, Operand: pair[1]})
		case '{':
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(elem, &obj); err != nil {
				return nil, err // cannot happen: elem is valid JSON
			}
			operand, ok := obj["operand"]
			if !ok || string(operand) == "null" {
				return nil, valueError("operand is missing")
			}
			opRaw, ok := obj["operator"]
			if !ok || string(opRaw) == "null" {
				return nil, valueError("operator is missing")
			}
			t := NarrowTerm{Operand: operand}
			if !isJSONString(opRaw) || json.Unmarshal(opRaw, &t.Operator) != nil {
				return nil, BadRequestf(`narrow[%d]["operator"] is not a string`, i)
			}
			if neg, ok := obj["negated"]; ok && (string(neg) == "null" || json.Unmarshal(neg, &t.Negated) != nil) {
				return nil, BadRequestf(`narrow[%d]["negated"] is not a boolean`, i)
			}
			terms = append(terms, t)
		default:
			return nil, valueError("dict or list required")
		}
	}
	return terms, nil
}

// isJSONString reports whether raw, a valid JSON value, is a string.
func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// parseNarrow checks the narrow terms against the viewer's realm.
func parseNarrow(ctx context.Context, tx Tx, viewer *User, realm *Realm, terms []NarrowTerm) (narrowSpec, error) {
	var spec narrowSpec
	for _, t := range terms {
		if t.Negated {
			return spec, errBadNarrow("negated terms are not supported")
		}
		switch t.Operator {
		case "channel", "stream":
			var operand any
			dec := json.NewDecoder(strings.NewReader(string(t.Operand)))
			dec.UseNumber()
			if err := dec.Decode(&operand); err != nil {
				return spec, errBadNarrow("unknown channel")
			}
			var st *Stream
			var err error
			switch v := operand.(type) {
			case json.Number:
				n, perr := strconv.ParseInt(v.String(), 10, 64)
				if perr != nil {
					return spec, errBadNarrow("unknown channel")
				}
				st, err = streamInRealm(ctx, tx, viewer.RealmID, StreamID(n))
			case string:
				if id, ok := ParseID[StreamID](v); ok {
					st, err = streamInRealm(ctx, tx, viewer.RealmID, id)
				} else {
					st, err = tx.StreamByName(ctx, viewer.RealmID, v)
					if err == nil && st.RealmID != viewer.RealmID {
						err = ErrNotFound
					}
				}
			default:
				return spec, errBadNarrow("unknown channel")
			}
			if errors.Is(err, ErrNotFound) {
				return spec, errBadNarrow("unknown channel")
			}
			if err != nil {
				return spec, err
			}
			spec.stream = st
		case "topic", "subject":
			var topic string
			if err := json.Unmarshal(t.Operand, &topic); err != nil {
				return spec, errBadNarrow("invalid topic")
			}
			topic = strings.TrimSpace(topic)
			if topic == emptyTopicDisplayName(realm) {
				topic = ""
			}
			key := TopicKey(topic)
			spec.topicKey = &key
		case "dm", "pm-with":
			ids, err := dmOperand(ctx, tx, viewer.RealmID, t.Operand)
			if err != nil {
				return spec, err
			}
			members := append(ids, viewer.ID)
			slices.Sort(members)
			spec.dm = slices.Compact(members)
		case "sender":
			ids, err := dmOperand(ctx, tx, viewer.RealmID, t.Operand)
			if err != nil || len(ids) != 1 {
				return spec, errBadNarrow("unknown user")
			}
			spec.sender = ids[0]
		case "is":
			var what string
			if err := json.Unmarshal(t.Operand, &what); err != nil || (what != "dm" && what != "private") {
				return spec, errBadNarrow("unknown 'is' operand")
			}
			spec.onlyDMs = true
		default:
			return spec, errBadNarrow("unknown operator " + t.Operator)
		}
	}
	return spec, nil
}

// dmOperand resolves the operand of a dm narrow to users of the realm.
func dmOperand(ctx context.Context, tx Tx, realm RealmID, raw json.RawMessage) ([]UserID, error) {
	var operand any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&operand); err != nil {
		return nil, errBadNarrow("invalid user list")
	}
	var ids []UserID
	addEmail := func(email string) error {
		email = strings.TrimSpace(email)
		if email == "" {
			return nil
		}
		u, err := tx.UserByEmail(ctx, realm, email)
		if errors.Is(err, ErrNotFound) || (err == nil && u.RealmID != realm) {
			return errBadNarrow("unknown user " + email)
		}
		if err != nil {
			return err
		}
		ids = append(ids, u.ID)
		return nil
	}
	switch v := operand.(type) {
	case string:
		for e := range strings.SplitSeq(v, ",") {
			if err := addEmail(e); err != nil {
				return nil, err
			}
		}
	case json.Number:
		operand = []any{v}
	}
	if list, ok := operand.([]any); ok {
		for _, item := range list {
			switch x := item.(type) {
			case json.Number:
				n, err := strconv.ParseInt(x.String(), 10, 64)
				if err != nil {
					return nil, errBadNarrow("invalid user ID")
				}
				u, err := userInRealm(ctx, tx, realm, UserID(n))
				if errors.Is(err, ErrNotFound) {
					return nil, errBadNarrow(fmt.Sprintf("unknown user ID %d", n))
				}
				if err != nil {
					return nil, err
				}
				ids = append(ids, u.ID)
			case string:
				if err := addEmail(x); err != nil {
					return nil, err
				}
			default:
				return nil, errBadNarrow("invalid user list")
			}
		}
	} else if _, ok := operand.(string); !ok {
		return nil, errBadNarrow("invalid user list")
	}
	if len(ids) == 0 {
		return nil, errBadNarrow("invalid user list")
	}
	return ids, nil
}

// streamAccessMap returns the viewer's read access to every channel of the realm.
func streamAccessMap(ctx context.Context, tx Tx, viewer *User) (map[StreamID]streamAccess, []Stream, error) {
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
	acc := make(map[StreamID]streamAccess, len(streams))
	for _, st := range streams {
		switch sub, ok := active[st.ID]; {
		case !st.InviteOnly && viewer.Role != RoleGuest:
			acc[st.ID] = streamAccess{ok: true}
		case ok && st.HistoryPublicToSubscribers:
			acc[st.ID] = streamAccess{ok: true}
		case ok:
			acc[st.ID] = streamAccess{ok: true, minID: sub.FirstVisibleMessageID}
		}
	}
	return acc, streams, nil
}

// Messages returns the messages actor may see that match req's narrow, around
// the anchor, in the message-list format, with Zulip's found_anchor,
// found_oldest and found_newest rules. Errors (BAD_REQUEST): "Invalid anchor",
// "num_before is too small" / "num_after is too small", "Too many messages
// requested (maximum 1000).", "Invalid narrow operator: <why>" for unknown
// operators, channels (also those of other realms) or users. Narrow operators:
// channel (stream), topic (subject), dm (pm-with), sender, is:dm (is:private).
func (s *Service) Messages(ctx context.Context, actorID UserID, req MessagesRequest) (MessagesResult, error) {
	var res MessagesResult
	numBefore, numAfter := 0, 0
	if req.NumBefore != nil {
		numBefore = *req.NumBefore
	}
	if req.NumAfter != nil {
		numAfter = *req.NumAfter
	}
	switch {
	case numBefore < 0:
		return res, BadRequest("num_before is too small")
	case numAfter < 0:
		return res, BadRequest("num_after is too small")
	}
	// Zulip checks the narrow's shape with the other parameters, before the
	// checks of its view body.
	terms, err := narrowTerms(req.NarrowJSON)
	if err != nil {
		return res, err
	}
	terms = slices.Concat(req.Narrow, terms)
	if numBefore > MaxMessagesPerFetch || numAfter > MaxMessagesPerFetch {
		return res, BadRequestf("Too many messages requested (maximum %d).", MaxMessagesPerFetch)
	}
	anchor := largerThanMaxMessageID
	anchoredLeft, anchoredRight := false, true
	if req.Anchor != nil {
		switch a := strings.TrimSpace(*req.Anchor); a {
		case "newest", "first_unread":
		case "oldest":
			anchor, anchoredLeft, anchoredRight = 0, true, false
		default:
			n, err := strconv.ParseInt(a, 10, 64)
			if err != nil || n < 0 {
				return res, BadRequest("Invalid anchor")
			}
			anchor, anchoredRight = MessageID(n), false
			if anchor >= largerThanMaxMessageID {
				anchor, anchoredRight = largerThanMaxMessageID, true
			}
		}
	}
	includeAnchor := req.IncludeAnchor == nil || *req.IncludeAnchor
	applyMarkdown := req.ApplyMarkdown == nil || *req.ApplyMarkdown
	allowEmptyTopic := req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName

	err = s.view(ctx, func(tx Tx) error {
		viewer, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		c := newViewCache()
		realm, err := c.realm(ctx, tx, viewer.RealmID)
		if err != nil {
			return err
		}
		spec, err := parseNarrow(ctx, tx, viewer, realm, terms)
		if err != nil {
			return err
		}
		access, streams, err := streamAccessMap(ctx, tx, viewer)
		if err != nil {
			return err
		}
		q := MessageQuery{RealmID: viewer.RealmID, TopicKey: spec.topicKey}
		switch {
		case spec.dm != nil && spec.stream != nil:
			q.Recipients = []RecipientID{}
		case spec.dm != nil:
			// A View finds the conversation but cannot create it: one that
			// does not exist yet has no messages.
			q.Recipients = []RecipientID{}
			rid, err := tx.DirectRecipient(ctx, viewer.RealmID, spec.dm)
			switch {
			case err == nil:
				q.Recipients = append(q.Recipients, rid)
			case !errors.Is(err, ErrNotFound):
				return err
			}
		case spec.stream != nil && spec.onlyDMs:
			q.Recipients = []RecipientID{}
		case spec.onlyDMs:
			dms, err := tx.DirectRecipients(ctx, viewer.ID)
			if err != nil {
				return err
			}
			q.Recipients = append([]RecipientID{}, dms...)
		case spec.stream != nil:
			q.Recipients = []RecipientID{}
			if access[spec.stream.ID].ok {
				q.Recipients = append(q.Recipients, spec.stream.RecipientID)
			}
		default:
			q.Recipients = []RecipientID{}
			for _, st := range streams {
				if access[st.ID].ok {
					q.Recipients = append(q.Recipients, st.RecipientID)
				}
			}
			if spec.topicKey == nil {
				dms, err := tx.DirectRecipients(ctx, viewer.ID)
				if err != nil {
					return err
				}
				q.Recipients = append(q.Recipients, dms...)
			}
		}
		visible := func(m *Message) bool {
			if spec.sender != 0 && m.SenderID != spec.sender {
				return false
			}
			if m.Type == MessageTypePrivate {
				return slices.Contains(m.DirectMembers, viewer.ID)
			}
			return access[m.StreamID].allows(m.ID)
		}

		var rows []Message
		needBefore := !anchoredLeft && numBefore > 0
		needAfter := !anchoredRight && numAfter > 0
		if needBefore {
			bq := q
			bq.Newest = true
			limit := numBefore
			if !anchoredRight {
				bq.BeforeID = anchor + 1
				limit++
			}
			got, err := fetchVisible(ctx, tx, bq, limit, visible)
			if err != nil {
				return err
			}
			slices.Reverse(got)
			rows = append(rows, got...)
		}
		if needAfter {
			aq := q
			if anchor > 1 {
				aq.AfterID = anchor - 1
			}
			got, err := fetchVisible(ctx, tx, aq, numAfter+1, visible)
			if err != nil {
				return err
			}
			rows = append(rows, got...)
		}
		if !needBefore && !needAfter && !anchoredLeft && !anchoredRight {
			oq := q
			oq.AfterID, oq.BeforeID = anchor-1, anchor+1
			got, err := fetchVisible(ctx, tx, oq, 1, visible)
			if err != nil {
				return err
			}
			rows = append(rows, got...)
		}
		slices.SortFunc(rows, func(a, b Message) int { return cmp.Compare(a.ID, b.ID) })
		rows = slices.CompactFunc(rows, func(a, b Message) bool { return a.ID == b.ID })

		var before, anchorRows, after []Message
		for _, m := range rows {
			switch {
			case anchoredRight || m.ID < anchor:
				before = append(before, m)
			case m.ID == anchor:
				anchorRows = append(anchorRows, m)
			default:
				after = append(after, m)
			}
		}
		if numBefore > 0 && len(before) > numBefore {
			before = before[len(before)-numBefore:]
		}
		if numAfter > 0 && len(after) > numAfter {
			after = after[:numAfter]
		}
		res.FoundAnchor = includeAnchor && len(anchorRows) == 1
		res.FoundOldest = anchoredLeft || len(before) < numBefore
		res.FoundNewest = anchoredRight || len(after) < numAfter
		res.Anchor = anchor
		if !includeAnchor {
			anchorRows = nil
		}
		final := slices.Concat(before, anchorRows, after)
		res.Messages = make([]MessageView, 0, len(final))
		for i := range final {
			v, err := s.buildView(ctx, tx, c, &final[i], viewer, applyMarkdown)
			if err != nil {
				return err
			}
			if !allowEmptyTopic && v.Type == MessageTypeStream && v.Subject == "" {
				v.Subject = emptyTopicDisplayName(realm)
			}
			res.Messages = append(res.Messages, v)
		}
		return nil
	})
	return res, err
}

// fetchVisible returns up to limit messages of q that ok accepts, in q's
// order, reading in batches so that hidden messages do not shorten the result.
func fetchVisible(ctx context.Context, tx Tx, q MessageQuery, limit int, ok func(*Message) bool) ([]Message, error) {
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
