package markdown

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/matryer/is"
)

// fakeRealm is a Resolver over fixed users, channels and linkifiers; it
// counts the questions asked.
type fakeRealm struct {
	users    []User
	channels []Channel
	links    []*linkify.Linkifier
	emoji    map[string]string
	previews map[string]ImagePreview
	// uploadAsks counts the UploadPreviews questions.
	uploadAsks int
	asked      int
	err        error
}

func (f *fakeRealm) UserByID(_ context.Context, id int64) (*User, error) {
	f.asked++
	for i := range f.users {
		if f.users[i].ID == id {
			return &f.users[i], f.err
		}
	}
	return nil, f.err
}

func (f *fakeRealm) UserByName(_ context.Context, name string) (*User, error) {
	f.asked++
	for i := range f.users {
		if strings.EqualFold(f.users[i].FullName, name) {
			return &f.users[i], f.err
		}
	}
	return nil, f.err
}

func (f *fakeRealm) ChannelByName(_ context.Context, name string) (*Channel, error) {
	f.asked++
	for i := range f.channels {
		if f.channels[i].Name == name {
			return &f.channels[i], f.err
		}
	}
	return nil, f.err
}

func (f *fakeRealm) Linkifiers(context.Context) ([]*linkify.Linkifier, error) { return f.links, nil }

func (f *fakeRealm) RealmEmoji(context.Context) (map[string]string, error) { return f.emoji, f.err }

func (f *fakeRealm) UploadPreviews(_ context.Context, paths []string) (map[string]ImagePreview, error) {
	f.uploadAsks++
	return previewsOf(f.previews, paths), f.err
}

// previewsOf returns the previews of all among paths that all has.
func previewsOf(all map[string]ImagePreview, paths []string) map[string]ImagePreview {
	out := map[string]ImagePreview{}
	for _, p := range paths {
		if v, ok := all[p]; ok {
			out[p] = v
		}
	}
	return out
}

func newFakeRealm(tb testing.TB) *fakeRealm {
	l, ok := linkify.Compile(`#(?P<id>[0-9]+)`, "https://x.example/{id}")
	if !ok {
		tb.Fatal("linkifier does not compile")
	}
	return &fakeRealm{
		users:    []User{{ID: 10, FullName: "King Hamlet", Active: true}, {ID: 11, FullName: "Yorick"}},
		channels: []Channel{{ID: 5, Name: "Verona Sq"}},
		links:    []*linkify.Linkifier{l},
		emoji:    map[string]string{"green_tick": "/user_avatars/1/emoji/green_tick.png"},
	}
}

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		mentioned      []int64
	}{
		{"paragraph", "hello", "<p>hello</p>", nil},
		{"escaped HTML", "<b>x</b>", "<p>&lt;b&gt;x&lt;/b&gt;</p>", nil},
		{"mention", "@**king hamlet**", `<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>`, []int64{10}},
		{"mention by id", "@**|10** @**King Hamlet|10**",
			`<p><span class="user-mention" data-user-id="10">@King Hamlet</span> <span class="user-mention" data-user-id="10">@King Hamlet</span></p>`, []int64{10}},
		{"inactive user not counted", "@**Yorick**", `<p><span class="user-mention" data-user-id="11">@Yorick</span></p>`, nil},
		{"unknown stays text", "@**Nobody** #**Nowhere**", "<p>@**Nobody** #**Nowhere**</p>", nil},
		{"channel topic link", "#**Verona Sq>a.b**",
			`<p><a class="stream-topic" data-stream-id="5" href="/#narrow/channel/5-Verona-Sq/topic/a.2Eb">#Verona Sq &gt; a.b</a></p>`, nil},
		{"linkifier outside code", "#4 `#4`", `<p><a href="https://x.example/4">#4</a> <code>#4</code></p>`, nil},
		{"quote fence", "```quote\n@**King Hamlet**\n```",
			"<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"10\">King Hamlet</span></p>\n</blockquote>", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res, err := Render(context.Background(), newFakeRealm(t), tc.in)
			is.NoErr(err)                         // rendered
			is.Equal(res.HTML, tc.want)           // Zulip's HTML
			is.Equal(res.Mentioned, tc.mentioned) // active users mentioned
			is.Equal(res.IsMe, false)             // not a /me message
		})
	}
}

func TestRenderAsksOncePerName(t *testing.T) {
	is := is.New(t)
	r := newFakeRealm(t)
	_, err := Render(context.Background(), r, "@**Yorick** @**Yorick** #**Verona Sq** #**Verona Sq** @**|10** @**|10**")
	is.NoErr(err)        // rendered
	is.Equal(r.asked, 3) // one question per distinct name or id
}

func TestRenderResolverError(t *testing.T) {
	is := is.New(t)
	r := newFakeRealm(t)
	r.err = errors.New("store down")
	_, err := Render(context.Background(), r, "@**Yorick**")
	is.True(errors.Is(err, r.err)) // the resolver's error is returned
}
