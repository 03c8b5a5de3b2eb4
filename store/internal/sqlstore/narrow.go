package sqlstore

// The conditions of full-text search and negated narrow terms
// (store.NarrowConds), written once for both SQL stores; only the match of
// the full-text index is each database's own (Dialect.SearchMatch).

import (
	"strings"

	"github.com/chatcore/chatcore/store"
)

// SQLiteSearchMatch is SQLite's Dialect.SearchMatch: among the messages of
// the index's tail (see SQLiteTail), those SQLiteSearchMatchFunc matches;
// among the others, whose current document the FTS5 table messages_fts
// holds, those whose row holds every lexeme. The tail is tested first, so
// that a statement reading only tail messages never reads the index.
func SQLiteSearchMatch(add func(any) string, t store.SearchTerm) string {
	return "((" + SQLiteTail("m.id") + " AND " + sqliteTailMatch(add, t, "m") + ") OR (NOT " + SQLiteTail("m.id") +
		" AND m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH " + add(FTS5Query(t.Lexemes)) + ")))"
}

// SQLiteSearchMatchFunc is the SQL function SQLite's store registers:
// chatcore_search_match(lexemes, topic, rendered_content) is 1 when the
// message with this topic and rendered content holds every one of lexemes
// (separated by spaces), as the memory store's matcher decides it
// (fulltext.Query.Matches).
const SQLiteSearchMatchFunc = "chatcore_search_match"

// sqliteTailMatch is the condition that message m of the index's tail
// holds every lexeme of t.
func sqliteTailMatch(add func(any) string, t store.SearchTerm, m string) string {
	return SQLiteSearchMatchFunc + "(" + add(strings.Join(t.Lexemes, " ")) + ", " + m + ".topic, " + m + ".rendered_content)"
}

// SQLiteIndexed is the condition that the message with id id has its
// current document in messages_fts: it is not in search_stale (and at or
// below search_state's indexed_through: messages_fts holds no row above).
func SQLiteIndexed(id string) string {
	return id + " NOT IN (SELECT message_id FROM search_stale)"
}

// SQLiteTail is the condition that the message with id id is in the
// index's tail: above indexed_through, or stale.
func SQLiteTail(id string) string {
	return "(" + id + " > (SELECT indexed_through FROM search_state) OR " + id + " IN (SELECT message_id FROM search_stale))"
}

// FTS5Query returns the FTS5 query matching rows holding every lexeme
// (each quoted: lexemes are letters and digits).
func FTS5Query(lexemes []string) string {
	q := make([]string, len(lexemes))
	for i, l := range lexemes {
		q[i] = `"` + strings.ReplaceAll(l, `"`, `""`) + `"`
	}
	return strings.Join(q, " ")
}

// PostgresSearchDocument is the tsvector of the message m PostgreSQL's
// index messages_search holds: the generated column search_tsv.
const PostgresSearchDocument = "m.search_tsv"

// PostgresSearchMatch is PostgreSQL's Dialect.SearchMatch: the english
// configuration's parse of the operand, matched against the index.
func PostgresSearchMatch(add func(any) string, t store.SearchTerm) string {
	return PostgresSearchDocument + " @@ plainto_tsquery('english'::regconfig, " + add(t.Text) + "::text)"
}

// likeContains returns the LIKE pattern of the strings containing s,
// lower-cased, with '\' as the escape character.
func likeContains(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(s)) + "%"
}

// DrivingSearch returns the index of the search term of q whose index
// matches should drive the read (the first that is not negated and has
// lexemes: it selects few messages, or many in id order), or -1 for none.
func DrivingSearch(q store.MessageQuery) int {
	for i, t := range q.Search {
		if !t.Negated && len(t.Lexemes) > 0 {
			return i
		}
	}
	return -1
}

// NarrowConds appends to where the conditions of q.NarrowConds on the
// message m.
func (d *Dialect) NarrowConds(where []string, add func(any) string, q store.MessageQuery) []string {
	return d.NarrowCondsDriven(where, add, q, -1)
}

// NarrowCondsDriven is NarrowConds without the index match of the search
// term driving (see DrivingSearch), which the statement joins instead; -1
// leaves none out.
func (d *Dialect) NarrowCondsDriven(where []string, add func(any) string, q store.MessageQuery, driving int) []string {
	for i, t := range q.Search {
		for _, ph := range t.Phrases {
			pat := add(likeContains(ph))
			cond := "(lower(m.content) LIKE " + pat + ` ESCAPE '\' OR lower(m.topic) LIKE ` + pat + ` ESCAPE '\')`
			if t.Negated {
				cond = "NOT " + cond
			}
			where = append(where, cond)
		}
		switch {
		case len(t.Lexemes) == 0 && !t.Negated:
			where = append(where, "1 = 0")
		case len(t.Lexemes) == 0, i == driving:
		case t.Negated:
			where = append(where, "NOT ("+d.SearchMatch(add, t)+")")
		default:
			where = append(where, d.SearchMatch(add, t))
		}
	}
	if len(q.NotIDs) > 0 {
		where = append(where, "NOT "+d.In("m.id", add(List(d, q.NotIDs)), "bigint"))
	}
	if len(q.NotSenderIDs) > 0 {
		where = append(where, "NOT "+d.In("m.sender_id", add(List(d, q.NotSenderIDs)), "bigint"))
	}
	if len(q.NotTopicKeys) > 0 {
		where = append(where, "NOT (m.type = 'stream' AND "+d.In("m.topic_key", add(d.Strings(q.NotTopicKeys)), "text")+")")
	}
	if q.NotHas != 0 {
		where = append(where, "m.has & "+itoa(q.NotHas)+" = 0")
	}
	if q.NoReaction {
		where = append(where, "NOT EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)")
	}
	if q.NotTopicPrefix != "" {
		pre := add(q.NotTopicPrefix)
		where = append(where, "NOT (m.type = 'stream' AND substr(m.topic, 1, length("+pre+")) = "+pre+")")
	}
	return where
}
