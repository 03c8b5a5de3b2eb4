package chatcore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/jsonshape"
)

// The fixture format (FIXTURE.md). Every key of every object is listed here;
// anything else in a file is an error.
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

// LoadFixture loads the organizations described by the JSON fixture in r (the
// format of FIXTURE.md) into the Service's store, keeping every explicit id;
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

// fixtureChecker collects the problems of a fixture.
type fixtureChecker struct {
	problems []string
	// first paths of every id per kind, across the whole file
	realmIDs     map[RealmID]string
	stringIDs    map[string]string
	userIDs      map[UserID]string
	groupIDs     map[GroupID]string
	streamIDs    map[StreamID]string
	messageIDs   map[MessageID]string
	scheduledIDs map[ScheduledMessageID]string
	linkifierIDs map[LinkifierID]string
	draftIDs     map[DraftID]string
	apiKeys      map[string]string
}

func (c *fixtureChecker) add(path, format string, args ...any) {
	if len(c.problems) < maxFixtureErrors {
		c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
	}
}

// checkID records a positive id of one kind and reports zero, negative or
// repeated ones. It reports whether the id is usable.
func checkID[T ~int64](c *fixtureChecker, seen map[T]string, id T, path string) bool {
	if id <= 0 {
		c.add(path, "must be a positive integer")
		return false
	}
	if first, ok := seen[id]; ok {
		c.add(path, "duplicate id %d (also at %s)", id, first)
		return false
	}
	seen[id] = path
	return true
}

// realmScope is what later parts of one realm may refer to.
type realmScope struct {
	rp       *realmPlan
	name     string // string id, for messages
	users    map[UserID]*User
	groups   map[GroupID]*fixtureGroup
	streams  map[StreamID]*Stream
	subs     map[StreamID]map[UserID]bool
	messages map[MessageID]*Message
}

func (c *fixtureChecker) noUser(path string, sc *realmScope, id UserID) {
	c.add(path, "no user %d in realm %s", id, sc.name)
}

// user returns the user or bot id of the realm, reporting a dangling one.
func (c *fixtureChecker) user(sc *realmScope, id UserID, path string) *User {
	u, ok := sc.users[id]
	if !ok {
		c.noUser(path, sc, id)
		return nil
	}
	return u
}

// stream returns the channel id of the realm, reporting a dangling one.
func (c *fixtureChecker) stream(sc *realmScope, id StreamID, path string) *Stream {
	st, ok := sc.streams[id]
	if !ok {
		c.add(path, "no channel %d in realm %s", id, sc.name)
		return nil
	}
	return st
}

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
			c.add(p+".full_name", "%s", problem(err))
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
			c.add(p+".note", "%s", problem(err))
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

// Zulip's limits on names the Service never sets itself, in characters:
// Realm.MAX_REALM_NAME_LENGTH, Stream.MAX_NAME_LENGTH and
// NamedUserGroup.MAX_NAME_LENGTH.
const (
	maxRealmNameLength   = 40
	maxChannelNameLength = 60
	maxGroupNameLength   = 100
)

// userList checks a list of user ids of the realm (humans, or bots too
// unless humansOnly) and returns the valid ones without duplicates.
func (c *fixtureChecker) userList(sc *realmScope, ids []UserID, path string, humansOnly bool) []UserID {
	var out []UserID
	seen := map[UserID]bool{}
	for j, id := range ids {
		p := fmt.Sprintf("%s[%d]", path, j)
		u, ok := sc.users[id]
		switch {
		case !ok || (humansOnly && u.IsBot):
			c.noUser(p, sc, id)
		case seen[id]:
			c.add(p, "duplicate user %d", id)
		default:
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// destination checks a channel_id+topic or to destination and returns the
// channel and normalised topic, or the sorted participants (sender included).
func (c *fixtureChecker) destination(sc *realmScope, rp *realmPlan, channel StreamID, topic *string, to []UserID, sender *User, p string) (*Stream, string, []UserID, bool) {
	switch {
	case channel != 0 && to != nil:
		c.add(p, "has both channel_id and to")
	case channel != 0:
		st := c.stream(sc, channel, p+".channel_id")
		t := ""
		if topic != nil {
			var msg string
			if t, msg = fixtureTopic(&rp.realm, *topic); msg != "" {
				c.add(p+".topic", "%s", msg)
			}
		}
		return st, t, nil, st != nil
	case to != nil:
		if topic != nil {
			c.add(p+".topic", "a direct message has no topic")
		}
		if len(to) == 0 {
			c.add(p+".to", "must name at least one recipient")
			return nil, "", nil, false
		}
		valid := c.userList(sc, to, p+".to", false)
		if len(valid) != len(to) || sender == nil {
			return nil, "", nil, false
		}
		members := append(slices.Clone(valid), sender.ID)
		slices.Sort(members)
		return nil, "", slices.Compact(members), true
	default:
		c.add(p, "needs channel_id (with topic) or to")
	}
	return nil, "", nil, false
}

// content checks message or draft content.
func (c *fixtureChecker) content(s, path string, required bool) {
	switch {
	case !utf8.ValidString(s):
		c.add(path, "must be valid UTF-8")
	case required && strings.TrimSpace(s) == "":
		c.add(path, "must not be empty")
	case strings.IndexByte(s, 0) >= 0:
		c.add(path, "must not contain NUL bytes")
	case len(s) > MaxMessageLength:
		c.add(path, "longer than %d bytes", MaxMessageLength)
	}
}

// canAccess reports whether u can read m as loaded: a participant of a direct
// message, a subscriber of the channel, or any non-guest for a public one.
func (sc *realmScope) canAccess(u *User, m *Message) bool {
	if m.Type == MessageTypePrivate {
		return slices.Contains(m.DirectMembers, u.ID)
	}
	st := sc.streams[m.StreamID]
	if st == nil {
		return false
	}
	return sc.subs[st.ID][u.ID] || (!st.InviteOnly && u.Role != RoleGuest)
}

// checkText checks a required single-line name of at most limit characters;
// it returns the problem or "".
func checkText(s string, limit int) string {
	switch {
	case !utf8.ValidString(s):
		return "must be valid UTF-8"
	case s == "":
		return "must not be empty"
	case utf8.RuneCountInString(s) > limit:
		return fmt.Sprintf("longer than %d characters", limit)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "must not contain control characters"
	}
	return ""
}

// fixtureTopic applies the Service's topic rules (normalizeTopic) and returns
// the topic as stored, or the problem. A topic the Service would cut to
// MaxTopicLength is refused instead, since a fixture states what is stored.
func fixtureTopic(realm *Realm, topic string) (string, string) {
	t, err := normalizeTopic(realm, topic)
	if err != nil {
		return "", problem(err)
	}
	if utf8.RuneCountInString(strings.TrimSpace(topic)) > MaxTopicLength {
		return "", fmt.Sprintf("longer than %d characters", MaxTopicLength)
	}
	return t, ""
}

// problem returns the text of a check's error: the Zulip message of an
// [*Error], as the Service would answer it.
func problem(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Msg
	}
	return err.Error()
}

// botShortName is the service name Zulip stores for a bot: the local part of
// its e-mail without a trailing "-bot".
func botShortName(email string) string {
	local, _, _ := strings.Cut(email, "@")
	return strings.TrimSuffix(local, "-bot")
}

// groupCycle returns a description of a subgroup cycle among groups, or "".
func groupCycle(groups []fixtureGroup, byID map[GroupID]*fixtureGroup) string {
	const (
		unvisited = iota
		active
		done
	)
	state := map[GroupID]int{}
	var stack []GroupID
	var visit func(id GroupID) string
	visit = func(id GroupID) string {
		switch state[id] {
		case active:
			i := slices.Index(stack, id)
			parts := make([]string, 0, len(stack)-i+1)
			for _, g := range append(stack[i:], id) {
				parts = append(parts, strconv.FormatInt(int64(g), 10))
			}
			return strings.Join(parts, " → ")
		case done:
			return ""
		}
		state[id] = active
		stack = append(stack, id)
		if g := byID[id]; g != nil {
			for _, sub := range g.Subgroups {
				if sub == id || byID[sub] == nil {
					continue // reported elsewhere
				}
				if cyc := visit(sub); cyc != "" {
					return cyc
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = done
		return ""
	}
	for _, g := range groups {
		if byID[g.ID] != nil {
			if cyc := visit(g.ID); cyc != "" {
				return cyc
			}
		}
	}
	return ""
}

// applyFixtureSettings decodes the settings object of a fixture user onto
// st, checking names, JSON types and values.
func (s *Service) applyFixtureSettings(c *fixtureChecker, st *Settings, raw map[string]json.RawMessage, path string, single bool) {
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := path
		if !single {
			p = path + "." + name
		}
		cur, ok := st.Value(name)
		if !ok {
			c.add(p, "unknown setting")
			continue
		}
		var v any
		var err error
		switch cur.(type) {
		case bool:
			var b bool
			err = strictJSON(raw[name], &b, "a boolean")
			v = b
		case int:
			var n int
			err = strictJSON(raw[name], &n, "an integer")
			v = n
		default:
			var str string
			err = strictJSON(raw[name], &str, "a string")
			v = str
		}
		if err != nil {
			c.add(p, "%v", err)
			continue
		}
		v, msg := s.checkFixtureSetting(name, raw[name], v)
		if msg != "" {
			c.add(p, "%s", msg)
			continue
		}
		if err := st.Set(name, v); err != nil {
			c.add(p, "%v", err)
		}
	}
}

// strictJSON decodes one JSON value into v (a *bool, *int or *string) with
// no conversions: null, numbers for booleans, fractions for integers all fail.
func strictJSON(raw json.RawMessage, v any, want string) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return fmt.Errorf("must be %s, not null", want)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("must be %s", want)
	}
	return nil
}

// checkFixtureSetting validates one setting value with the settings
// validation of PATCH /settings (and the Service's configured languages and
// sounds). It returns the value to store (a time zone in canonical form) and
// the problem, or "".
func (s *Service) checkFixtureSetting(name string, raw json.RawMessage, v any) (any, string) {
	if name == "timezone" {
		tz := v.(string)
		if tz == "" {
			return tz, "" // no time zone set
		}
		canon := CanonicalTimezone(tz)
		if canon == "" {
			return nil, "Invalid timezone: Value error, Not a recognized time zone"
		}
		return canon, ""
	}
	var u SettingsUpdate
	obj, err := json.Marshal(map[string]json.RawMessage{name: raw})
	if err == nil {
		err = json.Unmarshal(obj, &u)
	}
	if err != nil {
		return nil, "cannot be decoded"
	}
	first, second := u.validate(&s.settingsConfig)
	if err := cmp.Or(first, second); err != nil {
		if e, ok := errors.AsType[*Error](err); ok {
			return nil, e.Msg
		}
		return nil, err.Error()
	}
	return v, ""
}

// checkLinkifier validates a linkifier's pattern and URL template as
// AddLinkifier does and returns the offending field ("" for the pair) and
// Zulip's message, or "", "".
func checkLinkifier(pattern, tmpl string) (field, problem string) {
	_, _, e := validateLinkifier(pattern, tmpl)
	if e == nil {
		return "", ""
	}
	if errs, ok := e.Data["errors"].(map[string]any); ok {
		for _, f := range []string{"pattern", "url_template"} {
			if msgs, ok := errs[f].([]string); ok && len(msgs) > 0 && msgs[0] == e.Msg {
				return f, e.Msg
			}
		}
	}
	return "", e.Msg
}

// writeFixture writes a checked plan inside one transaction.
func (s *Service) writeFixture(ctx context.Context, tx Tx, plan *fixturePlan) error {
	conflict := func(path string, err error) error {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			e := BadRequestf("%s: conflicts with data already in the store", path)
			e.Err = err
			return e
		}
		return err
	}
	for i, rp := range plan.realms {
		r := rp.realm
		if err := tx.CreateRealm(ctx, &r); err != nil {
			return conflict(fmt.Sprintf("realms[%d]", i), err)
		}
	}
	for i, rp := range plan.realms {
		path := fmt.Sprintf("realms[%d]", i)
		realm := rp.realm.ID
		for _, u := range rp.users {
			if err := tx.CreateUser(ctx, u); err != nil {
				return conflict(fmt.Sprintf("%s: user %d", path, u.ID), err)
			}
		}
		for j := range rp.services {
			if err := tx.CreateBotService(ctx, &rp.services[j]); err != nil {
				return conflict(fmt.Sprintf("%s: service of bot %d", path, rp.services[j].BotID), err)
			}
		}
		for j := range rp.groups {
			if err := tx.CreateGroup(ctx, &rp.groups[j]); err != nil {
				return conflict(fmt.Sprintf("%s: group %d", path, rp.groups[j].ID), err)
			}
		}
		for j := range rp.linkifiers {
			if err := tx.CreateLinkifier(ctx, &rp.linkifiers[j]); err != nil {
				return conflict(fmt.Sprintf("%s: linkifier %d", path, rp.linkifiers[j].ID), err)
			}
		}
		streams := map[StreamID]*Stream{}
		for _, st := range rp.streams {
			if err := tx.CreateStream(ctx, st); err != nil {
				return conflict(fmt.Sprintf("%s: channel %d", path, st.ID), err)
			}
			streams[st.ID] = st
		}
		for _, sub := range rp.subs {
			if err := tx.PutSubscription(ctx, sub); err != nil {
				return err
			}
		}
		for _, m := range rp.messages {
			if m.Type == MessageTypeStream {
				st := streams[m.StreamID]
				m.RecipientID = st.RecipientID
				if st.FirstMessageID == 0 || m.ID < st.FirstMessageID {
					st.FirstMessageID = m.ID
				}
			} else {
				rid, err := tx.DirectRecipient(ctx, realm, m.DirectMembers)
				if err != nil {
					return err
				}
				m.RecipientID = rid
			}
			html, _, isMe, err := s.renderMessage(ctx, tx, realm, m.Content)
			if err != nil {
				return err
			}
			m.RenderedContent, m.IsMeMessage = html, isMe
			if err := tx.CreateMessage(ctx, m); err != nil {
				return conflict(fmt.Sprintf("%s: message %d", path, m.ID), err)
			}
		}
		for _, st := range rp.streams {
			if st.FirstMessageID != 0 {
				if err := tx.UpdateStream(ctx, st); err != nil {
					return err
				}
			}
		}
		for _, sm := range rp.scheduled {
			if sm.Kind == ScheduledReminder {
				content, err := s.reminderContent(ctx, tx, rp.reminderTargets[sm.ID], sm.ReminderNote)
				if err != nil {
					return err
				}
				sm.Content = content
			}
			html, err := s.render(ctx, tx, realm, sm.Content)
			if err != nil {
				return err
			}
			sm.RenderedContent = html
			if err := tx.CreateScheduledMessage(ctx, sm); err != nil {
				return conflict(fmt.Sprintf("%s: scheduled message %d", path, sm.ID), err)
			}
		}
		for j := range rp.drafts {
			if err := tx.CreateDraft(ctx, &rp.drafts[j]); err != nil {
				return conflict(fmt.Sprintf("%s: draft %d", path, rp.drafts[j].ID), err)
			}
		}
	}
	return nil
}
