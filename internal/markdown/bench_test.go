package markdown

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/linkify"
)

// manyLinkifiersRealm returns a realm with n linkifiers L<i>-<digits> and a
// 10 KB message in which every linkifier matches once or more.
func manyLinkifiersRealm(tb testing.TB, n int) (*fakeRealm, string) {
	tb.Helper()
	r := newFakeRealm(tb)
	r.links = nil
	for i := range n {
		l, ok := linkify.Compile(fmt.Sprintf("L%d-(?P<id>[0-9]+)", i), fmt.Sprintf("https://tracker.example/l%d/{id}", i))
		if !ok {
			tb.Fatal("linkifier does not compile")
		}
		r.links = append(r.links, l)
	}
	var content strings.Builder
	for i := 0; content.Len() < 10000-40; i++ {
		fmt.Fprintf(&content, "see L%d-%d about **this** and `that`, ", i%2000, i)
	}
	return r, content.String()
}

// BenchmarkRenderManyLinkifiers renders a 10 KB message with 2,000
// linkifiers, the worst case a realm's linkifier list makes of a send.
func BenchmarkRenderManyLinkifiers(b *testing.B) {
	for _, n := range []int{0, 2000} {
		b.Run(fmt.Sprintf("linkifiers=%d", n), func(b *testing.B) {
			r, content := manyLinkifiersRealm(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(context.Background(), r, content); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderEmoji renders a 10 KB message full of :name: syntax and
// Unicode emoji, beside one of the same size with neither (the emoji pass
// is skipped for content without ':' and outside ASCII).
func BenchmarkRenderEmoji(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{
		{"plain", "see this about **that** and `it`, ok "},
		{"emoji", "see :smile: about **:green_tick:** 😀 `:x:`, :nope: "},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := newFakeRealm(b)
			r.links = nil
			content := strings.Repeat(tc.unit, 10000/len(tc.unit))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(context.Background(), r, content); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderUploadPreviews renders a message linking 24 image uploads
// (Zulip's preview limit), each getting its preview, beside the same
// message whose links are to uploads without one.
func BenchmarkRenderUploadPreviews(b *testing.B) {
	for _, previewed := range []bool{false, true} {
		b.Run(fmt.Sprintf("previews=%v", previewed), func(b *testing.B) {
			r := newFakeRealm(b)
			r.links, r.previews = nil, map[string]ImagePreview{}
			var content strings.Builder
			for i := range MaxInlinePreviews {
				path := fmt.Sprintf("1/ab%d/img.png", i)
				if previewed {
					r.previews[path] = ImagePreview{Width: 640, Height: 480, ContentType: "image/png"}
				}
				fmt.Fprintf(&content, "Shot %d\n[img.png](/user_uploads/%s)\n\n", i, path)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(context.Background(), r, content.String()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
