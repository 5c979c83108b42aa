package arrowpq

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

// slots describes where the dense values of a leaf go: numSlots array
// slots, of which those whose bit is set in valid (nil: all) hold a value.
type slots struct {
	n         int
	valid     []byte // LSB-first validity of the leaf array, nil when no nulls
	nullCount int
}

// bitmap returns the validity bitmap of the slots, or nil when every slot
// holds a value.
func (s slots) bitmap() []byte {
	if s.nullCount == 0 {
		return nil
	}
	return s.valid
}

// spreadInPlace moves the nv dense values at the start of buf (width bytes
// each) to their slots, zeroing null slots (levels.SpreadInPlace, on
// words for 4- and 8-byte values).
func (s slots) spreadInPlace(buf []byte, nv, width int) {
	switch width {
	case 4:
		levels.SpreadInPlace(arrow.Uint32Traits.CastFromBytes(buf[:s.n*4]), nv, s.bitmap(), s.n)
	case 8:
		levels.SpreadInPlace(arrow.Uint64Traits.CastFromBytes(buf[:s.n*8]), nv, s.bitmap(), s.n)
	default:
		levels.SpreadInPlaceWidth(buf, nv, width, s.bitmap(), s.n)
	}
}

// buildLeaf turns the dense physical values of one batch of a leaf into
// its Arrow storage array (extension and dictionary wrapping are the
// caller's), applying the leaf's conversion and spreading values into the
// non-null slots.
func buildLeaf(mem memory.Allocator, conv typemap.Conversion, dt arrow.DataType, d *denseValues, s slots, int96Unit arrow.TimeUnit) (arrow.Array, error) {
	if conv.Kind == typemap.Null || dt.ID() == arrow.NULL {
		return array.NewNull(s.n), nil
	}
	validBuf := bitmapBuffer(mem, s)
	switch dt.ID() {
	case arrow.BOOL:
		values := memory.NewResizableBuffer(mem)
		values.Resize(int(bitutil.BytesForBits(int64(s.n))))
		levels.SpreadBits(values.Bytes(), d.Bits, s.bitmap(), s.n)
		return makeArray(dt, s, validBuf, values), nil
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		if d.Physical != format.Type_BYTE_ARRAY && d.Physical != format.Type_FIXED_LEN_BYTE_ARRAY {
			return nil, fmt.Errorf("%v values as %s: %w", d.Physical, dt, errUnsupportedConversion)
		}
		return buildBinary(mem, dt, d, s, validBuf)
	}
	width, err := storageWidth(dt)
	if err != nil {
		return nil, err
	}
	if d.conv != nil {
		// Converted as decoded: spread the dense prefix over the slots.
		nv := d.N
		values := d.takeConv()
		s.spreadInPlace(values.Bytes(), nv, width)
		return makeArray(dt, s, validBuf, values), nil
	}
	if conv.Kind == typemap.Identity && d.direct != nil {
		// Decoded in place: spread the dense prefix over the slots.
		nv := d.N
		if values := d.takeDirect(); values != nil {
			s.spreadInPlace(values.Bytes(), nv, width)
			return makeArray(dt, s, validBuf, values), nil
		}
	}
	// Without nulls the values convert straight into the Arrow buffer.
	// With nulls they convert into the start of the Arrow buffer and
	// are spread in place, null slots zeroed, as on the direct path: the
	// buffer needs no zeroing and the values no scratch (nested leaves).
	// Should the values not match the slots (nothing else decodes that
	// way), they convert into reused scratch and are spread over a
	// zeroed buffer.
	noNulls := s.valid == nil || s.nullCount == 0
	if !noNulls && inPlaceSpread && d.N == s.n-s.nullCount {
		values := newUninitBuffer(mem, s.n*width)
		buf := values.Bytes()
		dense, err := convertDense(buf, conv, dt, &d.Values, width, int96Unit)
		if err != nil {
			values.Release()
			releaseBuffers(validBuf)
			return nil, err
		}
		if len(dense) > 0 && &dense[0] != &buf[0] {
			copy(buf, dense) // identity: the decoded values themselves
		}
		s.spreadInPlace(buf, d.N, width)
		return makeArray(dt, s, validBuf, values), nil
	}
	var values *memory.Buffer
	if noNulls {
		values = newUninitBuffer(mem, s.n*width)
	} else {
		values = memory.NewResizableBuffer(mem)
		values.Resize(s.n * width)
	}
	target := values.Bytes()
	if !noNulls {
		// Scratch lent by the reader's other leaves, given back once
		// the values are spread.
		if d.scratch == nil {
			d.scratch = d.cache.take(d.N * width)
		}
		d.scratch = growBytes(d.scratch, d.N*width)
		target = d.scratch
		defer func() {
			d.cache.give(d.scratch)
			d.scratch = nil
		}()
	}
	dense, err := convertDense(target, conv, dt, &d.Values, width, int96Unit)
	if err != nil {
		values.Release()
		releaseBuffers(validBuf)
		return nil, err
	}
	if noNulls {
		if len(dense) > 0 && &dense[0] != &target[0] {
			copy(values.Bytes(), dense) // identity: the decoded values themselves
		}
		// Every slot holds a value, so dense covers the buffer; should a
		// corrupt page leave fewer, the rest must not show the heap.
		clear(values.Bytes()[min(len(dense), values.Len()):])
	} else {
		levels.SpreadWidth(values.Bytes(), dense, width, s.bitmap(), s.n)
	}
	return makeArray(dt, s, validBuf, values), nil
}

var errUnsupportedConversion = fmt.Errorf("unsupported conversion")

// inPlaceSpread selects buildLeaf's in-place spread for values with nulls;
// tests turn it off to compare with the spread from scratch.
var inPlaceSpread = true

func bitmapBuffer(mem memory.Allocator, s slots) *memory.Buffer {
	if s.valid == nil || s.nullCount == 0 {
		return nil
	}
	b := newUninitBuffer(mem, int(bitutil.BytesForBits(int64(s.n))))
	copy(b.Bytes(), s.valid[:len(b.Bytes())])
	return b
}

func makeArray(dt arrow.DataType, s slots, buffers ...*memory.Buffer) arrow.Array {
	nulls := s.nullCount
	if buffers[0] == nil {
		nulls = 0
	}
	data := array.NewData(dt, s.n, buffers, nil, nulls, 0)
	defer data.Release()
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	return array.MakeFromData(data)
}

// storageWidth is the byte width of a fixed-width Arrow storage type.
func storageWidth(dt arrow.DataType) (int, error) {
	if fw, ok := dt.(arrow.FixedWidthDataType); ok && fw.BitWidth()%8 == 0 && fw.BitWidth() > 0 {
		return fw.BitWidth() / 8, nil
	}
	return 0, fmt.Errorf("Arrow type %s: %w", dt, errUnsupportedConversion)
}

// convertDense returns the dense values in the Arrow storage layout, width
// bytes each, converting them when the conversion asks. Converted values
// are written to dst (at least d.N*width bytes, 8-byte aligned: an Arrow
// buffer or the leaf's scratch); an identity conversion returns the
// decoded values themselves without copying.
func convertDense(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width int, int96Unit arrow.TimeUnit) ([]byte, error) {
	n := d.N
	if len(dst) < n*width {
		return nil, fmt.Errorf("conversion buffer of %d bytes for %d values of %d: %w", len(dst), n, width, errOutOfRange)
	}
	switch conv.Kind {
	case typemap.Identity:
		return convertIdentity(dst, conv, dt, d, width, n)
	case typemap.IntCast:
		return convertIntCast(dst, conv, dt, d, width, n)
	case typemap.Scale:
		return convertScale(dst, conv, dt, d, width, n)
	case typemap.Int96:
		return convertInt96(dst, conv, dt, d, width, n)
	case typemap.Decimal:
		return convertDecimal(dst, conv, dt, d, width, n)
	case typemap.Interval:
		return convertInterval(dst, conv, dt, d, width, n)
	}
	return nil, unsupportedConversion(conv, dt, d)
}

// convertIdentity returns the decoded values themselves, checking that
// their width is the Arrow type's.
func convertIdentity(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	switch d.Physical {
	case format.Type_INT32:
		return int32Bytes(d.Int32[:n]), checkWidth(width, 4, dt)
	case format.Type_INT64:
		return int64Bytes(d.Int64[:n]), checkWidth(width, 8, dt)
	case format.Type_FLOAT:
		return float32Bytes(d.Float32[:n]), checkWidth(width, 4, dt)
	case format.Type_DOUBLE:
		return float64Bytes(d.Float64[:n]), checkWidth(width, 8, dt)
	case format.Type_FIXED_LEN_BYTE_ARRAY, format.Type_INT96:
		return d.Fixed[:n*d.Width], checkWidth(width, d.Width, dt)
	}
	return nil, unsupportedConversion(conv, dt, d)
}

// convertIntCast narrows or widens INT32/INT64 values to width bytes.
func convertIntCast(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	out := dst[:n*width]
	switch d.Physical {
	case format.Type_INT32:
		castToWidth(out, d.Int32[:n], width, dt)
	case format.Type_INT64:
		castToWidth(out, d.Int64[:n], width, dt)
	default:
		return nil, fmt.Errorf("integer cast of %v: %w", d.Physical, errUnsupportedConversion)
	}
	return out, nil
}

// convertScale multiplies or divides integer values by the conversion's
// factor (time units), widening first where the product needs 64 bits.
func convertScale(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	switch d.Physical {
	case format.Type_INT32:
		if width == 8 {
			// Widen first (DATE days → Date64 milliseconds): the
			// product needs 64 bits.
			wide := arrow.Int64Traits.CastFromBytes(dst[:n*8])
			castInts(wide, d.Int32[:n])
			if conv.Mul > 1 {
				if err := scaleUp(wide, wide, conv.Mul); err != nil {
					return nil, err
				}
			} else {
				scaleDown(wide, wide, conv.Div)
			}
			return int64Bytes(wide), nil
		}
		vals := arrow.Int32Traits.CastFromBytes(dst[:n*4])
		if conv.Mul > 1 {
			if err := scaleUp(vals, d.Int32[:n], conv.Mul); err != nil {
				return nil, err
			}
		} else {
			scaleDown(vals, d.Int32[:n], conv.Div)
		}
		return int32Bytes(vals), nil
	case format.Type_INT64:
		vals := make([]int64, n)
		if conv.Mul > 1 {
			if err := scaleUp(vals, d.Int64[:n], conv.Mul); err != nil {
				return nil, err
			}
		} else {
			scaleDown(vals, d.Int64[:n], conv.Div)
		}
		if width == 4 {
			narrow := make([]int32, n)
			for i, v := range vals {
				if v < math.MinInt32 || v > math.MaxInt32 {
					return nil, fmt.Errorf("%d as %s: %w", v, dt, errOutOfRange)
				}
				narrow[i] = int32(v)
			}
			return int32Bytes(narrow), nil
		}
		return int64Bytes(vals), nil
	}
	return nil, unsupportedConversion(conv, dt, d)
}

// convertInt96 turns INT96 timestamps into int64 timestamps of the
// conversion's unit.
func convertInt96(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	vals := arrow.Int64Traits.CastFromBytes(dst[:n*8])
	div := int64(1)
	switch conv.Unit {
	case arrow.Microsecond:
		div = 1_000
	case arrow.Millisecond:
		div = 1_000_000
	case arrow.Second:
		div = 1_000_000_000
	}
	if err := int96ToTimestamp(vals, d.Fixed[:n*12], div); err != nil {
		return nil, err
	}
	return int64Bytes(vals), nil
}

// convertDecimal turns INT32, INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY
// unscaled values into Arrow decimals of width bytes.
func convertDecimal(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	out := dst[:n*width]
	switch d.Physical {
	case format.Type_INT32:
		return out, decimalFromInts(out, d.Int32[:n], width)
	case format.Type_INT64:
		return out, decimalFromInts(out, d.Int64[:n], width)
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		if d.Width <= 8 && width >= 8 {
			// The common case (precision ≤ 18 in FLBA, e.g. Spark's
			// DECIMAL(15,2) in 7 bytes): one 64-bit load per value.
			decimalsFromShortBigEndian(out, d.Fixed[:n*d.Width], d.Width, width)
			return out, nil
		}
		for i := 0; i < n; i++ {
			if err := decimalFromBigEndian(out[i*width:(i+1)*width], d.Fixed[i*d.Width:(i+1)*d.Width]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case format.Type_BYTE_ARRAY:
		for i := 0; i < n; i++ {
			if err := decimalFromBigEndian(out[i*width:(i+1)*width], d.Data[d.Offsets[i]:d.Offsets[i+1]]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, unsupportedConversion(conv, dt, d)
}

// convertInterval turns 12-byte INTERVAL values into the Arrow interval
// type dt.
func convertInterval(dst []byte, conv typemap.Conversion, dt arrow.DataType, d *column.Values, width, n int) ([]byte, error) {
	if d.Physical != format.Type_FIXED_LEN_BYTE_ARRAY || d.Width != 12 {
		return nil, fmt.Errorf("INTERVAL stored as %v(%d): %w", d.Physical, d.Width, errUnsupportedConversion)
	}
	switch dt.ID() {
	case arrow.INTERVAL_MONTH_DAY_NANO:
		out := dst[:n*16]
		return out, intervalToMonthDayNano(out, d.Fixed[:n*12])
	case arrow.INTERVAL_DAY_TIME:
		out := dst[:n*8]
		for i := 0; i < n; i++ {
			s := d.Fixed[i*12:]
			if m := binary.LittleEndian.Uint32(s); m != 0 {
				return nil, fmt.Errorf("INTERVAL of %d months as %s: %w", m, dt, errOutOfRange)
			}
			copy(out[i*8:], s[4:12])
		}
		return out, nil
	case arrow.INTERVAL_MONTHS:
		out := dst[:n*4]
		for i := 0; i < n; i++ {
			s := d.Fixed[i*12:]
			if binary.LittleEndian.Uint64(s[4:]) != 0 {
				return nil, fmt.Errorf("INTERVAL with days or milliseconds as %s: %w", dt, errOutOfRange)
			}
			copy(out[i*4:], s[:4])
		}
		return out, nil
	}
	return nil, unsupportedConversion(conv, dt, d)
}

// unsupportedConversion reports values of d that conv cannot turn into dt.
func unsupportedConversion(conv typemap.Conversion, dt arrow.DataType, d *column.Values) error {
	return fmt.Errorf("%v (%v) to %s: %w", conv.Kind, d.Physical, dt, errUnsupportedConversion)
}

func checkWidth(have, want int, dt arrow.DataType) error {
	if have != want {
		return fmt.Errorf("%d-byte values as %s: %w", want, dt, errUnsupportedConversion)
	}
	return nil
}

func castToWidth[S int32 | int64](out []byte, src []S, width int, dt arrow.DataType) {
	switch width {
	case 1:
		for i, v := range src {
			out[i] = byte(v)
		}
	case 2:
		for i, v := range src {
			binary.LittleEndian.PutUint16(out[i*2:], uint16(v))
		}
	case 4:
		for i, v := range src {
			binary.LittleEndian.PutUint32(out[i*4:], uint32(v))
		}
	case 8:
		signed := arrow.IsSignedInteger(dt.ID())
		for i, v := range src {
			x := uint64(int64(v))
			if !signed {
				// Unsigned targets take the bits of the physical width.
				var z S
				if any(z) == any(int32(0)) {
					x = uint64(uint32(v))
				}
			}
			binary.LittleEndian.PutUint64(out[i*8:], x)
		}
	}
}

// buildBinary builds a binary or string array: the data stays as decoded,
// and null slots get empty ranges in the offsets.
// checkUTF8 checks that the byte arrays given by offsets into data are
// UTF-8, as Arrow requires of strings: the data in one pass, then that no
// value starts on a continuation byte (which would split a character
// between two values that are each invalid).
func checkUTF8(offsets []int32, data []byte) error {
	if isASCII(data) {
		return nil // no character to split either
	}
	if utf8.Valid(data) {
		// Offsets rise; those at the end of the data (trailing empty
		// values) start no character.
		k := len(offsets)
		for k > 0 && int(offsets[k-1]) >= len(data) {
			k--
		}
		split := false
		for _, o := range offsets[:k] {
			split = split || data[o]&0xc0 == 0x80 // branch-free: SETcc and OR
		}
		if !split {
			return nil
		}
	}
	for i := 0; i+1 < len(offsets); i++ {
		if v := data[offsets[i]:offsets[i+1]]; !utf8.Valid(v) {
			return fmt.Errorf("string value %d is not valid UTF-8 (%q): %w", i, v[:min(len(v), 16)], pagecodec.ErrCorrupt)
		}
	}
	return fmt.Errorf("string values are not valid UTF-8: %w", pagecodec.ErrCorrupt)
}

// isASCII reports whether no byte of b has its high bit set: an OR of
// 8-byte words, 32 bytes a step, tested once per 4 KiB: 37 GB/s where utf8.Valid,
// which branches on every word, did 13 (BenchmarkCheckUTF8).
func isASCII(b []byte) bool {
	const high = 0x8080808080808080
	for len(b) >= 4096 {
		var a0, a1, a2, a3 uint64
		for c := b[:4096]; len(c) >= 32; c = c[32:] {
			a0 |= binary.LittleEndian.Uint64(c)
			a1 |= binary.LittleEndian.Uint64(c[8:])
			a2 |= binary.LittleEndian.Uint64(c[16:])
			a3 |= binary.LittleEndian.Uint64(c[24:])
		}
		if (a0|a1|a2|a3)&high != 0 {
			return false
		}
		b = b[4096:]
	}
	var a byte
	for _, c := range b {
		a |= c
	}
	return a < 0x80
}

func buildBinary(mem memory.Allocator, dt arrow.DataType, d *denseValues, s slots, validBuf *memory.Buffer) (arrow.Array, error) {
	if d.ViewMode && d.Physical == format.Type_BYTE_ARRAY {
		return buildPageViews(mem, dt, d, s, validBuf)
	}
	offsets, data := d.Offsets, d.Data
	if d.Physical == format.Type_FIXED_LEN_BYTE_ARRAY {
		offsets = make([]int32, d.N+1)
		for i := range offsets {
			offsets[i] = int32(i * d.Width)
		}
		data = d.Fixed[:d.N*d.Width]
	}
	if len(data) > maxByteArrayData && dt.ID() != arrow.LARGE_STRING && dt.ID() != arrow.LARGE_BINARY {
		return nil, fmt.Errorf("%d bytes of %s in one batch exceed 32-bit offsets; read with a smaller BatchSize: %w",
			len(data), dt, errOutOfRange)
	}
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		if err := checkUTF8(offsets, data); err != nil {
			releaseBuffers(validBuf)
			return nil, err
		}
	}
	switch dt.ID() {
	case arrow.STRING, arrow.BINARY:
		if d.offBuf != nil && d.Physical == format.Type_BYTE_ARRAY {
			off, dataBuf := d.takeBinary(s)
			return makeArray(dt, s, validBuf, off, dataBuf), nil
		}
		off := newUninitBuffer(mem, (s.n+1)*4)
		levels.SpreadOffsets(arrow.Int32Traits.CastFromBytes(off.Bytes()), offsets, s.bitmap(), s.n)
		var dataBuf *memory.Buffer
		if _, fresh := mem.(freshAllocator); fresh {
			dataBuf = freshCopy(data)
		} else {
			dataBuf = newUninitBuffer(mem, len(data))
			copy(dataBuf.Bytes(), data)
		}
		return makeArray(dt, s, validBuf, off, dataBuf), nil
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		off := newUninitBuffer(mem, (s.n+1)*8)
		out := arrow.Int64Traits.CastFromBytes(off.Bytes())
		k := 0
		for i := 0; i < s.n; i++ {
			out[i] = int64(offsets[k])
			if s.valid == nil || s.nullCount == 0 || bitutil.BitIsSet(s.valid, i) {
				k++
			}
		}
		out[s.n] = int64(offsets[k])
		dataBuf := newUninitBuffer(mem, len(data))
		copy(dataBuf.Bytes(), data)
		return makeArray(dt, s, validBuf, off, dataBuf), nil
	default: // views
		return buildViews(mem, dt, offsets, data, s, validBuf), nil
	}
}

// viewInlineSize is the longest value a view holds inline (the Arrow
// columnar format's BinaryView layout).
const viewInlineSize = 12

// buildViews lays the batch's values out as a StringView or BinaryView
// array: one 16-byte view per slot (null slots zero), values of up to 12
// bytes inline, longer ones as length, 4-byte prefix, buffer 0 and offset
// into one copy of the batch's data (which fits int32 offsets: a batch's
// byte array data stays below maxByteArrayData). Built directly rather than
// through a builder, which copied each value into a Go string first.
func buildViews(mem memory.Allocator, dt arrow.DataType, offsets []int32, data []byte, s slots, validBuf *memory.Buffer) arrow.Array {
	views := newUninitBuffer(mem, s.n*arrow.ViewHeaderSizeBytes)
	out := views.Bytes()
	clear(out) // null slots and the bytes short values leave stay zero
	hasNulls := s.valid != nil && s.nullCount > 0
	long := false
	k := 0
	for i := 0; i < s.n; i++ {
		if hasNulls && !bitutil.BitIsSet(s.valid, i) {
			continue
		}
		lo, hi := offsets[k], offsets[k+1]
		k++
		v := out[i*arrow.ViewHeaderSizeBytes : (i+1)*arrow.ViewHeaderSizeBytes]
		binary.LittleEndian.PutUint32(v, uint32(hi-lo))
		if hi-lo <= viewInlineSize {
			copy(v[4:], data[lo:hi])
			continue
		}
		copy(v[4:8], data[lo:lo+4])
		binary.LittleEndian.PutUint32(v[12:], uint32(lo)) // buffer index 0 in v[8:12]
		long = true
	}
	buffers := []*memory.Buffer{validBuf, views}
	if long {
		end := int(offsets[k])
		var dataBuf *memory.Buffer
		if _, fresh := mem.(freshAllocator); fresh {
			dataBuf = freshCopy(data[:end])
		} else {
			dataBuf = newUninitBuffer(mem, end)
			copy(dataBuf.Bytes(), data[:end])
		}
		buffers = append(buffers, dataBuf)
	}
	return makeArray(dt, s, buffers...)
}

func int32Bytes(v []int32) []byte     { return arrow.Int32Traits.CastToBytes(v) }
func int64Bytes(v []int64) []byte     { return arrow.Int64Traits.CastToBytes(v) }
func float32Bytes(v []float32) []byte { return arrow.Float32Traits.CastToBytes(v) }
func float64Bytes(v []float64) []byte { return arrow.Float64Traits.CastToBytes(v) }

// growBytes returns b resized to n bytes, reallocating (8-byte aligned, as
// every Go allocation of this size is) only when it is too small.
func growBytes(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}
