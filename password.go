package chatcore

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccojocar/zxcvbn-go"
	"golang.org/x/crypto/argon2"
)

// Argon2id parameters of the default hasher: OWASP's recommended minimum
// (19 MiB of memory, two passes, one lane). Verify reads the parameters from
// the stored hash, so raising them later keeps old hashes valid.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32

	// Bounds on parameters read back from a stored hash, so a corrupted or
	// hostile hash cannot make Verify allocate gigabytes or spin for minutes.
	argonMaxMemoryKiB = 1 << 20 // 1 GiB
	argonMaxTime      = 64
	argonMaxKeyLen    = 128
)

// errMalformedHash reports a stored password hash argon2Hasher cannot parse.
var errMalformedHash = errors.New("chatcore: malformed argon2id password hash")

// argon2Hasher is the default [PasswordHasher]. Hashes are PHC strings:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>
//
// with salt and key in unpadded standard base64.
type argon2Hasher struct {
	memory  uint32
	time    uint32
	threads uint8
}

// defaultHasher returns the argon2id hasher New installs when no
// [WithPasswordHasher] option is given.
func defaultHasher() PasswordHasher {
	return argon2Hasher{memory: argonMemoryKiB, time: argonTime, threads: argonThreads}
}

// Hash returns the PHC-encoded argon2id hash of password with a fresh random salt.
func (h argon2Hasher) Hash(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("chatcore: password salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, h.time, h.memory, h.threads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, h.memory, h.time, h.threads,
		base64.RawStdEncoding.EncodeToString(salt),
		base64.RawStdEncoding.EncodeToString(key)), nil
}

// Verify reports whether password matches hash, comparing in constant time. It
// returns an error wrapping errMalformedHash when hash is not an argon2id PHC
// string it can use.
func (argon2Hasher) Verify(hash, password string) (bool, error) {
	p, salt, key, err := parseArgon2Hash(hash)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// parseArgon2Hash splits a PHC argon2id string into its parameters, salt and key.
func parseArgon2Hash(hash string) (argon2Hasher, []byte, []byte, error) {
	var p argon2Hasher
	parts := strings.Split(hash, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, key
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, errMalformedHash
	}
	if parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, fmt.Errorf("%w: unsupported version %q", errMalformedHash, parts[2])
	}
	for kv := range strings.SplitSeq(parts[3], ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return p, nil, nil, errMalformedHash
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return p, nil, nil, errMalformedHash
		}
		switch k {
		case "m":
			p.memory = uint32(n)
		case "t":
			p.time = uint32(n)
		case "p":
			if n > math.MaxUint8 {
				return p, nil, nil, errMalformedHash
			}
			p.threads = uint8(n)
		default:
			return p, nil, nil, errMalformedHash
		}
	}
	if p.time < 1 || p.time > argonMaxTime || p.threads < 1 ||
		p.memory < 8*uint32(p.threads) || p.memory > argonMaxMemoryKiB {
		return p, nil, nil, fmt.Errorf("%w: parameters out of range", errMalformedHash)
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return p, nil, nil, errMalformedHash
	}
	key, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(key) < 16 || len(key) > argonMaxKeyLen {
		return p, nil, nil, errMalformedHash
	}
	return p, salt, key, nil
}

// acquireHashSlot waits for one of the Service's hashing slots and returns
// the function that gives it back, or ctx's error when ctx ends first.
func (s *Service) acquireHashSlot(ctx context.Context) (func(), error) {
	select {
	case s.hashSlots <- struct{}{}:
		return func() { <-s.hashSlots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hashPassword runs the Service's hasher within the concurrency bound.
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	release, err := s.acquireHashSlot(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return s.hasher.Hash(password)
}

// verifyPassword runs the Service's hasher within the concurrency bound.
func (s *Service) verifyPassword(ctx context.Context, hash, password string) (bool, error) {
	release, err := s.acquireHashSlot(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	return s.hasher.Verify(hash, password)
}

// slotHasher is the Service's hasher seen through its concurrency bound,
// for code written against [PasswordHasher]; ctx bounds the waits.
type slotHasher struct {
	s   *Service
	ctx context.Context
}

// Hash implements [PasswordHasher] with [Service.hashPassword].
func (h slotHasher) Hash(password string) (string, error) {
	return h.s.hashPassword(h.ctx, password)
}

// Verify implements [PasswordHasher] with [Service.verifyPassword].
func (h slotHasher) Verify(hash, password string) (bool, error) {
	return h.s.verifyPassword(h.ctx, hash, password)
}

// boundedHasher returns the Service's hasher within its concurrency bound.
func (s *Service) boundedHasher(ctx context.Context) PasswordHasher {
	return slotHasher{s: s, ctx: ctx}
}

// Zulip's default password policy (PASSWORD_MIN_LENGTH, PASSWORD_MIN_GUESSES).
const (
	defaultPasswordMinLength  = 6
	defaultPasswordMinGuesses = 10000
	// zxcvbnMaxRunes bounds the prefix the strength estimate looks at: the
	// estimator is super-linear in the input length, and a prefix that is
	// strong enough makes the whole password strong enough.
	zxcvbnMaxRunes = 72
)

// WithPasswordPolicy sets the strength a new password must have: at least
// minLength characters and at least minGuesses guesses as estimated by zxcvbn.
// Zulip's defaults, used without this option, are 6 and 10000. A non-positive
// minLength or a negative minGuesses keeps the corresponding default.
func WithPasswordPolicy(minLength int, minGuesses float64) Option {
	return func(s *Service) {
		if minLength > 0 {
			s.minPasswordLength = minLength
		}
		if minGuesses >= 0 {
			s.minPasswordGuesses = minGuesses
		}
	}
}

// passwordStrongEnough applies the policy of cfg to password.
func (cfg *settingsConfig) passwordStrongEnough(password string) bool {
	n := utf8.RuneCountInString(password)
	if password == "" || n < cfg.minPasswordLength {
		return false
	}
	if cfg.minPasswordGuesses <= 1 {
		return true
	}
	probe := password
	if n > zxcvbnMaxRunes {
		probe = string([]rune(password)[:zxcvbnMaxRunes])
	}
	// zxcvbn-go reports the estimate as entropy in bits: guesses = 2^entropy.
	entropy := zxcvbn.PasswordStrength(probe, nil).Entropy
	return entropy >= math.Log2(cfg.minPasswordGuesses)
}
