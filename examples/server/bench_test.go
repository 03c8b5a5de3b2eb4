package main

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
)

// BenchmarkServer measures whole requests against the example server over
// loopback HTTP on SQLite: authentication, parameter decoding, the Service and
// the store (rate limiting off, so every request does the full work).
func BenchmarkServer(b *testing.B) {
	s := start(b, "-db", filepath.Join(b.TempDir(), "bench.db"), "-rate-limit", "0")
	client := &http.Client{}
	do := func(b *testing.B, method, path, body string) {
		req, err := http.NewRequest(method, s.base+"/api/v1"+path, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		req.SetBasicAuth(demoOwner, demoOwnerKey)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d", method, path, res.StatusCode)
		}
	}
	b.Run("server_settings", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := client.Get(s.base + "/api/v1/server_settings")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
	})
	b.Run("settings_patch", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			do(b, "PATCH", "/settings", url.Values{"color_scheme": {"2"}}.Encode())
		}
	})
}

// BenchmarkPostMessage measures POST /messages (a channel message to the
// demo's general channel) over loopback HTTP, the whole server on SQLite and
// on PostgreSQL (needs CHATCORE_TEST_POSTGRES), rate limiting off.
// "postgres" commits as PostgreSQL does by default (each commit waits for
// its WAL flush); "postgres-async-commit" sets synchronous_commit=off, the
// durability SQLite's WAL with synchronous=NORMAL gives (a power loss may
// lose the last commits, never consistency).
func BenchmarkPostMessage(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres", "postgres-async-commit"} {
		b.Run(db, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench.db")
			switch db {
			case "postgres":
				path = pgtest.URL(b)
			case "postgres-async-commit":
				path = pgtest.URL(b) + "&synchronous_commit=off"
			}
			s := start(b, "-db", path, "-rate-limit", "0")
			client := &http.Client{}
			body := url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"bench"}, "content": {"Hello **there**"}}.Encode()
			b.ReportAllocs()
			for b.Loop() {
				req, err := http.NewRequest("POST", s.base+"/api/v1/messages", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.SetBasicAuth(demoOwner, demoOwnerKey)
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatalf("POST /messages: %d", res.StatusCode)
				}
			}
		})
	}
}
