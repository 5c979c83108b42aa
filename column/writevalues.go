package column

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Batch is a batch of non-null values of one physical type, as views the
// Writer reads during a call and does not keep. Only the fields of the
// column's physical type are read:
//
//	BOOLEAN               Bits: bit BitOffset+i (LSB first) is value i, i < NumBits
//	INT32, INT64          Int32, Int64
//	FLOAT, DOUBLE         Float, Double
//	INT96                 Int96
//	FIXED_LEN_BYTE_ARRAY  FixedLenByteArray: values of the type length back to back
//	BYTE_ARRAY            value i is Data[Offsets[i]:Offsets[i+1]]
type Batch struct {
	Bits               []byte
	BitOffset, NumBits int
	Int32              []int32
	Int64              []int64
	Float              []float32
	Double             []float64
	Int96              [][12]byte
	FixedLenByteArray  []byte
	Offsets            []int32
	Data               []byte
}

func errShort(have, want int) error {
	return fmt.Errorf("column: %d values to insert, %d given: %w", want, have, errMisuse)
}

// errMisuse marks a call the Writer cannot honour: a programmer error of
// the caller, reported rather than panicking.
var errMisuse = errors.New("misuse")

// A physArm is the code of one physical type: it hands values to the
// dictionary or the value encoder, the statistics and the bloom filter.
// One is chosen per column by [newArm]; each method dispatches nothing per
// value.
type physArm interface {
	// write encodes the values into the page and observes them.
	write(w *Writer, v *Batch) error
	// observe adds values to the statistics and the bloom filter only.
	observe(w *Writer, v *Batch) error
	// insert adds values to the dictionary only, storing their indices in
	// out; it returns how many it took before the dictionary was full.
	insert(w *Writer, out []uint32, v *Batch) (int, error)
}

func newArm(col *metadata.Column) (physArm, error) {
	switch col.Physical {
	case format.Type_BOOLEAN:
		return boolArm{}, nil
	case format.Type_INT32:
		return int32Arm{}, nil
	case format.Type_INT64:
		return int64Arm{}, nil
	case format.Type_FLOAT:
		return floatArm{}, nil
	case format.Type_DOUBLE:
		return doubleArm{}, nil
	case format.Type_INT96:
		return int96Arm{}, nil
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		if col.TypeLength <= 0 {
			return nil, fmt.Errorf("column: FIXED_LEN_BYTE_ARRAY of length %d: %w", col.TypeLength, metadata.ErrUnsupported)
		}
		return flbaArm{width: int(col.TypeLength)}, nil
	case format.Type_BYTE_ARRAY:
		return byteArrayArm{}, nil
	}
	return nil, fmt.Errorf("column: physical type %s: %w", col.Physical, metadata.ErrUnsupported)
}

// Dictionary encoders of pagecodec, behind one interface for the page
// logic; the typed appends are reached through the arm's type.
type dictEncoder interface {
	reset(maxDictBytes, typeLength int)
	DictLen() int
	DictSize() int
	IndicesLen() int
	NumIndices() int
	PendingRepeats() int
	AddIndices(indices []uint32) bool
	AppendIndices(dst []byte) []byte
	AppendDictPage(dst []byte) []byte
	AppendPendingPlain(dst []byte) []byte
}

type dict32 struct{ pagecodec.DictEncoder32 }
type dict64 struct{ pagecodec.DictEncoder64 }
type dict96 struct{ pagecodec.DictEncoderInt96 }
type dictBytes struct {
	pagecodec.DictEncoderByteArray
	fixed bool // FIXED_LEN_BYTE_ARRAY: values of the type length
}

func (d *dict32) reset(n, _ int) { d.Reset(n) }
func (d *dict64) reset(n, _ int) { d.Reset(n) }
func (d *dict96) reset(n, _ int) { d.Reset(n) }
func (d *dictBytes) reset(n, typeLength int) {
	if !d.fixed {
		typeLength = 0
	}
	d.Reset(n, typeLength)
}

func newDictEncoder(col *metadata.Column) dictEncoder {
	switch col.Physical {
	case format.Type_INT32, format.Type_FLOAT:
		return &dict32{}
	case format.Type_INT64, format.Type_DOUBLE:
		return &dict64{}
	case format.Type_INT96:
		return &dict96{}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		return &dictBytes{fixed: true}
	}
	return &dictBytes{}
}

// The arms. Each write adds the PLAIN size of its values to the page (for
// the dictionary's give-up rule), encodes them and observes them.

type boolArm struct{}

func (boolArm) write(w *Writer, v *Batch) error {
	if v.NumBits == 0 {
		return nil
	}
	if len(v.Bits)*8 < v.BitOffset+v.NumBits {
		return errType(w.col)
	}
	w.page.raw += int64(v.NumBits+7) / 8
	w.enc.(boolAppender).appendBits(v.Bits, v.BitOffset, v.NumBits)
	return boolArm{}.observe(w, v)
}

func (boolArm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateBool(v.Bits, v.BitOffset, v.NumBits)
	return nil
}

func (boolArm) insert(w *Writer, _ []uint32, _ *Batch) (int, error) {
	return 0, fmt.Errorf("column: BOOLEAN has no dictionary: %w", errMisuse)
}

type int32Arm struct{}

func (int32Arm) write(w *Writer, v *Batch) error {
	vals := v.Int32
	if len(vals) == 0 {
		return nil
	}
	w.page.raw += 4 * int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dict32).AppendInt32(vals)
	} else {
		w.enc.(int32Appender).appendInt32(vals)
	}
	return int32Arm{}.observe(w, v)
}

func (int32Arm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateInt32(v.Int32)
	if w.bloom != nil {
		for _, x := range v.Int32 {
			w.bloom.Insert(metadata.XXHash64Uint32(uint32(x)))
		}
	}
	return nil
}

func (int32Arm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.Int32) < len(out) {
		return 0, errShort(len(v.Int32), len(out))
	}
	return w.dict.(*dict32).InsertInt32(out, v.Int32[:len(out)]), nil
}

type int64Arm struct{}

func (int64Arm) write(w *Writer, v *Batch) error {
	vals := v.Int64
	if len(vals) == 0 {
		return nil
	}
	w.page.raw += 8 * int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dict64).AppendInt64(vals)
	} else {
		w.enc.(int64Appender).appendInt64(vals)
	}
	return int64Arm{}.observe(w, v)
}

func (int64Arm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateInt64(v.Int64)
	if w.bloom != nil {
		for _, x := range v.Int64 {
			w.bloom.Insert(metadata.XXHash64Uint64(uint64(x)))
		}
	}
	return nil
}

func (int64Arm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.Int64) < len(out) {
		return 0, errShort(len(v.Int64), len(out))
	}
	return w.dict.(*dict64).InsertInt64(out, v.Int64[:len(out)]), nil
}

type floatArm struct{}

func (floatArm) write(w *Writer, v *Batch) error {
	vals := v.Float
	if len(vals) == 0 {
		return nil
	}
	w.page.raw += 4 * int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dict32).AppendFloat(vals)
	} else {
		w.enc.(floatAppender).appendFloat(vals)
	}
	return floatArm{}.observe(w, v)
}

func (floatArm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateFloat(v.Float)
	if w.bloom != nil {
		for _, x := range v.Float {
			w.bloom.Insert(metadata.XXHash64Uint32(math.Float32bits(x)))
		}
	}
	return nil
}

func (floatArm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.Float) < len(out) {
		return 0, errShort(len(v.Float), len(out))
	}
	return w.dict.(*dict32).InsertFloat(out, v.Float[:len(out)]), nil
}

type doubleArm struct{}

func (doubleArm) write(w *Writer, v *Batch) error {
	vals := v.Double
	if len(vals) == 0 {
		return nil
	}
	w.page.raw += 8 * int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dict64).AppendDouble(vals)
	} else {
		w.enc.(doubleAppender).appendDouble(vals)
	}
	return doubleArm{}.observe(w, v)
}

func (doubleArm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateDouble(v.Double)
	if w.bloom != nil {
		for _, x := range v.Double {
			w.bloom.Insert(metadata.XXHash64Uint64(math.Float64bits(x)))
		}
	}
	return nil
}

func (doubleArm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.Double) < len(out) {
		return 0, errShort(len(v.Double), len(out))
	}
	return w.dict.(*dict64).InsertDouble(out, v.Double[:len(out)]), nil
}

type int96Arm struct{}

func (int96Arm) write(w *Writer, v *Batch) error {
	vals := v.Int96
	if len(vals) == 0 {
		return nil
	}
	w.page.raw += 12 * int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dict96).AppendInt96(vals)
	} else {
		w.enc.(int96Appender).appendInt96(vals)
	}
	return int96Arm{}.observe(w, v)
}

// observe: INT96 has no statistics (its sort order is undefined).
func (int96Arm) observe(w *Writer, v *Batch) error {
	if w.bloom != nil {
		for i := range v.Int96 {
			w.bloom.Insert(metadata.XXHash64(v.Int96[i][:]))
		}
	}
	return nil
}

func (int96Arm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.Int96) < len(out) {
		return 0, errShort(len(v.Int96), len(out))
	}
	return w.dict.(*dict96).InsertInt96(out, v.Int96[:len(out)]), nil
}

type flbaArm struct{ width int }

func (a flbaArm) write(w *Writer, v *Batch) error {
	vals := v.FixedLenByteArray
	if len(vals) == 0 {
		return nil
	}
	if len(vals)%a.width != 0 {
		return fmt.Errorf("column: %d bytes of FIXED_LEN_BYTE_ARRAY(%d) values: %w", len(vals), a.width, errMisuse)
	}
	w.page.raw += int64(len(vals))
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dictBytes).AppendFixedLenByteArray(vals)
	} else {
		w.enc.(fixedAppender).appendFixed(vals)
	}
	return a.observe(w, v)
}

func (a flbaArm) observe(w *Writer, v *Batch) error {
	vals := v.FixedLenByteArray
	w.page.stats.updateFixed(vals, a.width)
	if w.bloom != nil {
		for i := 0; i+a.width <= len(vals); i += a.width {
			w.bloom.Insert(metadata.XXHash64(vals[i : i+a.width]))
		}
	}
	return nil
}

func (a flbaArm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(v.FixedLenByteArray) < len(out)*a.width {
		return 0, errShort(len(v.FixedLenByteArray)/a.width, len(out))
	}
	return w.dict.(*dictBytes).InsertFixedLenByteArray(out, v.FixedLenByteArray[:len(out)*a.width]), nil
}

type byteArrayArm struct{}

func (byteArrayArm) write(w *Writer, v *Batch) error {
	offs := v.Offsets
	if len(offs) < 2 {
		return nil
	}
	n := int64(len(offs) - 1)
	total := int64(offs[n] - offs[0])
	w.page.unencoded += total
	w.page.raw += total + 4*n
	if w.dictOn {
		w.dictUsed = true
		w.dict.(*dictBytes).AppendByteArray(offs, v.Data)
	} else {
		w.enc.(byteArrayAppender).appendByteArray(offs, v.Data)
	}
	return byteArrayArm{}.observe(w, v)
}

func (byteArrayArm) observe(w *Writer, v *Batch) error {
	w.page.stats.updateByteArray(v.Offsets, v.Data)
	if w.bloom != nil {
		for i := 0; i+1 < len(v.Offsets); i++ {
			w.bloom.Insert(metadata.XXHash64(v.Data[v.Offsets[i]:v.Offsets[i+1]]))
		}
	}
	return nil
}

func (byteArrayArm) insert(w *Writer, out []uint32, v *Batch) (int, error) {
	if len(out) == 0 {
		return 0, nil
	}
	if len(v.Offsets) < len(out)+1 {
		return 0, errShort(len(v.Offsets)-1, len(out))
	}
	return w.dict.(*dictBytes).InsertByteArray(out, v.Offsets[:len(out)+1], v.Data), nil
}

// Values written through a caller's own dictionary (arrowpq's memo of
// Arrow dictionary arrays): the caller inserts each distinct value into the
// Parquet dictionary once ([Writer.Insert]), then writes the page's values
// as dictionary indices ([Writer.WriteIndices]) and has the statistics and
// bloom filter observe the distinct values ([Writer.Observe],
// [Writer.ObserveRange], [Writer.AddNaNs]).

// Insert adds the first len(out) values of v to the dictionary, which
// must have room for them (see [Writer.DictionaryFits]), and stores their
// indices in out. It returns how many it took (all, given room). It does
// not write them to the page.
func (w *Writer) Insert(out []uint32, v *Batch) (int, error) {
	if !w.dictOn {
		return 0, fmt.Errorf("column: insert while not dictionary encoding: %w", errMisuse)
	}
	return w.arm.insert(w, out, v)
}

// WriteIndices writes dictionary indices (of values the dictionary holds)
// to the page; raw is the PLAIN size of the values they stand for and
// unencoded their BYTE_ARRAY bytes without length prefixes.
func (w *Writer) WriteIndices(idx []uint32, raw, unencoded int64) error {
	if !w.dictOn {
		return fmt.Errorf("column: indices while not dictionary encoding: %w", errMisuse)
	}
	w.page.raw += raw
	w.page.unencoded += unencoded
	if len(idx) == 0 {
		return nil
	}
	w.dictUsed = true
	if !w.dict.AddIndices(idx) {
		return fmt.Errorf("column: index outside the dictionary of %d values: %w", w.dict.DictLen(), errMisuse)
	}
	return nil
}

// Observe adds values to the page statistics and the bloom filter without
// writing them.
func (w *Writer) Observe(v *Batch) error { return w.arm.observe(w, v) }

// ObserveRange adds the least and greatest of some BYTE_ARRAY or
// FIXED_LEN_BYTE_ARRAY values to the page statistics.
func (w *Writer) ObserveRange(lo, hi []byte) {
	if w.page.stats.kind != cmpNone {
		w.page.stats.addBytes(lo, hi)
	}
}

// AddNaNs counts n NaN values beyond those observed (repeated occurrences
// of an observed NaN).
func (w *Writer) AddNaNs(n int64) { w.page.stats.nans += n }

// PlainBuffer returns the PLAIN values of the page being filled, when
// BYTE_ARRAY values are written in PLAIN now (nil and false otherwise). A
// caller may append n PLAIN encoded values to it (from byte from =
// len(buffer) on) and hand it to [Writer.WritePlain]: values between nulls
// go into the page with one copy per run instead of a gather and an
// encoding. Until then the appended bytes are not the page's: appending
// again to the buffer as returned drops them.
func (w *Writer) PlainBuffer() ([]byte, bool) {
	p, ok := w.enc.(*plainEncoder)
	if !ok || w.dictOn || w.col.Physical != format.Type_BYTE_ARRAY {
		return nil, false
	}
	return p.buf, true
}

// WritePlain takes buf, the buffer of [Writer.PlainBuffer] with n PLAIN
// encoded BYTE_ARRAY values (well formed: the caller wrote them) appended
// from byte from on, as the page's values.
func (w *Writer) WritePlain(buf []byte, from, n int) error {
	p, ok := w.enc.(*plainEncoder)
	if !ok || w.dictOn || w.col.Physical != format.Type_BYTE_ARRAY || from != len(p.buf) || from > len(buf) {
		return fmt.Errorf("column: PLAIN values not appended to the page's buffer: %w", errMisuse)
	}
	plain := buf[from:]
	p.buf = buf
	w.page.unencoded += int64(len(plain)) - 4*int64(n)
	w.page.raw += int64(len(plain))
	w.page.stats.updatePlainByteArray(plain)
	if w.bloom != nil {
		for pos := 0; pos+4 <= len(plain); {
			end := pos + 4 + int(binary.LittleEndian.Uint32(plain[pos:]))
			w.bloom.Insert(metadata.XXHash64(plain[pos+4 : end]))
			pos = end
		}
	}
	return nil
}
