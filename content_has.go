package chatcore

import (
	"regexp"
	"strings"
)

// Zulip's Message.content_has_attachment and content_has_image patterns,
// matched against the raw Markdown content.
var (
	attachmentPattern = regexp.MustCompile(`[/\-]user[\-_]uploads[/\.-]`)
	imagePattern      = regexp.MustCompile(`(?i)[/\-]user[\-_]uploads[/\.-]\S+\.(bmp|gif|jpg|jpeg|png|webp)`)
)

// ContentHas returns what the raw Markdown content has, as Zulip computes
// has_link, has_image and has_attachment at send and edit: a link is an
// http:// or https:// URL or an upload path ("/user_uploads"), an
// attachment an upload path, an image an upload path ending in an image
// extension. Messages store it (Message.Has) for the has: narrows; a sent
// or edited message keeps its link bit, while its attachment and image
// bits come from the uploads it really references (see
// [ClaimAttachments]); imported messages keep all three.
func ContentHas(content string) MessageHas {
	var h MessageHas
	if strings.Contains(content, "http://") || strings.Contains(content, "https://") || strings.Contains(content, "/user_uploads") {
		h |= HasLink
	}
	if attachmentPattern.MatchString(content) {
		h |= HasAttachment
		if imagePattern.MatchString(content) {
			h |= HasImage
		}
	}
	return h
}
