package markdown

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// Zulip's markup of a preview, attributes in its order: the loading
// placeholder and the thumbnail of a 128×128 PNG.
const (
	placeholderPNG = `<img class="image-loading-placeholder" data-original-content-type="image/png" data-original-dimensions="128x128" src="/static/images/loading/loader-black.svg">`
	thumbPNG       = `<img data-original-content-type="image/png" data-original-dimensions="128x128" src="/user_uploads/thumbnail/1/ab/img.png/840x560.webp">`
)

func previewRealm() *fakeRealm {
	return &fakeRealm{previews: map[string]ImagePreview{
		"1/ab/img.png":  {Width: 128, Height: 128, ContentType: "image/png"},
		"1/cd/img.jpg":  {Width: 128, Height: 128, ContentType: "image/jpeg", ThumbnailURL: "/user_uploads/thumbnail/1/cd/img.jpg/840x560.webp"},
		"1/ef/anim.gif": {Width: 128, Height: 56, ContentType: "image/gif", ThumbnailURL: "/user_uploads/thumbnail/1/ef/anim.gif/100x75-anim.webp", Animated: true},
	}}
}

func TestUploadPreviewRendering(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"placeholder until the thumbnail is made", "[image](/user_uploads/1/ab/img.png)",
			`<p><a href="/user_uploads/1/ab/img.png">image</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="image">` + placeholderPNG + `</a></div>`},
		{"the thumbnail once made", "[image](/user_uploads/1/cd/img.jpg)",
			`<p><a href="/user_uploads/1/cd/img.jpg">image</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/cd/img.jpg" title="image">` +
				`<img data-original-content-type="image/jpeg" data-original-dimensions="128x128" src="/user_uploads/thumbnail/1/cd/img.jpg/840x560.webp"></a></div>`},
		{"an animated thumbnail", "[anim.gif](/user_uploads/1/ef/anim.gif)",
			`<p><a href="/user_uploads/1/ef/anim.gif">anim.gif</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/ef/anim.gif" title="anim.gif">` +
				`<img data-animated="true" data-original-content-type="image/gif" data-original-dimensions="128x56" src="/user_uploads/thumbnail/1/ef/anim.gif/100x75-anim.webp"></a></div>`},
		{"an upload that is no image, or another realm's", "[notes](/user_uploads/1/zz/notes.txt) [x](/user_uploads/2/ab/img.png)",
			`<p><a href="/user_uploads/1/zz/notes.txt">notes</a> <a href="/user_uploads/2/ab/img.png">x</a></p>`},
		{"several images, each after its paragraph in order",
			"Test 1\n[a](/user_uploads/1/ab/img.png) \n\nNext\n[b](/user_uploads/1/cd/img.jpg) [c](/user_uploads/1/ab/img.png)",
			"<p>Test 1<br>\n" + `<a href="/user_uploads/1/ab/img.png">a</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="a">` + placeholderPNG + `</a></div>` +
				"<p>Next<br>\n" + `<a href="/user_uploads/1/cd/img.jpg">b</a> <a href="/user_uploads/1/ab/img.png">c</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/cd/img.jpg" title="b">` +
				`<img data-original-content-type="image/jpeg" data-original-dimensions="128x128" src="/user_uploads/thumbnail/1/cd/img.jpg/840x560.webp"></a></div>`},
		{"no preview in a quote", "> [image](/user_uploads/1/ab/img.png)",
			"<blockquote>\n" + `<p><a href="/user_uploads/1/ab/img.png">image</a></p>` + "\n</blockquote>"},
		{"no preview of a path in code", "```\n/user_uploads/1/ab/img.png\n```",
			`<div class="codehilite"><pre><span></span><code>/user_uploads/1/ab/img.png` + "\n</code></pre></div>"},
		{"escaped link text as the title", "[I am 95% ± 5% <certain>!](/user_uploads/1/ab/img.png)",
			`<p><a href="/user_uploads/1/ab/img.png">I am 95% ± 5% &lt;certain&gt;!</a></p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="I am 95% ± 5% &lt;certain&gt;!">` + placeholderPNG + `</a></div>`},
		{"a link showing its URL is replaced", "[/user_uploads/1/ab/img.png](/user_uploads/1/ab/img.png)",
			`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png">` + placeholderPNG + `</a></div>`},
		{"in a list item", "* [image](/user_uploads/1/ab/img.png)",
			"<ul>\n<li>" + `<a href="/user_uploads/1/ab/img.png">image</a>` +
				`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="image">` + placeholderPNG + "</a></div></li>\n</ul>"},
		{"inside emphasis: at the end of the message", "**[image](/user_uploads/1/ab/img.png)** text",
			`<p><strong><a href="/user_uploads/1/ab/img.png">image</a></strong> text</p>` + "\n" +
				`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="image">` + placeholderPNG + `</a></div>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res, err := Render(context.Background(), previewRealm(), tt.content)
			is.NoErr(err)
			is.Equal(res.HTML, tt.want)
		})
	}
}

func TestUploadPreviewsAskedOnlyForUploadLinks(t *testing.T) {
	is := is.New(t)
	r := previewRealm()
	_, err := Render(context.Background(), r, "no uploads here https://example.com/x.png")
	is.NoErr(err)
	is.Equal(r.uploadAsks, 0) // content without upload links reads nothing
	_, err = Render(context.Background(), r, "[a](/user_uploads/1/ab/img.png) [b](/user_uploads/1/ab/img.png)")
	is.NoErr(err)
	is.Equal(r.uploadAsks, 1) // one question for every upload
}

func TestUploadPreviewsOverTheLimit(t *testing.T) {
	is := is.New(t)
	var b strings.Builder
	b.WriteString("[image](/user_uploads/1/ab/img.png)")
	for i := range MaxInlinePreviews {
		b.WriteString(" https://example.com/" + strings.Repeat("x", i+1))
	}
	res, err := Render(context.Background(), previewRealm(), b.String())
	is.NoErr(err)
	is.True(!strings.Contains(res.HTML, "message_inline_image")) // 25 distinct links: no previews, as Zulip
	res, err = Render(context.Background(), previewRealm(), strings.TrimSuffix(b.String(), " https://example.com/"+strings.Repeat("x", MaxInlinePreviews)))
	is.NoErr(err)
	is.True(strings.Contains(res.HTML, "message_inline_image")) // 24: previews
}

func TestRewriteUploadPreview(t *testing.T) {
	is := is.New(t)
	res, err := Render(context.Background(), previewRealm(), "[first](/user_uploads/1/ab/img.png)\n[second](/user_uploads/1/ab/img.png2)")
	is.NoErr(err)
	thumb := ImagePreview{Width: 128, Height: 128, ContentType: "image/png", ThumbnailURL: "/user_uploads/thumbnail/1/ab/img.png/840x560.webp"}
	got, ok := RewriteUploadPreview(res.HTML, "1/ab/img.png", &thumb)
	is.True(ok)
	is.Equal(got, `<p><a href="/user_uploads/1/ab/img.png">first</a><br>`+"\n"+`<a href="/user_uploads/1/ab/img.png2">second</a></p>`+"\n"+
		`<div class="message_inline_image"><a href="/user_uploads/1/ab/img.png" title="first">`+thumbPNG+`</a></div>`)
	_, again := RewriteUploadPreview(got, "1/ab/img.png", &thumb)
	is.True(!again) // already thumbnailed: nothing to change
	_, other := RewriteUploadPreview(res.HTML, "1/ab/img.pn", &thumb)
	is.True(!other) // a path that is a prefix of another's is not it
	gone, ok := RewriteUploadPreview(res.HTML, "1/ab/img.png", nil)
	is.True(ok)
	is.Equal(gone, `<p><a href="/user_uploads/1/ab/img.png">first</a><br>`+"\n"+`<a href="/user_uploads/1/ab/img.png2">second</a></p>`) // the failed preview removed
	forged := `<p>&lt;div class="message_inline_image"&gt;</p>`
	_, ok = RewriteUploadPreview(forged, "1/ab/img.png", nil)
	is.True(!ok) // text of the message never matches
}
