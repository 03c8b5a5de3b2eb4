package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatcore/chatcore/internal/dbarg"
)

// opsConfig holds the operational settings: version, logging, metrics and
// the external URL.
type opsConfig struct {
	version     bool
	logLevel    slog.Level
	logFormat   string
	metricsAddr string
	externalURL string
}

// envPrefix starts the environment variable of every flag: -db-pool is
// CHATCORE_DB_POOL. A flag given on the command line wins over its variable.
const envPrefix = "CHATCORE_"

// noEnv are the flags without an environment variable: -version (a
// CHATCORE_VERSION set for other reasons must not turn the server into a
// version printer).
var noEnv = map[string]bool{"version": true}

// envName is the environment variable of the flag name.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// addOpsFlags defines the operational flags on fs.
func addOpsFlags(fs *flag.FlagSet, c *opsConfig) {
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.TextVar(&c.logLevel, "log-level", slog.LevelInfo, "least important log `level`: debug, info, warn or error")
	fs.StringVar(&c.logFormat, "log-format", "text", "log `format`: text or json")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://`ADDR`/metrics on this separate listen address (default: off)")
	fs.StringVar(&c.externalURL, "external-url", "", "the server's `URL` as clients reach it, from which every link is built (default: http:// plus the listen address)")
}

// usage writes the command's help to w: every flag with its default and
// its environment variable.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "Usage: server [flags]\n\nchatcore's example server: the Zulip REST API on a SQLite file or a PostgreSQL database.\n"+
		"Every flag can also be set through the environment variable named after it; a flag given wins.\n\nFlags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		name, text := flag.UnquoteUsage(f)
		if _, ok := f.Value.(durationValue); ok && name == "value" {
			name = "duration"
		}
		line := "  -" + f.Name
		if name != "" {
			line += " " + name
		}
		if !noEnv[f.Name] {
			line += "\t(env " + envName(f.Name) + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(text, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// durationValue is a duration flag whose error names the unit it needs.
type durationValue struct{ flag.Value }

func (d durationValue) Set(s string) error {
	if err := d.Value.Set(s); err != nil {
		if _, perr := time.ParseDuration(s); perr != nil {
			return fmt.Errorf("%q is not a duration: give a number with a unit, e.g. 500ms, 5s or 1m", s)
		}
		return err
	}
	return nil
}

// withClearDurations gives every duration flag of fs the error of
// [durationValue] (flag's own says only "parse error").
func withClearDurations(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				f.Value = durationValue{f.Value}
			}
		}
	})
}

// parseArgs parses args into fs: first the CHATCORE_* environment variables
// (lookup; os.LookupEnv in the command), then the command line, which wins.
// -h prints the usage to out and returns flag.ErrHelp; any other problem is
// returned (once, without the usage) naming the flag or variable.
func parseArgs(fs *flag.FlagSet, args []string, out io.Writer, lookup func(string) (string, bool)) error {
	withClearDurations(fs)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if envErr != nil {
			return
		}
		if noEnv[f.Name] {
			return
		}
		if v, ok := lookup(envName(f.Name)); ok {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("environment variable %s: %w", envName(f.Name), err)
			}
		}
	})
	if envErr != nil {
		return envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(fs, out)
			return err
		}
		return fmt.Errorf("%w (run with -h for the flags)", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (run with -h for the flags)", fs.Args())
	}
	return nil
}

// checkOps checks the operational settings.
func checkOps(c opsConfig) error {
	if c.logFormat != "text" && c.logFormat != "json" {
		return fmt.Errorf("-log-format must be text or json, not %q", c.logFormat)
	}
	if c.externalURL != "" {
		if _, err := parseExternalURL(c.externalURL); err != nil {
			return err
		}
	}
	return nil
}

// parseExternalURL checks an -external-url: an absolute http or https URL
// with a host and no query or fragment; it returns it without a trailing
// slash.
func parseExternalURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("-external-url %q: give an absolute http:// or https:// URL with a host, such as https://chat.example.com", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// checkDBDir refuses a SQLite -db whose directory does not exist (SQLite
// says only "unable to open database file").
func checkDBDir(db string) error {
	if dbarg.IsPostgres(db) {
		return nil
	}
	dir := filepath.Dir(db)
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("-db %s: the directory %s does not exist (create it first)", db, dir)
		}
		return fmt.Errorf("-db %s: %w", db, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("-db %s: %s is not a directory", db, dir)
	}
	return nil
}

// newSQLiteFiles returns a function removing the files a new SQLite
// database at db leaves (the file and its -wal, -shm and lock companions),
// to be called when the start fails; nil when db is PostgreSQL or the file
// exists already (a failed start never removes a database it did not
// create).
func newSQLiteFiles(db string) func() {
	if dbarg.IsPostgres(db) {
		return nil
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return func() {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal", ".lock"} {
			_ = os.Remove(db + suffix)
		}
	}
}
