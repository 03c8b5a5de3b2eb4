package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// TestGeneratedFixtureLoads checks that the generator writes a fixture Load
// accepts, of the shape asked for.
func TestGeneratedFixtureLoads(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var buf bytes.Buffer
	sh := zulipShape(300, 3000)
	is.NoErr(writeFixture(&buf, sh)) // written
	st := memory.New()
	svc := chatcore.New(st)
	is.NoErr(fixture.Load(ctx, svc, &buf)) // the generated fixture loads
	is.NoErr(st.View(ctx, func(tx chatcore.Tx) error {
		msgs, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: 1})
		is.NoErr(err)             // readable
		is.Equal(len(msgs), 3000) // every message
		var direct, mentions int
		for _, m := range msgs {
			if m.Type == chatcore.MessageTypePrivate {
				direct++
			}
			if strings.Contains(m.RenderedContent, "user-mention") {
				mentions++
			}
		}
		is.True(direct > 150 && direct < 350)    // about 8% direct messages
		is.True(mentions > 75 && mentions < 250) // about 5% with a mention
		users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: 1})
		is.NoErr(err)             // readable
		is.Equal(len(users), 300) // every user
		streams, err := tx.Streams(ctx, 1)
		is.NoErr(err)              // readable
		is.Equal(len(streams), 60) // every channel
		subs, err := tx.Subscriptions(ctx, streams[0].ID, 0)
		is.NoErr(err)            // readable
		is.Equal(len(subs), 300) // everybody is in the first channel
		return nil
	})) // readable
}

// TestRunPrintsTheFigures runs the command on a small SQLite import.
func TestRunPrintsTheFigures(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(run(context.Background(), []string{"-messages", "500", "-users", "50", "-dir", t.TempDir()}, &out)) // runs
	is.True(strings.HasPrefix(out.String(), "store=sqlite users=50 messages=500 "))                              // names what it loaded
	is.True(strings.Contains(out.String(), "peak_heap="))                                                        // and the heap
}
