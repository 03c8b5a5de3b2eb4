package uploads

import (
	"crypto/rand"
	"encoding/base64"
	"mime"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameBytes bounds a sanitised file name; longer names are cut, keeping
// their extension.
const MaxNameBytes = 200

var (
	unsafeNameChars = regexp.MustCompile(`[^\p{L}\p{N}_\s.\-]`)
	dashRuns        = regexp.MustCompile(`[\-\s]+`)
)

// SanitizeName returns name as Zulip's sanitize_name makes it safe for a
// file system, object storage and a URL: NFKC-normalised, only letters,
// digits, "_", ".", "-" kept (runs of white space and dashes become one
// dash), what a path would put before the last "/" or "\" dropped, and
// "uploaded-file" for a name left empty, "." or "..". The result is at most
// MaxNameBytes bytes.
func SanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "")
	}
	name = norm.NFKC.String(name)
	name = strings.TrimSpace(unsafeNameChars.ReplaceAllString(name, ""))
	name = dashRuns.ReplaceAllString(name, "-")
	name = strings.TrimLeft(name, ".")
	if name == "" || name == "." || name == ".." {
		return "uploaded-file"
	}
	if len(name) > MaxNameBytes {
		ext := path.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := MaxNameBytes - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	return name
}

// newPathID returns a fresh path id for a file of the realm:
// "{realm id}/{24 random URL-safe characters}/{name}", as Zulip makes them.
func newPathID(realm int64, name string) string {
	var b [18]byte
	_, _ = rand.Read(b[:])
	return itoa(realm) + "/" + base64.RawURLEncoding.EncodeToString(b[:]) + "/" + name
}

func itoa(n int64) string {
	var buf [20]byte
	i := len(buf)
	if n == 0 {
		return "0"
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return string(buf[i:])
}

// typeByName guesses a media type from a file name's extension, "" when
// unknown.
func typeByName(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case "":
		return ""
	case ".md", ".markdown":
		return "text/markdown"
	}
	t := mime.TypeByExtension(ext)
	if base, _, err := mime.ParseMediaType(t); err == nil {
		return base
	}
	return ""
}

// InlineTypes are the media types Zulip serves inline (INLINE_MIME_TYPES);
// every other type is served as an attachment (SVG and HTML never inline).
var InlineTypes = map[string]bool{
	"application/pdf": true,
	"audio/aac":       true, "audio/flac": true, "audio/mp4": true, "audio/mpeg": true,
	"audio/ogg": true, "audio/wav": true, "audio/webm": true,
	"image/apng": true, "image/avif": true, "image/gif": true, "image/jpeg": true,
	"image/png": true, "image/webp": true,
	"text/plain": true,
	"video/mp4":  true, "video/ogg": true, "video/quicktime": true, "video/webm": true,
}
