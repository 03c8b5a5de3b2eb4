package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore"
)

// dirMailer writes each e-mail as one RFC 5322 message file (name.eml) in a
// directory. A file appears complete or not at all: it is written under a
// temporary name and renamed. Safe for concurrent use.
type dirMailer struct {
	dir string
	now func() time.Time
	seq atomic.Int64
}

// Send writes m to the directory.
func (d *dirMailer) Send(ctx context.Context, m chatcore.Email) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := d.now()
	data, err := formatEmail(m, now)
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s-%06d.eml", now.UTC().Format("20060102T150405.000000000Z"), d.seq.Add(1))
	tmp, err := os.CreateTemp(d.dir, ".mail-*")
	if err != nil {
		return fmt.Errorf("mail-dir: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("mail-dir: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mail-dir: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(d.dir, name)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("mail-dir: %w", err)
	}
	return nil
}

// formatEmail renders m as an RFC 5322 message with CRLF line endings and a
// quoted-printable UTF-8 text body; non-ASCII header text is RFC 2047 encoded.
func formatEmail(m chatcore.Email, date time.Time) ([]byte, error) {
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, err
	}
	from := m.From
	if from == "" {
		from = "noreply@chatcore.invalid"
	}
	domain := "chatcore.invalid"
	if at := strings.LastIndexByte(from, '@'); at >= 0 {
		domain = strings.Trim(from[at+1:], "<> ")
	}
	var b bytes.Buffer
	header := func(k, v string) {
		// Strip line breaks so a value can never start a new header.
		v = strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	header("From", from)
	header("To", m.To)
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", date.Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id[:])+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(body)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\r\n")) {
		b.WriteString("\r\n")
	}
	return b.Bytes(), nil
}

// logMailer logs each e-mail in full (the default without -mail-dir), so a
// confirmation link can be followed from the log.
type logMailer struct{ log *slog.Logger }

// Send logs m.
func (l logMailer) Send(ctx context.Context, m chatcore.Email) error {
	l.log.InfoContext(ctx, "e-mail", "to", m.To, "from", m.From, "subject", m.Subject, "body", m.Body)
	return nil
}
