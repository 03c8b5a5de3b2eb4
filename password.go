package chatcore

import (
	"context"

	"github.com/chatcore/chatcore/internal/password"
)

// defaultHasher returns the argon2id hasher New installs when no
// [WithPasswordHasher] option is given: OWASP's recommended minimum
// parameters, PHC-encoded hashes (see [password.Argon2id]).
func defaultHasher() PasswordHasher {
	return password.Default()
}

// HashPassword returns the encoded hash of password made by the Service's
// [PasswordHasher], waiting for one of its hashing slots
// ([WithPasswordHashConcurrency]); it returns ctx's error when ctx ends
// first, or the hasher's error. It checks no strength policy.
func (s *Service) HashPassword(ctx context.Context, password string) (string, error) {
	return s.hashing.Hash(ctx, password)
}

// VerifyPassword reports whether password matches the encoded hash, checked
// by the Service's [PasswordHasher] within its hashing slots
// ([WithPasswordHashConcurrency]); it returns ctx's error when ctx ends
// first, or the hasher's error for a malformed hash.
func (s *Service) VerifyPassword(ctx context.Context, hash, password string) (bool, error) {
	return s.hashing.Verify(ctx, hash, password)
}

// Zulip's default password policy (PASSWORD_MIN_LENGTH, PASSWORD_MIN_GUESSES).
const (
	defaultPasswordMinLength  = password.DefaultMinLength
	defaultPasswordMinGuesses = password.DefaultMinGuesses
)

// WithPasswordPolicy sets the strength a new password must have: at least
// minLength characters and at least minGuesses guesses as estimated by zxcvbn.
// Zulip's defaults, used without this option, are 6 and 10000. A non-positive
// minLength or a negative minGuesses keeps the corresponding default.
func WithPasswordPolicy(minLength int, minGuesses float64) Option {
	return func(s *Service) {
		if minLength > 0 {
			s.passwordPolicy.MinLength = minLength
		}
		if minGuesses >= 0 {
			s.passwordPolicy.MinGuesses = minGuesses
		}
	}
}

// PasswordPolicy returns the strength a new password must have, as
// [WithPasswordPolicy] set it (Zulip's 6 and 10000 without the option): at
// least minLength characters and at least minGuesses guesses as estimated by
// zxcvbn. Transports tell clients (POST /register's password_min_length and
// password_min_guesses). Safe for concurrent use.
func (s *Service) PasswordPolicy() (minLength int, minGuesses float64) {
	return s.passwordPolicy.MinLength, s.passwordPolicy.MinGuesses
}

// PasswordStrongEnough reports whether pw has the strength a new password
// needs under the Service's policy ([WithPasswordPolicy]).
func (s *Service) PasswordStrongEnough(pw string) bool { return s.passwordPolicy.StrongEnough(pw) }
