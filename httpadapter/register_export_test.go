package httpadapter

import (
	"maps"
	"slices"
)

// RealmConstantKeys returns the keys of the realm section's constant
// settings, sorted.
func RealmConstantKeys() []string { return slices.Sorted(maps.Keys(realmConstants)) }
