package postgres_test

import (
	"context"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
)

// TestInt8Arrays: bigint[] values travel between Go slices of ids and the
// store's connections exactly as through pgx's own codec (a connection
// without the store's): what the server receives, what is scanned back,
// the empty array and NULL apart, and the arrays the store's codec leaves
// to pgx's (nulls, two dimensions) alike.
func TestInt8Arrays(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st := pgtest.Open(t)
	plain, err := pgx.Connect(ctx, pgtest.URL(t))
	is.NoErr(err)
	defer plain.Close(ctx)
	type querier interface {
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
	conns := map[string]querier{"store": st.Pool(), "plain": plain}

	many := make([]int64, 10000)
	for i := range many {
		many[i] = int64(i*7919) - 5000
	}
	for _, v := range [][]int64{nil, {}, {1}, {-5, 0, math.MaxInt64, math.MinInt64}, many} {
		texts := map[string]*string{}
		for name, c := range conns {
			var text *string
			var back []int64
			var users []store.UserID
			err := c.QueryRow(ctx, "SELECT $1::bigint[]::text, $1::bigint[], $1::bigint[]", v).Scan(&text, &back, &users)
			is.NoErr(err) // sent and scanned
			texts[name] = text
			is.Equal(back == nil, v == nil) // NULL as nil, the empty array as empty
			is.Equal(len(back), len(v))
			for i := range v {
				is.Equal(back[i], v[i])
				is.Equal(users[i], store.UserID(v[i]))
			}
		}
		is.Equal(texts["store"], texts["plain"]) // the server received the same array
	}
	// Left to pgx's codec: the same answers on both.
	for _, q := range []string{"SELECT '{{1,2},{3,4}}'::bigint[]", "SELECT '{1,NULL}'::bigint[]", "SELECT '[0:1]={5,6}'::bigint[]"} {
		var got [2][]int64
		var errs [2]error
		for i, name := range []string{"store", "plain"} {
			errs[i] = conns[name].QueryRow(ctx, q).Scan(&got[i])
		}
		is.Equal(errs[0] == nil, errs[1] == nil) // the same outcome
		is.Equal(got[0], got[1])                 // and the same values
	}
	var withNull []*int64
	is.NoErr(st.Pool().QueryRow(ctx, "SELECT '{1,NULL}'::bigint[]").Scan(&withNull))
	is.True(len(withNull) == 2 && *withNull[0] == 1 && withNull[1] == nil) // other targets: pgx's codec
}
