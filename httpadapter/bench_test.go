package httpadapter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
)

// benchServe runs req through the handler in-process (no network) b.Loop times.
func benchServe(b *testing.B, h http.Handler, newReq func() *http.Request) {
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newReq())
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

func BenchmarkUsersMe(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	h := e.srv.Config.Handler
	benchServe(b, h, func() *http.Request {
		req := httptest.NewRequest("GET", "/api/v1/users/me", nil)
		req.Header.Set("Authorization", member.basic())
		return req
	})
}

func BenchmarkUpdateSettingsMultipart(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	h := e.srv.Config.Handler
	body, ct := multipartBody(b, url.Values{"color_scheme": {"2"}, "enter_sends": {"true"}, "emojiset": {"text"}})
	benchServe(b, h, func() *http.Request {
		req := httptest.NewRequest("PATCH", "/api/v1/settings", strings.NewReader(body))
		req.Header.Set("Authorization", member.basic())
		req.Header.Set("Content-Type", ct)
		return req
	})
}

func BenchmarkNotFound(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	h := e.srv.Config.Handler
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/nope", nil))
		if rec.Code != http.StatusNotFound {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

func multipartBody(tb testing.TB, v url.Values) (string, string) {
	tb.Helper()
	var sb strings.Builder
	const boundary = "benchboundary"
	for name, vals := range v {
		for _, val := range vals {
			sb.WriteString("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" + val + "\r\n")
		}
	}
	sb.WriteString("--" + boundary + "--\r\n")
	return sb.String(), "multipart/form-data; boundary=" + boundary
}

// BenchmarkGetMessages100 reads the newest 100 messages of the combined feed
// (memory store): the encoding of a large answer's envelope shows here.
func BenchmarkGetMessages100(b *testing.B) {
	e := newEnv(b, httpadapter.Options{})
	for i := range 100 {
		sent := e.do(b, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "bench", "content", fmt.Sprintf("message **%d** with <html> & a [link](https://example.com/%d)", i, i))})
		if sent.status != http.StatusOK {
			b.Fatalf("send: %d", sent.status)
		}
	}
	h := e.srv.Config.Handler
	benchServe(b, h, func() *http.Request {
		req := httptest.NewRequest("GET", "/api/v1/messages?anchor=newest&num_before=100&num_after=0", nil)
		req.Header.Set("Authorization", member.basic())
		return req
	})
}
