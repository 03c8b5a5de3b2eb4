package sqlstore

import (
	"fmt"
	"time"
)

// IDArg is the argument of an id column; zero ("none") is NULL.
func IDArg[T ~int64](id T) any {
	if id == 0 {
		return nil
	}
	return int64(id)
}

// StrArg is the argument of a nullable text column; "" is NULL (for
// columns with a partial unique index).
func StrArg(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Num scans an integer column into p, a named integer type (ids, roles,
// flags). database/sql converts into such types through reflection, which
// allocates per value; a Scanner takes the int64 as it is.
func Num[T ~int64 | ~int | ~uint16 | ~uint8](p *T) NumScanner[T] { return NumScanner[T]{p} }

// NumScanner is the scanner [Num] returns.
type NumScanner[T ~int64 | ~int | ~uint16 | ~uint8] struct{ p *T }

// Scan implements sql.Scanner (which pgx also uses).
func (c NumScanner[T]) Scan(v any) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("integer column holds %T", v)
	}
	*c.p = T(n)
	return nil
}

// Time scans a time column into p, as either dialect stores it (see
// Dialect.Time): unix seconds or a timestamp, read in UTC; NULL is the zero
// time.
func Time(p *time.Time) TimeScanner { return TimeScanner{p} }

// TimeScanner is the scanner [Time] returns.
type TimeScanner struct{ p *time.Time }

// Scan implements sql.Scanner (which pgx also uses).
func (c TimeScanner) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*c.p = time.Time{}
	case int64:
		*c.p = time.Unix(v, 0).UTC()
	case time.Time:
		*c.p = v.UTC()
	default:
		return fmt.Errorf("time column holds %T", v)
	}
	return nil
}

// Str scans a nullable text column into p; NULL is "".
func Str(p *string) StrScanner { return StrScanner{p} }

// StrScanner is the scanner [Str] returns.
type StrScanner struct{ p *string }

// Scan implements sql.Scanner (which pgx also uses).
func (c StrScanner) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*c.p = ""
	case string:
		*c.p = v
	case []byte:
		*c.p = string(v)
	default:
		return fmt.Errorf("text column holds %T", v)
	}
	return nil
}
