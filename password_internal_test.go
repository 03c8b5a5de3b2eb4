package chatcore

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

// The hashing and strength machinery is tested in internal/password; these
// check the Service's defaults and its adaptation of the settings policy.

func TestDefaultHasherIsArgon2id(t *testing.T) {
	is := is.New(t)
	h := defaultHasher()
	hash, err := h.Hash("s3cret pass")
	is.NoErr(err)                                                       // hashed
	is.True(strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$")) // OWASP's minimum parameters, PHC-encoded
	ok, err := h.Verify(hash, "s3cret pass")
	is.NoErr(err) // parsable
	is.True(ok)   // matches
	ok, err = h.Verify(hash, "s3cret pasS")
	is.NoErr(err) // parsable
	is.True(!ok)  // one changed character fails
}

func TestPasswordPolicy(t *testing.T) {
	cfg := defaultSettingsConfig()
	tests := []struct {
		pw     string
		strong bool
	}{
		{"", false},
		{"easy", false},     // too short
		{"aaaaaa", false},   // long enough, trivially guessable
		{"password", false}, // a dictionary word
		{"correct horse battery staple", true},
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(cfg.passwordStrongEnough(tt.pw), tt.strong) // Zulip's default policy
	}
	relaxed := cfg
	relaxed.minPasswordGuesses = 0
	is := is.New(t)
	is.True(relaxed.passwordStrongEnough("aaaaaa")) // no guess minimum: length alone
	is.True(!relaxed.passwordStrongEnough("aaaaa")) // still at least 6 characters
	longer := cfg
	longer.minPasswordLength = 40
	is.True(!longer.passwordStrongEnough("correct horse battery staple")) // the configured length applies
}
