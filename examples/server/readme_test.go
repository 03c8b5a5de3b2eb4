package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// readmeBlock returns the lines of the first fenced block after the line
// containing marker in the README.
func readmeBlock(tb testing.TB, readme, marker string) []string {
	tb.Helper()
	_, rest, ok := strings.Cut(readme, marker)
	if !ok {
		tb.Fatalf("README: no %q", marker)
	}
	_, rest, ok = strings.Cut(rest, "```")
	if !ok {
		tb.Fatalf("README: no block after %q", marker)
	}
	_, rest, _ = strings.Cut(rest, "\n") // the fence's info string
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		tb.Fatalf("README: the block after %q does not end", marker)
	}
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// readmeBase is the base URL the README's examples use.
const readmeBase = "http://127.0.0.1:9991"

// TestREADMESession runs the README's first-run output and curl session
// against a fresh example server and compares the answers with the ones the
// README shows, so the README cannot go stale: change an answer and this
// fails naming the command.
func TestREADMESession(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	is.New(t).NoErr(err)
	readme := string(raw)
	s := start(t, "-db", t.TempDir()+"/readme.db")

	t.Run("first-run curl lines", func(t *testing.T) {
		is := is.New(t)
		var want []string
		for _, l := range readmeBlock(t, readme, "On first run it prints:") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "curl ") {
				want = append(want, l)
			}
		}
		got := curlLines(strings.ReplaceAll(s.out.String(), s.base, readmeBase))
		is.Equal(got, want) // the README shows the lines the server prints
	})

	t.Run("session", func(t *testing.T) {
		lines := readmeBlock(t, readme, "A session on a fresh database")
		vars := map[string]string{}
		expand := func(l string) string {
			return os.Expand(l, func(k string) string {
				if v, ok := vars[k]; ok {
					return v
				}
				t.Fatalf("README session: unknown variable $%s in %q", k, l)
				return ""
			})
		}
		ran := 0
		for i := 0; i < len(lines); i++ {
			l, ok := strings.CutPrefix(lines[i], "$ ")
			if !ok {
				t.Fatalf("README session line %d: want a command, got %q", i, lines[i])
			}
			if !strings.HasPrefix(l, "curl ") {
				// Variable assignments: A=... M=... API=...
				for _, kv := range strings.Fields(l) {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						t.Fatalf("README session: cannot run %q", l)
					}
					vars[k] = strings.ReplaceAll(v, readmeBase, s.base)
				}
				continue
			}
			if i+1 >= len(lines) || strings.HasPrefix(lines[i+1], "$ ") {
				t.Fatalf("README session: no answer shown for %q", l)
			}
			i++
			var want any
			if err := json.Unmarshal([]byte(lines[i]), &want); err != nil {
				t.Fatalf("README session: the answer of %q is not JSON: %v", l, err)
			}
			_, answer := runCurl(t, expand(l))
			// Links in answers carry the server's address; the README's are 127.0.0.1:9991.
			var got any
			b, _ := json.Marshal(answer)
			if err := json.Unmarshal([]byte(strings.ReplaceAll(string(b), s.base, readmeBase)), &got); err != nil {
				t.Fatal(err)
			}
			if diff := jsonDiff("", want, got); diff != "" {
				gotJSON, _ := json.Marshal(got)
				t.Errorf("README session: %s\n  README: %s\n  server: %s\n  first difference: %s", l, lines[i], gotJSON, diff)
			}
			ran++
		}
		if ran < 10 {
			t.Errorf("ran %d commands of the README session, want all of them (at least 10)", ran)
		}
	})
}

// elided matches a README string shortened with "..." at its end.
var elided = regexp.MustCompile(`\.\.\.$`)

// jsonDiff returns where got differs from the README's want ("" when it
// does not); a want string ending in "..." stands for any string starting
// with what precedes it (the README shortens long answers).
func jsonDiff(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: want an object, got %v", path, got)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s.%s: the server sends it, the README does not show it", path, k)
			}
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s.%s: missing", path, k)
			}
			if d := jsonDiff(path+"."+k, wv, gv); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: want %v, got %v", path, want, got)
		}
		for i := range w {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i]); d != "" {
				return d
			}
		}
		return ""
	case string:
		g, ok := got.(string)
		if ok && elided.MatchString(w) && strings.HasPrefix(g, strings.TrimSuffix(w, "...")) {
			return ""
		}
		if !ok || g != w {
			return fmt.Sprintf("%s: want %q, got %v", path, w, got)
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("%s: want %v, got %v", path, want, got)
	}
	return ""
}
