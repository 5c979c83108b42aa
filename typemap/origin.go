package typemap

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// The ARROW:schema entry is the base64 (standard alphabet, padded; some
// writers omit the padding) of an encapsulated Arrow IPC message holding a
// Schema: the continuation marker 0xFFFFFFFF, a little-endian int32
// metadata length, the Message flatbuffer padded to 8 bytes. Arrow C++ and
// pyarrow write exactly that; arrow-go appends an end-of-stream marker;
// writers before Arrow 0.15 omit the continuation marker.

// ipcContinuation is the continuation marker that precedes the length of
// an encapsulated IPC message.
const ipcContinuation = 0xFFFFFFFF

// DecodeArrowSchema decodes the value of an ARROW:schema footer entry. The
// message length is checked against the decoded bytes before the IPC reader
// sees them.
func DecodeArrowSchema(value string) (*arrow.Schema, error) {
	raw, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(value)
		if err != nil {
			return nil, fmt.Errorf("typemap: ARROW:schema is not base64: %w", err)
		}
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("typemap: ARROW:schema of %d bytes is too short for an IPC message: %w", len(raw), ErrCorrupt)
	}
	body := raw[4:]
	n := binary.LittleEndian.Uint32(raw)
	if n == ipcContinuation {
		n = binary.LittleEndian.Uint32(raw[4:])
		body = raw[8:]
	}
	if uint64(n) > uint64(len(body)) || n == 0 {
		return nil, fmt.Errorf("typemap: ARROW:schema message length %d exceeds its %d bytes: %w", n, len(body), ErrCorrupt)
	}
	// The IPC reader allocates the message body before reading it; a
	// Schema message has none, so a hostile body length is refused here,
	// with every other length and offset the reader will follow.
	v := fbVerifier{fb: body[:n]}
	bodyLen, ok := v.message()
	if !ok || bodyLen != 0 {
		return nil, fmt.Errorf("typemap: ARROW:schema is not a Schema message without body: %w", ErrCorrupt)
	}
	raw = raw[:len(raw)-len(body)+int(n)]
	rdr, err := ipc.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("typemap: ARROW:schema: %w", err)
	}
	defer rdr.Release()
	return rdr.Schema(), nil
}

// EncodeArrowSchema returns the value of the ARROW:schema footer entry for
// s, in the form Arrow C++ and pyarrow write: base64 of the encapsulated
// Schema message without end-of-stream marker.
func EncodeArrowSchema(s *arrow.Schema) (string, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("typemap: encode ARROW:schema: %w", err)
	}
	b := buf.Bytes()
	// The stream writer ends with the end-of-stream marker: continuation
	// and a zero length.
	if len(b) >= 8 && binary.LittleEndian.Uint32(b[len(b)-8:]) == ipcContinuation && binary.LittleEndian.Uint32(b[len(b)-4:]) == 0 {
		b = b[:len(b)-8]
	}
	if len(b) == 0 {
		return "", errors.New("typemap: encode ARROW:schema: the IPC writer produced no schema message")
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// adoptLeaf returns the mapping of leaf n with the type the ARROW:schema
// asks for (want, extension types unwrapped) when the stored values can
// produce it, and lm unchanged otherwise.
func (b *reader) adoptLeaf(n *metadata.Node, lm leafMapping, want arrow.DataType) leafMapping {
	if arrow.TypeEqual(want, lm.typ) {
		return lm
	}
	// An inferred extension (UUID, JSON) that matches the wanted storage
	// stays: arrowField puts the origin's extension back on top.
	have := lm.conv.Arrow
	phys := lm.conv.Physical
	out := lm
	set := func(dt arrow.DataType, c Conversion) leafMapping {
		out.typ, out.conv = dt, c
		return out
	}
	if hintFits(lm, want) {
		return set(want, identity(phys, 0, want))
	}
	switch w := want.(type) {
	case *arrow.DictionaryType:
		inner := b.adoptLeaf(n, lm, w.ValueType)
		if arrow.TypeEqual(inner.typ, w.ValueType) && dictionaryValueOK(w.ValueType) {
			out = inner
			out.typ = &arrow.DictionaryType{IndexType: w.IndexType, ValueType: inner.typ, Ordered: w.Ordered}
			return out
		}
	case *arrow.LargeStringType, *arrow.StringViewType, *arrow.StringType:
		if have.ID() == arrow.STRING || (have.ID() == arrow.BINARY && phys == format.Type_BYTE_ARRAY) {
			return set(want, identity(phys, 0, want))
		}
	case *arrow.LargeBinaryType, *arrow.BinaryViewType, *arrow.BinaryType:
		if have.ID() == arrow.BINARY || have.ID() == arrow.STRING {
			return set(want, identity(phys, 0, want))
		}
	case *arrow.TimestampType:
		ts, ok := have.(*arrow.TimestampType)
		if !ok {
			break
		}
		if phys == format.Type_INT96 {
			// INT96 says nothing of zones; the writer's type decides, and
			// its unit too unless the reader chose one.
			dt := w
			if b.opts.Int96Unit != Int96Nanos {
				dt = &arrow.TimestampType{Unit: b.opts.Int96Unit.arrowUnit(), TimeZone: w.TimeZone}
			}
			return set(dt, Conversion{Kind: Int96, Physical: phys, Arrow: dt, Unit: dt.Unit, Mul: 1, Div: 1})
		}
		if (ts.TimeZone == "") != (w.TimeZone == "") {
			// Local versus instant semantics differ: the Parquet
			// annotation is the truth.
			break
		}
		if c, ok := scaleConv(phys, int64(unitFactor(ts.Unit)), int64(unitFactor(w.Unit)), w); ok {
			return set(w, c)
		}
	case *arrow.Date64Type:
		if have.ID() == arrow.DATE32 {
			return set(w, Conversion{Kind: Scale, Physical: phys, Arrow: w, Mul: 86400000, Div: 1})
		}
	case *arrow.Time32Type, *arrow.Time64Type:
		hu, ok1 := timeUnitOf(have)
		wu, ok2 := timeUnitOf(w)
		if ok1 && ok2 {
			if c, ok := scaleConv(phys, int64(unitFactor(hu)), int64(unitFactor(wu)), w); ok {
				return set(w, c)
			}
		}
	case *arrow.DurationType:
		if have.ID() == arrow.INT64 && lm.conv.Kind == Identity {
			return set(w, identity(phys, 0, w))
		}
	case *arrow.Decimal32Type, *arrow.Decimal64Type, *arrow.Decimal128Type, *arrow.Decimal256Type:
		hd, ok := have.(arrow.DecimalType)
		wd := w.(arrow.DecimalType)
		if ok && hd.GetPrecision() == wd.GetPrecision() && hd.GetScale() == wd.GetScale() {
			return set(w, decimalConv(phys, lm.conv.TypeLength, w))
		}
	case *arrow.MonthDayNanoIntervalType, *arrow.MonthIntervalType, *arrow.DayTimeIntervalType:
		if lm.conv.Kind == Interval {
			return set(w, Conversion{Kind: Interval, Physical: phys, TypeLength: lm.conv.TypeLength, Arrow: w, Mul: 1, Div: 1})
		}
	default:
		if arrow.IsInteger(w.ID()) && arrow.IsInteger(have.ID()) && (phys == format.Type_INT32 || phys == format.Type_INT64) {
			return set(w, intConv(phys, w))
		}
	}
	return lm
}

// scaleConv converts between two time units given as counts per second.
func scaleConv(phys format.Type, from, to int64, dt arrow.DataType) (Conversion, bool) {
	c := Conversion{Kind: Scale, Physical: phys, Arrow: dt, Mul: 1, Div: 1}
	switch {
	case from == to:
		c.Kind = Identity
		if (phys == format.Type_INT32) != (dt.(arrow.FixedWidthDataType).BitWidth() == 32) {
			c.Kind = IntCast
		}
	case to > from:
		c.Mul = to / from
	default:
		c.Div = from / to
	}
	return c, true
}

func unitFactor(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	}
	return 1e9
}

func timeUnitOf(dt arrow.DataType) (arrow.TimeUnit, bool) {
	switch t := dt.(type) {
	case *arrow.Time32Type:
		return t.Unit, true
	case *arrow.Time64Type:
		return t.Unit, true
	}
	return 0, false
}

// hintFits reports whether want is a type that arrow-rs stores as a bare
// INT64 or INT32 because Parquet has no annotation for it (Date64,
// Time32(s), Timestamp(s), Duration; with coerce_types off also Date64),
// leaving the real type only in ARROW:schema, and lm is the plain integer
// mapping of such a column. The values are the Arrow values bit for bit, so
// the type is taken as is, as arrow-rs (schema/primitive.rs apply_hint)
// does: INT64 becomes Date64, Timestamp of any unit and zone, Time64 or
// Duration; INT32 becomes Date32 or Time32. An annotated column (DATE,
// TIME, TIMESTAMP) never gets here with a plain integer mapping: its
// annotation decides, and the cases of adoptLeaf reconcile the units.
func hintFits(lm leafMapping, want arrow.DataType) bool {
	if lm.conv.Kind != Identity {
		return false
	}
	switch lm.conv.Physical {
	case format.Type_INT64:
		if lm.typ.ID() != arrow.INT64 {
			return false
		}
		switch want.ID() {
		case arrow.DATE64, arrow.TIMESTAMP, arrow.TIME64, arrow.DURATION:
			return true
		}
	case format.Type_INT32:
		if lm.typ.ID() != arrow.INT32 {
			return false
		}
		switch want.ID() {
		case arrow.DATE32, arrow.TIME32:
			return true
		}
	}
	return false
}
