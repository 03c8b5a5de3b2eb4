package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// lockHelperVar names, in the environment of a re-executed test binary, the
// database file TestLockHelperProcess opens.
const lockHelperVar = "CHATCORE_SQLITE_LOCK_HELPER"

// TestLockHelperProcess is the second process of TestSecondProcessRefused:
// it runs only in a re-executed test binary, opens the file named by
// lockHelperVar and prints Open's error.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv(lockHelperVar)
	if path == "" {
		return // the test binary was not re-executed by TestSecondProcessRefused
	}
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		os.Stdout.WriteString("OPEN FAILED: " + err.Error() + "\n")
		os.Exit(3)
	}
	s.Close()
	os.Stdout.WriteString("OPENED\n")
}

// TestSecondOpenRefused: a second Open of a file a Store holds fails with
// ErrInUse, naming the file and this process's pid; Close releases the
// lock, and the file opens again.
func TestSecondOpenRefused(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s, path := open(t)
	_, err := sqlite.Open(ctx, path)
	is.True(errors.Is(err, sqlite.ErrInUse))                                     // the second Open is refused
	is.True(strings.Contains(err.Error(), path))                                 // naming the file
	is.True(strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid()))) // and the holder's pid
	lockFile, rerr := os.ReadFile(path + ".lock")
	is.NoErr(rerr)                                                           // the lock file is beside the database
	is.Equal(strings.TrimSpace(string(lockFile)), strconv.Itoa(os.Getpid())) // holding the pid
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "kept", Name: "Kept", DateCreated: epoch})
	}) // the first Store is unharmed
	is.NoErr(s.Close())

	s2, err := sqlite.Open(ctx, path)
	is.NoErr(err) // after Close the file opens again
	rs, err := realms(ctx, s2)
	is.NoErr(err)
	is.Equal(rs, []string{"kept"}) // with what the first Store wrote
	is.NoErr(s2.Close())
}

// TestSecondProcessRefused: another process cannot open a file this
// process's Store holds; it gets the message naming the file and this
// process's pid, and once the Store is closed it can.
func TestSecondProcessRefused(t *testing.T) {
	is := is.New(t)
	s, path := open(t)
	second := func() (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), lockHelperVar+"="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := second()
	is.True(err != nil)                                                    // the second process fails
	is.True(strings.Contains(out, "OPEN FAILED: sqlite: database in use")) // on the lock
	is.True(strings.Contains(out, path))                                   // naming the file
	is.True(strings.Contains(out, "process "+strconv.Itoa(os.Getpid())))   // and this process as the holder
	is.NoErr(s.Close())

	out, err = second()
	is.NoErr(err)                            // after Close the other process opens the file
	is.True(strings.Contains(out, "OPENED")) // and closes it
}

// TestBusyIsUnavailable: a write transaction another process holds past
// the busy timeout makes Update fail with an error wrapping
// store.ErrUnavailable (reads go on meanwhile); once it ends, writes
// succeed.
func TestBusyIsUnavailable(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s, path := open(t, sqlite.WithBusyTimeout(50*time.Millisecond))
	other, err := sql.Open("sqlite", "file:"+path)
	is.NoErr(err) // a connection of its own, as a tool's
	defer other.Close()
	conn, err := other.Conn(ctx)
	is.NoErr(err)
	defer conn.Close()
	_, err = conn.ExecContext(ctx, "BEGIN IMMEDIATE")
	is.NoErr(err) // the other connection holds the write lock

	create := func(name string) error {
		return s.Update(ctx, func(tx store.Tx) error {
			return tx.CreateRealm(ctx, &store.Realm{StringID: name, Name: name, DateCreated: epoch})
		})
	}
	err = create("blocked")
	is.True(errors.Is(err, store.ErrUnavailable)) // the write waited past the timeout: unavailable
	_, err = realms(ctx, s)
	is.NoErr(err) // reads go on

	_, err = conn.ExecContext(ctx, "ROLLBACK")
	is.NoErr(err)             // the other connection lets go
	is.NoErr(create("after")) // and writes succeed again
	rs, err := realms(ctx, s)
	is.NoErr(err)
	is.Equal(rs, []string{"after"}) // the refused write left nothing
}

// realms returns the string ids of the realms of s.
func realms(ctx context.Context, s store.Store) ([]string, error) {
	var ids []string
	err := s.View(ctx, func(tx store.Tx) error {
		rs, err := tx.Realms(ctx)
		ids = ids[:0]
		for _, r := range rs {
			ids = append(ids, r.StringID)
		}
		return err
	})
	return ids, err
}
