package postgres

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// int8ArrayCodec is the codec of bigint[] (int8 arrays) on the store's
// connections: the arrays of ids the store sends and reads (a channel's
// subscribers, an append's audiences, flag rows) go straight between Go
// slices of int64-based ids and PostgreSQL's binary array format. pgx's
// generic array codec handles each element through an interface value and,
// for a named id type, a reflect conversion: for a channel of 10,000 members
// about a millisecond each way. Anything else (text format, nulls, other
// Go types, several dimensions) goes to the codec it wraps.
type int8ArrayCodec struct {
	pgtype.Codec
}

// useInt8Arrays makes the connections of pc use int8ArrayCodec, before
// anything pc's AfterConnect already does.
func useInt8Arrays(pc *pgxpool.Config) {
	then := pc.AfterConnect
	pc.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		registerInt8Array(c.TypeMap())
		if then != nil {
			return then(ctx, c)
		}
		return nil
	}
}

// registerInt8Array makes m use int8ArrayCodec for bigint[].
func registerInt8Array(m *pgtype.Map) {
	t, ok := m.TypeForOID(pgtype.Int8ArrayOID)
	if !ok {
		return
	}
	m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: int8ArrayCodec{Codec: t.Codec}})
}

// PlanEncode implements [pgtype.Codec].
func (c int8ArrayCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case []int64:
			return encodeInt8s[int64]{}
		case []store.UserID:
			return encodeInt8s[store.UserID]{}
		case []store.MessageID:
			return encodeInt8s[store.MessageID]{}
		case []store.StreamID:
			return encodeInt8s[store.StreamID]{}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// PlanScan implements [pgtype.Codec].
func (c int8ArrayCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *[]int64:
			return planInt8s[int64](c, m, oid)
		case *[]store.UserID:
			return planInt8s[store.UserID](c, m, oid)
		case *[]store.MessageID:
			return planInt8s[store.MessageID](c, m, oid)
		case *[]store.StreamID:
			return planInt8s[store.StreamID](c, m, oid)
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

// Binary array layout: dimensions, has-nulls flag, element type, then per
// dimension its length and lower bound (all int32); then per element its
// length (int32, -1 for null) and its bytes. The lower bound does not
// matter to a Go slice, as to pgx's codec.
const arrayHeader = 12

// encodeInt8s encodes a slice of an int64-based type as a one-dimensional
// binary bigint[] without nulls (an empty slice as the empty array).
type encodeInt8s[E ~int64] struct{}

func (encodeInt8s[E]) Encode(value any, buf []byte) ([]byte, error) {
	s := value.([]E)
	if s == nil {
		return nil, nil // NULL, as pgx encodes a nil slice
	}
	if len(s) == 0 {
		buf = binary.BigEndian.AppendUint32(buf, 0) // no dimensions
		buf = binary.BigEndian.AppendUint32(buf, 0) // no nulls
		return binary.BigEndian.AppendUint32(buf, pgtype.Int8OID), nil
	}
	buf = binary.BigEndian.AppendUint32(buf, 1) // one dimension
	buf = binary.BigEndian.AppendUint32(buf, 0) // no nulls
	buf = binary.BigEndian.AppendUint32(buf, pgtype.Int8OID)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	buf = binary.BigEndian.AppendUint32(buf, 1) // lower bound
	for _, v := range s {
		buf = binary.BigEndian.AppendUint32(buf, 8)
		buf = binary.BigEndian.AppendUint64(buf, uint64(v))
	}
	return buf, nil
}

// planInt8s returns the scan plan of binary bigint[] into *[]E: the
// codec's own for what it handles, else the generic codec's plan for the
// same slice as a pgtype.FlatArray (which is what pgx makes of a slice
// target).
func planInt8s[E ~int64](c int8ArrayCodec, m *pgtype.Map, oid uint32) pgtype.ScanPlan {
	return scanInt8s[E]{generic: c.Codec.PlanScan(m, oid, pgtype.BinaryFormatCode, new(pgtype.FlatArray[E]))}
}

// scanInt8s scans a binary bigint[] of at most one dimension without
// nulls into a slice of an int64-based type (NULL into nil, the empty array
// into an empty slice), and others with generic.
type scanInt8s[E ~int64] struct{ generic pgtype.ScanPlan }

func (p scanInt8s[E]) Scan(src []byte, target any) error {
	dst := target.(*[]E)
	if src == nil {
		*dst = nil
		return nil
	}
	if len(src) < arrayHeader {
		return fmt.Errorf("postgres: bigint[] of %d bytes", len(src))
	}
	dims, nulls := binary.BigEndian.Uint32(src), binary.BigEndian.Uint32(src[4:])
	switch {
	case dims == 0:
		*dst = []E{}
		return nil
	case dims != 1 || nulls != 0:
		return p.scanGeneric(src, dst)
	case len(src) < arrayHeader+8:
		return fmt.Errorf("postgres: bigint[] of %d bytes", len(src))
	}
	n := int(binary.BigEndian.Uint32(src[arrayHeader:]))
	body := src[arrayHeader+8:]
	if len(body) != 12*n {
		return fmt.Errorf("postgres: bigint[] of %d elements in %d bytes", n, len(body))
	}
	out := make([]E, n)
	for i := range out {
		if binary.BigEndian.Uint32(body) != 8 {
			return p.scanGeneric(src, dst)
		}
		out[i] = E(binary.BigEndian.Uint64(body[4:]))
		body = body[12:]
	}
	*dst = out
	return nil
}

func (p scanInt8s[E]) scanGeneric(src []byte, dst *[]E) error {
	if p.generic == nil {
		return fmt.Errorf("postgres: no plan to scan bigint[] into %T", dst)
	}
	return p.generic.Scan(src, (*pgtype.FlatArray[E])(dst))
}
