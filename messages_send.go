package chatcore

// Sending messages: SendMessage, content and topic normalisation and the
// permission to post to a channel; destinations are in messages_destination.go.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/eventwire"
	"github.com/chatcore/chatcore/internal/markdown"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
)

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
	// LocalID and QueueID ask for Zulip's local echo (see
	// [Destination].SenderQueueID): the message event in the sender's queue
	// QueueID carries local_message_id LocalID. Either alone has no effect.
	LocalID *string `json:"local_id"`
	QueueID *string `json:"queue_id"`
	// ReadBySender says whether the message is read for its sender. Without
	// it, it is read only when Client is one of Zulip's own apps ("website",
	// "ZulipMobile", ...), as Zulip's Client.default_read_by_sender decides.
	ReadBySender *bool `json:"read_by_sender"`
	// Client names the sending client ("website", "ZulipPython", ...); empty
	// means "API".
	Client string `json:"-"`
	// Authenticated is the user [Service.Authenticate] returned for this
	// request, or nil. When it is the actor, the send takes the actor's realm
	// from it for the work done before its write transaction (rendering, and
	// announcing its reads to a store that prefetches, see [Prefetcher])
	// instead of reading it first; every rule is still checked on the actor
	// read inside the write transaction. It must not be modified afterwards.
	Authenticated *User `json:"-"`
}

// SendMessage sends a message as actor and returns its id. Errors (BAD_REQUEST
// unless noted): "Invalid type" / "Missing 'type' argument"; "Message must not be
// empty"; "Message must not contain null bytes"; "Message must be valid UTF-8";
// "Missing channel", "Invalid data type for channel", STREAM_DOES_NOT_EXIST
// ("Channel 'x' does not exist", "Channel with ID 'n' does not exist"),
// "Not authorized to send to channel 'x'"; "Missing topic", "Invalid character
// in topic, at position N!"; "Message must have recipients", "Invalid email 'x'",
// "Invalid user ID n", "'x' is no longer using Zulip.", "Invalid data type for
// recipients", "Recipient lists may contain emails or user IDs, but not both.",
// "to is too long (limit: 1000 items)" (over [MaxDirectRecipients]). The type
// and the syntax of to are checked before any store access; repeated
// recipients count once.
// Content over [MaxMessageLength] bytes and topics over [MaxTopicLength]
// characters are truncated, not refused.
func (s *Service) SendMessage(ctx context.Context, actorID UserID, req SendMessageRequest) (MessageID, error) {
	to, err := parseSendTo(req)
	if err != nil {
		return 0, err
	}
	var id MessageID
	known := authenticatedAs(req.Authenticated, actorID)
	pre := s.Prerender(ctx, actorID, known, req.Content) // before the write lock; see render.go
	err = s.Update(ctx, func(tx Tx, fx *Effects) error {
		announceSend(tx, known, to, req.Topic, req.Content)
		sender, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		dest, st, err := resolveDestination(ctx, tx, sender, req, to)
		if err != nil {
			return err
		}
		dest.ReadBySender = req.ReadBySender
		if req.LocalID != nil && req.QueueID != nil {
			dest.LocalID, dest.SenderQueueID = *req.LocalID, *req.QueueID
		}
		client := req.Client
		if client == "" {
			client = "API"
		}
		m, err := s.sendPrerendered(ctx, tx, fx, sender, dest, st, req.Content, client, pre)
		if err != nil {
			return err
		}
		id = m.ID
		return nil
	})
	return id, err
}

// announceSend tells a store that prefetches (see [Prefetcher]) what a send
// by u to to reads after the actor: the realm, and the channel with its
// subscribers; the realm's custom emoji when content has :name: syntax (the
// check of its pre-rendering reads them); and that it creates one message.
// It needs the realm, so it announces nothing when u, the actor as the
// request authenticated it, is nil (a user never changes realms).
func announceSend(tx Tx, u *User, to sendTo, topic *string, content string) {
	if u == nil {
		return
	}
	// Also what the receivers' own settings need (personalFlagsAtSend,
	// followAtSend): who muted the sender, the realm's alert words, and,
	// for a channel, the sender's subscriptions and the topic's policies.
	f := Prefetch{Realms: []RealmID{u.RealmID}, NewMessages: 1, Muters: []UserID{u.ID}, AlertWordRealms: []RealmID{u.RealmID}}
	if markdown.HasEmojiSyntax(content) {
		f.RealmEmojiRealms = []RealmID{u.RealmID}
	}
	if to.isChannel {
		f.ChannelGroupSettings = true // its can_send_message_group (CanSendToStream)
		f.Subscribers = true
		f.UserSubscriptions = []UserID{u.ID}
		if to.byID {
			f.Streams = []StreamID{to.channelID}
			if topic != nil {
				f.TopicPolicies = []store.StreamTopic{{StreamID: to.channelID, TopicKey: TopicKey(strings.TrimSpace(*topic))}}
			}
		} else {
			f.StreamNames = []StreamName{{RealmID: u.RealmID, Name: strings.TrimSpace(to.channelName)}}
			if topic != nil {
				f.TopicPolicies = []store.StreamTopic{{StreamName: f.StreamNames[0], TopicKey: TopicKey(strings.TrimSpace(*topic))}}
			}
		}
	}
	store.Announce(tx, f)
}

// authenticatedAs returns u, the user a request authenticated, when it is
// the actor id, or nil.
func authenticatedAs(u *User, id UserID) *User {
	if u != nil && u.ID == id {
		return u
	}
	return nil
}

// NormalizeContent applies Zulip's message-body rules: trailing whitespace and
// leading newlines are dropped, empty or NUL-containing content is refused, and
// content over MaxMessageLength bytes is cut to end with the truncation marker.
func NormalizeContent(content string) (string, error) {
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
	return TruncateContent(content, MaxMessageLength), nil
}

// TruncateContent cuts content to at most limit bytes, without splitting a
// UTF-8 sequence, ending it in Zulip's "[message truncated]" marker when it
// is cut, as a message's content over [MaxMessageLength] is.
func TruncateContent(content string, limit int) string {
	if len(content) <= limit {
		return content
	}
	cut := limit - len(messageTruncatedMarker)
	for cut > 0 && !utf8.RuneStart(content[cut]) {
		cut--
	}
	return content[:cut] + messageTruncatedMarker
}

// NormalizeTopic returns topic as a message to a channel of realm stores it,
// or a BAD_REQUEST [*Error] with Zulip's message for a topic that no message
// may have. Zulip's topic rules: surrounding whitespace is dropped, the
// realm's empty-topic display name (and "(no topic)") means the empty topic,
// unprintable characters are refused and topics over MaxTopicLength
// characters are cut to end with "...".
func NormalizeTopic(realm *Realm, topic string) (string, error) {
	if !utf8.ValidString(topic) {
		return "", BadRequest("Topic must be valid UTF-8")
	}
	topic = strings.TrimSpace(topic)
	if topic == DisplayedEmptyTopic(realm) || topic == noTopicName {
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

// DisplayedEmptyTopic returns the name realm r displays for the empty topic:
// its EmptyTopicDisplayName setting, or [DefaultEmptyTopicDisplayName] when
// the setting is unset or r is nil. A topic equal to it addresses the empty
// topic.
func DisplayedEmptyTopic(r *Realm) string {
	if r == nil || r.EmptyTopicDisplayName == "" {
		return DefaultEmptyTopicDisplayName
	}
	return r.EmptyTopicDisplayName
}

// SendInTx validates and sends one message from sender inside tx, and records
// its event and its hand-off to each [MessageHook] in fx. It returns the stored message.
// The errors are those listed on [Service.SendMessage] for the content, the
// topic, the channel and the recipients; a channel of another realm is
// "Channel with ID 'n' does not exist", a recipient of another realm or a
// missing one "Invalid user ID n".
func (s *Service) SendInTx(ctx context.Context, tx Tx, fx *Effects, sender *User, dest Destination, content string, client string) (*Message, error) {
	return s.sendPrerendered(ctx, tx, fx, sender, dest, nil, content, client, nil)
}

// sendPrerendered is SendInTx reusing pre, a rendering of content made before
// the transaction, when it still holds (see [Service.RenderChecked]), and st, the
// destination channel when this transaction has read it already; pre and st
// may be nil.
func (s *Service) sendPrerendered(ctx context.Context, tx Tx, fx *Effects, sender *User, dest Destination, st *Stream, content string, client string, pre *Prerendered) (*Message, error) {
	body, err := NormalizeContent(content)
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
	var eventUsers []UserID
	if dest.StreamID == 0 {
		st = nil // a direct message
	}
	if dest.StreamID != 0 {
		topic, err := NormalizeTopic(realm, dest.Topic)
		if err != nil {
			return nil, err
		}
		if st == nil || st.ID != dest.StreamID || st.RealmID != sender.RealmID {
			st, err = StreamInRealm(ctx, tx, sender.RealmID, dest.StreamID)
			if errors.Is(err, ErrNotFound) {
				return nil, ChannelIDDoesNotExistError(dest.StreamID)
			}
			if err != nil {
				return nil, err
			}
		}
		if !dest.SkipAccessCheck {
			if err := CanSendToStream(ctx, tx, sender, st); err != nil {
				return nil, err
			}
		}
		m.Type = MessageTypeStream
		m.StreamID = st.ID
		m.RecipientID = st.RecipientID
		m.Topic = topic
		eventUsers, err = tx.ActiveSubscriberIDs(ctx, st.ID)
		if err != nil {
			return nil, err
		}
	} else {
		if len(dest.To) == 0 {
			return nil, BadRequest("Message must have recipients")
		}
		recipients, err := ActiveRecipients(ctx, tx, sender.RealmID, dest.To)
		if err != nil {
			return nil, err
		}
		members := append([]UserID{sender.ID}, recipients...)
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
	r, err := s.RenderChecked(ctx, tx, sender.RealmID, body, pre)
	if err != nil {
		return nil, err
	}
	m.RenderedContent = r.HTML
	m.IsMeMessage = r.IsMe
	m.Has = ContentHas(m.Content)
	claimed, err := ClaimableAttachments(ctx, tx, sender, m.Content)
	if err != nil {
		return nil, err
	}
	m.Has = m.Has&^(HasAttachment|HasImage) | attachmentsHas(claimed)
	participants, err := wildcardParticipants(ctx, tx, m, st, r)
	if err != nil {
		return nil, err
	}
	if err := CheckWildcardMentions(ctx, tx, sender, st, len(eventUsers), len(participants), r); err != nil {
		return nil, err
	}
	sf, err := s.flagsAtSend(ctx, tx, m, eventUsers, dest, r, participants)
	if err != nil {
		return nil, err
	}
	if sm, ok := WidgetSubmessage(sender.ID, m.Content); ok {
		m.Submessages = append(m.Submessages, sm) // a /poll or /todo widget
	}
	if err := tx.CreateMessage(ctx, m); err != nil {
		return nil, err
	}
	if len(claimed) > 0 {
		if err := tx.SetMessageAttachments(ctx, m.ID, attachmentIDs(claimed)); err != nil {
			return nil, err
		}
	}
	if err := putSendFlags(ctx, tx, m.ID, sf); err != nil {
		return nil, err
	}
	if st != nil && st.FirstMessageID == 0 {
		st.FirstMessageID = m.ID
		if err := tx.UpdateStream(ctx, st); err != nil {
			return nil, err
		}
	}
	// The view needs what this transaction has already read.
	c := NewViewCache()
	c.users[sender.ID], c.realms[realm.ID] = sender, realm
	if st != nil {
		c.streams[st.ID] = st
	}
	if r.links != nil {
		c.linkifiers[sender.RealmID] = r.links // checked current by RenderChecked
	}
	view, err := s.BuildMessageView(ctx, tx, c, m, true)
	if err != nil {
		return nil, err
	}
	// Queues that receive every public channel message get it too, with no
	// flags, through the group's last entry (the stores look for a user's own
	// entry among those before it): the entry of the users without flags,
	// when there are such users (one entry then serves both), else a copy of
	// their own.
	groups := sf.eventGroups(eventUsers)
	public := st != nil && !st.InviteOnly
	plain := -1
	if public {
		plain = slices.IndexFunc(groups, func(g flagGroup) bool { return g.flags == 0 })
	}
	if plain >= 0 {
		g := groups[plain]
		groups = append(slices.Delete(groups, plain, plain+1), g)
	}
	for i, g := range groups {
		shared := plain >= 0 && i == len(groups)-1
		fx.MessageEvent(sender.RealmID, g.users, m, map[string]any{"type": "message", "message": view, "flags": g.flags.Names()}, shared)
		if dest.SenderQueueID != "" && dest.LocalID != "" && slices.Contains(g.users, sender.ID) {
			fx.events[len(fx.events)-1].echo = &eventwire.LocalEcho{QueueID: dest.SenderQueueID, LocalID: dest.LocalID, UserID: int64(sender.ID)}
		}
	}
	if public && plain < 0 {
		fx.MessageEvent(sender.RealmID, nil, m, map[string]any{"type": "message", "message": view, "flags": []string{}}, true)
	}
	if st != nil {
		if err := s.followAtSend(ctx, tx, fx, sender, st, m, r.Mentioned, func(u UserID) bool { return slices.Contains(eventUsers, u) }); err != nil {
			return nil, err
		}
	}
	if err := s.handOff(ctx, tx, fx, m, r.Mentioned, sf.mutedBy); err != nil {
		return nil, err
	}
	return m, nil
}

// ActiveRecipients resolves ids to active users of the realm in one query and
// returns them deduplicated, in order of first occurrence, as a direct
// message's recipients are checked. The first id (in
// that order) that is no user of the realm gives "Invalid user ID n"; the
// first deactivated one "'x' is no longer using Zulip.".
func ActiveRecipients(ctx context.Context, tx Tx, realm RealmID, ids []UserID) ([]UserID, error) {
	ids = slicex.Unique(ids)
	users, err := tx.Users(ctx, UserFilter{RealmID: realm, IDs: ids})
	if err != nil {
		return nil, err
	}
	byID := make(map[UserID]*User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	for _, id := range ids {
		u, ok := byID[id]
		if !ok || u.RealmID != realm {
			return nil, BadRequestf("Invalid user ID %d", id)
		}
		if !u.IsActive {
			return nil, BadRequestf("'%s' is no longer using Zulip.", u.Email)
		}
	}
	return ids, nil
}

// CanSendToStream applies Zulip's rule for posting to a channel. First the
// channel's can_send_message_group (role:everyone unless stored) must hold
// the sender or, for a bot, its owner: "You do not have permission to post
// in this channel.". Then archived channels take no messages; non-guests may
// post to public channels; everyone else needs an active subscription (a
// bot may also use its owner's), or, for a non-guest and a private channel
// with shared history, to be in its can_subscribe_group or
// can_add_subscribers_group: "Not authorized to send to channel 'x'". It
// reads the channel's group settings, and the realm's groups only when a
// setting it consults is stored.
func CanSendToStream(ctx context.Context, tx Tx, sender *User, st *Stream) error {
	settings, err := tx.ChannelGroupSettings(ctx, st.ID)
	if err != nil {
		return err
	}
	cp := channelPermissions{realm: st.RealmID, stream: st.ID, settings: settings}
	ok, err := cp.holds(ctx, tx, sender, "can_send_message_group", true)
	if err != nil {
		return err
	}
	if !ok {
		return BadRequest("You do not have permission to post in this channel.")
	}
	denied := BadRequestf("Not authorized to send to channel '%s'", st.Name)
	if st.IsArchived {
		return denied
	}
	if !st.InviteOnly && sender.Role != RoleGuest {
		return nil
	}
	if ok, err := IsSubscribed(ctx, tx, st.ID, sender.ID); err != nil || ok {
		return err
	}
	if sender.IsBot && sender.BotOwnerID != 0 {
		ok, err := IsSubscribed(ctx, tx, st.ID, sender.BotOwnerID)
		if err != nil || ok {
			return err
		}
	}
	if st.HistoryPublicToSubscribers && sender.Role != RoleGuest {
		for _, name := range []string{"can_subscribe_group", "can_add_subscribers_group"} {
			if ok, err := cp.holds(ctx, tx, sender, name, false); err != nil || ok {
				return err
			}
		}
	}
	return denied
}

// channelPermissions answers a channel's group settings from its stored
// settings, reading the realm's groups only when a stored value must be
// resolved.
type channelPermissions struct {
	realm    RealmID
	stream   StreamID
	settings []GroupSetting
	p        *Permissions
}

// holds reports whether u is in the channel's setting name; def is the
// answer when it is not stored (role:everyone true, role:nobody false). A
// bot not in a stored value is asked about through its owner, as Zulip
// checks can_send_message_group.
func (c *channelPermissions) holds(ctx context.Context, tx Tx, u *User, name string, def bool) (bool, error) {
	i := slices.IndexFunc(c.settings, func(s GroupSetting) bool {
		return s.Kind == SettingOfChannel && s.ObjectID == int64(c.stream) && s.Name == name
	})
	if i < 0 {
		return def, nil
	}
	if c.p == nil {
		p, err := loadPermissionsWith(ctx, tx, c.realm, c.settings)
		if err != nil {
			return false, err
		}
		c.p = p
	}
	v := c.settings[i].Value
	if c.p.InValue(u, v) {
		return true, nil
	}
	if name != "can_send_message_group" || !u.IsBot || u.BotOwnerID == 0 {
		return false, nil
	}
	owner, err := tx.User(ctx, u.BotOwnerID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return c.p.InValue(owner, v), nil
}

// IsSubscribed reports whether the user has an active subscription to the channel.
func IsSubscribed(ctx context.Context, tx Tx, stream StreamID, user UserID) (bool, error) {
	sub, err := tx.Subscription(ctx, stream, user)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return sub.Active, nil
}
