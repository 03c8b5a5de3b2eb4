package chatcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// TestDirectNarrowReadsWithoutWriting checks that GET /messages with a dm
// narrow reads without writing, also for a conversation that does not exist.
func TestDirectNarrowReadsWithoutWriting(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, gs := newVerona(t, open)
		ctx := context.Background()
		req := messages.Request{
			Anchor: new("newest"), NumBefore: new(10),
			NarrowJSON: json.RawMessage(fmt.Sprintf(`[{"operator":"dm","operand":[%d]}]`, org.Ophelia.ID)),
		}
		before := gs.Updates.Load()
		res, err := messages.Get(ctx, w.Svc, org.Ham.ID, req)
		is.NoErr(err)                               // a conversation that does not exist yet is no error
		is.Equal(len(res.Messages), 0)              // it has no messages
		is.True(res.FoundOldest && res.FoundNewest) // and the whole (empty) history was seen
		is.Equal(gs.Updates.Load(), before)         // the read wrote nothing
		is.NoErr(w.Base.View(ctx, func(tx chatcore.Tx) error {
			rs, err := tx.DirectRecipients(ctx, org.Ophelia.ID)
			is.NoErr(err)        // conversations listed
			is.Equal(len(rs), 0) // no conversation was created
			return nil
		})) // the store is unchanged

		id, err := w.Svc.SendMessage(ctx, org.Ophelia.ID, chatcore.SendMessageRequest{
			Type: "direct", To: new(fmt.Sprintf("[%d]", org.Ham.ID)), Content: "hi",
		})
		is.NoErr(err) // direct message sent
		before = gs.Updates.Load()
		res, err = messages.Get(ctx, w.Svc, org.Ham.ID, req)
		is.NoErr(err)                       // the existing conversation is read
		is.Equal(len(res.Messages), 1)      // with its message
		is.Equal(res.Messages[0].ID, id)    // the one sent
		is.Equal(gs.Updates.Load(), before) // still without a write
	})
}

// TestLegacyNarrowForm checks the legacy list-of-pairs narrow form, alone and
// mixed with the object form, and Zulip's errors for malformed narrows.
func TestLegacyNarrowForm(t *testing.T) {
	is := is.New(t)
	w, org, _ := newVerona(t, chattest.New)
	ctx := context.Background()
	x := w.Send(t, org.Ham, org.General, "x", "hello")
	w.Send(t, org.Ham, org.General, "y", "hello")
	fetch := func(narrow string) ([]chatcore.MessageID, error) {
		res, err := messages.Get(ctx, w.Svc, org.Ham.ID, messages.Request{
			Anchor: new("newest"), NumBefore: new(10), NarrowJSON: json.RawMessage(narrow),
		})
		var ids []chatcore.MessageID
		for _, m := range res.Messages {
			ids = append(ids, m.ID)
		}
		return ids, err
	}
	legacy, err := fetch(`[["stream","Verona"],["topic","X"]]`)
	is.NoErr(err)                             // the legacy pair form is accepted
	is.Equal(legacy, []chatcore.MessageID{x}) // and narrows like the object form
	dict, err := fetch(`[{"operator":"stream","operand":"Verona"},{"operator":"topic","operand":"X"}]`)
	is.NoErr(err)          // the object form is accepted
	is.Equal(dict, legacy) // both forms give the same messages
	mixed, err := fetch(` [ ["topic", "x"], {"operator":"channel","operand":` + fmt.Sprint(org.General.ID) + `,"negated":false} ] `)
	is.NoErr(err)           // both forms may be mixed
	is.Equal(mixed, legacy) // to the same effect
	for _, none := range []string{``, `null`, `[]`} {
		all, err := fetch(none)
		is.NoErr(err)         // no narrow
		is.Equal(len(all), 2) // every message
	}
	combined, err := messages.Get(ctx, w.Svc, org.Ham.ID, messages.Request{
		Anchor: new("newest"), NumBefore: new(10),
		Narrow:     []messages.NarrowTerm{{Operator: "topic", Operand: json.RawMessage(`"x"`)}},
		NarrowJSON: json.RawMessage(`[["stream","Verona"]]`),
	})
	is.NoErr(err)                        // Go terms and wire terms together
	is.Equal(len(combined.Messages), 1)  // all terms apply
	is.Equal(combined.Messages[0].ID, x) // the topic term from Narrow still filters

	for _, tc := range []struct {
		name, narrow, msg string
	}{
		{"not a list", `{"operator":"stream","operand":"Verona"}`, "narrow is not a list"},
		{"string", `"stream:Verona"`, "narrow is not a list"},
		{"invalid JSON", `[["stream"`, "narrow is not valid JSON"},
		{"short pair", `[["stream"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"long pair", `[["stream","Verona","x"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"numeric operand in a pair", `[["stream",5]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"null in a pair", `[["stream",null]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"second element", `[["stream","Verona"],[1,"x"]]`, "Invalid narrow[1]: Value error, element is not a string pair"},
		{"number element", `[5]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"string element", `["stream"]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"missing operand", `[{"operator":"stream"}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"null operand", `[{"operator":"stream","operand":null}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"missing operator", `[{"operand":"Verona"}]`, "Invalid narrow[0]: Value error, operator is missing"},
		{"operator not a string", `[{"operator":1,"operand":"Verona"}]`, `narrow[0]["operator"] is not a string`},
		{"negated not a boolean", `[{"operator":"stream","operand":"Verona","negated":"no"}]`, `narrow[0]["negated"] is not a boolean`},
		{"negated null", `[{"operator":"stream","operand":"Verona","negated":null}]`, `narrow[0]["negated"] is not a boolean`},
		{"unknown operator in a pair", `[["color","red"]]`, "Invalid narrow operator: unknown operator color"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fetch(tc.narrow)
			code := chatcore.CodeBadRequest
			if strings.HasPrefix(tc.msg, "Invalid narrow operator: ") {
				code = chatcore.CodeBadNarrow // Zulip's BadNarrowOperatorError
			}
			chattest.WantError(t, err, code, chatcore.KindInvalid, tc.msg)
		})
	}
}

// TestLegacyNarrowOverTheWire checks that DecodeParams keeps the wire narrow
// as raw JSON.
func TestLegacyNarrowOverTheWire(t *testing.T) {
	// The wire parameter reaches the request through DecodeParams as raw JSON.
	is := is.New(t)
	var req messages.Request
	ignored, err := wire.DecodeParams(map[string][]string{"narrow": {`[["stream","Verona"]]`}}, &req)
	is.NoErr(err)                                             // a list of pairs decodes
	is.Equal(len(ignored), 0)                                 // narrow is a known parameter
	is.Equal(string(req.NarrowJSON), `[["stream","Verona"]]`) // kept as raw JSON
	is.Equal(req.Narrow, nil)                                 // Narrow is for Go callers only
}
