package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/matryer/is"
)

// uploadTo posts data as a file upload to the server at base.
func uploadTo(t *testing.T, base, name string, data []byte) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, err := mw.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data)
	_ = mw.Close()
	req, err := http.NewRequestWithContext(t.Context(), "POST", base+"/api/v1/user_uploads", &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth(demoOwner, demoOwnerKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		t.Fatalf("upload: %d, %v, %v", res.StatusCode, out, err)
	}
	return out
}

// download fetches path from the server at base as the demo owner.
func download(t *testing.T, base, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(demoOwner, demoOwnerKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, body
}

// TestTwoInstancesUploads runs two example-server processes on one
// PostgreSQL database: a file uploaded through either is served by the
// other (the files live in the database), a temporary URL one signs works
// on the other with no key configured (the key is the database's), and
// deleted through one a file is gone from both.
func TestTwoInstancesUploads(t *testing.T) {
	is := is.New(t)
	db := pgtest.URL(t)
	bin := buildServer(t)
	a := spawn(t, bin, "-db", db, "-db-pool", "4")
	b := spawn(t, bin, "-db", db, "-db-pool", "4")

	data := bytes.Repeat([]byte("shared upload "), 50_000) // 700 kB: several chunks
	up := uploadTo(t, a.base, "shared.txt", data)
	status, body := download(t, b.base, up["url"].(string))
	is.Equal(status, 200)            // served by the other instance
	is.True(bytes.Equal(body, data)) // whole
	up2 := uploadTo(t, b.base, "back.txt", []byte("the other way"))
	status, body = download(t, a.base, up2["url"].(string))
	is.Equal(status, 200)
	is.Equal(string(body), "the other way")

	// A temporary URL one instance signed works on the other.
	status, tmp := a.call(t, "GET", up["url"].(string), demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200)
	res, err := http.Get(b.base + tmp["url"].(string))
	is.NoErr(err)
	body, _ = io.ReadAll(res.Body)
	_ = res.Body.Close()
	is.Equal(res.StatusCode, 200)
	is.True(bytes.Equal(body, data))

	status, list := b.call(t, "GET", "/attachments", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200)
	atts := list["attachments"].([]any)
	is.Equal(len(atts), 2) // both, listed by either
	id := jsonID(atts[0].(map[string]any)["id"])
	status, _ = b.call(t, "DELETE", "/attachments/"+id, demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200)
	status, _ = download(t, a.base, up["url"].(string))
	is.Equal(status, 404) // gone for both
}
