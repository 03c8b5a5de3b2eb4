package password

import (
	"math"
	"unicode/utf8"

	"github.com/ccojocar/zxcvbn-go"
)

// Zulip's default password policy (PASSWORD_MIN_LENGTH, PASSWORD_MIN_GUESSES).
const (
	DefaultMinLength  = 6
	DefaultMinGuesses = 10000
)

// zxcvbnMaxRunes bounds the prefix the strength estimate looks at: the
// estimator is super-linear in the input length, and a prefix that is strong
// enough makes the whole password strong enough.
const zxcvbnMaxRunes = 72

// Policy is the strength a new password must have: at least MinLength
// characters and at least MinGuesses guesses as estimated by zxcvbn. A
// MinGuesses of 1 or less checks the length alone.
type Policy struct {
	MinLength  int
	MinGuesses float64
}

// StrongEnough reports whether pw satisfies p. The empty password never does.
// It is safe for concurrent use and bounded in cost whatever pw's length.
func (p Policy) StrongEnough(pw string) bool {
	n := utf8.RuneCountInString(pw)
	if pw == "" || n < p.MinLength {
		return false
	}
	if p.MinGuesses <= 1 {
		return true
	}
	probe := pw
	if n > zxcvbnMaxRunes {
		probe = string([]rune(pw)[:zxcvbnMaxRunes])
	}
	// zxcvbn-go reports the estimate as entropy in bits: guesses = 2^entropy.
	entropy := zxcvbn.PasswordStrength(probe, nil).Entropy
	return entropy >= math.Log2(p.MinGuesses)
}
