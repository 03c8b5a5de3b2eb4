package httpadapter

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
)

// TestExternalURLFromTheService: the adapter takes the Service's external
// URL; an Options.ExternalURL that differs wins for realm_url but is warned
// about, and one that agrees is not.
func TestExternalURLFromTheService(t *testing.T) {
	svc := chatcore.New(memory.New(), chatcore.WithExternalURL("https://chat.example.com/"))
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	h := New(svc, Options{Logger: logger}).(*handler)
	if h.opts.ExternalURL != "https://chat.example.com" {
		t.Errorf("adapter URL %q, want the Service's", h.opts.ExternalURL)
	}
	New(svc, Options{Logger: logger, ExternalURL: "https://chat.example.com"})
	if logs.Len() != 0 {
		t.Errorf("warned about an agreeing URL: %s", logs.String())
	}
	h = New(svc, Options{Logger: logger, ExternalURL: "http://10.0.0.1:9991"}).(*handler)
	if h.opts.ExternalURL != "http://10.0.0.1:9991" {
		t.Errorf("adapter URL %q, want the override", h.opts.ExternalURL)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "differs from the Service's external URL") {
		t.Errorf("no warning for differing URLs: %q", logs.String())
	}
}
