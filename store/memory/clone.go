package memory

import (
	"slices"

	"github.com/chatcore/chatcore/store"
)

// The clone functions return deep copies, so neither callers nor the store can
// reach the other's memory. Nil slices stay nil.

func cloneRealm(r *store.Realm) *store.Realm { c := *r; return &c }

func cloneUser(u *store.User) *store.User { c := *u; return &c }

func cloneService(s *store.BotService) *store.BotService { c := *s; return &c }

func cloneGroup(g *store.Group) *store.Group {
	c := *g
	c.Members = slices.Clone(g.Members)
	c.Subgroups = slices.Clone(g.Subgroups)
	return &c
}

func cloneStream(s *store.Stream) *store.Stream { c := *s; return &c }

func cloneSub(s *store.Subscription) *store.Subscription {
	c := *s
	p := &c.SubscriptionProperties
	for _, b := range []**bool{&p.DesktopNotifications, &p.AudibleNotifications, &p.PushNotifications, &p.EmailNotifications, &p.WildcardMentionsNotify} {
		if *b != nil {
			v := **b
			*b = &v
		}
	}
	return &c
}

func cloneMessage(m *store.Message) *store.Message {
	c := copyMessage(m)
	return &c
}

// copyMessage returns a deep copy of m by value, for filling result slices
// without a heap allocation per message.
func copyMessage(m *store.Message) store.Message {
	c := *m
	c.DirectMembers = slices.Clone(m.DirectMembers)
	c.Reactions = slices.Clone(m.Reactions)
	c.Submessages = slices.Clone(m.Submessages)
	if m.EditHistory != nil {
		c.EditHistory = make([]store.EditHistoryEntry, len(m.EditHistory))
		for i, e := range m.EditHistory {
			e.PrevTopic = cloneString(e.PrevTopic)
			e.Topic = cloneString(e.Topic)
			c.EditHistory[i] = e
		}
	}
	return c
}

func cloneString(p *string) *string {
	if p == nil {
		return nil
	}
	s := *p
	return &s
}

func cloneScheduled(m *store.ScheduledMessage) *store.ScheduledMessage {
	c := *m
	c.DirectMembers = slices.Clone(m.DirectMembers)
	return &c
}

func cloneLinkifier(l *store.Linkifier) *store.Linkifier { c := *l; return &c }

func cloneDraft(d *store.Draft) *store.Draft {
	c := *d
	c.To = slices.Clone(d.To)
	return &c
}

func cloneEmailChange(e *store.EmailChange) *store.EmailChange { c := *e; return &c }
