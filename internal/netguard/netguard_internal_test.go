package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/matryer/is"
)

func TestRedirectToPrivateRefused(t *testing.T) {
	is := is.New(t)
	var reached atomic.Bool
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Store(true)
	}))
	t.Cleanup(private.Close)
	public := httptest.NewServer(http.RedirectHandler(private.URL+"/admin", http.StatusTemporaryRedirect))
	t.Cleanup(public.Close)
	_, port, err := net.SplitHostPort(public.Listener.Addr().String())
	is.NoErr(err) // the "public" server's port

	// The guard, except that the "public" server's loopback port is let through.
	client := newClient(Options{}, func(network, address string, c syscall.RawConn) error {
		if strings.HasSuffix(address, ":"+port) {
			return nil
		}
		return DialControl(network, address, c)
	})
	res, err := client.Post(public.URL, "application/json", strings.NewReader(`{}`))
	if res != nil {
		res.Body.Close()
	}
	is.True(errors.Is(err, ErrBlocked)) // the redirect target is dialled through the guard and refused
	is.True(!reached.Load())            // the private server never saw a request
}
