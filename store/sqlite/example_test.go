package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
)

// A store on a database file: writes go through Update, reads through View.
// Pass it to chatcore.New to get a Service.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "chatcore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "chat.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	err = st.Update(ctx, func(tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "zulip", Name: "Zulip Dev"})
	})
	if err != nil {
		log.Fatal(err)
	}
	err = st.View(ctx, func(tx store.Tx) error {
		r, err := tx.RealmByStringID(ctx, "zulip")
		if err != nil {
			return err
		}
		fmt.Println(r.ID, r.Name)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output: 1 Zulip Dev
}
