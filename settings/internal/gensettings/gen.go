package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// tableVar is the variable of the table file that lists the settings.
const tableVar = "Table"

// setting is what the generator needs of one row of the table.
type setting struct {
	Name    string // wire name
	Field   string // Go field name
	Type    string // "bool", "int" or "string", the type of Default
	Default constant.Value
	OneOf   []string // allowed values
	Min     int64    // lower bound when Max != 0
	Max     int64    // upper bound, 0 for none
}

// accountFields are the fields of SettingsUpdate that are not settings, in
// order, with their wire names. The generator writes them before the settings.
var accountFields = []struct{ field, typ, name, tag string }{
	{"FullName", "*string", "full_name", ""},
	{"Email", "*string", "email", ""},
	{"OldPassword", "*string", "old_password", ""},
	{"NewPassword", "*string", "new_password", ""},
	{"TargetUsers", "*TargetUsers", "target_users", `validate:"omitnil"`},
}

var (
	wireName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	goName   = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
)

// generate returns the formatted generated files for the table file src
// (named filename in errors): settings/settings_gen.go and the root's
// settings_gen.go.
func generate(filename string, src []byte) (pkg, accounts []byte, err error) {
	rows, err := readTable(filename, src)
	if err != nil {
		return nil, nil, err
	}
	if pkg, err = format.Source(renderPackage(rows)); err != nil {
		return nil, nil, fmt.Errorf("formatting the generated code: %w", err)
	}
	if accounts, err = format.Source(renderAccounts(rows)); err != nil {
		return nil, nil, fmt.Errorf("formatting the generated code: %w", err)
	}
	return pkg, accounts, nil
}

// readTable type-checks the table file on its own and returns its rows.
func readTable(filename string, src []byte) ([]setting, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if len(f.Imports) > 0 {
		return nil, fmt.Errorf("%s: the table file must hold plain data and import nothing", filename)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	var conf types.Config
	if _, err := conf.Check(f.Name.Name, fset, []*ast.File{f}, info); err != nil {
		return nil, fmt.Errorf("type-checking the table file on its own: %w", err)
	}
	lit := findTable(f)
	if lit == nil {
		return nil, fmt.Errorf("%s: no composite literal var %s", filename, tableVar)
	}
	var rows []setting
	for _, elt := range lit.Elts {
		pos := fset.Position(elt.Pos())
		cl, ok := elt.(*ast.CompositeLit)
		if !ok {
			return nil, fmt.Errorf("%s: a row must be a composite literal", pos)
		}
		r, err := readRow(cl, info)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pos, err)
		}
		rows = append(rows, r)
	}
	if err := checkRows(rows); err != nil {
		return nil, fmt.Errorf("%s: %w", filename, err)
	}
	return rows, nil
}

// findTable returns the value of the table variable.
func findTable(f *ast.File) *ast.CompositeLit {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if n.Name == tableVar && i < len(vs.Values) {
					lit, _ := vs.Values[i].(*ast.CompositeLit)
					return lit
				}
			}
		}
	}
	return nil
}

// readRow reads the constant values of one row. Keys the generator does not
// need (rules the Service applies at run time) are left alone.
func readRow(cl *ast.CompositeLit, info *types.Info) (setting, error) {
	var r setting
	for _, e := range cl.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return r, errors.New("a row must use keyed fields")
		}
		key := kv.Key.(*ast.Ident).Name
		tv := info.Types[kv.Value]
		if tv.Value == nil {
			return r, fmt.Errorf("%s is not a constant", key)
		}
		v := tv.Value
		switch key {
		case "Name":
			r.Name = constant.StringVal(v)
		case "Field":
			r.Field = constant.StringVal(v)
		case "Default":
			b, ok := tv.Type.(*types.Basic)
			if !ok || (b.Kind() != types.Bool && b.Kind() != types.Int && b.Kind() != types.String) {
				return r, fmt.Errorf("the default %s has type %s, want bool, int or string", v, tv.Type)
			}
			r.Type, r.Default = b.Name(), v
		case "OneOf":
			r.OneOf = strings.Fields(constant.StringVal(v))
		case "Min":
			r.Min, _ = constant.Int64Val(v)
		case "Max":
			r.Max, _ = constant.Int64Val(v)
		}
	}
	if r.Name == "" || r.Field == "" || r.Default == nil {
		return r, errors.New("a row needs Name, Field and Default")
	}
	return r, nil
}

// checkRows refuses rows that would generate wrong code or settings whose
// default breaks their own rules.
func checkRows(rows []setting) error {
	names, fields := map[string]bool{}, map[string]bool{}
	for _, a := range accountFields {
		names[a.name], fields[a.field] = true, true
	}
	for _, r := range rows {
		switch {
		case !wireName.MatchString(r.Name):
			return fmt.Errorf("setting %q: the name must be lower-case letters, digits and _", r.Name)
		case !goName.MatchString(r.Field):
			return fmt.Errorf("setting %s: field %q is not an exported Go name", r.Name, r.Field)
		case names[r.Name]:
			return fmt.Errorf("setting %s: name declared twice", r.Name)
		case fields[r.Field]:
			return fmt.Errorf("setting %s: field %s declared twice", r.Name, r.Field)
		case len(r.OneOf) > 0 && r.Type == "bool":
			return fmt.Errorf("setting %s: OneOf on a bool", r.Name)
		case r.Max != 0 && r.Type != "int":
			return fmt.Errorf("setting %s: bounds on a %s", r.Name, r.Type)
		case r.Max != 0 && r.Min > r.Max:
			return fmt.Errorf("setting %s: Min %d above Max %d", r.Name, r.Min, r.Max)
		}
		names[r.Name], fields[r.Field] = true, true
		if len(r.OneOf) > 0 {
			if r.Type == "int" {
				for _, o := range r.OneOf {
					if _, err := strconv.Atoi(o); err != nil {
						return fmt.Errorf("setting %s: OneOf value %q is not an int", r.Name, o)
					}
				}
			}
			if !slices.Contains(r.OneOf, plain(r.Default)) {
				return fmt.Errorf("setting %s: default %s is not one of %q", r.Name, r.Default, r.OneOf)
			}
		}
		if r.Max != 0 {
			d, _ := constant.Int64Val(r.Default)
			if d < r.Min || d > r.Max {
				return fmt.Errorf("setting %s: default %d outside %d-%d", r.Name, d, r.Min, r.Max)
			}
		}
	}
	return nil
}

// plain returns a constant as written in a validate tag (strings unquoted).
func plain(v constant.Value) string {
	if v.Kind() == constant.String {
		return constant.StringVal(v)
	}
	return v.ExactString()
}

// validateTag returns the validate struct tag of a setting's update field.
func (r setting) validateTag() string {
	rules := []string{"omitnil"}
	if len(r.OneOf) > 0 {
		rules = append(rules, "oneof="+strings.Join(r.OneOf, " "))
	}
	if r.Max != 0 {
		rules = append(rules, fmt.Sprintf("min=%d", r.Min), fmt.Sprintf("max=%d", r.Max))
	}
	if len(rules) == 1 {
		return ""
	}
	return ` validate:"` + strings.Join(rules, ",") + `"`
}

// doc describes a setting's default and rule for its Settings field.
func (r setting) doc() string {
	s := "default " + r.Default.ExactString()
	if len(r.OneOf) > 0 {
		s += "; one of " + strings.Join(r.OneOf, ", ")
	}
	if r.Max != 0 {
		s += fmt.Sprintf("; %d to %d", r.Min, r.Max)
	}
	return s
}

// renderPackage writes the unformatted Go code of settings/settings_gen.go.
func renderPackage(rows []setting) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	p("// Code generated by settings/internal/gensettings from settings/table.go; DO NOT EDIT.")
	p("")
	p("package settings")
	p("")
	p("// Settings holds a user's personal settings, named and typed as on the wire")
	p("// (json tags). Every field is a plain bool, int or string, so a store can keep")
	p("// one column per setting; [Names], [Settings.Value] and [Settings.Set]")
	p("// give by-name access for stores and bulk updates. Each field's comment gives")
	p("// Zulip's default and the values accounts.SettingsUpdate.Validate accepts.")
	p("type Settings struct {")
	for _, r := range rows {
		p("\t%s %s `json:\"%s\"` // %s", r.Field, r.Type, r.Name, r.doc())
	}
	p("}")
	p("")
	p("// Default returns Zulip's defaults for a new user.")
	p("func Default() Settings {")
	p("\treturn Settings{")
	for _, r := range rows {
		p("\t\t%s: %s,", r.Field, r.Default.ExactString())
	}
	p("\t}")
	p("}")
	p("")
	p("// fields gives by-name access to every setting, in declaration order:")
	p("// its wire name and its Settings field, as a pointer (*bool, *int or")
	p("// *string).")
	p("var fields = [...]field{")
	for _, r := range rows {
		p("\t{%q, func(s *Settings) any { return &s.%s }},", r.Name, r.Field)
	}
	p("}")
	return b.Bytes()
}

// renderAccounts writes the unformatted Go code of accounts/settings_gen.go.
func renderAccounts(rows []setting) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	p("// Code generated by settings/internal/gensettings from settings/table.go; DO NOT EDIT.")
	p("")
	p("package accounts")
	p("")
	p("import \"github.com/chatcore/chatcore\"")
	p("")
	p("// SettingsUpdate is a partial update of a user's settings: the request of")
	p("// Zulip's PATCH /settings. A nil field is left alone; a non-nil one is applied")
	p("// (and, for settings, only written when it differs from the current value).")
	p("// The json tags are the wire names; the transport's decoder fills a SettingsUpdate from")
	p("// wire parameters with Zulip's rules, and [SettingsUpdate.Validate] checks")
	p("// values.")
	p("//")
	p("// FullName, Email, OldPassword and NewPassword are account fields rather than")
	p("// settings. TargetUsers switches to the administrators' bulk edit of other")
	p("// users' settings (see [UpdateSettings]). Every other field is the")
	p("// [chatcore.Settings] field of the same name.")
	p("//")
	p("// Authenticated is no parameter: it is the user [chatcore.Service.Authenticate]")
	p("// returned for this request, or nil. When it is the actor, a request that")
	p("// asks for nothing but the values the actor already holds is answered")
	p("// without a write transaction, as Zulip compares a request with the user it")
	p("// authenticated; every change is still decided and made on the user read")
	p("// inside the write transaction. It must not be modified afterwards.")
	p("type SettingsUpdate struct {")
	for _, a := range accountFields {
		tag := ""
		if a.tag != "" {
			tag = " " + a.tag
		}
		p("\t%s %s `json:\"%s\"%s`", a.field, a.typ, a.name, tag)
	}
	p("\tAuthenticated *chatcore.User `json:\"-\" validate:\"-\"`")
	p("")
	for _, r := range rows {
		p("\t%s *%s `json:\"%s\"%s`", r.Field, r.Type, r.Name, r.validateTag())
	}
	p("}")
	p("")
	p("// settingUpdates gives each setting's SettingsUpdate field, in the order")
	p("// of settings.Table, as a pointer (*bool, *int or *string; nil when the")
	p("// update leaves the setting alone).")
	p("var settingUpdates = [...]func(*SettingsUpdate) any{")
	for _, r := range rows {
		p("\tfunc(u *SettingsUpdate) any { return u.%s },", r.Field)
	}
	p("}")
	return b.Bytes()
}
