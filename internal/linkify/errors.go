package linkify

import (
	"errors"
	"regexp/syntax"
)

// re2CodeText maps Go's regexp/syntax error codes to RE2's own texts.
var re2CodeText = map[syntax.ErrorCode]string{
	syntax.ErrInternalError:         "unexpected error",
	syntax.ErrInvalidCharClass:      "invalid character class",
	syntax.ErrInvalidCharRange:      "invalid character class range",
	syntax.ErrInvalidEscape:         "invalid escape sequence",
	syntax.ErrInvalidNamedCapture:   "invalid named capture group",
	syntax.ErrInvalidPerlOp:         "invalid perl operator",
	syntax.ErrInvalidRepeatOp:       "bad repetition operator",
	syntax.ErrInvalidRepeatSize:     "invalid repetition size",
	syntax.ErrInvalidUTF8:           "invalid UTF-8",
	syntax.ErrMissingBracket:        "missing ]",
	syntax.ErrMissingParen:          "missing )",
	syntax.ErrMissingRepeatArgument: "no argument for repetition operator",
	syntax.ErrTrailingBackslash:     "trailing \\",
	syntax.ErrUnexpectedParen:       "unexpected )",
	syntax.ErrNestingDepth:          "pattern too large - compile failed",
	syntax.ErrLarge:                 "pattern too large - compile failed",
}

// ErrorText words an error of regexp.Compile as RE2 words it (Zulip compiles
// linkifier patterns with RE2 and reports its text): "missing ): (foo",
// "bad repetition operator: ????". An error that is not a *syntax.Error is
// given as its Error().
func ErrorText(err error) string {
	se, ok := errors.AsType[*syntax.Error](err)
	if !ok {
		return err.Error()
	}
	text, ok := re2CodeText[se.Code]
	if !ok {
		text = string(se.Code)
	}
	if se.Code == syntax.ErrTrailingBackslash || se.Expr == "" {
		return text
	}
	return text + ": " + se.Expr
}
