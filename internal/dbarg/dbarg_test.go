package dbarg_test

import (
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/dbarg"
)

func TestIsPostgres(t *testing.T) {
	is := is.New(t)
	is.True(dbarg.IsPostgres("postgres://u@localhost/db"))             // a URL
	is.True(dbarg.IsPostgres("postgresql:///db?host=/run/postgresql")) // the long scheme
	is.True(dbarg.IsPostgres("host=localhost dbname=chat"))            // a key=value DSN
	is.True(!dbarg.IsPostgres("chatcore.db"))                          // a file
	is.True(!dbarg.IsPostgres("./host=x.db"))                          // ./ forces a file
	is.True(!dbarg.IsPostgres("/var/lib/chat/chat.db"))                // a path
}
