// Command pollbot is a bot built on chatcore's Go event API (package
// eventqueue): it registers an event queue for a bot user and answers every
// direct message sent to it, with no HTTP in between.
//
//	go run ./examples/pollbot [-db chatcore-example.db] [-bot-id 32]
//
// It opens the example server's database (by default the demo
// organization's, whose Notify Bot has id 32) and may run beside the server:
// both processes share the database, and the bot looks for new events every
// second as well as when its own process commits. Send the bot a direct
// message (curl -u max@acme.test:KEY .../messages -d type=direct -d
// 'to=[32]' -d content=hi) and it answers "You said: hi".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/store/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "pollbot:", err)
		os.Exit(1)
	}
}

// run opens the database and serves the bot until ctx is cancelled.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("pollbot", flag.ContinueOnError)
	fs.SetOutput(stdout)
	db := fs.String("db", "chatcore-example.db", "the example server's database `file`")
	botID := fs.Int64("bot-id", 32, "the bot user's `id`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := sqlite.Open(ctx, *db)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := chatcore.New(store)
	hub := eventqueue.New(svc, eventqueue.Options{Recheck: time.Second})
	defer hub.Close()
	fmt.Fprintf(stdout, "pollbot answering direct messages to user %d (database %s)\n", *botID, *db)
	err = serve(ctx, hub, svc, chatcore.UserID(*botID), slog.New(slog.NewTextHandler(stdout, nil)))
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// serve answers direct messages to bot until ctx is done: it opens a queue
// for message events and, when the queue goes away (expired while the bot
// was stopped, dropped for falling behind), opens a new one, as every Zulip
// client does.
func serve(ctx context.Context, hub *eventqueue.Hub, svc *chatcore.Service, bot chatcore.UserID, log *slog.Logger) error {
	for ctx.Err() == nil {
		q, err := hub.Open(ctx, bot, eventqueue.RegisterRequest{
			Sections: []string{}, // no state needed
			Queue:    &eventqueue.QueueOptions{EventTypes: []string{"message"}, Narrow: [][]string{{"is", "dm"}}},
		})
		if err != nil {
			return err
		}
		for ev, err := range q.Events(ctx) {
			if eventqueue.IsBadQueue(err) {
				log.Info("event queue gone; registering a new one", "queue", q.ID)
				break
			}
			if err != nil {
				return err
			}
			if ev.Type != "message" {
				continue // heartbeats
			}
			if err := answer(ctx, svc, bot, ev); err != nil {
				log.Error("answering", "err", err)
			}
		}
	}
	return nil
}

// messageEvent is what the bot reads of a message event.
type messageEvent struct {
	Message struct {
		SenderID chatcore.UserID `json:"sender_id"`
		Content  string          `json:"content"`
	} `json:"message"`
}

// answer replies to a direct message, unless the bot sent it.
func answer(ctx context.Context, svc *chatcore.Service, bot chatcore.UserID, ev eventqueue.QueueEvent) error {
	var m messageEvent
	if err := ev.Decode(&m); err != nil {
		return err
	}
	if m.Message.SenderID == bot {
		return nil
	}
	to := "[" + strconv.FormatInt(int64(m.Message.SenderID), 10) + "]"
	_, err := svc.SendMessage(ctx, bot, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "You said: " + m.Message.Content})
	return err
}
