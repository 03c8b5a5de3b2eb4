package chatcore

import (
	"strconv"
	"strings"
)

// The sources of a realm's icon (Zulip's Realm.ICON_FROM_GRAVATAR and
// ICON_UPLOADED), its icon_source.
const (
	DefaultIconSource  = "G"
	UploadedIconSource = "U"
)

// DefaultRealmIconPath is the path of the icon of a realm without an
// uploaded one (the transport serves it).
const DefaultRealmIconPath = "/static/images/logo/zulip-icon-square.svg"

// The files of an uploaded realm icon ([RealmIconKey]): the 100×100 PNG
// served and the image as uploaded (Zulip's icon.png and icon.original).
const (
	RealmIconFile     = "icon.png"
	RealmIconOriginal = "icon.original"
)

// RealmIconKey is the storage key of file (RealmIconFile or
// RealmIconOriginal) of realm's uploaded icon, and its URL path: Zulip's
// /user_avatars/{realm_id}/realm/{file}.
func RealmIconKey(realm RealmID, file string) string {
	return "user_avatars/" + strconv.FormatInt(int64(realm), 10) + "/realm/" + file
}

// RealmIconSource returns r's icon_source: UploadedIconSource or
// DefaultIconSource.
func RealmIconSource(r *Realm) string {
	if r.IconSource == UploadedIconSource {
		return UploadedIconSource
	}
	return DefaultIconSource
}

// RealmIconPath returns the path of r's icon: its uploaded icon with its
// version ("/user_avatars/{id}/realm/icon.png?version=N", as Zulip's),
// else DefaultRealmIconPath.
func RealmIconPath(r *Realm) string {
	if RealmIconSource(r) != UploadedIconSource {
		return DefaultRealmIconPath
	}
	return "/" + RealmIconKey(r.ID, RealmIconFile) + "?version=" + strconv.Itoa(r.IconVersion)
}

// RealmIconURL returns r's icon_url: [RealmIconPath] on the Service's
// external URL.
func (s *Service) RealmIconURL(r *Realm) string {
	return strings.TrimSuffix(s.externalURL, "/") + RealmIconPath(r)
}
