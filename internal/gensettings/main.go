// Command gensettings writes settings_gen.go, the typed code of chatcore's
// personal settings, from the table in settings_table.go. It runs at
// development time only:
//
//	go generate ./...   (see the go:generate line in settings_table.go)
//
// It type-checks the table file on its own (the file holds plain data), reads
// every row's constant values and writes the Settings struct, DefaultSettings,
// SettingsUpdate (its account fields and one pointer field per setting, with
// validate tags derived from the row's OneOf, Min and Max), and
// settingFields, one line per setting that gives its wire name and its two
// fields as pointers (the root's by-name accessors Settings.Value, Set and
// Fields are plain code over it, without reflection). The test of this
// package fails when settings_gen.go is stale.
package main

import (
	"flag"
	"log"
	"os"
)

func main() {
	in := flag.String("in", "settings_table.go", "table file to read")
	out := flag.String("out", "settings_gen.go", "Go file to write")
	flag.Parse()

	src, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	code, err := generate(*in, src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, code, 0o644); err != nil {
		log.Fatal(err)
	}
}
