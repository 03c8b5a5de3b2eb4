package chatcore_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// opsChannelTo returns the "to" of a scheduled message to the channel of e's
// realm with the name: its id as JSON.
func opsChannelTo(tb testing.TB, e *opsEnv, name string) string {
	tb.Helper()
	st := readStore(tb, e.base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) {
		return tx.StreamByName(ctx, e.realm.ID, name)
	})
	return strconv.FormatInt(int64(st.ID), 10)
}

// TestCreateScheduledMessageParams checks that the parameters are read as
// Zulip reads them: all required, to strictly an integer or a list of
// integers, and every parameter error reported before the delivery time is
// checked.
func TestCreateScheduledMessageParams(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	sid := strconv.FormatInt(int64(st.ID), 10)
	past := seedTime.Add(-time.Hour)

	t.Run("decoded from wire parameters", func(t *testing.T) {
		tests := []struct {
			name   string
			params url.Values
			code   chatcore.Code
			msg    string
		}{
			{"nothing", url.Values{}, chatcore.CodeRequestVariableMissing, "Missing 'content' argument"},
			{"no to", url.Values{"content": {"hi"}, "type": {"stream"}}, chatcore.CodeRequestVariableMissing, "Missing 'to' argument"},
			{"no type", url.Values{"content": {"hi"}, "to": {sid}}, chatcore.CodeRequestVariableMissing, "Missing 'type' argument"},
			{"channel name", url.Values{"content": {"hi"}, "to": {"Denmark"}, "type": {"stream"}}, chatcore.CodeBadRequest, "to is not valid JSON"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var req chatcore.CreateScheduledMessageRequest
				_, err := chatcore.DecodeParams(tt.params, &req)
				e := wantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
				if tt.code == chatcore.CodeRequestVariableMissing {
					is := is.New(t)
					is.True(e.Data["var_name"] != nil) // var_name names the parameter
				}
			})
		}
		is := is.New(t)
		var req chatcore.CreateScheduledMessageRequest
		ignored, err := chatcore.DecodeParams(url.Values{"content": {"hi"}, "to": {"[1, 2]"}, "type": {"direct"}, "topic": {"x"}}, &req)
		is.NoErr(err)                      // a complete request decodes
		is.Equal(len(ignored), 0)          // every parameter is read
		is.Equal(string(req.To), "[1, 2]") // to kept as its JSON text
		is.Equal(*req.Topic, "x")          // topic taken literally
		is.Equal(req.Type, "direct")       // type
		is.Equal(req.Content, "hi")        // content
	})

	tests := []struct {
		name string
		req  chatcore.CreateScheduledMessageRequest
		code chatcore.Code
		msg  string
	}{
		// Parameter errors come before the delivery time check (past here).
		{"missing to", chatcore.CreateScheduledMessageRequest{Type: "stream", Content: "hi", DeliverAt: past}, chatcore.CodeRequestVariableMissing, "Missing 'to' argument"},
		{"missing type", chatcore.CreateScheduledMessageRequest{To: json.RawMessage(sid), Content: "hi", DeliverAt: past}, chatcore.CodeRequestVariableMissing, "Missing 'type' argument"},
		{"to not JSON", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage("Denmark"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not valid JSON"},
		{"to a JSON string", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage(`"Denmark"`), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to a float", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage("1.5"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to null", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage("null"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to a list of e-mails", chatcore.CreateScheduledMessageRequest{Type: "direct", To: json.RawMessage(`["a@b.test"]`), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"bad type", chatcore.CreateScheduledMessageRequest{Type: "carrier pigeon", To: json.RawMessage(sid), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
		// Then the delivery time, then the shape of to for the type.
		{"past", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage("[1]"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"channel message to a list", chatcore.CreateScheduledMessageRequest{Type: "channel", To: json.RawMessage("[" + sid + "]"), Topic: new("t"), Content: "hi", DeliverAt: seedTime.Add(time.Hour)}, chatcore.CodeBadRequest, "Invalid data type for channel ID"},
		{"direct message to an integer", chatcore.CreateScheduledMessageRequest{Type: "direct", To: json.RawMessage("12"), Content: "hi", DeliverAt: seedTime.Add(time.Hour)}, chatcore.CodeBadRequest, "Invalid data type for recipients"},
		{"channel id 0", chatcore.CreateScheduledMessageRequest{Type: "stream", To: json.RawMessage("0"), Topic: new("t"), Content: "hi", DeliverAt: seedTime.Add(time.Hour)}, chatcore.CodeStreamDoesNotExist, "Channel with ID '0' does not exist"},
		{"no recipients", chatcore.CreateScheduledMessageRequest{Type: "direct", To: json.RawMessage("[]"), Content: "hi", DeliverAt: seedTime.Add(time.Hour)}, chatcore.CodeBadRequest, "Message must have recipients"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, tt.req)
			wantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
		})
	}

	t.Run("ids accepted", func(t *testing.T) {
		is := is.New(t)
		id, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, chatcore.CreateScheduledMessageRequest{
			Type: "channel", To: json.RawMessage(" " + sid + " "), Topic: new("t"), Content: "hi", DeliverAt: seedTime.Add(time.Hour),
		})
		is.NoErr(err)                                   // a channel id
		is.Equal(e.scheduledRow(t, id).StreamID, st.ID) // to that channel
		dm, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, chatcore.CreateScheduledMessageRequest{
			Type: "private", To: json.RawMessage(opsIDList(e.mod.ID, e.mod.ID)), Content: "hi", DeliverAt: seedTime.Add(time.Hour),
		})
		is.NoErr(err)                                                              // a list of user ids
		is.Equal(e.scheduledRow(t, dm).DirectMembers, []chatcore.UserID{e.mod.ID}) // duplicates dropped
	})
}
