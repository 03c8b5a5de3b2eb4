// Package tz resolves IANA time-zone names to their canonical zone with the
// IANA database embedded in the binary, so answers do not depend on the
// machine.
package tz

//go:generate go run ./gentzlinks -out links.go

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // time zones must resolve the same on every machine
)

// Canonical returns the canonical IANA name of the time zone name (a
// backward-compatibility link such as "America/Montreal" becomes
// "America/Toronto"), or "" when name is not an IANA zone: "" itself,
// "Local", file names of the zoneinfo directory and anything not shaped like
// a zone name included. Canonical is safe for concurrent use; it caches the
// answers for valid names, which the database bounds.
func Canonical(name string) string {
	if !plausibleZoneName(name) {
		return ""
	}
	if c, ok := knownZones.Load(name); ok {
		return c.(string)
	}
	canonical := name
	if target, ok := links[name]; ok {
		canonical = target
	}
	if _, err := time.LoadLocation(canonical); err != nil {
		return ""
	}
	knownZones.Store(name, canonical) // only valid names: bounded by the database
	return canonical
}

// knownZones caches Canonical's answers for valid names (time.LoadLocation
// reads and parses a file on every call).
var knownZones sync.Map // string → string

// plausibleZoneName rejects what time.LoadLocation would accept although it is
// not an IANA zone ("", "Local", file names of the zoneinfo directory) and
// anything that is not shaped like a zone name.
func plausibleZoneName(name string) bool {
	if name == "" || len(name) > 64 || name == "Local" ||
		strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") ||
		strings.HasPrefix(name, "posix/") || strings.HasPrefix(name, "right/") {
		return false
	}
	switch name {
	case "posixrules", "localtime", "Factory", "leapseconds", "tzdata.zi":
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '/', r == '_', r == '-', r == '+':
		default:
			return false
		}
	}
	return true
}
