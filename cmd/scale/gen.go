package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// batchSize is how many messages one Update transaction of the generator
// writes.
const batchSize = 10000

// epoch is when the generated history starts; messages are a minute apart.
var epoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// bulkCreator is the store's bulk insert of messages, when it has one.
type bulkCreator interface {
	CreateMessages(ctx context.Context, ms []*store.Message) error
}

// genCounts are what the generator wrote, for the report and the smoke test.
type genCounts struct {
	users, channels, subscriptions, conversations int
	messages, direct, mentions, links, images     int
	reactions, flagRows, starred, readMarks       int
}

// generator writes a model's organisation and history into a store.
type generator struct {
	m          *model
	r          *rand.Rand
	recipients map[store.StreamID]store.RecipientID
	convRecip  []store.RecipientID
	counts     genCounts
}

// generate writes m's organisation and its m.messages messages to st, printing
// progress to log.
func generate(ctx context.Context, st store.Store, m *model, log io.Writer) (genCounts, error) {
	g := &generator{m: m, r: rand.New(rand.NewPCG(uint64(m.seed), 0x6d657373)),
		recipients: map[store.StreamID]store.RecipientID{}}
	start := time.Now()
	if err := st.Update(ctx, func(tx store.Tx) error { return g.setup(ctx, tx) }); err != nil {
		return g.counts, fmt.Errorf("organisation: %w", err)
	}
	first := map[store.StreamID]store.MessageID{}
	for lo := 1; lo <= m.messages; lo += batchSize {
		hi := min(lo+batchSize-1, m.messages)
		// Generated before the transaction: an Update that runs its function
		// again (PostgreSQL retries) writes the same messages.
		ms, rows := g.batch(lo, hi, first)
		err := st.Update(ctx, func(tx store.Tx) error { return writeBatch(ctx, tx, ms, rows) })
		if err != nil {
			return g.counts, fmt.Errorf("messages %d-%d: %w", lo, hi, err)
		}
		if hi%100000 == 0 || hi == m.messages {
			fmt.Fprintf(log, "  %d messages in %.1fs\n", hi, time.Since(start).Seconds())
		}
	}
	if err := st.Update(ctx, func(tx store.Tx) error { return g.finish(ctx, tx, first) }); err != nil {
		return g.counts, fmt.Errorf("read state: %w", err)
	}
	return g.counts, nil
}

// setup writes the realm, the users, the channels with their subscriptions
// and the direct conversations.
func (g *generator) setup(ctx context.Context, tx store.Tx) error {
	g.counts = genCounts{}
	if err := tx.CreateRealm(ctx, &store.Realm{ID: realmID, StringID: "scale", Name: "Scale Inc", DateCreated: epoch}); err != nil {
		return err
	}
	for _, u := range g.m.users {
		err := tx.CreateUser(ctx, &store.User{ID: u.id, RealmID: realmID, Email: u.email, FullName: u.name,
			Role: u.role, IsActive: true, AvatarSource: "G", DateJoined: epoch,
			APIKeyHash: chatcore.HashAPIKey(u.key), Settings: chatcore.DefaultSettings()})
		if err != nil {
			return fmt.Errorf("user %d: %w", u.id, err)
		}
		g.counts.users++
	}
	for _, c := range g.m.channels {
		s := &store.Stream{ID: c.id, RealmID: realmID, Name: c.name, Description: "Generated channel " + c.name,
			HistoryPublicToSubscribers: true, DateCreated: epoch, CreatorID: 1}
		if err := tx.CreateStream(ctx, s); err != nil {
			return fmt.Errorf("channel %d: %w", c.id, err)
		}
		g.recipients[c.id] = s.RecipientID
		g.counts.channels++
		for _, u := range c.members {
			// As a subscription made before any message: it covers the whole
			// history (SinceMessageID 0).
			if err := tx.PutSubscription(ctx, store.Subscription{StreamID: c.id, UserID: u, Active: true}); err != nil {
				return err
			}
			g.counts.subscriptions++
		}
	}
	g.convRecip = make([]store.RecipientID, len(g.m.convs))
	for i, c := range g.m.convs {
		rid, err := tx.DirectRecipient(ctx, realmID, c.members)
		if err != nil {
			return err
		}
		g.convRecip[i] = rid
		g.counts.conversations++
	}
	return nil
}

// batch generates messages lo..hi (their ids) with their flag rows.
func (g *generator) batch(lo, hi int, first map[store.StreamID]store.MessageID) ([]*store.Message, []store.UserMessageFlags) {
	ms := make([]*store.Message, 0, hi-lo+1)
	var rows []store.UserMessageFlags
	for i := lo; i <= hi; i++ {
		m, flags := g.message(store.MessageID(i))
		ms = append(ms, m)
		if m.StreamID != 0 && first[m.StreamID] == 0 {
			first[m.StreamID] = m.ID
		}
		for _, u := range slices.Sorted(maps.Keys(flags)) {
			rows = append(rows, store.UserMessageFlags{UserID: u, MessageID: m.ID, Flags: flags[u]})
		}
	}
	g.counts.messages += len(ms)
	g.counts.flagRows += len(rows)
	return ms, rows
}

// writeBatch writes messages and their flag rows.
func writeBatch(ctx context.Context, tx store.Tx, ms []*store.Message, rows []store.UserMessageFlags) error {
	if err := createMessages(ctx, tx, ms); err != nil {
		return err
	}
	for len(rows) > 0 {
		n := min(len(rows), 5000)
		if err := tx.PutUserMessageFlags(ctx, rows[:n]); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// createMessages inserts ms through the store's bulk path when it has one,
// else one at a time.
func createMessages(ctx context.Context, tx store.Tx, ms []*store.Message) error {
	if b, ok := tx.(bulkCreator); ok {
		return b.CreateMessages(ctx, ms)
	}
	for _, m := range ms {
		if err := tx.CreateMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// message generates message id and the flag rows the send rules give it
// (the mentioned user's mentioned; the sender's read is derived, a row only
// when the sender also starred it), with the stars and reads its receivers
// add later.
func (g *generator) message(id store.MessageID) (*store.Message, map[store.UserID]store.MessageFlags) {
	r, md := g.r, g.m
	m := &store.Message{ID: id, RealmID: realmID, Client: "website", SentAt: epoch.Add(time.Duration(id) * time.Minute)}
	var members []store.UserID
	if r.Float64() < dmShare {
		ci := pick(r, md.convCum)
		members = md.convs[ci].members
		m.Type, m.RecipientID, m.DirectMembers = store.MessageTypePrivate, g.convRecip[ci], members
		m.SenderID = members[r.IntN(len(members))]
		g.counts.direct++
	} else {
		c := &md.channels[pick(r, md.chanCum)]
		members = c.members
		m.Type, m.StreamID, m.RecipientID = store.MessageTypeStream, c.id, g.recipients[c.id]
		m.Topic = c.topics[pick(r, c.topicCum)]
		m.SenderID = members[pick(r, c.senderCum)]
	}
	received := func(u store.UserID) bool { _, ok := slices.BinarySearch(members, u); return ok }
	flags := map[store.UserID]store.MessageFlags{m.SenderID: store.FlagRead} // sent from the web app: read by the sender
	add := func(u store.UserID, f store.MessageFlags) { flags[u] |= f }

	text := fmt.Sprintf("Message %d about %s.", id, topicWords[r.IntN(len(topicWords))])
	var content, rendered string
	if r.Float64() < mentionShare && len(members) > 1 {
		target := members[r.IntN(len(members))]
		if r.Float64() < 0.2 && received(md.typical) {
			target = md.typical
		}
		if target != m.SenderID {
			name := md.user(target).name
			content += "@**" + name + "** "
			rendered += fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@%s</span> `, target, html.EscapeString(name))
			add(target, store.FlagMentioned)
			g.counts.mentions++
		}
	}
	content += text
	rendered += html.EscapeString(text)
	link, image := r.Float64() < linkShare, r.Float64() < imageShare
	if link {
		u := fmt.Sprintf("https://example.com/docs/%d", id)
		content += " See " + u
		rendered += fmt.Sprintf(` See <a href="%s">%s</a>`, u, u)
		g.counts.links++
	}
	rendered = "<p>" + rendered + "</p>"
	if image {
		u := fmt.Sprintf("/user_uploads/1/ab/screenshot-%d.png", id)
		content += fmt.Sprintf("\n[screenshot-%d.png](%s)", id, u)
		rendered += fmt.Sprintf(`<p><a href="%s">screenshot-%d.png</a></p><div class="message_inline_image"><a href="%s" title="screenshot-%d.png"><img src="%s"></a></div>`, u, id, u, id, u)
		g.counts.images++
	}
	m.Content, m.RenderedContent = content, rendered
	setHas(m, link, image)

	if r.Float64() < reactionShare {
		seen := map[store.UserID]bool{}
		for range 1 + r.IntN(3) {
			u := members[r.IntN(len(members))]
			if seen[u] {
				continue
			}
			seen[u] = true
			e := reactionEmoji[r.IntN(len(reactionEmoji))]
			m.Reactions = append(m.Reactions, store.Reaction{UserID: u, EmojiName: e[0], EmojiCode: e[1], ReactionType: store.ReactionUnicodeEmoji})
			g.counts.reactions++
		}
	}
	if r.Float64() < starShare {
		add(members[r.IntN(len(members))], store.FlagStarred)
		g.counts.starred++
	}
	if received(md.typical) && r.Float64() < 0.005 {
		add(md.typical, store.FlagStarred)
		g.counts.starred++
	}
	// A partial reader who read this message above their point.
	if r.Float64() < explicitReadShare {
		u := md.user(members[r.IntN(len(members))])
		if u.class == readPartial && id > md.readThrough(u) {
			add(u.id, store.FlagRead)
		}
	}
	if flags[m.SenderID] == m.DefaultFlags|store.FlagRead {
		delete(flags, m.SenderID) // what the store derives for the sender
	}
	return m, flags
}

var reactionEmoji = [][2]string{{"+1", "1f44d"}, {"heart", "2764"}, {"tada", "1f389"}, {"smile", "1f604"}, {"octopus", "1f419"}}

// setHas records what the message has in its Has bits, as the send rules
// compute them from the content: an https:// URL is a link; an upload path
// is a link and an attachment, and an image when it ends in .png.
func setHas(m *store.Message, link, image bool) {
	if link {
		m.Has |= store.HasLink
	}
	if image {
		m.Has |= store.HasLink | store.HasImage | store.HasAttachment
	}
}

// finish keeps each channel's FirstMessageID and writes the read state: the
// users who read everything up to the newest message, the partial readers up
// to their point, through MarkReadThrough on every channel and conversation
// they are in.
func (g *generator) finish(ctx context.Context, tx store.Tx, first map[store.StreamID]store.MessageID) error {
	for sid, id := range first {
		s, err := tx.Stream(ctx, sid)
		if err != nil {
			return err
		}
		s.FirstMessageID = id
		if err := tx.UpdateStream(ctx, s); err != nil {
			return err
		}
	}
	g.counts.readMarks = 0 // PostgreSQL may run this again
	recips := map[store.UserID][]store.RecipientID{}
	for _, c := range g.m.channels {
		for _, u := range c.members {
			recips[u] = append(recips[u], g.recipients[c.id])
		}
	}
	for i, c := range g.m.convs {
		for _, u := range c.members {
			recips[u] = append(recips[u], g.convRecip[i])
		}
	}
	for i := range g.m.users {
		u := &g.m.users[i]
		through := g.m.readThrough(u)
		if through == 0 {
			continue
		}
		for _, rid := range recips[u.id] {
			if err := tx.MarkReadThrough(ctx, u.id, rid, through); err != nil {
				return err
			}
			g.counts.readMarks++
		}
	}
	return nil
}

// String reports the generator's counts.
func (c genCounts) String() string {
	s := fmt.Sprintf("%d users, %d channels, %d subscriptions, %d conversations; %d messages (%d direct, %d mentions, %d links, %d images), %d reactions, %d flag rows (%d starred), %d read marks",
		c.users, c.channels, c.subscriptions, c.conversations, c.messages, c.direct, c.mentions, c.links, c.images,
		c.reactions, c.flagRows, c.starred, c.readMarks)
	return s
}
