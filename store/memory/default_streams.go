package memory

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// defaultStreamKey is a default channel of a realm.
type defaultStreamKey struct {
	realm  store.RealmID
	stream store.StreamID
}

// DefaultStreams implements store.DefaultStreamStore.
func (t *tx) DefaultStreams(_ context.Context, realm store.RealmID) ([]store.StreamID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.StreamID
	for k := range t.d.defaultStreams {
		if k.realm == realm {
			out = append(out, k.stream)
		}
	}
	slices.Sort(out)
	return out, nil
}

// SetDefaultStream implements store.DefaultStreamStore.
func (t *tx) SetDefaultStream(_ context.Context, realm store.RealmID, stream store.StreamID, on bool) error {
	if err := t.write(); err != nil {
		return err
	}
	k := defaultStreamKey{realm, stream}
	if on {
		put(t, t.d.defaultStreams, k, true)
	} else {
		del(t, t.d.defaultStreams, k)
	}
	return nil
}
