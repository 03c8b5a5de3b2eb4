package sqlstore

import (
	"strings"
)

// MessageColList is MessageCols as a list of column names, in order: the
// columns of a bulk insert (COPY takes them one by one).
func MessageColList() []string {
	cols := strings.Split(MessageCols, ",")
	for i, c := range cols {
		cols[i] = strings.TrimSpace(c)
	}
	return cols
}

// MultiRowInsert returns the statement that inserts rows rows of width
// values each into head's table: head ("INSERT INTO t (a, b)") followed by
// VALUES with one group of "?" placeholders per row, which SQLite numbers
// in order.
func MultiRowInsert(head string, width, rows int) string {
	group := "(" + strings.Repeat("?, ", width-1) + "?)"
	var b strings.Builder
	b.Grow(len(head) + 8 + rows*(len(group)+2))
	b.WriteString(head)
	b.WriteString(" VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(group)
	}
	return b.String()
}
