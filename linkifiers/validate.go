package linkifiers

import (
	"fmt"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/linkify"
	"github.com/chatcore/chatcore/internal/urltemplate"
)

// Bounds on a realm's linkifiers. Zulip itself sets none; these are far above
// what real organisations use (tens of linkifiers with templates of a few
// dozen characters) and keep the work of rendering one message bounded.
const (
	// MaxURLTemplateLength is the longest URL template, in characters;
	// 2,048 is also the longest URL that browsers have long handled
	// reliably.
	MaxURLTemplateLength = 2048
	// MaxPerRealm is the largest number of linkifiers a realm may have.
	MaxPerRealm = 2000
)

// linkifierAllField is the key Zulip uses in "errors" for checks that involve
// more than one field.
const linkifierAllField = "__all__"

// errLinkifierNotFound is Zulip's error for an unknown linkifier id (HTTP 400).
func errLinkifierNotFound() *chatcore.Error { return chatcore.BadRequest("Linkifier not found.") }

// linkifierValidationError builds Zulip's ValidationFailureError: msg is the
// first message, Data["errors"] maps each field to its messages.
func linkifierValidationError(fields []string, msgs map[string][]string) *chatcore.Error {
	errs := map[string]any{}
	first := ""
	for _, f := range fields {
		if len(msgs[f]) == 0 {
			continue
		}
		errs[f] = msgs[f]
		if first == "" {
			first = msgs[f][0]
		}
	}
	return &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindInvalid, Msg: first, Data: map[string]any{"errors": errs}}
}

// Check validates a linkifier's pattern and URL template (already trimmed)
// as [Add] does, without looking at the realm's other linkifiers. A refusal
// is a BAD_REQUEST [*chatcore.Error] whose Msg is Zulip's first message and
// whose Data["errors"] maps each offending field ("pattern", "url_template"
// or "__all__" for the pair) to its messages.
func Check(pattern, urlTemplate string) error {
	if _, _, e := validateLinkifier(pattern, urlTemplate); e != nil {
		return e
	}
	return nil
}

// validateLinkifier runs Zulip's model validation of a linkifier and returns
// the compiled pattern and template, or a *Error with Zulip's messages. A URL
// template is refused only for its brace expressions (see [urltemplate.Parse])
// and its length (over [MaxURLTemplateLength] characters); literal text
// such as a space or "%zz" is accepted, as in Zulip. A pattern may repeat a
// group name, as RE2 allows; the leftmost group of the name supplies its
// value.
func validateLinkifier(pattern, urlTemplate string) (*regexp.Regexp, *urltemplate.Template, *chatcore.Error) {
	msgs := map[string][]string{}
	if pattern == "" {
		msgs["pattern"] = append(msgs["pattern"], "This field cannot be blank.")
	}
	if n := utf8.RuneCountInString(urlTemplate); n > MaxURLTemplateLength {
		// Django's max-length text, as Zulip words its field limits.
		msgs["url_template"] = append(msgs["url_template"],
			fmt.Sprintf("Ensure this value has at most %d characters (it has %d).", MaxURLTemplateLength, n))
		return nil, nil, linkifierValidationError([]string{"pattern", "url_template", linkifierAllField}, msgs)
	}
	tmpl, tmplOK := urltemplate.Parse(urlTemplate)
	if urlTemplate == "" {
		msgs["url_template"] = append(msgs["url_template"], "This field cannot be blank.")
	} else if !tmplOK {
		msgs["url_template"] = append(msgs["url_template"], "Invalid URL template.")
	}
	re, reErr := regexp.Compile(pattern)
	switch {
	case reErr != nil:
		msgs[linkifierAllField] = append(msgs[linkifierAllField], "Bad regular expression: "+linkify.ErrorText(reErr))
	case tmplOK:
		groups := map[string]bool{}
		for _, n := range re.SubexpNames() {
			if n != "" {
				groups[n] = true
			}
		}
		vars := map[string]bool{}
		for _, n := range tmpl.VarNames() {
			vars[n] = true
		}
		if missing := missingNames(vars, groups); missing != "" {
			msgs[linkifierAllField] = append(msgs[linkifierAllField],
				fmt.Sprintf("Group '%s' in URL template is not present in linkifier pattern.", missing))
		} else if missing := missingNames(groups, vars); missing != "" {
			msgs[linkifierAllField] = append(msgs[linkifierAllField],
				fmt.Sprintf("Group '%s' in linkifier pattern is not present in URL template.", missing))
		}
	}
	if len(msgs) > 0 {
		return nil, nil, linkifierValidationError([]string{"pattern", "url_template", linkifierAllField}, msgs)
	}
	return re, tmpl, nil
}

// missingNames returns the alphabetically first name of have that want lacks,
// or "".
func missingNames(have, want map[string]bool) string {
	var missing []string
	for n := range have {
		if !want[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return slices.Min(missing)
}
