package webhooks_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestWebhookTimeoutRetries(t *testing.T) {
	is := is.New(t)
	var attempts atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts.Add(1)
		io.ReadAll(r.Body) // lets the server notice the client hanging up
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	o := fast()
	o.Timeout = 50 * time.Millisecond
	w, _ := newWebhookWorld(t, o, botServices{echoBot: generic(srv.URL)})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** slow")
	drain(t, w)
	is.Equal(attempts.Load(), int32(4)) // one attempt and 3 retries
	inTopic, toOwner := conversationAfter(t, w, id)
	is.Equal(len(inTopic), 1)                                                                                               // one failure notice
	is.Equal(inTopic[0].Content, "Failure! Bot is unavailable")                                                             // Zulip's text
	is.Equal(len(toOwner), 1)                                                                                               // the owner is told
	is.True(strings.HasSuffix(toOwner[0].Content, "triggered an outgoing webhook.\nRequest timed out after 0.05 seconds.")) // why
}

func TestWebhookMaxRetries(t *testing.T) {
	is := is.New(t)
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) < 3 {
			// Drop the connection without an answer: a connection error.
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		io.WriteString(w, `{"content": "third time lucky"}`)
	}))
	t.Cleanup(srv.Close)
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(srv.URL)})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** flaky")
	drain(t, w)
	is.Equal(attempts.Load(), int32(3)) // retried until it answered
	ms := messagesAfter(t, w, id)
	is.Equal(len(ms), 1)                        // the reply only
	is.Equal(ms[0].Content, "third time lucky") // the answer of the third attempt
}

func TestWebhookConnectionRefused(t *testing.T) {
	is := is.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err) // a free port
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	w, logs := newWebhookWorld(t, fast(), botServices{echoBot: generic("http://" + addr + "/")})
	id := sendChannel(t, w, mark, "t", "@**Echo Bot** anyone?")
	drain(t, w)
	inTopic, toOwner := conversationAfter(t, w, id)
	is.Equal(len(inTopic), 1)                                                                               // one failure notice
	is.Equal(inTopic[0].Content, "Failure! Bot is unavailable")                                             // Zulip's text
	is.Equal(len(toOwner), 1)                                                                               // the owner is told
	is.True(strings.HasSuffix(toOwner[0].Content, "\nA connection error occurred. Is my bot server down?")) // why
	is.Equal(strings.Count(logs.String(), "outgoing webhook attempt failed"), 4)                            // 4 attempts
}

func TestWebhookPrivateAddressesRefused(t *testing.T) {
	tests := []struct{ name, url string }{
		{"loopback IPv4", "http://127.0.0.1:%s/"},
		{"localhost name", "http://localhost:%s/"},
		{"loopback IPv6", "http://[::1]:%s/"},
		{"IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:%s/"},
		{"unspecified", "http://0.0.0.0:%s/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := newRecorder(t, answer(200, `{"content": "should never be seen"}`))
			port := rec.srv.URL[strings.LastIndex(rec.srv.URL, ":")+1:]
			o := fast()
			o.AllowPrivate = false
			w, _ := newWebhookWorld(t, o, botServices{echoBot: generic(strings.Replace(tt.url, "%s", port, 1))})
			id := sendChannel(t, w, mark, "t", "@**Echo Bot** hi")
			drain(t, w)
			is.Equal(len(rec.all()), 0) // the request never left
			inTopic, toOwner := conversationAfter(t, w, id)
			is.Equal(len(inTopic), 1)                                                                                                      // one failure notice
			is.Equal(inTopic[0].Content, "Failure! Third party responded with 407")                                                        // as Zulip's egress proxy
			is.Equal(len(toOwner), 1)                                                                                                      // the owner is told
			is.True(strings.HasSuffix(toOwner[0].Content, "\nThe URL configured for the webhook is for a private or disallowed network.")) // why
		})
	}
}

func TestWebhookRedirects(t *testing.T) {
	t.Run("followed", func(t *testing.T) {
		is := is.New(t)
		final := newRecorder(t, answer(200, `{"content": "after redirect"}`))
		hop := httptest.NewServer(http.RedirectHandler(final.srv.URL+"/final", http.StatusTemporaryRedirect))
		t.Cleanup(hop.Close)
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(hop.URL)})
		id := sendChannel(t, w, mark, "t", "@**Echo Bot** hop")
		drain(t, w)
		reqs := final.all()
		is.Equal(len(reqs), 1)                                   // reached through the redirect
		is.True(bytes.Contains(reqs[0].body, []byte(`"token"`))) // 307 keeps the POST body
		ms := messagesAfter(t, w, id)
		is.Equal(len(ms), 1)                      // the reply
		is.Equal(ms[0].Content, "after redirect") // from the final server
	})
	t.Run("loop", func(t *testing.T) {
		is := is.New(t)
		var hops atomic.Int32
		var loop *httptest.Server
		loop = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hops.Add(1)
			http.Redirect(w, r, loop.URL+"/again", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(loop.Close)
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(loop.URL)})
		id := sendChannel(t, w, mark, "t", "@**Echo Bot** loop")
		drain(t, w)
		is.Equal(hops.Load(), int32(4)) // the first request and 3 redirects, no retries
		inTopic, toOwner := conversationAfter(t, w, id)
		is.Equal(len(inTopic), 1)                                                                                                                     // one failure notice
		is.True(strings.HasPrefix(inTopic[0].Content, "Failure! An exception of type *TooManyRedirects* occurred for message `@**Echo Bot** loop`!")) // names the problem
		is.Equal(len(toOwner), 1)                                                                                                                     // the owner is told
	})
}

func TestWebhookQueueFullPostpones(t *testing.T) {
	is := is.New(t)
	entered := make(chan struct{}, 10)
	release := make(chan struct{})
	var count atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		count.Add(1)
		entered <- struct{}{}
		<-release
		io.WriteString(w, `{"response_not_required": true}`)
	}))
	t.Cleanup(srv.Close)
	o := fast()
	o.Workers, o.QueueSize = 1, 1
	o.ResumeEvery, o.ResumeAfter = 5*time.Millisecond, time.Minute
	w, logs := newWebhookWorld(t, o, botServices{echoBot: generic(srv.URL)})
	sendChannel(t, w, mark, "t", "@**Echo Bot** one")
	<-entered                                                                                      // the only worker is busy
	sendChannel(t, w, mark, "t", "@**Echo Bot** two")                                              // queued
	sendChannel(t, w, mark, "t", "@**Echo Bot** three")                                            // postponed
	is.True(strings.Contains(logs.String(), "outgoing webhook postponed: delivery queue is full")) // and logged
	close(release)
	until(t, "two deliveries made", func() bool { return count.Load() == 2 })
	time.Sleep(20 * time.Millisecond)
	is.Equal(count.Load(), int32(2)) // the third waits in the store
	w.Clock.Advance(2 * time.Minute) // until it counts as left unfinished
	until(t, "the third delivery made", func() bool { return count.Load() == 3 })
	drain(t, w)
	is.Equal(count.Load(), int32(3)) // once
}

func TestWebhookShutdown(t *testing.T) {
	t.Run("deadline abandons running deliveries", func(t *testing.T) {
		is := is.New(t)
		entered := make(chan struct{}, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body) // lets the server notice the client hanging up
			entered <- struct{}{}
			<-r.Context().Done()
		}))
		t.Cleanup(srv.Close)
		o := fast()
		o.Timeout = time.Minute
		w, logs := newWebhookWorld(t, o, botServices{echoBot: generic(srv.URL)})
		id := sendChannel(t, w, mark, "t", "@**Echo Bot** hang")
		<-entered
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		err := w.Svc.Shutdown(ctx)
		is.True(errors.Is(err, context.DeadlineExceeded))                                  // Shutdown reports the deadline
		is.Equal(len(messagesAfter(t, w, id)), 0)                                          // no failure notice for an abandoned delivery
		is.True(strings.Contains(logs.String(), "outgoing webhook abandoned at shutdown")) // logged instead
	})
	t.Run("no deliveries after shutdown", func(t *testing.T) {
		is := is.New(t)
		rec := newRecorder(t, answer(200, `{"content": "late"}`))
		w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
		drain(t, w)
		id := sendChannel(t, w, mark, "t", "@**Echo Bot** too late") // sending still works
		is.Equal(len(rec.all()), 0)                                  // but nothing is delivered
		is.Equal(len(messagesAfter(t, w, id)), 0)                    // and nothing answered
		is.NoErr(w.Svc.Shutdown(t.Context()))                        // a second Shutdown is fine
	})
	t.Run("without delivery", func(t *testing.T) {
		is := is.New(t)
		svc := chatcore.New(memory.New())
		is.NoErr(svc.Shutdown(t.Context())) // nothing to stop
	})
}

func TestWebhookRetriesDoNotHoldWorkers(t *testing.T) {
	is := is.New(t)
	var slowAttempts atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		slowAttempts.Add(1)
		io.ReadAll(r.Body)
		<-r.Context().Done() // never answers: every attempt times out
	}))
	t.Cleanup(slow.Close)
	attemptsSeen := make(chan int32, 1)
	fastSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attemptsSeen <- slowAttempts.Load()
		io.WriteString(w, `{"response_not_required": true}`)
	}))
	t.Cleanup(fastSrv.Close)
	o := fast()
	o.Workers, o.Timeout = 1, 500*time.Millisecond
	w, _ := newWebhookWorld(t, o, botServices{echoBot: generic(slow.URL), secondBot: generic(fastSrv.URL)})
	sendChannel(t, w, mark, "t", "@**Echo Bot** are you there?")
	sendChannel(t, w, mark, "t", "@**Second Bot** and you?")
	seen := <-attemptsSeen
	drain(t, w)
	is.True(seen < 4)                       // the second bot was called while the first was still being retried
	is.Equal(slowAttempts.Load(), int32(4)) // the unreachable bot still got all its attempts
}
