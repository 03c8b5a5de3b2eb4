package sqlite_test

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// cacheWorld stores a realm and one user in s and returns the user.
func cacheWorld(t *testing.T, s *sqlite.Store) *store.User {
	t.Helper()
	u := human(0, "ann@example.com")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "acme", Name: "acme", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u.RealmID = r.ID
		return tx.CreateUser(ctx, u)
	})
	return u
}

// readUser reads user id in a View of s, by id or (with byKey) by API key hash.
func readUser(t *testing.T, s store.Store, u *store.User, byKey bool) *store.User {
	t.Helper()
	var got *store.User
	err := s.View(context.Background(), func(tx store.Tx) error {
		var err error
		if byKey {
			got, err = tx.UserByAPIKeyHash(context.Background(), u.APIKeyHash)
		} else {
			got, err = tx.User(context.Background(), u.ID)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestUserCacheFollowsWrites checks that every way of changing a user row is
// seen by the next read through the cache, by id and by API key, and that
// the reads in between do not touch the store's connections when the cache
// answers.
func TestUserCacheFollowsWrites(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	u := cacheWorld(t, s)
	ctx := context.Background()
	readUser(t, s, u, false) // fills the cache
	_, readers := sqlite.DBs(s)
	opened := readers.Stats().OpenConnections
	readers.SetMaxOpenConns(1)
	conn, err := readers.Conn(ctx) // the pool's only connection, held: a View that needs one would wait
	is.NoErr(err)
	done := make(chan *store.User)
	go func() { done <- readUser(t, s, u, true) }()
	select {
	case got := <-done:
		is.Equal(got.Email, u.Email) // answered from the cache, without a connection
	case <-time.After(10 * time.Second):
		t.Fatal("a cached read waited for a reader connection")
	}
	is.NoErr(conn.Close())
	readers.SetMaxOpenConns(max(opened, 4))

	steps := []struct {
		name  string
		row   bool // a write of the user's row alone
		write func(ctx context.Context, tx store.Tx) error
		check func(got *store.User) bool
	}{
		{"UpdateUser", true, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.User(ctx, u.ID)
			if err != nil {
				return err
			}
			v.FullName = "Renamed"
			return tx.UpdateUser(ctx, v)
		}, func(got *store.User) bool { return got.FullName == "Renamed" }},
		{"UpdateUserSettings one", true, func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "enter_sends", Value: true}})
		}, func(got *store.User) bool { return got.Settings.EnterSends }},
		{"UpdateUserSettings several", true, func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "enter_sends", Value: false}, {Name: "color_scheme", Value: 2}})
		}, func(got *store.User) bool { return !got.Settings.EnterSends && got.Settings.ColorScheme == 2 }},
		{"UpdateSettingBulk", false, func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: u.RealmID, UserIDs: []store.UserID{u.ID}, Setting: "color_scheme", Value: 3})
			return err
		}, func(got *store.User) bool { return got.Settings.ColorScheme == 3 }},
		{"new API key", true, func(ctx context.Context, tx store.Tx) error {
			v, err := tx.User(ctx, u.ID)
			if err != nil {
				return err
			}
			v.APIKeyHash = chatcore.HashAPIKey("another key")
			return tx.UpdateUser(ctx, v)
		}, func(got *store.User) bool { return got.APIKeyHash == chatcore.HashAPIKey("another key") }},
	}
	for _, st := range steps {
		readUser(t, s, u, false) // cached before the write
		gen, writes := sqlite.Generations(s)[0], sqlite.UserWrites(s)
		update(t, s, st.write)
		if st.row {
			is.Equal(sqlite.Generations(s)[0], gen) // a one-user write keeps the generation
			is.True(sqlite.UserWrites(s) > writes)  // and is counted
		} else {
			is.True(sqlite.Generations(s)[0] > gen) // the write moved the generation
		}
		got := readUser(t, s, u, false)
		is.True(st.check(got)) // the read after the write sees it
		if st.name == "new API key" {
			err := s.View(ctx, func(tx store.Tx) error { _, err := tx.UserByAPIKeyHash(ctx, u.APIKeyHash); return err })
			is.True(err != nil) // the old key no longer finds the user
			u.APIKeyHash = got.APIKeyHash
		}
		is.True(st.check(readUser(t, s, u, true))) // so does a read by API key
	}

	// Updates that change no user leave the cache valid.
	gen := sqlite.Generations(s)[0]
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "other", Name: "other", DateCreated: epoch})
	})
	is.Equal(sqlite.Generations(s)[0], gen) // no user changed
}

// TestUserCacheOneUserWrite checks that a write of one user's row leaves
// the other users' entries served from the cache, without a connection,
// while the changed user is read anew.
func TestUserCacheOneUserWrite(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ann := cacheWorld(t, s)
	bob := human(ann.RealmID, "bob@example.com")
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.CreateUser(ctx, bob) })
	readUser(t, s, ann, true) // both cached
	readUser(t, s, bob, true)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.UpdateUserSettings(ctx, bob.ID, []store.SettingValue{{Name: "enter_sends", Value: true}})
	})

	_, readers := sqlite.DBs(s)
	opened := readers.Stats().OpenConnections
	readers.SetMaxOpenConns(1)
	conn, err := readers.Conn(context.Background()) // held: a View that needs a connection waits
	is.NoErr(err)
	done := make(chan *store.User)
	go func() { done <- readUser(t, s, ann, true) }()
	select {
	case got := <-done:
		is.Equal(got.Email, ann.Email) // the other user's entry is still served
	case <-time.After(10 * time.Second):
		t.Fatal("another user's write dropped this user's entry")
	}
	is.NoErr(conn.Close())
	readers.SetMaxOpenConns(max(opened, 4))
	is.True(readUser(t, s, bob, true).Settings.EnterSends)  // the changed user is read anew, by key
	is.True(readUser(t, s, bob, false).Settings.EnterSends) // and by id
}

// TestUserCacheKeepsSnapshots checks that a View keeps its snapshot when a
// user changes while it runs, and that an Update sharing a transaction with
// one that changed a user reads the change rather than the cache.
func TestUserCacheKeepsSnapshots(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	u := cacheWorld(t, s)
	ctx := context.Background()
	readUser(t, s, u, false) // cached

	var first, second *store.User
	err := s.View(ctx, func(tx store.Tx) error {
		var err error
		if first, err = tx.User(ctx, u.ID); err != nil {
			return err
		}
		if _, err := tx.Realms(ctx); err != nil { // the View's snapshot is taken
			return err
		}
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "color_scheme", Value: 2}})
		})
		readUser(t, s, u, false) // a View begun after the write caches the changed row
		second, err = tx.User(ctx, u.ID)
		return err
	})
	is.NoErr(err)
	is.Equal(first.Settings.ColorScheme, second.Settings.ColorScheme) // the View still reads its snapshot, not that entry
	is.Equal(readUser(t, s, u, false).Settings.ColorScheme, 2)        // a later View reads the change

	// Two Updates in one shared transaction: the second reads the first's
	// uncommitted change, not the cached row.
	readUser(t, s, u, false)
	started, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		is.NoErr(s.Update(ctx, func(tx store.Tx) error {
			if err := tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "color_scheme", Value: 3}}); err != nil {
				return err
			}
			close(started)
			<-release
			return nil
		}))
	})
	<-started
	var seen int
	wg.Go(func() {
		is.NoErr(s.Update(ctx, func(tx store.Tx) error {
			v, err := tx.User(ctx, u.ID)
			if err == nil {
				seen = v.Settings.ColorScheme
			}
			return err
		}))
	})
	for sqlite.Queued(s) != 1 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	is.Equal(seen, 3)                                          // the shared transaction's own change
	is.Equal(readUser(t, s, u, false).Settings.ColorScheme, 3) // and, committed, everyone's
}

// TestUserCacheOff checks WithRowCache(0): reads go to the database.
func TestUserCacheOff(t *testing.T) {
	is := is.New(t)
	s, _ := open(t, sqlite.WithRowCache(0))
	u := cacheWorld(t, s)
	is.Equal(readUser(t, s, u, true).Email, u.Email)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "color_scheme", Value: 2}})
	})
	is.Equal(readUser(t, s, u, false).Settings.ColorScheme, 2)
	is.Equal(sqlite.Generations(s), [10]uint64{}) // no cache, no generation
}

// TestEveryCachedTableWriteIsSeen checks the assumption the row cache rests
// on: every SQL text of this package and of the statements it shares with
// the PostgreSQL store (store/internal/sqlstore) that writes a cached table
// is one that changedTables recognises.
func TestEveryCachedTableWriteIsSeen(t *testing.T) {
	is := is.New(t)
	files, err := filepath.Glob("*.go")
	is.NoErr(err)
	shared, err := filepath.Glob("../internal/sqlstore/*.go")
	is.NoErr(err)
	is.True(len(shared) > 0) // the shared statements are read too
	files = append(files, shared...)
	write := regexp.MustCompile(`(?i)\b(update|insert(\s+or\s+\w+)?\s+into|replace\s+into|delete\s+from)\s+"?(` + strings.Join(sqlite.CachedTables, "|") + `)\b`)
	found := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
		is.NoErr(err)
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			text, err := strconv.Unquote(lit.Value)
			is.NoErr(err)
			is.True(!strings.Contains(text, "INTO linkifier_versions")) // the versions change only through linkifiers' triggers
			for _, m := range write.FindAllStringSubmatch(text, -1) {
				table := strings.ToLower(m[3])
				found[table]++
				is.True(slices.Contains(sqlite.ChangedTables(text), table)) // a write of a cached table the cache would not notice
			}
			return true
		})
	}
	is.True(found["users"] >= 3)   // the insert, the update and the settings statements
	is.True(found["realms"] >= 2)  // insert and update
	is.True(found["streams"] >= 2) // insert and update
	is.True(found["subscriptions"] >= 2)
	is.True(found["event_audiences"] >= 2) // insert and prune
	is.True(found["linkifiers"] >= 3)      // insert, update, delete
	is.True(found["group_settings"] >= 1)  // the upsert
	is.True(found["user_topics"] >= 2)     // upsert and delete
	is.True(found["muted_users"] >= 2)     // insert and delete
	is.True(found["alert_words"] >= 2)     // insert and delete
}

// TestRowCacheRealmsAndChannels checks that changed realms and channels are
// seen through the cache, a renamed channel under its new name only.
func TestRowCacheRealmsAndChannels(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	u := cacheWorld(t, s)
	ctx := context.Background()
	st := &store.Stream{RealmID: u.RealmID, Name: "Général", DateCreated: epoch}
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.CreateStream(ctx, st) })
	read := func(fn func(tx store.Tx) error) {
		t.Helper()
		is.NoErr(s.View(ctx, fn))
	}
	var realm *store.Realm
	var byID, byName *store.Stream
	readAll := func(name string) error {
		var nameErr error
		read(func(tx store.Tx) error {
			var err error
			if realm, err = tx.Realm(ctx, u.RealmID); err != nil {
				return err
			}
			if byID, err = tx.Stream(ctx, st.ID); err != nil {
				return err
			}
			byName, nameErr = tx.StreamByName(ctx, u.RealmID, name)
			return nil
		})
		return nameErr
	}
	is.NoErr(readAll("GÉNÉRAL")) // fills the cache; names compare folded
	is.NoErr(readAll("général")) // from the cache
	is.Equal(byName.ID, st.ID)

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		r.Name = "Acme Inc"
		if err := tx.UpdateRealm(ctx, r); err != nil {
			return err
		}
		c, err := tx.Stream(ctx, st.ID)
		if err != nil {
			return err
		}
		c.Name, c.Description = "design", "new"
		return tx.UpdateStream(ctx, c)
	})
	err := readAll("général")
	is.True(errors.Is(err, store.ErrNotFound)) // the old name finds nothing
	is.Equal(realm.Name, "Acme Inc")           // the realm's change is seen
	is.Equal(byID.Description, "new")          // and the channel's
	is.NoErr(readAll("Design"))                // the new name finds it
	is.Equal(byName.ID, st.ID)

	// A write that changes the channel table moves only its generation.
	gens := sqlite.Generations(s)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		c, err := tx.Stream(ctx, st.ID)
		if err != nil {
			return err
		}
		c.IsArchived = true
		return tx.UpdateStream(ctx, c)
	})
	after := sqlite.Generations(s)
	is.Equal(after[0], gens[0]) // users unchanged
	is.Equal(after[1], gens[1]) // realms unchanged
	is.True(after[2] > gens[2]) // streams moved
	read(func(tx store.Tx) error {
		c, err := tx.Stream(ctx, st.ID)
		is.NoErr(err)
		is.True(c.IsArchived) // seen
		return nil
	})
}

// TestNoTriggerWritesCachedTables checks the other half of that assumption:
// no trigger of the schema changes a cached table behind the statements'
// backs, and the linkifier versions, cached as part of linkifiers, change
// only through triggers on linkifiers.
func TestNoTriggerWritesCachedTables(t *testing.T) {
	is := is.New(t)
	files, err := filepath.Glob("migrations/*.sql")
	is.NoErr(err)
	is.True(len(files) > 0)
	trigger := regexp.MustCompile(`(?is)CREATE\s+TRIGGER\s+\w+\s+(?:BEFORE|AFTER)\s+\w+\s+ON\s+(\w+).*?\bEND\b`)
	write := regexp.MustCompile(`(?i)\b(update|insert(\s+or\s+\w+)?\s+into|replace\s+into|delete\s+from)\s+"?(` + strings.Join(sqlite.CachedTables, "|") + `)\b`)
	versions := regexp.MustCompile(`(?i)\b(update|insert(\s+or\s+\w+)?\s+into|replace\s+into|delete\s+from)\s+"?linkifier_versions\b`)
	triggers := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		is.NoErr(err)
		for _, m := range trigger.FindAllSubmatch(text, -1) {
			triggers++
			is.True(!write.Match(m[0])) // a trigger writes a cached table
			if versions.Match(m[0]) {
				is.Equal(string(m[1]), "linkifiers") // only linkifiers' triggers write the versions
			}
		}
	}
	is.True(triggers >= 3) // the linkifiers' triggers were found
}

// TestRowCacheSubscribersAndAudiences checks that a channel's cached
// subscribers follow subscription changes, seen at once by the write
// transaction making them, and that a pruned audience is never served from
// the cache: an entry appended after its audience was pruned (in a later
// transaction or the same one) still reaches its users.
func TestRowCacheSubscribersAndAudiences(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	u := cacheWorld(t, s)
	ctx := context.Background()
	st := &store.Stream{RealmID: u.RealmID, Name: "general", DateCreated: epoch}
	bob := human(u.RealmID, "bob@example.com")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateStream(ctx, st); err != nil {
			return err
		}
		if err := tx.CreateUser(ctx, bob); err != nil {
			return err
		}
		return tx.PutSubscription(ctx, store.Subscription{StreamID: st.ID, UserID: u.ID, Active: true})
	})
	subscribers := func() []store.UserID {
		var got []store.UserID
		is.NoErr(s.View(ctx, func(tx store.Tx) (err error) {
			got, err = tx.ActiveSubscriberIDs(ctx, st.ID)
			return err
		}))
		return got
	}
	is.Equal(subscribers(), []store.UserID{u.ID})
	is.Equal(subscribers(), []store.UserID{u.ID}) // from the cache
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.PutSubscription(ctx, store.Subscription{StreamID: st.ID, UserID: bob.ID, Active: true}); err != nil {
			return err
		}
		got, err := tx.ActiveSubscriberIDs(ctx, st.ID)
		is.Equal(got, []store.UserID{u.ID, bob.ID}) // the writing transaction sees its change
		return err
	})
	is.Equal(subscribers(), []store.UserID{u.ID, bob.ID}) // and so does the next one
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.DeactivateSubscriptions(ctx, u.ID) })
	is.Equal(subscribers(), []store.UserID{bob.ID}) // a deactivation is seen

	users := []store.UserID{u.ID, bob.ID}
	entry := store.LoggedEvent{RealmID: u.RealmID, UserIDs: users, Data: []byte(`{"type":"x"}`)}
	appendAndRead := func(pruneFirst bool) []store.LoggedEvent {
		var got []store.LoggedEvent
		update(t, s, func(ctx context.Context, tx store.Tx) error {
			if pruneFirst {
				last, err := tx.LastEventID(ctx, u.RealmID)
				if err != nil {
					return err
				}
				if _, err := tx.PruneEvents(ctx, last, 100); err != nil {
					return err
				}
			}
			return tx.AppendEvents(ctx, []store.LoggedEvent{entry})
		})
		is.NoErr(s.View(ctx, func(tx store.Tx) (err error) {
			got, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: u.RealmID, UserID: bob.ID})
			return err
		}))
		return got
	}
	is.Equal(len(appendAndRead(false)), 1) // the audience is made
	is.Equal(len(appendAndRead(false)), 2) // and found again
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		last, err := tx.LastEventID(ctx, u.RealmID)
		if err == nil {
			_, err = tx.PruneEvents(ctx, last, 100)
		}
		return err
	})
	is.Equal(len(appendAndRead(false)), 1) // pruned with its entries, the audience is made anew
	is.Equal(len(appendAndRead(true)), 1)  // and so when pruned in the appending transaction
}

// readRealmUsers reads the whole user list of realm in a View of s.
func readRealmUsers(t *testing.T, s store.Store, realm store.RealmID) []store.User {
	t.Helper()
	var got []store.User
	err := s.View(context.Background(), func(tx store.Tx) error {
		var err error
		got, err = tx.Users(context.Background(), store.UserFilter{RealmID: realm})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRealmUserListCache checks that a realm's whole user list is served
// from the cache without a connection while no user changes, that a copy
// is served (a caller's change does not reach the next reader), and that
// every way of changing users (one user's row, a bulk settings write, a new
// user, a change earlier in the same transaction) is seen by the next read.
func TestRealmUserListCache(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ann := cacheWorld(t, s)
	bob := human(ann.RealmID, "bob@example.com")
	update(t, s, func(ctx context.Context, tx store.Tx) error { return tx.CreateUser(ctx, bob) })
	list := readRealmUsers(t, s, ann.RealmID) // fills the cache
	is.Equal(len(list), 2)
	list[0].FullName = "changed by the caller"

	_, readers := sqlite.DBs(s)
	opened := readers.Stats().OpenConnections
	readers.SetMaxOpenConns(1)
	conn, err := readers.Conn(context.Background()) // held: a View that needs a connection waits
	is.NoErr(err)
	done := make(chan []store.User)
	go func() { done <- readRealmUsers(t, s, ann.RealmID) }()
	select {
	case got := <-done:
		is.Equal(len(got), 2)
		is.Equal(got[0].FullName, ann.FullName) // a copy was handed out
	case <-time.After(10 * time.Second):
		t.Fatal("the realm's user list was not served from the cache")
	}
	is.NoErr(conn.Close())
	readers.SetMaxOpenConns(max(opened, 4))

	// Filtered reads are not the list and answer as before.
	active := true
	err = s.View(context.Background(), func(tx store.Tx) error {
		got, err := tx.Users(context.Background(), store.UserFilter{RealmID: ann.RealmID, IDs: []store.UserID{bob.ID}, Active: &active})
		is.Equal(len(got), 1)
		return err
	})
	is.NoErr(err)

	carol := human(ann.RealmID, "carol@example.com")
	steps := []struct {
		name  string
		write func(ctx context.Context, tx store.Tx) error
		check func(got []store.User) bool
	}{
		{"UpdateUserSettings", func(ctx context.Context, tx store.Tx) error {
			return tx.UpdateUserSettings(ctx, bob.ID, []store.SettingValue{{Name: "enter_sends", Value: true}})
		}, func(got []store.User) bool { return got[1].Settings.EnterSends }},
		{"UpdateUser", func(ctx context.Context, tx store.Tx) error {
			v, err := tx.User(ctx, ann.ID)
			if err != nil {
				return err
			}
			v.FullName = "Ann Renamed"
			return tx.UpdateUser(ctx, v)
		}, func(got []store.User) bool { return got[0].FullName == "Ann Renamed" }},
		{"UpdateSettingBulk", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: ann.RealmID, UserIDs: []store.UserID{ann.ID, bob.ID}, Setting: "color_scheme", Value: 3})
			return err
		}, func(got []store.User) bool {
			return got[0].Settings.ColorScheme == 3 && got[1].Settings.ColorScheme == 3
		}},
		{"CreateUser", func(ctx context.Context, tx store.Tx) error { return tx.CreateUser(ctx, carol) },
			func(got []store.User) bool { return len(got) == 3 && got[2].Email == carol.Email }},
	}
	for _, st := range steps {
		readRealmUsers(t, s, ann.RealmID) // cached before the write
		update(t, s, st.write)
		if !st.check(readRealmUsers(t, s, ann.RealmID)) {
			t.Errorf("%s: the list read after the write does not show it", st.name)
		}
	}

	// An Update that changed a user reads the list with the change.
	readRealmUsers(t, s, ann.RealmID)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.UpdateUserSettings(ctx, carol.ID, []store.SettingValue{{Name: "enter_sends", Value: true}}); err != nil {
			return err
		}
		got, err := tx.Users(ctx, store.UserFilter{RealmID: ann.RealmID})
		if err != nil {
			return err
		}
		if !got[2].Settings.EnterSends {
			t.Error("an Update's own change is missing from the list it reads")
		}
		return nil
	})
}

// TestUsersByIDFromCache checks that Users with ids alone answers from the
// row cache without a connection when it holds every user, reads only the
// missing ones otherwise, and answers ascending without duplicates either way.
func TestUsersByIDFromCache(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ann := cacheWorld(t, s)
	bob := human(ann.RealmID, "bob@example.com")
	carol := human(ann.RealmID, "carol@example.com")
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateUser(ctx, bob); err != nil {
			return err
		}
		return tx.CreateUser(ctx, carol)
	})
	byIDs := func(ids ...store.UserID) []store.UserID {
		t.Helper()
		var got []store.UserID
		err := s.View(context.Background(), func(tx store.Tx) error {
			us, err := tx.Users(context.Background(), store.UserFilter{IDs: ids})
			for _, u := range us {
				got = append(got, u.ID)
			}
			return err
		})
		is.NoErr(err)
		return got
	}
	readUser(t, s, carol, false)                                                  // carol cached alone
	is.Equal(byIDs(carol.ID, ann.ID, carol.ID), []store.UserID{ann.ID, carol.ID}) // ann read, carol cached
	is.Equal(byIDs([]store.UserID{}...), []store.UserID(nil))                     // an empty non-nil list names none

	_, readers := sqlite.DBs(s)
	opened := readers.Stats().OpenConnections
	readers.SetMaxOpenConns(1)
	conn, err := readers.Conn(context.Background()) // held: a View that needs a connection waits
	is.NoErr(err)
	done := make(chan []store.UserID)
	go func() { done <- byIDs(carol.ID, ann.ID) }()
	select {
	case got := <-done:
		is.Equal(got, []store.UserID{ann.ID, carol.ID}) // both from the cache now
	case <-time.After(10 * time.Second):
		t.Fatal("users by id were not served from the cache")
	}
	is.NoErr(conn.Close())
	readers.SetMaxOpenConns(max(opened, 4))

	// A realm in the filter keeps other realms' users out, cached or not.
	err = s.View(context.Background(), func(tx store.Tx) error {
		us, err := tx.Users(context.Background(), store.UserFilter{RealmID: ann.RealmID + 1, IDs: []store.UserID{ann.ID, bob.ID}})
		is.Equal(len(us), 0)
		return err
	})
	is.NoErr(err)

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.UpdateUserSettings(ctx, ann.ID, []store.SettingValue{{Name: "enter_sends", Value: true}})
	})
	err = s.View(context.Background(), func(tx store.Tx) error {
		us, err := tx.Users(context.Background(), store.UserFilter{RealmID: ann.RealmID, IDs: []store.UserID{bob.ID, ann.ID}})
		is.Equal(len(us), 2)
		is.True(us[0].Settings.EnterSends) // the changed user read anew
		is.Equal(us[1].ID, bob.ID)
		return err
	})
	is.NoErr(err)
}

// TestKeyHolderFromCache checks that authentication's read (KeyHolder) is
// answered from the row cache, without a connection, when it holds the
// user and their realm, and that a realm's deactivation is seen by the
// next read at once.
func TestKeyHolderFromCache(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	u := cacheWorld(t, s)
	ctx := context.Background()
	holder := func() store.KeyHolder {
		t.Helper()
		var k store.KeyHolder
		is.NoErr(s.View(ctx, func(tx store.Tx) error {
			var err error
			k, err = tx.KeyHolder(ctx, u.APIKeyHash)
			return err
		}))
		return k
	}
	is.NoErr(s.View(ctx, func(tx store.Tx) error { _, err := tx.Realm(ctx, u.RealmID); return err })) // caches the realm
	is.True(!holder().RealmDeactivated)                                                               // caches the user
	_, readers := sqlite.DBs(s)
	opened := readers.Stats().OpenConnections
	readers.SetMaxOpenConns(1)
	conn, err := readers.Conn(ctx) // the pool's only connection, held
	is.NoErr(err)
	done := make(chan store.KeyHolder)
	go func() { done <- holder() }()
	select {
	case k := <-done:
		is.Equal(k.User.ID, u.ID) // answered from the cache
		is.True(k.OwnKey)         // the user's own key
	case <-time.After(10 * time.Second):
		t.Fatal("a cached KeyHolder waited for a reader connection")
	}
	is.NoErr(conn.Close())
	readers.SetMaxOpenConns(max(opened, 4))
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		r.Deactivated = true
		return tx.UpdateRealm(ctx, r)
	})
	is.True(holder().RealmDeactivated) // the deactivation seen by the next read
}

// TestRowCacheSendReads checks the reads a channel send makes besides its
// users and channel (the sender's subscriptions, the channel's group
// settings, the topic's policies, who muted the sender, the realm's alert
// words): each is answered from the cache the second time without a
// statement, a caller's change to an answer does not reach the next reader,
// and every write of one is seen by the next read, also by the writing
// transaction itself.
func TestRowCacheSendReads(t *testing.T) {
	is := is.New(t)
	var mu sync.Mutex
	statements := 0
	s, _ := open(t, sqlite.WithTrace(func(string, []any) { mu.Lock(); statements++; mu.Unlock() }))
	ann := cacheWorld(t, s)
	ctx := context.Background()
	bob := human(ann.RealmID, "bob@example.com")
	st := &store.Stream{RealmID: ann.RealmID, Name: "general", DateCreated: epoch}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateUser(ctx, bob); err != nil {
			return err
		}
		if err := tx.CreateStream(ctx, st); err != nil {
			return err
		}
		return tx.PutSubscription(ctx, store.Subscription{StreamID: st.ID, UserID: ann.ID, Active: true,
			SubscriptionProperties: store.SubscriptionProperties{PushNotifications: new(true)}})
	})
	// answers are what the five reads return, as one comparable text.
	type answers struct {
		subs     []store.Subscription
		settings []store.GroupSetting
		topics   []store.UserTopic
		muters   []store.UserID
		words    []store.AlertWord
	}
	readAll := func(tx store.Tx) (a answers, err error) {
		if a.subs, err = tx.Subscriptions(ctx, 0, ann.ID); err != nil {
			return a, err
		}
		if a.settings, err = tx.ChannelGroupSettings(ctx, st.ID); err != nil {
			return a, err
		}
		if a.topics, err = tx.TopicUserTopics(ctx, st.ID, store.TopicKey("Lunch")); err != nil {
			return a, err
		}
		if a.muters, err = tx.MutersOf(ctx, ann.ID); err != nil {
			return a, err
		}
		a.words, err = tx.RealmAlertWords(ctx, ann.RealmID)
		return a, err
	}
	view := func() (a answers, ran int) {
		mu.Lock()
		before := statements
		mu.Unlock()
		is.NoErr(s.View(ctx, func(tx store.Tx) (err error) {
			a, err = readAll(tx)
			return err
		}))
		mu.Lock()
		defer mu.Unlock()
		return a, statements - before
	}
	first, _ := view()
	is.Equal(len(first.subs), 1)
	is.True(*first.subs[0].PushNotifications)
	*first.subs[0].PushNotifications = false // a caller's change
	first.subs[0].IsMuted = true
	again, ran := view()
	is.Equal(ran, 0)                          // all five from the cache
	is.True(*again.subs[0].PushNotifications) // not the caller's change
	is.True(!again.subs[0].IsMuted)
	is.Equal(len(again.settings)+len(again.topics)+len(again.muters)+len(again.words), 0)

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		sub := again.subs[0]
		sub.IsMuted = true
		if err := tx.PutSubscription(ctx, sub); err != nil {
			return err
		}
		err := tx.PutGroupSetting(ctx, store.GroupSetting{RealmID: ann.RealmID, Kind: store.SettingOfChannel, ObjectID: int64(st.ID),
			Name: "can_send_message_group", Value: store.GroupSettingValue{DirectMembers: []store.UserID{bob.ID}}})
		if err != nil {
			return err
		}
		if _, err := tx.SetUserTopic(ctx, &store.UserTopic{UserID: bob.ID, StreamID: st.ID, Topic: "lunch",
			Policy: store.PolicyFollowed, LastUpdated: epoch}); err != nil {
			return err
		}
		if err := tx.AddMutedUser(ctx, store.MutedUser{UserID: bob.ID, MutedUserID: ann.ID, DateMuted: epoch}); err != nil {
			return err
		}
		if err := tx.AddAlertWords(ctx, ann.RealmID, bob.ID, []string{"pizza"}); err != nil {
			return err
		}
		mine, err := readAll(tx)
		is.True(mine.subs[0].IsMuted) // the writing transaction sees each change
		is.Equal(len(mine.settings), 1)
		is.Equal(len(mine.topics), 1)
		is.Equal(mine.muters, []store.UserID{bob.ID})
		is.Equal(len(mine.words), 1)
		return err
	})
	after, _ := view()
	is.True(after.subs[0].IsMuted) // and so does the next one
	is.Equal(after.settings[0].Value.DirectMembers, []store.UserID{bob.ID})
	after.settings[0].Value.DirectMembers[0] = ann.ID // a caller's change
	is.Equal(after.topics[0].Policy, store.PolicyFollowed)
	is.Equal(after.muters, []store.UserID{bob.ID})
	is.Equal(after.words, []store.AlertWord{{UserID: bob.ID, Word: "pizza"}})
	cached, ran := view()
	is.Equal(ran, 0) // from the cache again
	is.Equal(cached.settings[0].Value.DirectMembers, []store.UserID{bob.ID})

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.SetUserTopic(ctx, &store.UserTopic{UserID: bob.ID, StreamID: st.ID, Topic: "lunch",
			Policy: store.PolicyInherit, LastUpdated: epoch}); err != nil {
			return err
		}
		if err := tx.RemoveMutedUser(ctx, bob.ID, ann.ID); err != nil {
			return err
		}
		return tx.RemoveAlertWords(ctx, bob.ID, []string{"pizza"})
	})
	removed, _ := view()
	is.Equal(len(removed.topics)+len(removed.muters)+len(removed.words), 0) // deletions are seen
}

// TestCachedSubscriptionsCopyEveryPointer: the optional settings of a
// subscription are the only values a cached subscription shares with its
// copies unless copied one by one; a new field that is a pointer, slice or
// map must be copied too where the cache hands subscriptions out.
func TestCachedSubscriptionsCopyEveryPointer(t *testing.T) {
	is := is.New(t)
	var shared []string
	typ := reflect.TypeFor[store.Subscription]()
	var walk func(reflect.Type, string)
	walk = func(typ reflect.Type, prefix string) {
		for f := range typ.Fields() {
			switch f.Type.Kind() {
			case reflect.Struct:
				if f.Type != reflect.TypeFor[time.Time]() {
					walk(f.Type, prefix+f.Name+".")
				}
			case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
				shared = append(shared, prefix+f.Name)
			}
		}
	}
	walk(typ, "")
	is.Equal(shared, []string{ // the fields cloneSubscriptions copies
		"SubscriptionProperties.DesktopNotifications", "SubscriptionProperties.AudibleNotifications",
		"SubscriptionProperties.PushNotifications", "SubscriptionProperties.EmailNotifications",
		"SubscriptionProperties.WildcardMentionsNotify"})
}
