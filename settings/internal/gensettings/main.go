// Command gensettings writes the typed code of chatcore's personal settings
// from the table in settings/table.go. It runs at development time only:
//
//	go generate ./...   (see the go:generate line in settings/table.go)
//
// It type-checks the table file on its own (the file holds plain data), reads
// every row's constant values and writes two files. settings/settings_gen.go
// holds the Settings struct, Default and fields, one line per setting that
// gives its wire name and its Settings field as a pointer (the by-name
// accessors Settings.Value, Set and Fields are plain code over it, without
// reflection). accounts/settings_gen.go holds accounts.SettingsUpdate (its
// account fields and one pointer field per setting, with validate tags derived
// from the row's OneOf, Min and Max) and settingUpdates, its fields in table
// order. The test of this package fails when either file is stale.
package main

import (
	"flag"
	"log"
	"os"
)

func main() {
	in := flag.String("in", "table.go", "table file to read")
	pkgOut := flag.String("out", "settings_gen.go", "Go file of package settings to write")
	accountsOut := flag.String("accounts", "../accounts/settings_gen.go", "Go file of package accounts to write")
	flag.Parse()

	src, err := os.ReadFile(*in)
	if err != nil {
		log.Fatal(err)
	}
	pkg, accounts, err := generate(*in, src)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*pkgOut, pkg, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*accountsOut, accounts, 0o644); err != nil {
		log.Fatal(err)
	}
}
