package httpadapter_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestNewServer(t *testing.T) {
	is := is.New(t)
	h := http.NotFoundHandler()
	srv := httpadapter.NewServer(h, nil)
	is.True(srv.Handler != nil)                              // serves the given handler
	is.True(srv.ReadHeaderTimeout > 0)                       // slow headers cannot hold a connection
	is.True(srv.ReadTimeout > 0)                             // nor slow bodies
	is.True(srv.WriteTimeout > 50*time.Second)               // a topic deletion's 50 s budget fits
	is.True(srv.IdleTimeout > 0)                             // idle keep-alives are closed
	is.True(srv.MaxHeaderBytes < http.DefaultMaxHeaderBytes) // headers are bounded tighter than Go's default
	is.True(srv.ErrorLog != nil)                             // server errors go to the logger
}
