package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestGeneratedFilesAreFresh fails when settings/settings_gen.go or
// accounts/settings_gen.go is not what the table generates: run go generate
// after editing settings/table.go.
func TestGeneratedFilesAreFresh(t *testing.T) {
	is := is.New(t)
	src, err := os.ReadFile("../../table.go")
	is.NoErr(err) // table read
	wantPkg, wantAccounts, err := generate("table.go", src)
	is.NoErr(err) // table generates
	gotPkg, err := os.ReadFile("../../settings_gen.go")
	is.NoErr(err)                         // generated file read
	is.True(bytes.Equal(gotPkg, wantPkg)) // settings/settings_gen.go is fresh (run go generate)
	gotAccounts, err := os.ReadFile("../../../accounts/settings_gen.go")
	is.NoErr(err)                                   // generated file read
	is.True(bytes.Equal(gotAccounts, wantAccounts)) // accounts/settings_gen.go is fresh (run go generate)
}

const tableHead = `package settings

type Row struct {
	Name, Field string
	Default     any
	OneOf       string
	Min, Max    int
	Late        bool
}

const top = 10

var Table = []Row{
`

func TestGenerate(t *testing.T) {
	is := is.New(t)
	pkg, accounts, err := generate("t.go", []byte(tableHead+`
	{Name: "dark", Field: "Dark", Default: true, Late: true},
	{Name: "size", Field: "Size", Default: 3, Min: 1, Max: top},
	{Name: "view", Field: "View", Default: "inbox", OneOf: "recent inbox"},
}`))
	is.NoErr(err)                                                        // a valid table generates
	s := strings.Join(strings.Fields(string(pkg)+string(accounts)), " ") // alignment aside
	for _, want := range []string{
		"Dark bool `json:\"dark\"` // default true",
		"Size int `json:\"size\"` // default 3; 1 to 10",
		"Size *int `json:\"size\" validate:\"omitnil,min=1,max=10\"`",
		"View *string `json:\"view\" validate:\"omitnil,oneof=recent inbox\"`",
		"Dark: true,",
		`View: "inbox",`,
		`{"size", func(s *Settings) any { return &s.Size }},`,
		`func(u *SettingsUpdate) any { return u.Size },`,
	} {
		is.True(strings.Contains(s, want)) // generated code holds the expected declaration
	}
}

func TestGenerateRefusesBadTables(t *testing.T) {
	tests := []struct {
		name, rows, want string
	}{
		{"untyped default", `{Name: "a", Field: "A", Default: 1.5},`, "want bool, int or string"},
		{"missing field", `{Name: "a", Default: 1},`, "needs Name, Field and Default"},
		{"duplicate name", `{Name: "a", Field: "A", Default: 1}, {Name: "a", Field: "B", Default: 1},`, "declared twice"},
		{"account name", `{Name: "email", Field: "A", Default: ""},`, "declared twice"},
		{"bad wire name", `{Name: "A-b", Field: "A", Default: 1},`, "lower-case"},
		{"default outside set", `{Name: "a", Field: "A", Default: 4, OneOf: "1 2 3"},`, "is not one of"},
		{"default outside bounds", `{Name: "a", Field: "A", Default: 0, Min: 1, Max: 3},`, "outside 1-3"},
		{"non-int in int set", `{Name: "a", Field: "A", Default: 1, OneOf: "1 x"},`, "not an int"},
		{"bounds on string", `{Name: "a", Field: "A", Default: "", Max: 3},`, "bounds on a string"},
		{"unkeyed row", `{"a", "A", 1, "", 0, 0, false},`, "keyed fields"},
		{"not constant", `{Name: "a", Field: "A", Default: len([]int{})},`, "not a constant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := generate("t.go", []byte(tableHead+tt.rows+"\n}"))
			is.True(err != nil)                             // the table is refused
			is.True(strings.Contains(err.Error(), tt.want)) // with the reason
		})
	}
}

func TestGenerateRefusesTablesThatNeedOtherFiles(t *testing.T) {
	is := is.New(t)
	_, _, err := generate("t.go", []byte(tableHead+`{Name: "a", Field: "A", Default: elsewhere},
}`))
	is.True(err != nil)                                  // the table is refused
	is.True(strings.Contains(err.Error(), "on its own")) // it must type-check alone
}
