package markdown

import (
	"context"
	"maps"
	"slices"

	"github.com/chatcore/chatcore/internal/linkify"
)

// VersionedResolver is a [Resolver] that can also tell the version of the
// realm's linkifier list, a number that changes whenever the list does.
type VersionedResolver interface {
	Resolver
	LinkifiersVersion(ctx context.Context) (int64, error)
}

// Recorder is a [Resolver] that answers through another and remembers every
// answer, so that a rendering done against one store transaction can be
// checked against a later one ([Recorder.Unchanged]): the rendered HTML is a
// pure function of the content and the answers. Names are remembered by the
// key of a fold function (full names and channel names compare as the store
// compares them). A Recorder is not safe for concurrent use.
type Recorder struct {
	src      VersionedResolver
	fold     func(string) string
	byID     map[int64]*User
	byName   map[string]nameAnswer[User]
	channels map[string]nameAnswer[Channel]
	// linkifiers is whether the renderer asked for the linkifiers, and
	// version the version read just before them; compiled is what it got.
	linkifiers bool
	version    int64
	compiled   []*linkify.Linkifier
	// emoji is whether the renderer asked for the realm's custom emoji, and
	// emojiSet what it got.
	emoji    bool
	emojiSet map[string]string
	// previews is what UploadPreviews answered for uploadPaths (nil when it
	// was not asked).
	uploadPaths []string
	previews    map[string]ImagePreview
}

// nameAnswer is what a name was resolved to (nil for nothing).
type nameAnswer[T any] struct {
	name   string
	answer *T
}

// NewRecorder returns a Recorder answering through src; fold gives the key
// under which a name is remembered.
func NewRecorder(src VersionedResolver, fold func(string) string) *Recorder {
	return &Recorder{
		src: src, fold: fold,
		byID:     map[int64]*User{},
		byName:   map[string]nameAnswer[User]{},
		channels: map[string]nameAnswer[Channel]{},
	}
}

// UserByID implements [Resolver].
func (r *Recorder) UserByID(ctx context.Context, id int64) (*User, error) {
	if u, ok := r.byID[id]; ok {
		return u, nil
	}
	u, err := r.src.UserByID(ctx, id)
	if err != nil {
		return nil, err
	}
	r.byID[id] = u
	return u, nil
}

// UserByName implements [Resolver].
func (r *Recorder) UserByName(ctx context.Context, name string) (*User, error) {
	key := r.fold(name)
	if a, ok := r.byName[key]; ok {
		return a.answer, nil
	}
	u, err := r.src.UserByName(ctx, name)
	if err != nil {
		return nil, err
	}
	r.byName[key] = nameAnswer[User]{name, u}
	return u, nil
}

// ChannelByName implements [Resolver].
func (r *Recorder) ChannelByName(ctx context.Context, name string) (*Channel, error) {
	key := r.fold(name)
	if a, ok := r.channels[key]; ok {
		return a.answer, nil
	}
	c, err := r.src.ChannelByName(ctx, name)
	if err != nil {
		return nil, err
	}
	r.channels[key] = nameAnswer[Channel]{name, c}
	return c, nil
}

// Linkifiers implements [Resolver]. The version is read before the list:
// should a write land between the two reads (a transaction that is not a
// snapshot), the list is newer than the version recorded, so a later check
// sees a newer version and fails.
func (r *Recorder) Linkifiers(ctx context.Context) ([]*linkify.Linkifier, error) {
	version, err := r.src.LinkifiersVersion(ctx)
	if err != nil {
		return nil, err
	}
	compiled, err := r.src.Linkifiers(ctx)
	if err != nil {
		return nil, err
	}
	r.linkifiers, r.version, r.compiled = true, version, compiled
	return compiled, nil
}

// RealmEmoji implements [Resolver]: the first answer is kept and given
// again.
func (r *Recorder) RealmEmoji(ctx context.Context) (map[string]string, error) {
	if r.emoji {
		return r.emojiSet, nil
	}
	set, err := r.src.RealmEmoji(ctx)
	if err != nil {
		return nil, err
	}
	r.emoji, r.emojiSet = true, set
	return set, nil
}

// UploadPreviews implements [Resolver]: the answer is remembered with the
// paths asked about.
func (r *Recorder) UploadPreviews(ctx context.Context, paths []string) (map[string]ImagePreview, error) {
	got, err := r.src.UploadPreviews(ctx, paths)
	if err != nil {
		return nil, err
	}
	if got == nil {
		got = map[string]ImagePreview{}
	}
	r.uploadPaths, r.previews = slices.Clone(paths), got
	return got, nil
}

// AskedLinkifiers reports whether Linkifiers was called.
func (r *Recorder) AskedLinkifiers() bool { return r.linkifiers }

// Compiled returns what Linkifiers returned (nil when it was not called).
func (r *Recorder) Compiled() []*linkify.Linkifier { return r.compiled }

// Detach drops the resolver answers came through (its transaction has ended);
// only Unchanged and the recorded answers remain usable.
func (r *Recorder) Detach() { r.src = nil }

// Unchanged reports whether src gives every answer r recorded: the same
// linkifier version (when they were asked for), the same users by id and by
// name, the same channels by name, the same custom emoji and upload
// previews (when they were asked for). It costs one question per recorded answer and compiles no
// linkifier.
func (r *Recorder) Unchanged(ctx context.Context, src VersionedResolver) (bool, error) {
	if r.linkifiers {
		version, err := src.LinkifiersVersion(ctx)
		if err != nil || version != r.version {
			return false, err
		}
	}
	if r.emoji {
		now, err := src.RealmEmoji(ctx)
		if err != nil || !maps.Equal(now, r.emojiSet) {
			return false, err
		}
	}
	if r.previews != nil {
		now, err := src.UploadPreviews(ctx, r.uploadPaths)
		if err != nil || !maps.Equal(now, r.previews) {
			return false, err
		}
	}
	for id, was := range r.byID {
		now, err := src.UserByID(ctx, id)
		if err != nil || !same(now, was) {
			return false, err
		}
	}
	for _, was := range r.byName {
		now, err := src.UserByName(ctx, was.name)
		if err != nil || !same(now, was.answer) {
			return false, err
		}
	}
	for _, was := range r.channels {
		now, err := src.ChannelByName(ctx, was.name)
		if err != nil || !same(now, was.answer) {
			return false, err
		}
	}
	return true, nil
}

// same reports whether a and b are both nil or point to equal values.
func same[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
