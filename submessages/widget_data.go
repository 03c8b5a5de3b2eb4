package submessages

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/chatcore/chatcore"
)

// maxIdx is the largest option or task index a widget's data may carry
// (Zulip's MAX_IDX, matching its clients).
const maxIdx = 1000

// checker checks a value named name, as Zulip's validators.
type checker func(name string, v any) error

// field is a required key of a dict and its checker.
type field struct {
	key   string
	check checker
}

func checkString(name string, v any) error {
	if _, ok := v.(string); !ok {
		return chatcore.BadRequestf("%s is not a string", name)
	}
	return nil
}

func checkBool(name string, v any) error {
	if _, ok := v.(bool); !ok {
		return chatcore.BadRequestf("%s is not a boolean", name)
	}
	return nil
}

// intOf returns v, decoded with UseNumber, as an integer when it is a
// JSON integer (1.0 is a float, as in Python).
func intOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	i, err := n.Int64()
	if err != nil {
		return math.MaxInt64, true // beyond every range checked
	}
	return i, true
}

func checkIntIn(allowed ...int64) checker {
	return func(name string, v any) error {
		n, ok := intOf(v)
		if !ok {
			return chatcore.BadRequestf("%s is not an integer", name)
		}
		for _, a := range allowed {
			if n == a {
				return nil
			}
		}
		return chatcore.BadRequestf("Invalid %s", name)
	}
}

func checkIntRange(low, high int64) checker {
	return func(name string, v any) error {
		n, ok := intOf(v)
		if !ok {
			return chatcore.BadRequestf("%s is not an integer", name)
		}
		if n < low {
			return chatcore.BadRequestf("%s is too small", name)
		}
		if n > high {
			return chatcore.BadRequestf("%s is too large", name)
		}
		return nil
	}
}

// checkDict checks that v is a dict with the required fields, each
// checked in order; only also refuses keys beyond them (Zulip's
// check_dict and check_dict_only).
func checkDict(name string, v any, only bool, fields ...field) error {
	d, ok := v.(map[string]any)
	if !ok {
		return chatcore.BadRequestf("%s is not a dict", name)
	}
	for _, f := range fields {
		x, ok := d[f.key]
		if !ok {
			return chatcore.BadRequestf("%s key is missing from %s", f.key, name)
		}
		if err := f.check(fmt.Sprintf(`%s["%s"]`, name, f.key), x); err != nil {
			return err
		}
	}
	if only {
		var extra []string
		for k := range d {
			if !isField(k, fields) {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 {
			sort.Strings(extra)
			return chatcore.BadRequestf("Unexpected arguments: %s", strings.Join(extra, ", "))
		}
	}
	return nil
}

func isField(k string, fields []field) bool {
	for _, f := range fields {
		if f.key == k {
			return true
		}
	}
	return false
}

// typeOf checks that data is a dict with a string "type" and returns it.
func typeOf(name string, data any) (string, error) {
	if err := checkDict(name, data, false, field{"type", checkString}); err != nil {
		return "", err
	}
	return data.(map[string]any)["type"].(string), nil
}

// validatePoll checks a poll's submessage data as Zulip's
// validate_poll_data: a vote, a new question (its author only) or a new
// option.
func validatePoll(data any, author bool) error {
	const name = "poll data"
	typ, err := typeOf(name, data)
	if err != nil {
		return err
	}
	switch typ {
	case "vote":
		return checkDict(name, data, true, field{"type", checkString}, field{"key", checkString}, field{"vote", checkIntIn(1, -1)})
	case "question":
		if !author {
			return chatcore.BadRequest("You can't edit a question unless you are the author.")
		}
		return checkDict(name, data, true, field{"type", checkString}, field{"question", checkString})
	case "new_option":
		return checkDict(name, data, true, field{"type", checkString}, field{"option", checkString}, field{"idx", checkIntRange(0, maxIdx)})
	}
	return chatcore.BadRequestf("Unknown type for poll data: %s", typ)
}

// validateTodo checks a to-do list's submessage data as Zulip's
// validate_todo_data: a new task, a strike (toggling a task done) or a new
// title (its author only).
func validateTodo(data any, author bool) error {
	const name = "todo data"
	typ, err := typeOf(name, data)
	if err != nil {
		return err
	}
	switch typ {
	case "new_task":
		return checkDict(name, data, true, field{"type", checkString}, field{"key", checkIntRange(0, maxIdx)},
			field{"task", checkString}, field{"desc", checkString}, field{"completed", checkBool})
	case "strike":
		return checkDict(name, data, true, field{"type", checkString}, field{"key", checkString})
	case "new_task_list_title":
		if !author {
			return chatcore.BadRequest("You can't edit the task list title unless you are the author.")
		}
		return checkDict(name, data, true, field{"type", checkString}, field{"title", checkString})
	}
	return chatcore.BadRequestf("Unknown type for todo data: %s", typ)
}
