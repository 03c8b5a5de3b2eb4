package chatcore

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// realmStringIDPattern is what a realm string id (its subdomain) may be.
var realmStringIDPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)

// checkFixture validates f and turns it into a plan; every problem found is
// reported in one error.
func (s *Service) checkFixture(f *fixtureFile) (*fixturePlan, error) {
	c := &fixtureChecker{
		realmIDs: map[RealmID]string{}, stringIDs: map[string]string{},
		userIDs: map[UserID]string{}, groupIDs: map[GroupID]string{},
		streamIDs: map[StreamID]string{}, messageIDs: map[MessageID]string{},
		scheduledIDs: map[ScheduledMessageID]string{}, linkifierIDs: map[LinkifierID]string{},
		draftIDs: map[DraftID]string{}, apiKeys: map[string]string{},
	}
	now := s.clock.Now().UTC()
	plan := &fixturePlan{}
	if len(f.Realms) == 0 {
		c.add("realms", "the fixture holds no realm")
	}
	for i := range f.Realms {
		rp := s.checkRealm(c, &f.Realms[i], fmt.Sprintf("realms[%d]", i), now)
		plan.realms = append(plan.realms, rp)
	}
	if len(c.problems) > 0 {
		return nil, fixtureError(c.problems)
	}
	return plan, nil
}

func (s *Service) checkRealm(c *fixtureChecker, fr *fixtureRealm, path string, now time.Time) *realmPlan {
	rp := &realmPlan{
		realm: Realm{
			ID: fr.ID, StringID: fr.StringID, Name: strings.TrimSpace(fr.Name),
			NameChangesDisabled: fr.NameChangesDisabled, EmailChangesDisabled: fr.EmailChangesDisabled,
			RequireUniqueNames: fr.RequireUniqueNames, EmptyTopicDisplayName: DefaultEmptyTopicDisplayName,
			DateCreated: now,
		},
		passwords:       map[UserID]string{},
		reminderTargets: map[ScheduledMessageID]*Message{},
	}
	checkID(c, c.realmIDs, fr.ID, path+".id")
	switch {
	case !realmStringIDPattern.MatchString(fr.StringID):
		c.add(path+".string_id", "must be 1 to 40 lower-case letters, digits and inner hyphens, not %q", fr.StringID)
	case c.stringIDs[fr.StringID] != "":
		c.add(path+".string_id", "duplicate string id %q (also at %s)", fr.StringID, c.stringIDs[fr.StringID])
	default:
		c.stringIDs[fr.StringID] = path + ".string_id"
	}
	if msg := checkText(rp.realm.Name, maxRealmNameLength); msg != "" {
		c.add(path+".name", "%s", msg)
	}
	if fr.EmptyTopicDisplayName != nil {
		d := strings.TrimSpace(*fr.EmptyTopicDisplayName)
		if msg := checkText(d, MaxTopicLength); msg != "" {
			c.add(path+".empty_topic_display_name", "%s", msg)
		}
		rp.realm.EmptyTopicDisplayName = d
	}
	sc := &realmScope{
		rp: rp, name: fr.StringID, users: map[UserID]*User{}, groups: map[GroupID]*fixtureGroup{},
		streams: map[StreamID]*Stream{}, subs: map[StreamID]map[UserID]bool{},
		messages: map[MessageID]*Message{},
	}
	emails := map[string]string{}
	names := map[string]string{}
	// checkPerson checks what users and bots share and returns the full name
	// as the Service stores it.
	checkPerson := func(p, email, fullName, apiKey string) string {
		if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || addr.Name != "" {
			c.add(p+".email", "invalid e-mail address %q", email)
		} else if first, ok := emails[FoldKey(email)]; ok {
			c.add(p+".email", "duplicate e-mail %q in realm %s (also at %s)", email, fr.StringID, first)
		} else {
			emails[FoldKey(email)] = p + ".email"
		}
		name, err := checkFullName(fullName)
		if err != nil {
			c.add(p+".full_name", "%s", errorText(err))
			name = strings.TrimSpace(fullName)
		} else if fr.RequireUniqueNames {
			if first, ok := names[FoldKey(name)]; ok {
				c.add(p+".full_name", "duplicate name %q in a realm that requires unique names (also at %s)", name, first)
			}
			names[FoldKey(name)] = p + ".full_name"
		}
		if !looksLikeAPIKey(apiKey) {
			c.add(p+".api_key", "must be 32 ASCII letters and digits")
		} else if first, ok := c.apiKeys[apiKey]; ok {
			c.add(p+".api_key", "duplicate API key (also at %s)", first)
		} else {
			c.apiKeys[apiKey] = p + ".api_key"
		}
		return name
	}

	// Users.
	for i := range fr.Users {
		fu := &fr.Users[i]
		p := fmt.Sprintf("%s.users[%d]", path, i)
		name := checkPerson(p, fu.Email, fu.FullName, fu.APIKey)
		u := &User{
			ID: fu.ID, RealmID: fr.ID, Email: fu.Email, FullName: name,
			Role: RoleMember, IsActive: fu.IsActive == nil || *fu.IsActive,
			APIKeyHash: HashAPIKey(fu.APIKey), AvatarSource: "G", DateJoined: now,
			Settings: DefaultSettings(),
		}
		u.FullNameKey = FoldKey(u.FullName)
		if fu.Role != nil {
			r, ok := ParseRole(*fu.Role)
			if !ok {
				c.add(p+".role", "invalid role %q (want owner, administrator, moderator, member or guest)", *fu.Role)
			}
			u.Role = r
		}
		if fu.Password != nil {
			if *fu.Password == "" {
				c.add(p+".password", "must not be empty (leave it out for a user without a password)")
			}
			rp.passwords[fu.ID] = *fu.Password
		}
		if fu.Timezone != nil {
			if _, ok := fu.Settings["timezone"]; ok {
				c.add(p+".timezone", "given twice (also in settings)")
			}
			raw, _ := json.Marshal(*fu.Timezone)
			s.applyFixtureSettings(c, &u.Settings, map[string]json.RawMessage{"timezone": raw}, p+".timezone", true)
		}
		s.applyFixtureSettings(c, &u.Settings, fu.Settings, p+".settings", false)
		if checkID(c, c.userIDs, fu.ID, p+".id") {
			sc.users[u.ID] = u
		}
		rp.users = append(rp.users, u)
	}

	// Bots; their owners are humans of the realm.
	for i := range fr.Bots {
		fb := &fr.Bots[i]
		p := fmt.Sprintf("%s.bots[%d]", path, i)
		name := checkPerson(p, fb.Email, fb.FullName, fb.APIKey)
		u := &User{
			ID: fb.ID, RealmID: fr.ID, Email: fb.Email, FullName: name,
			Role: RoleMember, IsActive: fb.IsActive == nil || *fb.IsActive, IsBot: true,
			BotOwnerID: fb.OwnerID, APIKeyHash: HashAPIKey(fb.APIKey), AvatarSource: "G",
			DateJoined: now, Settings: DefaultSettings(),
		}
		u.FullNameKey = FoldKey(u.FullName)
		if owner, ok := sc.users[fb.OwnerID]; !ok || owner.IsBot {
			c.add(p+".owner_id", "no user %d in realm %s", fb.OwnerID, fr.StringID)
		}
		switch fb.BotType {
		case "generic":
			u.BotType = BotTypeGeneric
		case "incoming_webhook":
			u.BotType = BotTypeIncomingWebhook
		case "outgoing_webhook":
			u.BotType = BotTypeOutgoingWebhook
		default:
			c.add(p+".bot_type", "invalid bot type %q (want generic, incoming_webhook or outgoing_webhook)", fb.BotType)
		}
		switch {
		case u.BotType == BotTypeOutgoingWebhook && fb.Service == nil:
			c.add(p+".service", "an outgoing-webhook bot needs a service")
		case u.BotType != BotTypeOutgoingWebhook && fb.Service != nil:
			c.add(p+".service", "only outgoing-webhook bots have a service")
		case fb.Service != nil:
			svc := BotService{BotID: fb.ID, Name: botShortName(fb.Email), BaseURL: fb.Service.BaseURL,
				Token: fb.Service.Token, Interface: fb.Service.Interface}
			if svc.Interface == "" {
				svc.Interface = "generic"
			}
			if bu, err := url.Parse(svc.BaseURL); err != nil || (bu.Scheme != "http" && bu.Scheme != "https") || bu.Host == "" {
				c.add(p+".service.base_url", "must be an http or https URL, not %q", svc.BaseURL)
			}
			if svc.Token == "" {
				c.add(p+".service.token", "must not be empty")
			}
			if svc.Interface != "generic" && svc.Interface != "slack" {
				c.add(p+".service.interface", "invalid interface %q (want generic or slack)", svc.Interface)
			}
			rp.services = append(rp.services, svc)
		}
		if checkID(c, c.userIDs, fb.ID, p+".id") {
			sc.users[u.ID] = u
		}
		rp.users = append(rp.users, u)
	}

	// Groups: ids first, so that subgroups may name later groups.
	for i := range fr.Groups {
		fg := &fr.Groups[i]
		if checkID(c, c.groupIDs, fg.ID, fmt.Sprintf("%s.groups[%d].id", path, i)) {
			sc.groups[fg.ID] = fg
		}
	}
	groupNames := map[string]string{}
	for i := range fr.Groups {
		fg := &fr.Groups[i]
		p := fmt.Sprintf("%s.groups[%d]", path, i)
		name := strings.TrimSpace(fg.Name)
		if msg := checkText(name, maxGroupNameLength); msg != "" {
			c.add(p+".name", "%s", msg)
		} else if first, ok := groupNames[FoldKey(name)]; ok {
			c.add(p+".name", "duplicate group name %q (also at %s)", name, first)
		} else {
			groupNames[FoldKey(name)] = p + ".name"
		}
		c.userList(sc, fg.Members, p+".members", false)
		seen := map[GroupID]bool{}
		for j, sub := range fg.Subgroups {
			sp := fmt.Sprintf("%s.subgroups[%d]", p, j)
			switch {
			case sc.groups[sub] == nil:
				c.add(sp, "no group %d in realm %s", sub, fr.StringID)
			case sub == fg.ID:
				c.add(sp, "a group cannot contain itself")
			case seen[sub]:
				c.add(sp, "duplicate subgroup %d", sub)
			}
			seen[sub] = true
		}
		rp.groups = append(rp.groups, Group{ID: fg.ID, RealmID: fr.ID, Name: name, Description: fg.Description,
			Members: slices.Clone(fg.Members), Subgroups: slices.Clone(fg.Subgroups)})
	}
	if cycle := groupCycle(fr.Groups, sc.groups); cycle != "" {
		c.add(path+".groups", "subgroups form a cycle: %s", cycle)
	}

	// Linkifiers (before messages, which render with them).
	patterns := map[string]string{}
	for i := range fr.Linkifiers {
		fl := &fr.Linkifiers[i]
		p := fmt.Sprintf("%s.linkifiers[%d]", path, i)
		checkID(c, c.linkifierIDs, fl.ID, p+".id")
		pattern, tmpl := strings.TrimSpace(fl.Pattern), strings.TrimSpace(fl.URLTemplate)
		if field, msg := checkLinkifier(pattern, tmpl); msg != "" {
			if field != "" {
				field = "." + field
			}
			c.add(p+field, "%s", msg)
		} else if first, ok := patterns[pattern]; ok {
			c.add(p+".pattern", "duplicate pattern (also at %s)", first)
		} else {
			patterns[pattern] = p + ".pattern"
		}
		order := i + 1
		if fl.Order != nil {
			order = *fl.Order
		}
		rp.linkifiers = append(rp.linkifiers, Linkifier{ID: fl.ID, RealmID: fr.ID, Pattern: pattern, URLTemplate: tmpl, Order: order})
	}

	// Channels and subscriptions.
	channelNames := map[string]string{}
	for i := range fr.Channels {
		fc := &fr.Channels[i]
		p := fmt.Sprintf("%s.channels[%d]", path, i)
		name := strings.TrimSpace(fc.Name)
		if msg := checkText(name, maxChannelNameLength); msg != "" {
			c.add(p+".name", "%s", msg)
		} else if first, ok := channelNames[FoldKey(name)]; ok {
			c.add(p+".name", "duplicate channel name %q in realm %s (also at %s)", name, fr.StringID, first)
		} else {
			channelNames[FoldKey(name)] = p + ".name"
		}
		st := &Stream{ID: fc.ID, RealmID: fr.ID, Name: name, Description: fc.Description,
			InviteOnly: fc.InviteOnly, HistoryPublicToSubscribers: !fc.InviteOnly,
			IsArchived: fc.IsArchived, DateCreated: now}
		if h := fc.HistoryPublicToSubscribers; h != nil {
			if !*h && !fc.InviteOnly {
				c.add(p+".history_public_to_subscribers", "a public channel always has public history")
			}
			st.HistoryPublicToSubscribers = *h
		}
		subs := map[UserID]bool{}
		for _, id := range c.userList(sc, fc.Subscribers, p+".subscribers", false) {
			subs[id] = true
			rp.subs = append(rp.subs, Subscription{StreamID: fc.ID, UserID: id, Active: sc.users[id].IsActive})
		}
		if checkID(c, c.streamIDs, fc.ID, p+".id") {
			sc.streams[st.ID] = st
			sc.subs[st.ID] = subs
		}
		rp.streams = append(rp.streams, st)
	}

	// Messages.
	for i := range fr.Messages {
		fm := &fr.Messages[i]
		p := fmt.Sprintf("%s.messages[%d]", path, i)
		m := &Message{ID: fm.ID, RealmID: fr.ID, SenderID: fm.SenderID, Content: fm.Content,
			Client: fm.Client, SentAt: now}
		if m.Client == "" {
			m.Client = "website"
		}
		if fm.Timestamp != nil {
			m.SentAt = time.Unix(*fm.Timestamp, 0).UTC()
		}
		sender := c.user(sc, fm.SenderID, p+".sender_id")
		c.content(fm.Content, p+".content", true)
		if st, topic, to, ok := c.destination(sc, rp, fm.ChannelID, fm.Topic, fm.To, sender, p); ok {
			if st != nil {
				m.Type, m.StreamID, m.Topic = MessageTypeStream, st.ID, topic
			} else {
				m.Type, m.DirectMembers = MessageTypePrivate, to
			}
		}
		reacted := map[string]bool{}
		for j, fx := range fm.Reactions {
			rpath := fmt.Sprintf("%s.reactions[%d]", p, j)
			c.user(sc, fx.UserID, rpath+".user_id")
			r := Reaction(fx)
			if r.ReactionType == "" {
				r.ReactionType = "unicode_emoji"
			}
			switch r.ReactionType {
			case "unicode_emoji", "realm_emoji", "zulip_extra_emoji":
			default:
				c.add(rpath+".reaction_type", "invalid reaction type %q (want unicode_emoji, realm_emoji or zulip_extra_emoji)", r.ReactionType)
			}
			if r.EmojiName == "" {
				c.add(rpath+".emoji_name", "must not be empty")
			}
			if r.EmojiCode == "" {
				c.add(rpath+".emoji_code", "must not be empty")
			}
			key := fmt.Sprintf("%d/%s/%s", r.UserID, r.ReactionType, r.EmojiCode)
			if reacted[key] {
				c.add(rpath, "user %d already reacted with this emoji", r.UserID)
			}
			reacted[key] = true
			m.Reactions = append(m.Reactions, r)
		}
		if checkID(c, c.messageIDs, fm.ID, p+".id") {
			sc.messages[m.ID] = m
		}
		rp.messages = append(rp.messages, m)
	}
	slices.SortFunc(rp.messages, func(a, b *Message) int { return int(a.ID - b.ID) })

	// Scheduled messages.
	for i := range fr.ScheduledMessages {
		fs := &fr.ScheduledMessages[i]
		p := fmt.Sprintf("%s.scheduled_messages[%d]", path, i)
		checkID(c, c.scheduledIDs, fs.ID, p+".id")
		sender := c.user(sc, fs.SenderID, p+".sender_id")
		c.content(fs.Content, p+".content", true)
		if fs.ScheduledDeliveryTimestamp <= 0 {
			c.add(p+".scheduled_delivery_timestamp", "must be a positive UNIX time")
		}
		sm := &ScheduledMessage{ID: fs.ID, RealmID: fr.ID, SenderID: fs.SenderID, Kind: ScheduledSendLater,
			Content: fs.Content, DeliverAt: time.Unix(fs.ScheduledDeliveryTimestamp, 0).UTC(),
			Delivered: fs.Delivered, Failed: fs.Failed}
		if st, topic, to, ok := c.destination(sc, rp, fs.ChannelID, fs.Topic, fs.To, sender, p); ok {
			if st != nil {
				sm.Type, sm.StreamID, sm.Topic = MessageTypeStream, st.ID, topic
			} else {
				sm.Type = MessageTypePrivate
				// Recipients besides the sender; a note to self keeps the sender.
				sm.DirectMembers = slices.DeleteFunc(slices.Clone(to), func(id UserID) bool { return id == fs.SenderID })
				if len(sm.DirectMembers) == 0 {
					sm.DirectMembers = []UserID{fs.SenderID}
				}
			}
		}
		rp.scheduled = append(rp.scheduled, sm)
	}

	// Reminders.
	for i := range fr.Reminders {
		fm := &fr.Reminders[i]
		p := fmt.Sprintf("%s.reminders[%d]", path, i)
		checkID(c, c.scheduledIDs, fm.ID, p+".id")
		u := c.user(sc, fm.UserID, p+".user_id")
		target, ok := sc.messages[fm.MessageID]
		if !ok {
			c.add(p+".message_id", "no message %d in realm %s", fm.MessageID, fr.StringID)
		} else if u != nil && !sc.canAccess(u, target) {
			c.add(p+".message_id", "user %d cannot access message %d", u.ID, target.ID)
		}
		note, err := normalizeReminderNote(fm.Note)
		if err != nil {
			c.add(p+".note", "%s", errorText(err))
		}
		if fm.ScheduledDeliveryTimestamp <= 0 {
			c.add(p+".scheduled_delivery_timestamp", "must be a positive UNIX time")
		}
		rp.scheduled = append(rp.scheduled, &ScheduledMessage{
			ID: fm.ID, RealmID: fr.ID, SenderID: fm.UserID, Kind: ScheduledReminder,
			Type: MessageTypePrivate, DirectMembers: []UserID{fm.UserID},
			DeliverAt: time.Unix(fm.ScheduledDeliveryTimestamp, 0).UTC(),
			Delivered: fm.Delivered, Failed: fm.Failed,
			ReminderTargetMessageID: fm.MessageID, ReminderNote: note,
		})
		rp.reminderTargets[fm.ID] = target
	}

	// Drafts.
	for i := range fr.Drafts {
		fd := &fr.Drafts[i]
		p := fmt.Sprintf("%s.drafts[%d]", path, i)
		checkID(c, c.draftIDs, fd.ID, p+".id")
		owner := c.user(sc, fd.UserID, p+".user_id")
		d := Draft{ID: fd.ID, UserID: fd.UserID, Content: fd.Content, LastEdit: now}
		if fd.Timestamp != nil {
			d.LastEdit = time.Unix(*fd.Timestamp, 0).UTC()
		}
		c.content(fd.Content, p+".content", false)
		if fd.ChannelID != 0 || fd.To != nil {
			if st, topic, _, ok := c.destination(sc, rp, fd.ChannelID, fd.Topic, fd.To, owner, p); ok {
				if st != nil {
					d.Type, d.StreamID, d.Topic = MessageTypeStream, st.ID, topic
				} else {
					d.Type, d.To = MessageTypePrivate, slices.Clone(fd.To)
				}
			}
		} else if fd.Topic != nil {
			c.add(p+".topic", "a draft with a topic needs a channel_id")
		}
		rp.drafts = append(rp.drafts, d)
	}
	return rp
}
