package sqlite

import (
	"database/sql/driver"
	"fmt"

	"github.com/chatcore/chatcore/internal/fulltext"
	"modernc.org/sqlite"
)

// searchDocumentFunc is the SQL function the triggers of messages_fts call
// (migration 0016): chatcore_search_document(topic, rendered_content) is
// the lexemes the index holds for a message (fulltext.Document). It is
// registered with the driver for every connection, so a database written
// by chatcore needs it for inserting into messages: another program
// writing messages must register it too.
const searchDocumentFunc = "chatcore_search_document"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(searchDocumentFunc, 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		topic, err := textArg(args[0])
		if err != nil {
			return nil, err
		}
		rendered, err := textArg(args[1])
		if err != nil {
			return nil, err
		}
		return fulltext.Document(topic, rendered), nil
	})
}

// textArg reads a text argument of an SQL function; NULL is "".
func textArg(v driver.Value) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", fmt.Errorf("%s: argument of type %T", searchDocumentFunc, v)
}
