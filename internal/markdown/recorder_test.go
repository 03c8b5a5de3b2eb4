package markdown

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/matryer/is"
)

// fakeSource is a VersionedResolver over maps, counting its questions.
type fakeSource struct {
	users    map[int64]*User
	channels map[string]*Channel
	version  int64
	emoji    map[string]string
	previews map[string]ImagePreview
	asked    int
}

func (f *fakeSource) UserByID(_ context.Context, id int64) (*User, error) {
	f.asked++
	return f.users[id], nil
}

func (f *fakeSource) UserByName(_ context.Context, name string) (*User, error) {
	f.asked++
	for _, u := range f.users {
		if strings.EqualFold(u.FullName, name) {
			return u, nil
		}
	}
	return nil, nil
}

func (f *fakeSource) ChannelByName(_ context.Context, name string) (*Channel, error) {
	f.asked++
	return f.channels[strings.ToLower(name)], nil
}

func (f *fakeSource) Linkifiers(context.Context) ([]*linkify.Linkifier, error) { return nil, nil }

func (f *fakeSource) RealmEmoji(context.Context) (map[string]string, error) {
	f.asked++
	return maps.Clone(f.emoji), nil
}

func (f *fakeSource) UploadPreviews(_ context.Context, paths []string) (map[string]ImagePreview, error) {
	f.asked++
	return previewsOf(f.previews, paths), nil
}

func (f *fakeSource) LinkifiersVersion(context.Context) (int64, error) { return f.version, nil }

func TestRecorderUnchanged(t *testing.T) {
	ctx := context.Background()
	newSource := func() *fakeSource {
		return &fakeSource{
			users:    map[int64]*User{12: {ID: 12, FullName: "Mark", Active: true}},
			channels: map[string]*Channel{"general": {ID: 61, Name: "general"}},
			version:  3,
			emoji:    map[string]string{"party": "/user_avatars/1/emoji/images/1.png"},
			previews: map[string]ImagePreview{"1/ab/a.png": {Width: 4, Height: 3, ContentType: "image/png"}},
		}
	}
	record := func(src *fakeSource) *Recorder {
		r := NewRecorder(src, strings.ToLower)
		_, err := Render(ctx, r, "@**Mark** @**mark** @**Nobody** #**general** see #1 :party: :smile: :party: [a](/user_uploads/1/ab/a.png)")
		if err != nil {
			t.Fatal(err)
		}
		r.Detach()
		return r
	}
	tests := []struct {
		name   string
		change func(*fakeSource)
		want   bool
	}{
		{"same answers", func(*fakeSource) {}, true},
		{"user renamed", func(f *fakeSource) { f.users[12].FullName = "Marcus" }, false},
		{"user deactivated", func(f *fakeSource) { f.users[12].Active = false }, false},
		{"name now taken", func(f *fakeSource) { f.users[13] = &User{ID: 13, FullName: "Nobody", Active: true} }, false},
		{"channel gone", func(f *fakeSource) { delete(f.channels, "general") }, false},
		{"linkifiers changed", func(f *fakeSource) { f.version++ }, false},
		{"custom emoji deactivated", func(f *fakeSource) { delete(f.emoji, "party") }, false},
		{"custom emoji added", func(f *fakeSource) { f.emoji["smile"] = "/user_avatars/1/emoji/images/2.png" }, false},
		{"thumbnail made", func(f *fakeSource) {
			f.previews["1/ab/a.png"] = ImagePreview{Width: 4, Height: 3, ContentType: "image/png", ThumbnailURL: "/t"}
		}, false},
		{"thumbnail failed", func(f *fakeSource) { delete(f.previews, "1/ab/a.png") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			src := newSource()
			r := record(src)
			is.True(r.AskedLinkifiers()) // the content was linkified
			later := newSource()
			tt.change(later)
			ok, err := r.Unchanged(ctx, later)
			is.NoErr(err)
			is.Equal(ok, tt.want) // the check sees exactly the answers that changed
		})
	}
}

func TestRecorderAsksOncePerName(t *testing.T) {
	is := is.New(t)
	src := &fakeSource{users: map[int64]*User{12: {ID: 12, FullName: "Mark", Active: true}}}
	r := NewRecorder(src, strings.ToLower)
	for _, name := range []string{"Mark", "mark", "MARK"} {
		u, err := r.UserByName(context.Background(), name)
		is.NoErr(err)
		is.Equal(u.ID, int64(12)) // the same user for every spelling
	}
	is.Equal(src.asked, 1) // one question: names are remembered by their fold key
}

func TestRecorderAsksRealmEmojiOnce(t *testing.T) {
	is := is.New(t)
	src := &fakeSource{emoji: map[string]string{"party": "/p.png"}}
	r := NewRecorder(src, strings.ToLower)
	res, err := Render(context.Background(), r, ":party: :party: *:party:*")
	is.NoErr(err)
	is.Equal(src.asked, 1) // the realm's emoji are read once per rendering
	is.Equal(strings.Count(res.HTML, `src="/p.png"`), 3)
	src.asked = 0
	_, err = Render(context.Background(), NewRecorder(src, strings.ToLower), "no syntax: here, 😀")
	is.NoErr(err)
	is.Equal(src.asked, 0) // content without :name: syntax reads none
}
