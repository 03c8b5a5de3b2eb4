package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
)

// shape is the organization the generator writes: users, channels (the
// first, which everybody is in, and the others of about members each),
// topics per channel, and the shares of direct messages, mentions and
// reactions among the messages.
type shape struct {
	users, channels, members, topics, messages int
	directShare, mentionShare, reactionShare   float64
	seed                                       uint64
}

// zulipShape is an organization shaped like Zulip's own community server,
// as issue 31 measures it: one channel everybody is in, 59 of about 120
// members, 2,000 topics, 8% direct messages, 5% with a mention.
func zulipShape(users, messages int) shape {
	return shape{users: users, channels: 60, members: 120, topics: 2000, messages: messages,
		directShare: 0.08, mentionShare: 0.05, reactionShare: 0.03, seed: 31}
}

// writeFixture writes the fixture of sh to w, one realm whose messages come
// after its other sections, as Load streams them best. Nothing is held but
// the channels' member lists.
func writeFixture(w io.Writer, sh shape) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(sh.seed, 1))
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p(`{"realms": [{"id": 1, "string_id": "scale", "name": "Scale", "users": [`)
	for u := 1; u <= sh.users; u++ {
		role := "member"
		if u == 1 {
			role = "owner"
		}
		sep := ","
		if u == sh.users {
			sep = ""
		}
		p("\n{\"id\": %d, \"email\": \"user%d@scale.test\", \"full_name\": \"User %d\", \"role\": %q, \"api_key\": \"k%031d\"}%s",
			u, u, u, role, u, sep)
	}
	p("],\n\"channels\": [")
	members := make([][]int, sh.channels)
	for c := range sh.channels {
		if c == 0 {
			members[c] = make([]int, sh.users)
			for i := range members[c] {
				members[c][i] = i + 1
			}
		} else {
			seen := map[int]bool{}
			for len(members[c]) < min(sh.members, sh.users) {
				u := 1 + rng.IntN(sh.users)
				if !seen[u] {
					seen[u] = true
					members[c] = append(members[c], u)
				}
			}
		}
		subs, _ := json.Marshal(members[c])
		sep := ","
		if c == sh.channels-1 {
			sep = ""
		}
		p("\n{\"id\": %d, \"name\": \"channel %d\", \"subscribers\": %s}%s", 1+c, c, subs, sep)
	}
	p("],\n\"messages\": [")
	const start = 1700000000
	for i := 1; i <= sh.messages; i++ {
		if i > 1 {
			p(",")
		}
		content := fmt.Sprintf("Message %d with **some** words, a `code` span and a [link](https://example.com/%d).", i, i%997)
		if rng.Float64() < sh.mentionShare {
			content = fmt.Sprintf("@**User %d** please look at message %d.", 1+rng.IntN(sh.users), i)
		}
		ts := start + i*30
		if rng.Float64() < sh.directShare {
			a, b := 1+rng.IntN(sh.users), 1+rng.IntN(sh.users)
			if a == b {
				b = a%sh.users + 1
			}
			p("\n{\"id\": %d, \"sender_id\": %d, \"to\": [%d], \"content\": %q, \"timestamp\": %d}", i, a, b, content, ts)
			continue
		}
		// A few hot channels and topics take most messages.
		c := int(float64(sh.channels) * rng.Float64() * rng.Float64())
		m := members[c]
		sender := m[rng.IntN(len(m))]
		topic := int(float64(sh.topics/sh.channels+1) * rng.Float64() * rng.Float64())
		p("\n{\"id\": %d, \"sender_id\": %d, \"channel_id\": %d, \"topic\": \"topic %d\", \"content\": %q, \"timestamp\": %d",
			i, sender, 1+c, topic, content, ts)
		if rng.Float64() < sh.reactionShare {
			p(", \"reactions\": [{\"user_id\": %d, \"emoji_name\": \"tada\", \"emoji_code\": \"1f389\"}]", m[rng.IntN(len(m))])
		}
		p("}")
	}
	p("\n]}]}\n")
	return bw.Flush()
}
