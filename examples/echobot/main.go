// Command echobot is a working outgoing-webhook integration: it answers every
// message that mentions (or is a direct message to) its bot with the message's
// text, minus the mention.
//
//	go run ./examples/echobot [-addr 127.0.0.1:8765] [-token TOKEN] [-print]
//
// The token defaults to $ECHOBOT_TOKEN, else to the token of the demo
// organization's Echo Bot. Run the example server with -webhook-allow-private
// so that it may call a bot on 127.0.0.1.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/chatcore/chatcore/botkit"
	"github.com/chatcore/chatcore/outgoing"
)

// DemoToken is the service token of the demo fixture's Echo Bot.
const DemoToken = "OaWDyyIdYxWDsU78E9kcE3oEJJ8X1o95"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "echobot:", err)
		os.Exit(1)
	}
}

// run serves the echo bot until ctx is cancelled. It prints
// "echobot listening on http://HOST:PORT/" once it accepts connections.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("echobot", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:8765", "listen `address`")
	token := fs.String("token", envOr("ECHOBOT_TOKEN", DemoToken), "the bot service's `token` (default $ECHOBOT_TOKEN or the demo token)")
	printBodies := fs.Bool("print", false, "print each payload received")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		return errors.New("-token must not be empty")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	var h http.Handler = botkit.Handler(*token, echo)
	if *printBodies {
		h = printPayloads(stdout, h)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "echobot listening on http://%s/\n", ln.Addr())

	select {
	case err := <-serveErr:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	if err := <-serveErr; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// echo answers with the message text minus the bot's mention; a bare mention
// gets no answer.
func echo(_ context.Context, p *outgoing.Payload) (string, error) {
	return botkit.Command(p), nil
}

// printPayloads writes each request body to w before h handles it.
func printPayloads(w io.Writer, h http.Handler) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, botkit.MaxPayloadBytes+1))
		if err != nil {
			http.Error(rw, "reading body", http.StatusBadRequest)
			return
		}
		mu.Lock()
		fmt.Fprintf(w, "payload: %s\n", body)
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(rw, r)
	})
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
