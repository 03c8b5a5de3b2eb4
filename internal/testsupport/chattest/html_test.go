package chattest_test

import (
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// TestCheckHTML checks that the HTML checks of the fuzz targets catch what
// they are there to catch, so a passing fuzz run means something.
func TestCheckHTML(t *testing.T) {
	for _, bad := range []string{
		`<p><script>x</script></p>`,
		`<p><a href="javascript:alert(1)">x</a></p>`,
		`<p><a href="&#106;avascript:alert(1)">x</a></p>`,
		`<p><a href=" JaVa&#x09;Script:alert(1)">x</a></p>`,
		`<img src=x onerror=alert(1)>`,
		`<IFRAME src="https://x.example">`,
		`<p><img alt="a" src="data:text/html,x"></p>`,
	} {
		t.Run(bad, func(t *testing.T) {
			is := is.New(t)
			ft := &recordingTB{TB: t}
			func() {
				defer func() { _ = recover() }()
				chattest.CheckHTML(ft, "input", bad)
			}()
			is.True(ft.failed) // the check flags it
		})
	}
	for _, good := range []string{
		`<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`,
		`<p><a href="https://example.com/?q=javascript:x">x</a> <img src="https://x.example/a.png" alt="onerror=x"></p>`,
		`<div class="codehilite"><pre><span></span><code>&lt;iframe&gt;</code></pre></div>`,
	} {
		t.Run(good, func(t *testing.T) {
			is := is.New(t)
			ft := &recordingTB{TB: t}
			chattest.CheckHTML(ft, "input", good)
			is.True(!ft.failed) // harmless markup passes
		})
	}
}

// recordingTB records Fatalf instead of stopping the test, so the helper
// tests can observe a failure.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Fatalf(string, ...any) { r.failed = true; panic("fatal") }
func (r *recordingTB) Helper()               {}
