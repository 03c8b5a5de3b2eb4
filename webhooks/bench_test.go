package webhooks_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// BenchmarkWebhookPayload measures building the jobs (view + JSON payload) of
// a message that mentions one bot with one service: the work the delivery hook does
// on the sending path.
func BenchmarkWebhookPayload(b *testing.B) {
	is := is.New(b)
	w, _ := newWebhookWorld(b, fast(), botServices{echoBot: generic("http://192.0.2.1/")})
	id, err := w.Svc.SendMessage(b.Context(), mark, chatcore.SendMessageRequest{
		Type: "stream", To: new("general"), Topic: new("bench"), Content: "@**Echo Bot** some **bold** text",
	})
	is.NoErr(err) // sent
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bodies(b, w, id, []chatcore.UserID{echoBot}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWebhookDelivery measures the latency from sending a message that
// mentions a bot to its integration receiving the payload (memory store,
// integration on loopback).
func BenchmarkWebhookDelivery(b *testing.B) {
	got := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"response_not_required": true}`)
		got <- struct{}{}
	}))
	b.Cleanup(srv.Close)
	w, _ := newWebhookWorld(b, fast(), botServices{echoBot: generic(srv.URL)})
	req := chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: new("bench"), Content: "@**Echo Bot** ping"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Svc.SendMessage(b.Context(), mark, req); err != nil {
			b.Fatal(err)
		}
		<-got
	}
}
