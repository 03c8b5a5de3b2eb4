package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/store/memory"
)

// credsFixture returns a one-realm fixture with an owner (or the given admin
// role) and a member, with the given API keys.
func credsFixture(adminRole, adminKey, memberKey string) []byte {
	return []byte(`{"realms":[{"id":1,"string_id":"x","name":"X","users":[` +
		`{"id":1,"email":"a@x.test","full_name":"A","role":"` + adminRole + `","api_key":"` + adminKey + `"},` +
		`{"id":2,"email":"m@x.test","full_name":"M","role":"member","api_key":"` + memberKey + `"}]}]}`)
}

const (
	keyA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	keyB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	keyM = "mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm"
	keyN = "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
)

func TestPrintCurlOnlyWorkingCredentials(t *testing.T) {
	loaded := func(t *testing.T, data []byte) *chatcore.Service {
		svc := chatcore.New(memory.New())
		is.New(t).NoErr(fixture.Load(t.Context(), svc, bytes.NewReader(data))) // the database's own fixture loads
		return svc
	}
	tests := []struct {
		name     string
		database []byte // what the database holds
		printed  []byte // the fixture whose credentials are printed
		want     []string
		wantNot  []string
	}{
		{
			name:     "both log in",
			database: credsFixture("owner", keyA, keyM), printed: credsFixture("owner", keyA, keyM),
			want: []string{"a@x.test is an organization owner", "-u a@x.test:" + keyA + " ", "-u m@x.test:" + keyM + " ", "/server_settings"},
		},
		{
			name:     "the role printed is the one on the database",
			database: credsFixture("administrator", keyA, keyM), printed: credsFixture("owner", keyA, keyM),
			want:    []string{"a@x.test is an organization administrator"},
			wantNot: []string{"organization owner"},
		},
		{
			name:     "the member's key does not work",
			database: credsFixture("owner", keyA, keyM), printed: credsFixture("owner", keyA, keyN),
			want:    []string{"-u a@x.test:" + keyA + " "},
			wantNot: []string{"m@x.test", keyN},
		},
		{
			name:     "the administrator's key does not work",
			database: credsFixture("owner", keyA, keyM), printed: credsFixture("owner", keyB, keyM),
			want:    []string{"m@x.test is an organization member", "-u m@x.test:" + keyM + " ", "/server_settings", "/users/me"},
			wantNot: []string{"a@x.test", keyB},
		},
		{
			name:     "another database",
			database: credsFixture("owner", keyA, keyM), printed: demoFixture,
			want:    []string{"do not work on this database"},
			wantNot: []string{"curl -sS", "olivia@acme.test", "max@acme.test"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			svc := loaded(t, tt.database)
			var out bytes.Buffer
			printCurl(t.Context(), &out, svc, "http://127.0.0.1:1", tt.printed, true)
			for _, s := range tt.want {
				if !strings.Contains(out.String(), s) {
					t.Logf("output:\n%s", out.String())
				}
				is.True(strings.Contains(out.String(), s)) // printed
			}
			for _, s := range tt.wantNot {
				if strings.Contains(out.String(), s) {
					t.Logf("output:\n%s", out.String())
				}
				is.True(!strings.Contains(out.String(), s)) // not printed
			}
		})
	}
	t.Run("a deactivated member is left out", func(t *testing.T) {
		is := is.New(t)
		svc := loaded(t, credsFixture("owner", keyA, keyM))
		is.NoErr(accounts.DeactivateUser(t.Context(), svc, 1, 2, accounts.DeactivateUserRequest{})) // the owner deactivates the member
		var out bytes.Buffer
		printCurl(t.Context(), &out, svc, "http://127.0.0.1:1", credsFixture("owner", keyA, keyM), true)
		is.True(strings.Contains(out.String(), "-u a@x.test:"+keyA)) // the owner's lines
		is.True(!strings.Contains(out.String(), "m@x.test"))         // no lines for a login that fails
	})
}

// TestSeededKeysElided checks that a -seed fixture's API keys never reach the
// output (a real organization's keys would end up in service logs): its curl
// lines carry a placeholder instead, while the embedded demo's lines carry
// its published keys and work as printed.
func TestSeededKeysElided(t *testing.T) {
	t.Run("printCurl", func(t *testing.T) {
		is := is.New(t)
		svc := chatcore.New(memory.New())
		is.NoErr(fixture.Load(t.Context(), svc, bytes.NewReader(credsFixture("owner", keyA, keyM)))) // the fixture loads
		var out bytes.Buffer
		printCurl(t.Context(), &out, svc, "http://127.0.0.1:1", credsFixture("owner", keyA, keyM), false)
		is.True(!strings.Contains(out.String(), keyA))                                           // no owner key
		is.True(!strings.Contains(out.String(), keyM))                                           // no member key
		is.True(strings.Contains(out.String(), "-u 'a@x.test:"+elidedKey+"' "))                  // the owner's lines, key elided
		is.True(strings.Contains(out.String(), "-u 'm@x.test:"+elidedKey+"' "))                  // the member's lines, key elided
		is.True(strings.Contains(out.String(), "replace "+elidedKey+" with the user's api_key")) // says what to paste
	})
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		fixture []byte
		keys    []string
	}{
		{"a fixture of its own", credsFixture("owner", keyA, keyM), []string{keyA, keyM}},
		// A copy of the demo seeded from a file is a fixture like any other.
		{"a copy of the demo", demoFixture, []string{demoOwnerKey}},
	} {
		t.Run("-seed "+tt.name, func(t *testing.T) {
			is := is.New(t)
			fixture := filepath.Join(dir, tt.name+".json")
			is.NoErr(os.WriteFile(fixture, tt.fixture, 0o600)) // the fixture file
			s := start(t, "-db", filepath.Join(dir, tt.name+".db"), "-seed", fixture)
			out := s.out.String()
			is.True(len(curlLines(out)) >= 6) // the curl lines are printed
			for _, key := range tt.keys {
				is.True(!strings.Contains(out, key)) // but no key
			}
			for _, line := range curlLines(out) {
				if strings.Contains(line, " -u ") {
					is.True(strings.Contains(line, elidedKey)) // each login has the placeholder
				}
			}
		})
	}
	t.Run("the embedded demo", func(t *testing.T) {
		is := is.New(t)
		s := start(t, "-db", filepath.Join(dir, "demo.db"))
		is.True(strings.Contains(s.out.String(), "-u "+demoOwner+":"+demoOwnerKey+" ")) // the published demo key
		is.True(!strings.Contains(s.out.String(), elidedKey))                           // nothing elided
	})
}

// TestReusedDatabaseCurl runs the server on a database seeded from another
// fixture and then reused without -seed: the demo's credentials do not work
// there, so none are printed.
func TestReusedDatabaseCurl(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	fixture := filepath.Join(dir, "own.json")
	is.NoErr(os.WriteFile(fixture, credsFixture("owner", keyA, keyM), 0o644)) // a non-demo fixture
	db := filepath.Join(dir, "own.db")

	s := start(t, "-db", db, "-seed", fixture)
	is.True(len(curlLines(s.out.String())) > 0) // seeded: the fixture's own credentials are printed
	is.NoErr(s.stop(t))

	s = start(t, "-db", db)
	out := s.out.String()
	is.Equal(curlLines(out), []string(nil))                        // no curl lines for credentials that do not log in
	is.True(!strings.Contains(out, demoOwner))                     // the demo owner is not advertised
	is.True(!strings.Contains(out, demoOwnerKey))                  // nor the demo owner's key
	is.True(strings.Contains(out, "do not work on this database")) // says why
	status, _ := s.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 401) // indeed the demo credentials do not work here
	status, _ = s.call(t, "GET", "/users/me", "a@x.test", keyA, nil)
	is.Equal(status, 200) // the database's own users do
}

// TestDemoCurlWithoutMember runs the demo database after its member was
// deactivated: the owner's lines are printed and all work, the member's are
// not printed.
func TestDemoCurlWithoutMember(t *testing.T) {
	is := is.New(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	s := start(t, "-db", db)
	_, member := fixtureCredentials(demoFixture)
	is.True(strings.Contains(s.out.String(), "-u "+member.Email+":")) // the fresh demo prints the member's lines
	status, _ := s.call(t, "DELETE", "/users/14", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // the owner deactivates the member
	is.NoErr(s.stop(t))

	s = start(t, "-db", db)
	out := s.out.String()
	is.True(!strings.Contains(out, member.Email)) // no lines for the deactivated member
	lines := curlLines(out)
	is.True(len(lines) >= 6) // the owner's lines
	for _, line := range lines {
		status, body := runCurl(t, line)
		if status != 200 {
			t.Logf("%s\n-> %d %v", line, status, body)
		}
		is.Equal(status, 200) // every printed line works
	}
}

// TestFirstRealmUsers checks that the credentials read back from a seeded
// file, without holding its messages, are those of the whole fixture.
func TestFirstRealmUsers(t *testing.T) {
	is := is.New(t)
	admin, member := fixtureCredentials(demoFixture)
	is.True(admin.Email != "" && member.Email != "") // the demo has both
	gotAdmin, gotMember := fixtureCredentials(firstRealmUsers(bytes.NewReader(demoFixture)))
	is.Equal(gotAdmin, admin)   // the same administrator
	is.Equal(gotMember, member) // and member
	// The users may follow the messages, and other top-level keys may come first.
	late := `{"x": {"realms": 1}, "realms": [{"messages": [{"to": [1], "content": "{[\"]"}], "users": [{"email": "a@a.test", "role": "owner", "api_key": "k"}]}]}`
	gotAdmin, _ = fixtureCredentials(firstRealmUsers(strings.NewReader(late)))
	is.Equal(gotAdmin.Email, "a@a.test")                                        // found after the messages
	is.Equal(firstRealmUsers(strings.NewReader(`{"realms": []}`)), []byte(nil)) // none
}
