package chatcore

import (
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/password"
	"github.com/matryer/is"
)

// The hashing and strength machinery (round trips, malformed hashes, the
// policy table) is tested in internal/password; these check only the
// Service's defaults and its adaptation of the settings policy.

func TestDefaultHasherIsArgon2id(t *testing.T) {
	is := is.New(t)
	h := defaultHasher()
	hash, err := h.Hash("s3cret pass")
	is.NoErr(err)                                                       // hashed
	is.True(strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$")) // OWASP's minimum parameters, PHC-encoded
	ok, err := h.Verify(hash, "s3cret pass")
	is.NoErr(err) // parsable
	is.True(ok)   // matches
}

func TestPasswordPolicy(t *testing.T) {
	is := is.New(t)
	s := New(nil)
	is.Equal(s.passwordPolicy.MinLength, password.DefaultMinLength)            // Zulip's default length
	is.Equal(s.passwordPolicy.MinGuesses, float64(password.DefaultMinGuesses)) // Zulip's default guesses
	is.True(!s.PasswordStrongEnough("password"))                               // a dictionary word fails the default policy
	is.True(s.PasswordStrongEnough("correct horse battery staple"))            // a passphrase passes it
	relaxed := New(nil, WithPasswordPolicy(0, 0))
	is.True(relaxed.PasswordStrongEnough("aaaaaa")) // the configured guess minimum applies
	longer := New(nil, WithPasswordPolicy(40, -1))
	is.True(!longer.PasswordStrongEnough("correct horse battery staple")) // the configured length applies
}
