package chatcore

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
		return "", errorText(err)
	}
	if utf8.RuneCountInString(strings.TrimSpace(topic)) > MaxTopicLength {
		return "", fmt.Sprintf("longer than %d characters", MaxTopicLength)
	}
	return t, ""
}

// errorText returns the text of a check's error: the Zulip message of an
// [*Error], as the Service would answer it.
func errorText(err error) string {
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
