package httpadapter_test

import (
	"bytes"
	"image"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// TestHTTPRealmIcon uploads, serves, refuses and removes the realm icon
// on each store: icon_url in the answers, realm_icon_url and
// realm_icon_source in /register, server_settings' realm_icon and the
// realm update_dict events follow icon_source and icon_version as Zulip's.
func TestHTTPRealmIcon(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) { testRealmIcon(t, k.Open(t)) })
	}
}

func testRealmIcon(t *testing.T, st chatcore.Store) {
	is := is.New(t)
	e, dir := uploadEnvOn(t, st)

	reg := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("event_types", `["realm"]`, "fetch_event_types", `["realm"]`)})
	wantSuccess(t, reg)
	queue := reg.body["queue_id"].(string)
	is.Equal(reg.body["realm_icon_source"], "G") // the default icon
	defaultURL := reg.body["realm_icon_url"].(string)
	is.True(strings.HasSuffix(defaultURL, chatcore.DefaultRealmIconPath))

	// Refusals: nothing stored, nothing changed.
	icon := func(who cred, parts ...filePart) *response {
		return e.postFiles(t, who, "/api/v1/realm/icon", parts...)
	}
	wantError(t, icon(member, filePart{field: "file", name: "i.png", data: pngBytes(t, 10, 10)}),
		400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
	wantError(t, icon(admin), 400, "BAD_REQUEST", "You must upload exactly one icon.")
	wantError(t, icon(admin, filePart{field: "a", name: "a.png", data: pngBytes(t, 10, 10)}, filePart{field: "b", name: "b.png", data: pngBytes(t, 10, 10)}),
		400, "BAD_REQUEST", "You must upload exactly one icon.")
	big := append(pngBytes(t, 10, 10), bytes.Repeat([]byte{0}, 5<<20)...)
	wantError(t, icon(admin, filePart{field: "file", name: "big.png", data: big}),
		400, "BAD_REQUEST", "Uploaded file is larger than the allowed limit of 5 MiB")
	wantError(t, icon(admin, filePart{field: "file", name: "notes.txt", data: []byte("hello")}), 400, "BAD_REQUEST", "Invalid image format")
	wantError(t, icon(admin, filePart{field: "file", name: "cut.png", data: truncated(pngBytes(t, 300, 200))}),
		400, "BAD_REQUEST", "Could not decode image; did you upload an image file?")
	wantError(t, icon(admin, filePart{field: "file", name: "bomb.png", data: pngHeader(50000, 50000)}), 400, "BAD_REQUEST", "Image size exceeds limit.")
	is.Equal(storedFiles(t, dir), 0) // no refusal stored anything

	res := icon(admin, filePart{field: "file", name: "wide.png", data: pngBytes(t, 300, 200)})
	wantSuccess(t, res)
	uploaded := res.body["icon_url"].(string)
	is.True(strings.HasSuffix(uploaded, "/user_avatars/1/realm/icon.png?version=1")) // Zulip's path, the first change
	is.Equal(servedPNG(t, e, uploaded), image.Pt(100, 100))                          // squared to 100×100
	is.Equal(storedFiles(t, dir), 2)                                                 // the square and the original
	again := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm"]`)})
	is.Equal(again.body["realm_icon_source"], "U")
	is.Equal(again.body["realm_icon_url"], uploaded)
	is.Equal(avatarRedirect(t, e, "/api/v1/realm/icon?s=1"), uploaded+"&s=1") // GET /realm/icon redirects, the query kept
	settings := e.do(t, request{method: "GET", path: "/server_settings"})
	is.Equal(settings.body["realm_icon"], uploaded) // before logging in too

	wantError(t, e.do(t, request{method: "DELETE", path: "/realm/icon", auth: &member}), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
	del := e.do(t, request{method: "DELETE", path: "/realm/icon", auth: &admin})
	wantSuccess(t, del)
	is.Equal(del.body["icon_url"], defaultURL) // the default icon again
	u, err := url.Parse(defaultURL)
	is.NoErr(err)
	r, _ := e.get(t, u.RequestURI(), nil)
	is.Equal(r.StatusCode, http.StatusOK) // which resolves

	evs := e.do(t, request{method: "GET", path: "/events", auth: &member, enc: urlEncoded,
		params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
	wantSuccess(t, evs)
	var got []map[string]any
	for _, ev := range evs.body["events"].([]any) {
		m := ev.(map[string]any)
		if m["type"] == "realm" && m["op"] == "update_dict" && m["property"] == "icon" {
			got = append(got, m["data"].(map[string]any))
		}
	}
	is.Equal(got, []map[string]any{
		{"icon_source": "U", "icon_url": uploaded},
		{"icon_source": "G", "icon_url": defaultURL},
	}) // Zulip's events, one per change
}
