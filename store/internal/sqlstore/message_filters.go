package sqlstore

import (
	"strconv"

	"github.com/chatcore/chatcore/store"
)

// Params collects the parameters of a statement under construction, each
// written $N.
type Params struct {
	// Args are the statement's arguments, in placeholder order.
	Args []any
}

// Add appends v to the arguments and returns its placeholder.
func (p *Params) Add(v any) string {
	p.Args = append(p.Args, v)
	return "$" + strconv.Itoa(len(p.Args))
}

// FilterConds appends to where the conditions of f on the message row m
// that come after its realm, channel and topic (which each store spells as
// its plans need): its id range, sender, ids and kinds, with their
// parameters added to p. public and private spell the condition that the
// stream s is not, and is, invite-only (see KindsCondition).
func (d *Dialect) FilterConds(where []string, p *Params, f store.MessageFilter, public, private string) []string {
	if f.MinID != 0 {
		where = append(where, "m.id >= "+p.Add(f.MinID))
	}
	if f.BeforeID != 0 {
		where = append(where, "m.id < "+p.Add(f.BeforeID))
	}
	if f.SenderID != 0 {
		where = append(where, "m.sender_id = "+p.Add(f.SenderID))
	}
	if f.IDs != nil {
		where = append(where, d.In("m.id", p.Add(List(d, f.IDs)), "bigint"))
	}
	if kinds := KindsCondition(f.Kinds, public, private); kinds != "" {
		where = append(where, kinds)
	}
	return where
}

// DeletedReturning is the RETURNING clause of a statement that deletes
// messages matching f, whose rows a store scans into store.DeletedMessage:
// the type comes back as a flag (private) and, under a topic filter, the
// topic key as NULL (the filter's applies): no string per row.
func DeletedReturning(f store.MessageFilter) string {
	topicKey := "topic_key"
	if f.TopicKey != nil {
		topicKey = "NULL"
	}
	return "RETURNING id, type = 'private', stream_id, topic, " + topicKey + ", sender_id, direct_members"
}
