package password_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/internal/password"
	"github.com/matryer/is"
)

func TestArgon2idRoundTrip(t *testing.T) {
	is := is.New(t)
	h := password.Default()
	a, err := h.Hash("s3cret pass")
	is.NoErr(err) // hashed
	b, err := h.Hash("s3cret pass")
	is.NoErr(err)                                                    // hashed
	is.True(a != b)                                                  // fresh salt each time
	is.True(strings.HasPrefix(a, "$argon2id$v=19$m=19456,t=2,p=1$")) // PHC string with the parameters
	ok, err := h.Verify(a, "s3cret pass")
	is.NoErr(err) // parsable
	is.True(ok)   // matches
	ok, err = h.Verify(a, "s3cret pasS")
	is.NoErr(err) // parsable
	is.True(!ok)  // one changed character fails
	ok, err = h.Verify(a, "")
	is.NoErr(err) // parsable
	is.True(!ok)  // empty fails
}

func TestArgon2idReadsParametersFromHash(t *testing.T) {
	is := is.New(t)
	cheap := password.Argon2id{MemoryKiB: 64, Time: 1, Threads: 2}
	hash, err := cheap.Hash("pw")
	is.NoErr(err) // hashed with other parameters
	p, salt, key, err := password.Parse(hash)
	is.NoErr(err)           // parsable
	is.Equal(p, cheap)      // the parameters come back
	is.Equal(len(salt), 16) // a 16-byte salt
	is.Equal(len(key), 32)  // a 32-byte key
	ok, err := password.Default().Verify(hash, "pw")
	is.NoErr(err) // the default hasher reads them back
	is.True(ok)   // and verifies
}

func TestArgon2idMalformed(t *testing.T) {
	good, err := password.Default().Hash("pw")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	salt, key := parts[4], parts[5]
	for _, bad := range []string{
		"",
		"plain:pw",
		"$argon2i$v=19$m=19456,t=2,p=1$" + salt + "$" + key,
		"$argon2id$v=18$m=19456,t=2,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=0,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=99999999,t=2,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=1000,p=1$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,p=300$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,p=1,x=1$" + salt + "$" + key,
		"$argon2id$v=19$m=19456,t=2,p=1$!!!$" + key,
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$short",
		"$argon2id$v=19$m=19456,t=2,p=1$" + salt + "$" + key + "$",
	} {
		is := is.New(t)
		ok, err := password.Default().Verify(bad, "pw")
		is.True(errors.Is(err, password.ErrMalformedHash)) // refused with a clear error
		is.True(!ok)                                       // never a match
	}
}

func TestPolicy(t *testing.T) {
	zulip := password.Policy{MinLength: password.DefaultMinLength, MinGuesses: password.DefaultMinGuesses}
	tests := []struct {
		pw     string
		strong bool
	}{
		{"", false},
		{"easy", false},      // too short
		{"aaaaaa", false},    // long enough, trivially guessable
		{"password", false},  // a dictionary word
		{"qwerty123", false}, // keyboard pattern
		{"correct horse battery staple", true},
		{"Tr0ub4dor&3-horse", true},
		{"xkcd-Zebra-77-quilt", true},
		{strings.Repeat("Zq9!", 500), true}, // long input is bounded, still strong
	}
	for _, tt := range tests {
		is := is.New(t)
		is.Equal(zulip.StrongEnough(tt.pw), tt.strong) // Zulip's default policy
	}
	relaxed := zulip
	relaxed.MinGuesses = 0
	is := is.New(t)
	is.True(relaxed.StrongEnough("aaaaaa"))      // no guess minimum: length alone
	is.True(!relaxed.StrongEnough("aaaaa"))      // still at least 6 characters
	is.True(!password.Policy{}.StrongEnough("")) // the empty password never passes
}

func BenchmarkArgon2idHash(b *testing.B) {
	h := password.Default()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Hash("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPolicyStrongEnough(b *testing.B) {
	p := password.Policy{MinLength: password.DefaultMinLength, MinGuesses: password.DefaultMinGuesses}
	b.ReportAllocs()
	for b.Loop() {
		p.StrongEnough("correct horse battery staple")
	}
}
