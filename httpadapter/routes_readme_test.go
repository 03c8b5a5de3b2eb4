package httpadapter

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
)

var updateREADME = flag.Bool("update-readme", false, "rewrite the route table in README.md from the adapter's routes")

// The README's route table sits between these lines.
const (
	routesBegin = "<!-- routes: generated from httpadapter's routes by `go test ./httpadapter -run TestREADMERoutes -update-readme`; do not edit -->"
	routesEnd   = "<!-- end of routes -->"
)

// routeTable is the README's route table: every route of the adapter, in
// the order routes lists them, with who may call it, and the health
// endpoints.
func routeTable(routes []route) string {
	var b strings.Builder
	b.WriteString("| method | path | who |\n|---|---|---|\n")
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		who := "any user or bot"
		switch {
		case rt.public:
			who = "no authentication"
		case rt.access == chatcore.AccessAdmin:
			who = "organization administrators"
		case rt.access == chatcore.AccessHuman:
			who = "human users (no bots)"
		}
		if rt.webhooks {
			who += ", incoming webhook bots too"
		}
		if rt.nameOf != "" {
			who += fmt.Sprintf(" (when {%s} is not an id)", rt.nameOf)
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", method, path, who)
	}
	fmt.Fprintf(&b, "| `GET` | `%s` | no authentication: 200 while the process serves |\n", routeHealthz)
	fmt.Fprintf(&b, "| `GET` | `%s` | no authentication: 200 when the store answers a read within `Options.ReadyTimeout`, else 503 |\n", routeReadyz)
	return b.String()
}

// TestREADMERoutes checks the README's route table against the adapter's
// routes (run with -update-readme to regenerate it after adding routes).
func TestREADMERoutes(t *testing.T) {
	h := New(chatcore.New(memory.New()), Options{}).(*handler)
	want := routeTable(h.routes())
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	before, rest, ok := strings.Cut(readme, routesBegin+"\n")
	if !ok {
		t.Fatalf("README.md: no line %q", routesBegin)
	}
	got, after, ok := strings.Cut(rest, routesEnd)
	if !ok {
		t.Fatalf("README.md: no line %q", routesEnd)
	}
	if got == want {
		return
	}
	if *updateREADME {
		if err := os.WriteFile("../README.md", []byte(before+routesBegin+"\n"+want+routesEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("README.md: route table rewritten")
		return
	}
	t.Errorf("README.md's route table is not the adapter's routes; run go test ./httpadapter -run TestREADMERoutes -update-readme\nwant:\n%s", want)
}
