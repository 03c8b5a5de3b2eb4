package httpadapter

import (
	"github.com/chatcore/chatcore/avatars"
	"github.com/chatcore/chatcore/uploads"
)

// addFileState puts the upload limits and thumbnail formats into the realm
// section of /register: max_file_upload_size_mib (the Service's limit) and
// server_thumbnail_formats (what uploads.Thumbnail makes).
func (h *handler) addFileState(state map[string]any) {
	state["max_file_upload_size_mib"] = h.svc.MaxFileUploadSizeMiB()
	state["max_avatar_file_size_mib"] = avatars.MaxFileSizeMiB
	formats := make([]map[string]any, len(uploads.ThumbnailFormats))
	for i, f := range uploads.ThumbnailFormats {
		formats[i] = map[string]any{"name": f.Name, "max_width": f.MaxWidth, "max_height": f.MaxHeight, "format": f.Format, "animated": f.Animated}
	}
	state["server_thumbnail_formats"] = formats
}
