// Package password hashes passwords with argon2id in PHC string form,
// bounds how many hashes run at once, and estimates password strength with
// zxcvbn.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// The argon2id parameters of [Default]: OWASP's recommended minimum (19 MiB
// of memory, two passes, one lane), a 16-byte salt and a 32-byte key.
const (
	DefaultMemoryKiB = 19 * 1024
	DefaultTime      = 2
	DefaultThreads   = 1

	saltLen = 16
	keyLen  = 32

	// Bounds on parameters read back from a stored hash, so a corrupted or
	// hostile hash cannot make Verify allocate gigabytes or spin for minutes.
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 64
	maxKeyLen    = 128
)

// ErrMalformedHash reports a stored password hash [Argon2id.Verify] cannot
// parse or whose parameters are out of range.
var ErrMalformedHash = errors.New("malformed argon2id password hash")

// Argon2id hashes passwords with argon2id. Hashes are PHC strings:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>
//
// with salt and key in unpadded standard base64. Verify reads the parameters
// from the stored hash, so raising them later keeps old hashes valid. The
// zero value is not usable: start from [Default].
type Argon2id struct {
	MemoryKiB uint32 // memory per hash, in KiB
	Time      uint32 // passes over the memory
	Threads   uint8  // lanes
}

// Default returns the argon2id hasher with OWASP's recommended minimum
// parameters ([DefaultMemoryKiB], [DefaultTime], [DefaultThreads]).
func Default() Argon2id {
	return Argon2id{MemoryKiB: DefaultMemoryKiB, Time: DefaultTime, Threads: DefaultThreads}
}

// Hash returns the PHC-encoded argon2id hash of pw with a fresh random salt.
// It fails only when the system's random source does.
func (h Argon2id) Hash(pw string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, h.Time, h.MemoryKiB, h.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, h.MemoryKiB, h.Time, h.Threads,
		base64.RawStdEncoding.EncodeToString(salt),
		base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify reports whether pw matches hash, comparing in constant time with the
// parameters hash names (not h's). It returns an error wrapping
// [ErrMalformedHash] when hash is not an argon2id PHC string it can use.
func (Argon2id) Verify(hash, pw string) (bool, error) {
	p, salt, key, err := Parse(hash)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// Parse splits a PHC argon2id string into its parameters, salt and key. It
// returns an error wrapping [ErrMalformedHash] for anything else, and for
// parameters beyond 1 GiB of memory, 64 passes or a 128-byte key.
func Parse(hash string) (Argon2id, []byte, []byte, error) {
	var p Argon2id
	parts := strings.Split(hash, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, key
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, fmt.Errorf("%w: unsupported version %q", ErrMalformedHash, parts[2])
	}
	for kv := range strings.SplitSeq(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, nil, nil, ErrMalformedHash
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return p, nil, nil, ErrMalformedHash
		}
		switch k {
		case "m":
			p.MemoryKiB = uint32(n)
		case "t":
			p.Time = uint32(n)
		case "p":
			if n > math.MaxUint8 {
				return p, nil, nil, ErrMalformedHash
			}
			p.Threads = uint8(n)
		default:
			return p, nil, nil, ErrMalformedHash
		}
	}
	if p.Time < 1 || p.Time > maxTime || p.Threads < 1 ||
		p.MemoryKiB < 8*uint32(p.Threads) || p.MemoryKiB > maxMemoryKiB {
		return p, nil, nil, fmt.Errorf("%w: parameters out of range", ErrMalformedHash)
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return p, nil, nil, ErrMalformedHash
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > maxKeyLen {
		return p, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}
