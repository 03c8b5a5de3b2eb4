package messages

// The narrows of a user's topic and channel settings: is:muted,
// is:followed and in:home, as Zulip's NarrowBuilder reads them (with
// exclude_muting_conditions).

import (
	"encoding/json"

	"github.com/chatcore/chatcore"
)

// parseIn applies in:<what> to spec: in:home keeps what the viewer has not
// muted; in:all keeps everything. Other operands are Zulip's "unknown 'in'
// operand <what>".
func parseIn(spec *narrowSpec, raw json.RawMessage) error {
	what, ok := stringOperand(raw)
	if !ok {
		return errBadNarrow("unknown 'in' operand")
	}
	switch what {
	case "home":
		spec.topics |= chatcore.TopicsInHome
	case "all":
	default:
		return errBadNarrow("unknown 'in' operand " + what)
	}
	return nil
}

// applyTopicFilter sets q's topic filter from spec for viewer (every term's
// condition holds at once): in:home of a narrow to one channel leaves that
// channel's messages in even when the viewer muted it (only muted topics
// go), as Zulip's channel-level muting applies to views of several channels
// only.
func applyTopicFilter(q *chatcore.MessageQuery, viewer *chatcore.User, spec narrowSpec) {
	if spec.topics == chatcore.TopicsAll {
		return
	}
	q.TopicUser, q.TopicFilter = viewer.ID, spec.topics
	if spec.topics&chatcore.TopicsInHome != 0 && spec.stream != nil {
		q.TopicFilter = q.TopicFilter&^chatcore.TopicsInHome | chatcore.TopicsInHomeOfChannel
	}
}
