package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/scheduled"
)

// verify checks the responses and the final state against what the clients
// did and returns the problems found: statuses, busy errors, the exact set of
// messages left in the load channel and its first_message_id, each client's
// reminders and last settings.
func verify(ctx context.Context, srv *server, res *results, cfg config) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	for status, n := range res.statuses {
		if status >= 500 {
			add("%d responses with status %d", n, status)
		}
	}
	if res.busy > 0 {
		add("%d responses mention SQLITE_BUSY / database is locked", res.busy)
	}
	if res.transport > 0 {
		add("%d requests got no response", res.transport)
	}
	if res.unexpectedN > 0 {
		add("%d unexpected responses (200 expected%s), e.g. %q", res.unexpectedN, map[bool]string{true: " or 429", false: ""}[cfg.rate > 0], res.unexpected)
	}

	present, err := channelMessages(ctx, srv.base, loadChannel)
	if err != nil {
		add("listing the load channel: %v", err)
	} else {
		deleted, events, dups := srv.deleted.snapshot()
		res.present, res.deleted, res.deleteEvents = len(present), len(deleted), events
		if dups > 0 {
			add("%d message ids were reported deleted twice", dups)
		}
		if err := checkMessages(res.sent, deleted, present); err != nil {
			add("%v", err)
		}
		// The channel's first_message_id must name its oldest message (zero
		// when none is left), however sends and deletions interleaved.
		var first chatcore.MessageID
		err := srv.svc.Store().View(ctx, func(tx chatcore.Tx) error {
			st, err := tx.Stream(ctx, loadChannel)
			if err == nil {
				first = st.FirstMessageID
			}
			return err
		})
		want := int64(0)
		if len(present) > 0 {
			want = present[0]
		}
		switch {
		case err != nil:
			add("reading the load channel: %v", err)
		case int64(first) != want:
			add("the load channel's first_message_id is %d, its oldest message %d", first, want)
		}
	}

	for i := range cfg.clients {
		user := chatcore.UserID(firstClientID + i)
		list, err := scheduled.Reminders(ctx, srv.svc, user)
		if err != nil {
			add("reminders of user %d: %v", user, err)
			continue
		}
		if want := res.reminders[int(user)]; len(list) != want {
			add("user %d has %d reminders, created %d", user, len(list), want)
		}
		want, ok := res.settings[int(user)]
		if !ok {
			continue
		}
		var got chatcore.Settings
		err = srv.svc.Store().View(ctx, func(tx chatcore.Tx) error {
			u, err := tx.User(ctx, user)
			if err == nil {
				got = u.Settings
			}
			return err
		})
		if err != nil {
			add("settings of user %d: %v", user, err)
			continue
		}
		if have := (settingsValues{got.ColorScheme, got.WebFontSizePx, got.EnterSends}); have != want {
			add("user %d has settings %+v, last set %+v", user, have, want)
		}
	}
	return problems
}

// checkMessages reports whether the messages present are exactly those sent
// minus those deleted, and every deleted message was one of those sent.
func checkMessages(sent []int64, deleted map[int64]bool, present []int64) error {
	sentSet := make(map[int64]bool, len(sent))
	for _, id := range sent {
		if sentSet[id] {
			return fmt.Errorf("message id %d was returned by two sends", id)
		}
		sentSet[id] = true
	}
	for id := range deleted {
		if !sentSet[id] {
			return fmt.Errorf("message %d was reported deleted but never sent", id)
		}
	}
	want := 0
	for _, id := range sent {
		if !deleted[id] {
			want++
		}
	}
	presentSet := make(map[int64]bool, len(present))
	for _, id := range present {
		switch {
		case presentSet[id]:
			return fmt.Errorf("message %d is listed twice", id)
		case !sentSet[id]:
			return fmt.Errorf("message %d is present but was never sent", id)
		case deleted[id]:
			return fmt.Errorf("message %d is present but was reported deleted", id)
		}
		presentSet[id] = true
	}
	if len(present) != want {
		return fmt.Errorf("%d messages present, want %d sent - %d deleted = %d", len(present), len(sent), len(deleted), want)
	}
	return nil
}

// channelMessages lists the ids of every message of the channel through
// GET /messages, as the organization owner, oldest first, 1000 at a time.
func channelMessages(ctx context.Context, base string, channel int) ([]int64, error) {
	var ids []int64
	anchor := "oldest"
	narrow := fmt.Sprintf(`[{"operator":"channel","operand":%d}]`, channel)
	hc := &http.Client{Timeout: time.Minute}
	for page := 0; ; page++ {
		if page > 10_000 {
			return nil, fmt.Errorf("more than %d pages", page)
		}
		q := url.Values{"anchor": {anchor}, "num_before": {"0"}, "num_after": {"1000"},
			"include_anchor": {strconv.FormatBool(page == 0)}, "apply_markdown": {"false"}, "narrow": {narrow}}
		req, err := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/messages?"+q.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", basic(ownerID))
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET /messages: %d %s", resp.StatusCode, tail(string(raw), 300))
		}
		var body struct {
			Messages []struct {
				ID int64 `json:"id"`
			} `json:"messages"`
			FoundNewest bool `json:"found_newest"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, err
		}
		for _, m := range body.Messages {
			ids = append(ids, m.ID)
		}
		if body.FoundNewest || len(body.Messages) == 0 {
			break
		}
		anchor = strconv.FormatInt(body.Messages[len(body.Messages)-1].ID, 10)
	}
	if !slices.IsSorted(ids) {
		return nil, fmt.Errorf("GET /messages pages are not in id order")
	}
	return ids, nil
}
