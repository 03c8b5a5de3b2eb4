package accounts_test

// Fuzz targets for the wire parameters of PATCH /settings (target_users
// included) and DELETE /users/{user_id} (deactivation actions): failures are
// *chatcore.Error values of kind invalid, what decodes round-trips, and the
// Service takes every decoded request without an internal error. Seeds live
// in f.Add calls and in testdata/fuzz/<Target>/.
//
// Run one for a minute with:
//
//	go test -run '^$' -fuzz '^FuzzSettingsParams$' -fuzztime 60s ./accounts

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/chatcore/chatcore/store/memory"
)

// sameList reports whether two id lists hold the same ids in the same order
// (nil and empty are the same list).
func sameList[T comparable](a, b []T) bool { return slices.Equal(a, b) }

func FuzzSettingsParams(f *testing.F) {
	f.Add(`{"user_ids": [14, 15], "skip_if_already_edited": true}`, "color_scheme", "2")
	f.Add(`{"group_ids": [51], "skip_if_already_edited": false}`, "enter_sends", "true")
	f.Add(`{"user_ids": [], "group_ids": [], "skip_if_already_edited": true}`, "emojiset", "text")
	f.Add(`{"user_ids": [21], "skip_if_already_edited": true}`, "web_font_size_px", "16")
	f.Add(`{"user_ids": [14]}`, "left_side_userlist", "false")
	f.Add(`{"user_ids": [9223372036854775807], "skip_if_already_edited": true}`, "timezone", "Europe/Berlin")
	f.Add(`{"user_ids": "14", "skip_if_already_edited": true}`, "default_language", "de")
	f.Add(`{"user_ids": [1.5], "skip_if_already_edited": 1}`, "notification_sound", "ding")
	f.Add(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, "", "")
	f.Add(``, "full_name", "New Name")
	f.Add(``, "email", "new@acme.test")
	f.Add(``, "new_password", "x")
	f.Add(``, "web_line_height_percent", "-0")
	f.Add(``, "color_scheme", "1e2")
	f.Add(``, "enable_drafts_synchronization", "null")
	f.Add(`{"user_ids": [14], "skip_if_already_edited": true}`, "enable_drafts_synchronization", "false")
	f.Add(`{"user_ids": [14], "skip_if_already_edited": true}`, "email_notifications_batching_period_seconds", "120")
	svc := chattest.LoadWorld(f, memory.New())
	f.Fuzz(func(t *testing.T, targetUsers, name, value string) {
		params := url.Values{}
		if targetUsers != "" {
			params.Set("target_users", targetUsers)
		}
		if name != "" {
			params.Set(name, value)
		}
		var req accounts.SettingsUpdate
		if _, err := wire.DecodeParams(params, &req); err != nil {
			e := chattest.APIError(t, err, params)
			if e.Kind != chatcore.KindInvalid {
				t.Fatalf("%q: a decoding error is not of kind invalid: %v", params, e)
			}
			return
		}
		// target_users round-trips: encoding what was decoded and decoding it
		// again gives the same selection.
		if tu := req.TargetUsers; tu != nil {
			if tu.SkipIfAlreadyEdited == nil {
				t.Fatalf("%q: target_users decoded without its required field", params)
			}
			again, err := json.Marshal(map[string]any{
				"user_ids": tu.UserIDs, "group_ids": tu.GroupIDs, "skip_if_already_edited": *tu.SkipIfAlreadyEdited,
			})
			if err != nil {
				t.Fatal(err)
			}
			var req2 accounts.SettingsUpdate
			if _, err := wire.DecodeParams(url.Values{"target_users": {string(jsonNullToEmpty(again))}}, &req2); err != nil {
				t.Fatalf("re-decoding %s: %v", again, err)
			}
			tu2 := req2.TargetUsers
			if !sameList(tu.UserIDs, tu2.UserIDs) || !sameList(tu.GroupIDs, tu2.GroupIDs) || *tu.SkipIfAlreadyEdited != *tu2.SkipIfAlreadyEdited {
				t.Fatalf("target_users %q does not round-trip: %+v vs %+v", targetUsers, tu, tu2)
			}
		}
		verr := req.Validate()
		if verr != nil {
			chattest.APIError(t, verr, params)
		}
		// The Service takes the same request as a Go embedder would: bad values
		// are refused with a typed error, never an internal one.
		uerr := accounts.UpdateSettings(t.Context(), svc, chattest.WorldAdmin, req)
		if uerr != nil {
			chattest.APIError(t, uerr, params)
		}
		if verr != nil && uerr == nil {
			t.Fatalf("%q: Validate refused (%v) but UpdateSettings accepted", params, verr)
		}
	})
}

// jsonNullToEmpty turns the null a nil slice marshals to into an empty list.
func jsonNullToEmpty(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(":null"), []byte(":[]"))
}

func FuzzDeactivationParams(f *testing.F) {
	f.Add(`{"delete_profile": true}`, "", false)
	f.Add(`{"delete_public_channel_messages": true, "delete_private_channel_messages": false, "delete_direct_messages": true}`, "bye", true)
	f.Add(`{"delete_profile": true, "delete_public_channel_messages": true, "delete_private_channel_messages": true, "delete_direct_messages": true}`, "   ", true)
	f.Add(`{}`, strings.Repeat("é", 2001), true)
	f.Add(`{"delete_profile": "yes"}`, "", false)
	f.Add(`{"delete_profile": null}`, "", false)
	f.Add(`[true]`, "", false)
	f.Add(`{"unknown": 1}`, "\x00", true)
	f.Add(`{"delete_direct_messages": true} x`, "", false)
	f.Add(``, "\xff", true)
	f.Fuzz(func(t *testing.T, actions, comment string, withComment bool) {
		params := url.Values{}
		if actions != "" {
			params.Set("actions", actions)
		}
		if withComment {
			params.Set("deactivation_notification_comment", comment)
		}
		var req accounts.DeactivateUserRequest
		if _, err := wire.DecodeParams(params, &req); err != nil {
			e := chattest.APIError(t, err, params)
			if e.Kind != chatcore.KindInvalid {
				t.Fatalf("%q: a decoding error is not of kind invalid: %v", params, e)
			}
			return
		}
		if a := req.Actions; a != nil {
			b, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			var again accounts.DeactivateUserRequest
			if _, err := wire.DecodeParams(url.Values{"actions": {string(b)}}, &again); err != nil || *again.Actions != *a {
				t.Fatalf("actions %q do not round-trip: %+v, %v", actions, again.Actions, err)
			}
		}
		verr := req.Validate()
		if verr != nil {
			chattest.APIError(t, verr, params)
		}
		// Carry it out on a fresh world: the owner deactivates the member,
		// whose messages (and their bot's) of the selected kinds go.
		svc := chattest.LoadWorld(t, memory.New())
		derr := accounts.DeactivateUser(t.Context(), svc, chattest.WorldOwner, chattest.WorldMember, req)
		if verr != nil {
			e := chattest.APIError(t, derr, params)
			if e.Msg != verr.(*chatcore.Error).Msg {
				t.Fatalf("%q: DeactivateUser said %q, Validate %q", params, e.Msg, verr)
			}
			return
		}
		if derr != nil {
			t.Fatalf("%q: valid deactivation failed: %v", params, derr)
		}
		checkDeactivated(t, svc, req.Actions)
	})
}

// checkDeactivated checks the world after the member's deactivation with a.
func checkDeactivated(t *testing.T, svc *chatcore.Service, a *accounts.DeactivationActions) {
	t.Helper()
	var acts accounts.DeactivationActions
	if a != nil {
		acts = *a
	}
	err := svc.Store().View(t.Context(), func(tx chatcore.Tx) error {
		u, err := tx.User(t.Context(), chattest.WorldMember)
		if err != nil {
			return err
		}
		if u.IsActive {
			t.Fatal("the member is still active")
		}
		if acts.DeleteProfile != (u.FullName == "Deleted user") {
			t.Fatalf("delete_profile %v, full name now %q", acts.DeleteProfile, u.FullName)
		}
		msgs, err := tx.Messages(t.Context(), chatcore.MessageQuery{RealmID: chattest.WorldRealm})
		if err != nil {
			return err
		}
		present := map[chatcore.MessageID]bool{}
		for _, m := range msgs {
			present[m.ID] = true
		}
		want := map[chatcore.MessageID]bool{
			101: !acts.DeletePublicChannelMessages, 103: !acts.DeletePrivateChannelMessages,
			104: !acts.DeleteDirectMessages, 105: !acts.DeletePublicChannelMessages,
			106: !acts.DeleteDirectMessages, 102: true, 107: true,
		}
		for id, keep := range want {
			if present[id] != keep {
				t.Fatalf("actions %+v: message %d present=%v, want %v", acts, id, present[id], keep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
