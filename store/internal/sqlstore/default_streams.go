package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// DefaultStreams implements [store.DefaultStreamStore].
func (x *Tx) DefaultStreams(ctx context.Context, realm store.RealmID) ([]store.StreamID, error) {
	return scanAll(ctx, x, "default streams", func(r Row, id *store.StreamID) error { return r.Scan(Num(id)) },
		"SELECT stream_id FROM default_streams WHERE realm_id = $1 ORDER BY stream_id", int64(realm))
}

// SetDefaultStream implements [store.DefaultStreamStore].
func (x *Tx) SetDefaultStream(ctx context.Context, realm store.RealmID, stream store.StreamID, on bool) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	query := "DELETE FROM default_streams WHERE realm_id = $1 AND stream_id = $2"
	if on {
		query = "INSERT INTO default_streams (realm_id, stream_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
	}
	_, err := x.q.Exec(ctx, query, int64(realm), int64(stream))
	return x.classify(err, "set default stream")
}
