package sqlstore

import (
	"encoding/json"
	"strconv"
)

// List is the argument of a list parameter of ids: a JSON array when the
// dialect has JSONLists ("[]" when empty), else the slice itself.
func List[T ~int64](d *Dialect, ids []T) any {
	if d.JSONLists {
		return IDsJSON(ids)
	}
	return ids
}

// Strings is List for a list of strings.
func (d *Dialect) Strings(s []string) any {
	if d.JSONLists {
		if s == nil {
			return "[]"
		}
		b, _ := json.Marshal(s) // strings always marshal
		return string(b)
	}
	return s
}

// IDsJSON returns ids as a JSON array, "[]" when empty.
func IDsJSON[T ~int64](ids []T) string {
	b := make([]byte, 0, 2+len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return string(append(b, ']'))
}

// In returns the condition that expr is an element of the list parameter
// param (see List) of SQL element type typ ("bigint", "text").
func (d *Dialect) In(expr, param, typ string) string {
	if d.JSONLists {
		return expr + " IN (SELECT value FROM json_each(" + param + "))"
	}
	return expr + " = ANY(" + param + "::" + typ + "[])"
}

// Each returns a FROM item whose column value holds the elements of the
// list parameter param (see List) of SQL element type typ. A statement
// INSERT ... SELECT ... FROM Each(...) ON CONFLICT needs a WHERE clause
// (WHERE true) for SQLite to read the ON CONFLICT as the insert's.
func (d *Dialect) Each(param, typ string) string {
	if d.JSONLists {
		return "json_each(" + param + ")"
	}
	return "unnest(" + param + "::" + typ + "[]) AS value"
}

// Cast returns param cast to the SQL type typ where the dialect has Casts,
// else param.
func (d *Dialect) Cast(param, typ string) string {
	if d.Casts {
		return param + "::" + typ
	}
	return param
}
