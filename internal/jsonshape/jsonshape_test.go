package jsonshape_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/chatcore/chatcore/internal/jsonshape"
	"github.com/matryer/is"
)

type user struct {
	ID       int64             `json:"id"`
	Name     string            `json:"name"`
	Active   *bool             `json:"is_active,omitempty"`
	Tags     []string          `json:"tags"`
	Settings map[string]int    `json:"settings"`
	Extra    json.RawMessage   `json:"extra"`
	Friends  []*user           `json:"friends"`
	Meta     map[string]string `json:"-"`
}

type doc struct {
	Users []user `json:"users"`
	Count int    `json:"count"`
}

type unsupported struct {
	Ratio float64 `json:"ratio"`
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		json string
		msg  string // "" when the document fits
	}{
		{name: "fits", json: `{"users": [{"id": 1, "name": "a", "is_active": true, "tags": ["x"], "settings": {"k": 2}, "extra": {"any": [1, {"deep": null}]}, "friends": [{"id": 2}]}], "count": 1}`},
		{name: "empty object", json: `{}`},
		{name: "nulls where nil is allowed", json: `{"users": [{"is_active": null, "tags": null, "settings": null, "friends": [null]}]}`},
		{name: "raw message takes any value", json: `{"users": [{"extra": "text"}, {"extra": 1.5}, {"extra": null}]}`},
		{name: "syntax error with line and column", json: "{\"users\": [\n  }", msg: "users: invalid JSON at line 2, column 3: invalid character '}' looking for beginning of value"},
		{name: "truncated", json: `{"users": [`, msg: "users: unexpected end of JSON"},
		{name: "empty input", json: ``, msg: "doc: unexpected end of JSON"},
		{name: "trailing data", json: `{} {}`, msg: "doc: unexpected data after the top-level object"},
		{name: "top-level null", json: `null`, msg: "doc: must not be null"},
		{name: "top-level list", json: `[]`, msg: "doc: must be an object, not a list"},
		{name: "unknown key", json: `{"users": [{"id": 1}, {"nick": "n"}]}`, msg: "users[1].nick: unknown key"},
		{name: "ignored field is unknown", json: `{"users": [{"Meta": {}}]}`, msg: "users[0].Meta: unknown key"},
		{name: "duplicate key", json: `{"count": 1, "count": 2}`, msg: "count: duplicate key"},
		{name: "string for an integer", json: `{"users": [{"id": "1"}]}`, msg: "users[0].id: must be an integer, not a string"},
		{name: "fraction for an integer", json: `{"count": 1.5}`, msg: "count: must be an integer, not 1.5"},
		{name: "integer out of range", json: `{"count": 9223372036854775808}`, msg: "count: must be an integer, not 9223372036854775808"},
		{name: "number for a string", json: `{"users": [{"name": 7}]}`, msg: "users[0].name: must be a string, not a number"},
		{name: "string for a boolean", json: `{"users": [{"is_active": "yes"}]}`, msg: "users[0].is_active: must be a boolean, not a string"},
		{name: "object for a list", json: `{"users": {}}`, msg: "users: must be a list, not an object"},
		{name: "list for an object", json: `{"users": [[]]}`, msg: "users[0]: must be an object, not a list"},
		{name: "null for a required value", json: `{"users": [{"name": null}]}`, msg: "users[0].name: must not be null"},
		{name: "wrong type in a map", json: `{"users": [{"settings": {"k": true}}]}`, msg: "users[0].settings.k: must be an integer, not a boolean"},
		{name: "nested pointer", json: `{"users": [{"friends": [{"id": 1, "x": 0}]}]}`, msg: "users[0].friends[0].x: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			err := jsonshape.Check([]byte(tc.json), reflect.TypeFor[doc](), "doc")
			if tc.msg == "" {
				is.NoErr(err) // the document has the shape of doc
				var d doc
				is.NoErr(json.Unmarshal([]byte(tc.json), &d)) // and encoding/json agrees
				return
			}
			is.True(err != nil)           // the document does not fit
			is.Equal(err.Error(), tc.msg) // the message names the path and the problem
		})
		t.Run(tc.name+"/stream", func(t *testing.T) {
			is := is.New(t)
			// One byte per read: the decoder refills at every token.
			for _, mode := range []jsonshape.Mode{jsonshape.Walk, jsonshape.Capture, jsonshape.Mark} {
				var users []user
				err := jsonshape.Stream(iotest.OneByteReader(strings.NewReader(tc.json)), reflect.TypeFor[doc](), "doc",
					func(path string) jsonshape.Mode {
						if strings.HasPrefix(path, "users[") && !strings.Contains(path, "].") {
							return mode
						}
						return jsonshape.Walk
					},
					func(path string, raw []byte, off int64) error {
						switch mode {
						case jsonshape.Capture:
							var u user
							is.NoErr(json.Unmarshal(raw, &u)) // a captured value is the element's JSON
							users = append(users, u)
						case jsonshape.Mark:
							var u user
							dec := json.NewDecoder(jsonshape.ValueReader(strings.NewReader(tc.json[off:])))
							is.NoErr(dec.Decode(&u)) // the element starts at a marked offset
							users = append(users, u)
						}
						return nil
					})
				if tc.msg != "" {
					is.True(err != nil)           // a streamed document that does not fit
					is.Equal(err.Error(), tc.msg) // gets Check's message
					continue
				}
				is.NoErr(err) // a streamed document that fits passes
				if mode != jsonshape.Walk {
					var d doc
					is.NoErr(json.Unmarshal([]byte(tc.json), &d)) // decodes whole
					is.Equal(len(users), len(d.Users))            // every element was handed over
					for i := range users {
						is.Equal(users[i].ID, d.Users[i].ID)     // in order
						is.Equal(users[i].Tags, d.Users[i].Tags) // whole
					}
				}
			}
		})
	}
}

// TestStreamLongDocument checks a document longer than the window Stream
// keeps: the line and column of a late syntax error, and the values of
// elements captured far into it.
func TestStreamLongDocument(t *testing.T) {
	is := is.New(t)
	var b strings.Builder
	b.WriteString("{\"users\": [\n")
	const n = 20000
	for i := range n {
		fmt.Fprintf(&b, "  {\"id\": %d, \"name\": \"user %d\", \"tags\": [\"a\", \"b\"]},\n", i, i)
	}
	good := b.String() + "  {\"id\": -1}\n]}"
	bad := b.String() + "  {\"id\": ]}"
	var ids []int64
	err := jsonshape.Stream(strings.NewReader(good), reflect.TypeFor[doc](), "doc",
		func(path string) jsonshape.Mode {
			if strings.HasPrefix(path, "users[") && !strings.Contains(path, "].") {
				return jsonshape.Capture
			}
			return jsonshape.Walk
		},
		func(path string, raw []byte, _ int64) error {
			var u user
			if err := json.Unmarshal(raw, &u); err != nil {
				return err
			}
			if want := fmt.Sprintf("users[%d]", len(ids)); path != want {
				return fmt.Errorf("path %s, want %s", path, want)
			}
			ids = append(ids, u.ID)
			return nil
		})
	is.NoErr(err)                  // the long document fits
	is.Equal(len(ids), n+1)        // every element captured
	is.Equal(ids[n-1], int64(n-1)) // the last but one whole
	is.Equal(ids[n], int64(-1))    // and the last
	want := jsonshape.Check([]byte(bad), reflect.TypeFor[doc](), "doc")
	is.True(want != nil) // the bad document does not fit
	got := jsonshape.Stream(strings.NewReader(bad), reflect.TypeFor[doc](), "doc",
		func(string) jsonshape.Mode { return jsonshape.Walk }, nil)
	is.Equal(got.Error(), want.Error())                                            // the same line and column as Check
	is.True(strings.Contains(got.Error(), fmt.Sprintf("line %d, column 10", n+2))) // on the last line
}

func TestCheckUnsupportedKind(t *testing.T) {
	is := is.New(t)
	err := jsonshape.Check([]byte(`{"ratio": 0.5}`), reflect.TypeFor[unsupported](), "doc")
	is.True(err != nil)                                      // a float field cannot be checked
	is.Equal(err.Error(), "ratio: unsupported type float64") // and says so
}

func TestCheckTopLevelList(t *testing.T) {
	is := is.New(t)
	err := jsonshape.Check([]byte(`[1, 2] 3`), reflect.TypeFor[[]int](), "ids")
	is.Equal(err.Error(), "ids: unexpected data after the top-level list") // the trailing value is named by the root's kind
	err = jsonshape.Check([]byte(`[1, "2"]`), reflect.TypeFor[[]int](), "ids")
	is.Equal(err.Error(), "[1]: must be an integer, not a string") // list elements are named by index
}
