package main

import (
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
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
