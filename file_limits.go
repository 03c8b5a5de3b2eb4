package chatcore

// DefaultMaxFileUploadSizeMiB is the largest file upload Zulip allows by
// default (MAX_FILE_UPLOAD_SIZE), in MiB.
const DefaultMaxFileUploadSizeMiB = 25

// WithMaxFileUploadSizeMiB sets the largest file a user may upload, in MiB,
// which POST /register tells clients as max_file_upload_size_mib. Without
// this option (or with a negative n) it is [DefaultMaxFileUploadSizeMiB];
// zero means uploads are disabled, as in Zulip.
func WithMaxFileUploadSizeMiB(n int) Option {
	return func(s *Service) {
		if n >= 0 {
			s.maxUploadMiB = &n
		}
	}
}

// MaxFileUploadSizeMiB returns the largest file a user may upload, in MiB
// (see [WithMaxFileUploadSizeMiB]). Safe for concurrent use.
func (s *Service) MaxFileUploadSizeMiB() int {
	if s.maxUploadMiB == nil {
		return DefaultMaxFileUploadSizeMiB
	}
	return *s.maxUploadMiB
}
