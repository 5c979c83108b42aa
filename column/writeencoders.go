package column

import (
	"fmt"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Value encoders of data pages that are not dictionary encoded: one arm
// per encoding, chosen once per column by [newValueEncoder] from the
// encoding and the physical type. An arm takes the values of the types it
// can encode through the typed appender interfaces below (the physical
// type's arm in writevalues.go asserts the one of its type). A new encoding
// (ALP for FLOAT and DOUBLE, say) is a type with floatAppender and
// doubleAppender and a case in newValueEncoder.

type valueEncoder interface {
	encoding() format.Encoding
	// len returns the size of the encoded values so far.
	len() int
	// appendPage appends the encoded values to body, whose first valuesAt
	// bytes are the page's levels (V1) or nothing (V2); inPlace reports
	// that the returned body is the encoder's own memory (see plainEncoder),
	// valid until its next reset.
	appendPage(body []byte, valuesAt int) (out []byte, inPlace bool)
	reset()
}

type boolAppender interface{ appendBits(bits []byte, off, n int) }
type int32Appender interface{ appendInt32([]int32) }
type int64Appender interface{ appendInt64([]int64) }
type floatAppender interface{ appendFloat([]float32) }
type doubleAppender interface{ appendDouble([]float64) }
type int96Appender interface{ appendInt96([][12]byte) }
type fixedAppender interface{ appendFixed([]byte) }
type byteArrayAppender interface {
	appendByteArray(offs []int32, data []byte)
}

// EncodingValid reports whether a Writer can write values of physical
// type t in encoding enc when they are not dictionary encoded.
func EncodingValid(enc format.Encoding, t format.Type) bool {
	_, ok := valueEncoderFor(enc, t, 0)
	return ok
}

// newValueEncoder returns the arm of encoding enc for column col.
func newValueEncoder(enc format.Encoding, col *metadata.Column) (valueEncoder, error) {
	e, ok := valueEncoderFor(enc, col.Physical, int(col.TypeLength))
	if !ok {
		return nil, fmt.Errorf("column: encoding %s cannot encode %s: %w", enc, col.Physical, metadata.ErrUnsupported)
	}
	return e, nil
}

// valueEncoderFor is the table of arms: the encoder of enc for physical
// type t (of width bytes when FIXED_LEN_BYTE_ARRAY), and whether there is
// one.
func valueEncoderFor(enc format.Encoding, t format.Type, width int) (valueEncoder, bool) {
	switch enc {
	case format.Encoding_PLAIN:
		if t == format.Type_BOOLEAN {
			return &plainBoolEncoder{}, true
		}
		return &plainEncoder{}, true
	case format.Encoding_RLE:
		return &rleBoolEncoder{}, t == format.Type_BOOLEAN
	case format.Encoding_DELTA_BINARY_PACKED:
		return &deltaEncoder{}, t == format.Type_INT32 || t == format.Type_INT64
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		return &dlbaEncoder{}, t == format.Type_BYTE_ARRAY
	case format.Encoding_DELTA_BYTE_ARRAY:
		return &dbaEncoder{width: width}, t == format.Type_BYTE_ARRAY || t == format.Type_FIXED_LEN_BYTE_ARRAY
	case format.Encoding_BYTE_STREAM_SPLIT:
		switch t {
		case format.Type_INT32, format.Type_FLOAT:
			return &bssEncoder{width: 4}, true
		case format.Type_INT64, format.Type_DOUBLE:
			return &bssEncoder{width: 8}, true
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			return &bssEncoder{width: width}, true
		}
	case format.Encoding_ALP:
		return &alpEncoder{}, t == format.Type_FLOAT || t == format.Type_DOUBLE
	}
	return nil, false
}

// plainEncoder is PLAIN for every type but BOOLEAN. Its buffer keeps gap
// bytes free before the values for the levels of a DATA_PAGE, so that the
// page body is compressed where it is: a copy of every value was a tenth
// of BenchmarkWrite data=strings SNAPPY.
type plainEncoder struct {
	buf []byte
	gap int
}

func (e *plainEncoder) encoding() format.Encoding { return format.Encoding_PLAIN }
func (e *plainEncoder) len() int                  { return len(e.buf) - e.gap }

func (e *plainEncoder) reset() {
	if cap(e.buf) < e.gap {
		e.buf = make([]byte, e.gap, e.gap+64<<10)
	}
	e.buf = e.buf[:e.gap]
}

// appendPage writes the levels into the gap before the values when they
// fit, and returns that part of the buffer; otherwise it appends the
// values to body and grows the gap for the next pages.
func (e *plainEncoder) appendPage(body []byte, valuesAt int) ([]byte, bool) {
	levels := body[:valuesAt]
	gap := e.gap
	if len(levels) <= gap {
		start := gap - len(levels)
		copy(e.buf[start:gap], levels)
		return e.buf[start:], true
	}
	e.gap = len(levels) + len(levels)/4 + 64
	return append(body, e.buf[gap:]...), false
}

func (e *plainEncoder) appendInt32(v []int32)    { e.buf = pagecodec.AppendPlainInt32(e.buf, v) }
func (e *plainEncoder) appendInt64(v []int64)    { e.buf = pagecodec.AppendPlainInt64(e.buf, v) }
func (e *plainEncoder) appendFloat(v []float32)  { e.buf = pagecodec.AppendPlainFloat(e.buf, v) }
func (e *plainEncoder) appendDouble(v []float64) { e.buf = pagecodec.AppendPlainDouble(e.buf, v) }
func (e *plainEncoder) appendInt96(v [][12]byte) { e.buf = pagecodec.AppendPlainInt96(e.buf, v) }
func (e *plainEncoder) appendFixed(v []byte) {
	e.buf = pagecodec.AppendPlainFixedLenByteArray(e.buf, v)
}
func (e *plainEncoder) appendByteArray(offs []int32, data []byte) {
	e.buf = pagecodec.AppendPlainByteArray(e.buf, offs, data)
}

// plainBoolEncoder is PLAIN for BOOLEAN: bit-packed.
type plainBoolEncoder struct{ e pagecodec.PlainBooleanEncoder }

func (e *plainBoolEncoder) encoding() format.Encoding { return format.Encoding_PLAIN }
func (e *plainBoolEncoder) len() int                  { return e.e.Len() }
func (e *plainBoolEncoder) reset()                    { e.e.Reset() }
func (e *plainBoolEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return append(body, e.e.Bytes()...), false
}
func (e *plainBoolEncoder) appendBits(bits []byte, off, n int) { e.e.Append(bits, off, n) }

// rleBoolEncoder is RLE for BOOLEAN values.
type rleBoolEncoder struct{ e pagecodec.RLEBooleanEncoder }

func (e *rleBoolEncoder) encoding() format.Encoding { return format.Encoding_RLE }
func (e *rleBoolEncoder) len() int                  { return e.e.Len() }
func (e *rleBoolEncoder) reset()                    { e.e.Reset() }
func (e *rleBoolEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return e.e.AppendTo(body), false
}
func (e *rleBoolEncoder) appendBits(bits []byte, off, n int) { e.e.Append(bits, off, n) }

// deltaEncoder is DELTA_BINARY_PACKED for INT32 and INT64.
type deltaEncoder struct {
	e    pagecodec.DeltaBinaryPackedEncoder
	prev int64 // last value given to e for INT32 (see appendInt32)
	orig int32
	wide []int64
}

func (e *deltaEncoder) encoding() format.Encoding { return format.Encoding_DELTA_BINARY_PACKED }
func (e *deltaEncoder) len() int                  { return e.e.Len() }
func (e *deltaEncoder) reset()                    { e.e.Reset(); e.prev, e.orig = 0, 0 }
func (e *deltaEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return e.e.AppendTo(body), false
}
func (e *deltaEncoder) appendInt64(v []int64) { e.e.AppendInt64(v) }

// appendInt32 adds INT32 values with deltas in 32-bit wrapping arithmetic,
// as readers such as arrow-rs and arrow-go require (min delta and bit
// widths within 32 bits): the encoder computes 64-bit deltas, so it is
// given a sequence whose 64-bit deltas are the wrapped 32-bit ones and
// whose low 32 bits are the values.
func (e *deltaEncoder) appendInt32(vals []int32) {
	if cap(e.wide) < len(vals) {
		e.wide = make([]int64, len(vals), len(vals)+len(vals)/4)
	}
	e.wide = e.wide[:len(vals)]
	prev, orig := e.prev, e.orig
	for i, v := range vals {
		if e.e.Count() == 0 && i == 0 {
			prev = int64(v)
		} else {
			prev += int64(v - orig) // v - orig wraps in 32 bits
		}
		orig = v
		e.wide[i] = prev
	}
	e.prev, e.orig = prev, orig
	e.e.AppendInt64(e.wide)
}

// dlbaEncoder is DELTA_LENGTH_BYTE_ARRAY.
type dlbaEncoder struct {
	e pagecodec.DeltaLengthByteArrayEncoder
}

func (e *dlbaEncoder) encoding() format.Encoding { return format.Encoding_DELTA_LENGTH_BYTE_ARRAY }
func (e *dlbaEncoder) len() int                  { return e.e.Len() }
func (e *dlbaEncoder) reset()                    { e.e.Reset() }
func (e *dlbaEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return e.e.AppendTo(body), false
}
func (e *dlbaEncoder) appendByteArray(offs []int32, data []byte) { e.e.AppendByteArray(offs, data) }

// dbaEncoder is DELTA_BYTE_ARRAY for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
type dbaEncoder struct {
	e     pagecodec.DeltaByteArrayEncoder
	width int
}

func (e *dbaEncoder) encoding() format.Encoding { return format.Encoding_DELTA_BYTE_ARRAY }
func (e *dbaEncoder) len() int                  { return e.e.Len() }
func (e *dbaEncoder) reset()                    { e.e.Reset() }
func (e *dbaEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return e.e.AppendTo(body), false
}
func (e *dbaEncoder) appendByteArray(offs []int32, data []byte) { e.e.AppendByteArray(offs, data) }
func (e *dbaEncoder) appendFixed(v []byte)                      { e.e.AppendFixedLenByteArray(v, e.width) }

// bssEncoder is BYTE_STREAM_SPLIT for values of width bytes.
type bssEncoder struct {
	e     pagecodec.ByteStreamSplitEncoder
	width int
}

func (e *bssEncoder) encoding() format.Encoding { return format.Encoding_BYTE_STREAM_SPLIT }
func (e *bssEncoder) len() int                  { return e.e.Len() }
func (e *bssEncoder) reset()                    { e.e.Reset(e.width) }
func (e *bssEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	return e.e.AppendTo(body), false
}
func (e *bssEncoder) appendInt32(v []int32)    { e.e.AppendInt32(v) }
func (e *bssEncoder) appendInt64(v []int64)    { e.e.AppendInt64(v) }
func (e *bssEncoder) appendFloat(v []float32)  { e.e.AppendFloat(v) }
func (e *bssEncoder) appendDouble(v []float64) { e.e.AppendDouble(v) }
func (e *bssEncoder) appendFixed(v []byte)     { e.e.AppendFixedLenByteArray(v) }

// alpEncoder is ALP for FLOAT and DOUBLE (a preview encoding, chosen only
// when asked for). It keeps the page's values in PLAIN beside the ALP
// vectors: a page that ALP would make larger than PLAIN (values without a
// short decimal form, all exceptions) is written PLAIN instead, and
// encoding reports what the last page was written in.
type alpEncoder struct {
	e     pagecodec.ALPEncoder
	plain []byte
	alp   []byte
	// asPlain: the last page was written PLAIN.
	asPlain bool
}

func (e *alpEncoder) encoding() format.Encoding {
	if e.asPlain {
		return format.Encoding_PLAIN
	}
	return format.Encoding_ALP
}
func (e *alpEncoder) len() int { return min(e.e.Len(), len(e.plain)) }
func (e *alpEncoder) reset() {
	e.e.Reset()
	e.plain = e.plain[:0]
	e.asPlain = false
}
func (e *alpEncoder) appendPage(body []byte, _ int) ([]byte, bool) {
	e.alp = e.e.AppendTo(e.alp[:0])
	e.asPlain = len(e.alp) > len(e.plain)
	if e.asPlain {
		return append(body, e.plain...), false
	}
	return append(body, e.alp...), false
}
func (e *alpEncoder) appendFloat(v []float32) {
	e.e.AppendFloat(v)
	e.plain = pagecodec.AppendPlainFloat(e.plain, v)
}
func (e *alpEncoder) appendDouble(v []float64) {
	e.e.AppendDouble(v)
	e.plain = pagecodec.AppendPlainDouble(e.plain, v)
}
