package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/chatcore/chatcore/store"
)

// The organisation's shape, after Zulip's own community server.
const (
	realmID           store.RealmID  = 1
	numChannels                      = 60   // the big channel plus 59 others
	bigChannel        store.StreamID = 1    // the channel everybody is in
	channelSize                      = 120  // mean members of the other channels
	numTopics                        = 2000 // topics over all channels
	bigShare                         = 0.10 // the big channel's share of channel messages
	dmShare                          = 0.08 // direct messages
	mentionShare                     = 0.05 // messages mentioning a member by name
	linkShare                        = 0.10 // messages with a link
	imageShare                       = 0.03 // messages with an uploaded image
	reactionShare                    = 0.05 // messages with 1-3 reactions
	starShare                        = 0.01 // messages a receiver starred
	explicitReadShare                = 0.02 // messages a partial reader read above their point
	typicalOthers                    = 5    // channels the typical user is in besides the big one
)

// readClass is how a user reads.
type readClass int

const (
	readAll     readClass = iota // read every message (≈40%)
	readNever                    // never read anything (≈20%)
	readPartial                  // read up to a point, and a few above it
)

// userSpec is one generated user.
type userSpec struct {
	id      store.UserID
	name    string
	email   string
	key     string
	role    store.Role
	class   readClass
	through float64 // partial readers: the share of the history read
}

// channelSpec is one generated channel.
type channelSpec struct {
	id        store.StreamID
	name      string
	members   []store.UserID // sorted
	senderCum []float64      // cumulative sender weights, parallel to members
	topics    []string
	topicCum  []float64
}

// convSpec is one direct-message conversation of the pool.
type convSpec struct {
	members []store.UserID // sorted
}

// model is everything about the organisation except its messages: it is
// computed from the seed and the sizes alone, so a run over a database
// generated earlier finds its users, channels and conversations again.
type model struct {
	seed     int64
	messages int
	users    []userSpec // users[i].id == i+1
	channels []channelSpec
	chanCum  []float64
	convs    []convSpec
	convCum  []float64
	// typical is in the big channel and typicalOthers others and reads up
	// to a point; unread never reads (the most unread messages); busy is
	// the most active sender.
	typical, unread, busy store.UserID
	// typicalConv is a conversation of the typical user with the busy one.
	typicalConv int
}

// apiKey is the generated API key of user id (32 characters).
func apiKey(id store.UserID) string { return fmt.Sprintf("scaleKEY%024d", id) }

var firstNames = []string{"Ada", "Alan", "Barbara", "Claude", "Dennis", "Edsger", "Frances", "Grace", "Hedy", "Ivan",
	"John", "Ken", "Leslie", "Margaret", "Niklaus", "Olga", "Peter", "Radia", "Sophie", "Tim",
	"Ursula", "Vint", "Whitfield", "Xavier", "Yukihiro", "Zoe", "Anita", "Bjarne", "Carol", "Donald"}

var lastNames = []string{"Lovelace", "Turing", "Liskov", "Shannon", "Ritchie", "Dijkstra", "Allen", "Hopper",
	"Lamarr", "Sutherland", "McCarthy", "Thompson", "Lamport", "Hamilton", "Wirth", "Taussky", "Naur",
	"Perlman", "Wilson", "Berners", "Franklin", "Cerf", "Diffie", "Leroy", "Matsumoto", "Mozer", "Borg",
	"Stroustrup", "Shaw", "Knuth", "Kay", "Backus", "Hoare", "Milner", "Scott", "Rabin", "Karp", "Codd",
	"Gray", "Stonebraker"}

var topicWords = []string{"release", "design", "bug", "feature", "review", "question", "meeting", "roadmap",
	"deploy", "testing", "docs", "api", "mobile", "desktop", "search", "performance", "security",
	"onboarding", "i18n", "billing", "notifications", "markdown", "emoji", "integrations", "help",
	"ideas", "triage", "planning", "outage", "migration", "backend", "frontend", "css", "python", "go",
	"database", "cache", "events", "typing", "presence"}

var channelWords = []string{"general", "development", "design", "mobile", "desktop", "api", "integrations",
	"announce", "help", "feedback", "translation", "infrastructure", "security", "backend", "frontend",
	"documentation", "testing", "release", "community", "random"}

// zipfCum returns the cumulative weights 1/(k+1)^s for k < n.
func zipfCum(n int, s float64) []float64 {
	cum := make([]float64, n)
	t := 0.0
	for k := range n {
		t += 1 / math.Pow(float64(k+1), s)
		cum[k] = t
	}
	return cum
}

// pick draws an index from cumulative weights.
func pick(r *rand.Rand, cum []float64) int {
	x := r.Float64() * cum[len(cum)-1]
	i := sort.SearchFloat64s(cum, x)
	return min(i, len(cum)-1)
}

// newModel computes the organisation of nUsers users for a history of
// nMessages messages from seed.
func newModel(seed int64, nMessages, nUsers int) (*model, error) {
	if nUsers < 20 {
		return nil, fmt.Errorf("-users must be at least 20, not %d", nUsers)
	}
	if nMessages < 1 {
		return nil, fmt.Errorf("-messages must be positive, not %d", nMessages)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5ca1e))
	m := &model{seed: seed, messages: nMessages}

	// Users; activity is Zipf-like over a random order of them.
	m.users = make([]userSpec, nUsers)
	for i := range m.users {
		id := store.UserID(i + 1)
		name := firstNames[i%len(firstNames)] + " " + lastNames[(i/len(firstNames))%len(lastNames)]
		if i >= len(firstNames)*len(lastNames) {
			name += fmt.Sprintf(" %d", i/(len(firstNames)*len(lastNames))+1)
		}
		u := userSpec{id: id, name: name, email: fmt.Sprintf("user%d@scale.test", id), key: apiKey(id), role: store.RoleMember}
		switch x := r.Float64(); {
		case x < 0.4:
			u.class = readAll
		case x < 0.6:
			u.class = readNever
		default:
			u.class = readPartial
			u.through = 0.5 + 0.48*r.Float64()
		}
		m.users[i] = u
	}
	m.users[0].role = store.RoleAdministrator
	order := r.Perm(nUsers) // order[rank] is the user index of that rank
	weight := make([]float64, nUsers)
	for rank, ui := range order {
		weight[ui] = 1 / math.Pow(float64(rank+1), 0.9)
	}
	m.busy = store.UserID(order[0] + 1)
	m.typical = store.UserID(order[nUsers/10] + 1)
	m.unread = store.UserID(order[nUsers/5] + 1)
	m.users[m.typical-1].class, m.users[m.typical-1].through = readPartial, 0.8
	m.users[m.unread-1].class = readNever

	// Channels: the big one, then 59 drawn by activity (active users are in
	// more channels), the typical and the unread user left out and added to
	// a few chosen ones.
	all := make([]store.UserID, nUsers)
	for i := range all {
		all[i] = store.UserID(i + 1)
	}
	m.channels = make([]channelSpec, numChannels)
	m.channels[0] = channelSpec{id: bigChannel, name: "general", members: all}
	activeCum := make([]float64, nUsers)
	t := 0.0
	for i := range weight {
		if id := store.UserID(i + 1); id != m.typical && id != m.unread {
			t += weight[i]
		}
		activeCum[i] = t
	}
	for c := 1; c < numChannels; c++ {
		size := min(channelSize/2+r.IntN(channelSize+1), nUsers-2)
		seen := map[store.UserID]bool{}
		for len(seen) < size {
			seen[store.UserID(pick(r, activeCum)+1)] = true
		}
		members := make([]store.UserID, 0, size+1)
		for id := range seen {
			members = append(members, id)
		}
		m.channels[c] = channelSpec{id: store.StreamID(c + 1), members: members,
			name: fmt.Sprintf("%s-%02d", channelWords[c%len(channelWords)], c)}
	}
	// Channel c's share of the channel messages is Zipf over c = 1..59.
	for i, c := range []int{4, 9, 16, 26, 41}[:typicalOthers] {
		m.channels[c].members = append(m.channels[c].members, m.typical)
		m.channels[c+1+i%2].members = append(m.channels[c+1+i%2].members, m.unread)
	}
	for c := range m.channels {
		ch := &m.channels[c]
		slices.Sort(ch.members)
		ch.members = slices.Compact(ch.members)
		ch.senderCum = make([]float64, len(ch.members))
		t := 0.0
		for i, id := range ch.members {
			t += weight[id-1]
			ch.senderCum[i] = t
		}
		n := numTopics / numChannels
		if c < numTopics%numChannels {
			n++
		}
		for k := range n {
			ch.topics = append(ch.topics, fmt.Sprintf("%s %s", topicWords[(k+c)%len(topicWords)], topicWords[(k/len(topicWords)+2*c+1)%len(topicWords)])+fmt.Sprintf(" #%d", k))
		}
		ch.topicCum = zipfCum(n, 1.1)
	}
	others := zipfCum(numChannels-1, 1)
	m.chanCum = make([]float64, numChannels)
	scale := (1 - bigShare) / others[len(others)-1]
	m.chanCum[0] = bigShare
	for c := 1; c < numChannels; c++ {
		m.chanCum[c] = bigShare + others[c-1]*scale
	}

	// Direct-message conversations: the typical user's first, then pairs
	// (75%) and small groups drawn by activity.
	allCum := make([]float64, nUsers)
	t = 0
	for i := range weight {
		t += weight[i]
		allCum[i] = t
	}
	draw := func(n int, with ...store.UserID) []store.UserID {
		seen := map[store.UserID]bool{}
		for _, u := range with {
			seen[u] = true
		}
		for len(seen) < n {
			seen[store.UserID(pick(r, allCum)+1)] = true
		}
		out := make([]store.UserID, 0, n)
		for u := range seen {
			out = append(out, u)
		}
		slices.Sort(out)
		return out
	}
	busyPartner := m.busy
	if busyPartner == m.typical {
		busyPartner = store.UserID(order[1] + 1)
	}
	m.convs = append(m.convs, convSpec{members: draw(2, m.typical, busyPartner)},
		convSpec{members: draw(2, m.typical)}, convSpec{members: draw(3, m.typical)}, convSpec{members: draw(2, m.unread)})
	keys := map[string]bool{}
	for _, c := range m.convs {
		keys[fmt.Sprint(c.members)] = true
	}
	for len(m.convs) < max(50, nUsers/2) {
		n := 2
		if r.Float64() >= 0.75 {
			n = 3 + r.IntN(3)
		}
		c := draw(n)
		if k := fmt.Sprint(c); !keys[k] {
			keys[k] = true
			m.convs = append(m.convs, convSpec{members: c})
		}
	}
	m.convCum = zipfCum(len(m.convs), 1)
	return m, nil
}

// user returns the spec of user id.
func (m *model) user(id store.UserID) *userSpec { return &m.users[id-1] }

// readThrough returns the id up to which user u has read every message of
// each of their channels and conversations, 0 for none.
func (m *model) readThrough(u *userSpec) store.MessageID {
	switch u.class {
	case readAll:
		return store.MessageID(m.messages)
	case readPartial:
		return store.MessageID(u.through * float64(m.messages))
	}
	return 0
}
