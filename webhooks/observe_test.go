package webhooks_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/matryer/is"
)

// TestWebhookOnOutcome: each delivery's outcome reaches Options.OnOutcome
// once.
func TestWebhookOnOutcome(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	var got []string
	o := fast()
	o.OnOutcome = func(outcome string) { mu.Lock(); got = append(got, outcome); mu.Unlock() }
	a := newRecorder(t, answer(200, `{"content": "from a"}`))
	b := newRecorder(t, answer(500, `oops`))
	c := newRecorder(t, answer(200, `{}`))
	w, _ := newWebhookWorld(t, o, botServices{echoBot: {
		{Name: "a", BaseURL: a.srv.URL, Token: "tokenA", Interface: "generic"},
		{Name: "b", BaseURL: b.srv.URL, Token: "tokenB", Interface: "generic"},
		{Name: "c", BaseURL: c.srv.URL, Token: "tokenC", Interface: "generic"},
	}})
	sendChannel(t, w, mark, "t", "@**Echo Bot** all three")
	drain(t, w)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	is.Equal(got, []string{"empty", "failure", "reply"}) // one outcome per delivery
}
