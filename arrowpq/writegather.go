package arrowpq

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

// gathered holds the non-null values of one piece in their physical form.
// The views (v) either alias the Arrow buffers (identity
// conversion of a contiguous run) or the owned scratch slices (s), which
// are reused from piece to piece.
type gathered struct {
	n int // values
	v column.Batch

	unordered bool // idx are dictionary indices that are not one run
	// memo: the views hold the distinct values of the piece, which are
	// the Arrow dictionary values of sidx (see writedict.go); nanExtra is
	// the NaN occurrences beyond one per distinct NaN.
	memo     bool
	nanExtra int64
	// memoMinMax: BYTE_ARRAY memo pieces hold only their fresh values;
	// memoLo and memoHi are the least and greatest of all their values.
	memoMinMax     bool
	memoLo, memoHi []byte
	// direct: the BYTE_ARRAY values are already PLAIN encoded in plain,
	// the column writer's PLAIN buffer, from byte directFrom on (see
	// gatherByteArray and column.Writer.PlainBuffer).
	direct     bool
	directFrom int
	plain      []byte

	rawBytes  int64 // PLAIN size of the values, for piece sizing
	dictBytes int64 // worst-case growth of a dictionary by these values
	unencoded int64 // BYTE_ARRAY bytes without length prefixes

	// s holds the owned scratch slices the views may point into, reused
	// from piece to piece; sidx the dictionary indices of the piece.
	s    column.Batch
	sidx []int64
	tmp  []byte
}

func bufferBytes(d arrow.ArrayData, i int) []byte {
	bufs := d.Buffers()
	if i >= len(bufs) || bufs[i] == nil {
		return nil
	}
	return bufs[i].Bytes()
}

// contiguous reports whether idx is a run of consecutive indices (the
// Shredder's indices increase strictly, so first and last tell).
func contiguous(idx []int64) bool {
	return len(idx) > 0 && idx[len(idx)-1]-idx[0] == int64(len(idx)-1)
}

// contig reports whether idx is one run of the values array.
func (g *gathered) contig(idx []int64) bool { return !g.unordered && contiguous(idx) }

// contiguousAny is contiguous for indices in any order (dictionary
// indices), checking every step.
func contiguousAny(idx []int64) bool {
	if len(idx) == 0 {
		return false
	}
	for i := 1; i < len(idx); i++ {
		if idx[i] != idx[i-1]+1 {
			return false
		}
	}
	return true
}

func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// gatherConv stores D(src[j]) for every j in idx; identity conversions of
// contiguous runs alias src instead.
func gatherConv[D, S int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](dst []D, src []S, idx []int64) []D {
	dst = grown(dst, len(idx))
	for i, j := range idx {
		dst[i] = D(src[j])
	}
	return dst
}

// gatherScaled gathers src at idx into *dst (its scratch), each value
// multiplied by mul, failing on one that overflows T.
func gatherScaled[T int32 | int64](dst *[]T, src []T, idx []int64, mul int64) error {
	*dst = gatherConv(*dst, src, idx)
	return scaleUp(*dst, *dst, mul)
}

func view[T any](contig bool, scratch *[]T, src []T, idx []int64) []T {
	if contig {
		return src[idx[0] : idx[len(idx)-1]+1]
	}
	d := grown(*scratch, len(idx))
	for i, j := range idx {
		d[i] = src[j]
	}
	*scratch = d
	return d
}

func typed[T any](cast func([]byte) []T, d arrow.ArrayData) []T {
	v := cast(bufferBytes(d, 1))
	off := d.Offset()
	if off > len(v) {
		return nil
	}
	return v[off:]
}

// mapDictIndices turns value indices into indices of the dictionary.
func mapDictIndices[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []int64, ind []T, idx []int64, dictLen int) ([]int64, error) {
	dst = grown(dst, len(idx))
	for i, j := range idx {
		v := int64(ind[j])
		if v < 0 || v >= int64(dictLen) {
			return dst, fmt.Errorf("dictionary index %d outside a dictionary of %d values: %w", v, dictLen, errInvalidArray)
		}
		dst[i] = v
	}
	return dst, nil
}

var errInvalidArray = fmt.Errorf("invalid array data")

// gather fills c.g from the value indices of the last Shred.
func (c *columnWriter) gather() error {
	g := &c.g
	// A piece gathered again (with fewer rows) drops its direct values:
	// they were not handed to the column writer.
	g.direct = false
	idx := c.shred.ValueIndices()
	g.n = len(idx)
	g.rawBytes, g.dictBytes, g.unencoded, g.nanExtra = 0, 0, 0, 0
	g.unordered, g.memo, g.memoMinMax = false, false, false
	if g.n == 0 || c.conv.Kind == typemap.Null {
		g.n = 0
		return nil
	}
	if c.dictIdx != nil {
		d := c.dictIdx.Data()
		dl := c.values.Len()
		var err error
		switch c.dictIdx.DataType().ID() {
		case arrow.INT8:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Int8Traits.CastFromBytes, d), idx, dl)
		case arrow.UINT8:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Uint8Traits.CastFromBytes, d), idx, dl)
		case arrow.INT16:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Int16Traits.CastFromBytes, d), idx, dl)
		case arrow.UINT16:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Uint16Traits.CastFromBytes, d), idx, dl)
		case arrow.INT32:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Int32Traits.CastFromBytes, d), idx, dl)
		case arrow.UINT32:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Uint32Traits.CastFromBytes, d), idx, dl)
		case arrow.INT64:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Int64Traits.CastFromBytes, d), idx, dl)
		case arrow.UINT64:
			g.sidx, err = mapDictIndices(g.sidx, typed(arrow.Uint64Traits.CastFromBytes, d), idx, dl)
		default:
			return fmt.Errorf("dictionary index type %s: %w", c.dictIdx.DataType(), metadata.ErrUnsupported)
		}
		if err != nil {
			return err
		}
		idx = g.sidx
		if c.memo.on && c.cw.Dictionary() {
			return c.gatherMemo(idx)
		}
		g.unordered = !contiguousAny(idx)
		// The dictionary itself may hold nulls; they are written as nulls
		// only if the levels say so, so a null dictionary entry referenced
		// by a valid index is invalid here.
		if c.values.NullN() > 0 {
			for _, j := range idx {
				if c.values.IsNull(int(j)) {
					return fmt.Errorf("valid dictionary index refers to a null dictionary value: %w", errInvalidArray)
				}
			}
		}
	}
	return c.gatherValues(idx)
}

// gatherValues fills the views of c.g with the values idx of c.values, in
// their physical form, and sets the byte counts for them.
func (c *columnWriter) gatherValues(idx []int64) error {
	g := &c.g
	arr := c.values
	d := arr.Data()
	n := int64(len(idx))
	switch c.phys {
	case format.Type_BOOLEAN:
		bits := bufferBytes(d, 1)
		if g.contig(idx) {
			g.v.Bits, g.v.BitOffset = bits, d.Offset()+int(idx[0])
		} else {
			nb := (len(idx) + 7) / 8
			g.s.Bits = grown(g.s.Bits, nb)
			clear(g.s.Bits)
			off := int64(d.Offset())
			for i, j := range idx {
				b := off + j
				g.s.Bits[i>>3] |= (bits[b>>3] >> (b & 7) & 1) << (i & 7)
			}
			g.v.Bits, g.v.BitOffset = g.s.Bits, 0
		}
		g.v.NumBits = len(idx)
		g.rawBytes = (n + 7) / 8
		return nil
	case format.Type_INT32:
		g.rawBytes, g.dictBytes = 4*n, 4*n
		return c.gatherInt32(arr, idx)
	case format.Type_INT64:
		g.rawBytes, g.dictBytes = 8*n, 8*n
		return c.gatherInt64(arr, idx)
	case format.Type_FLOAT:
		g.rawBytes, g.dictBytes = 4*n, 4*n
		g.v.Float = view(g.contig(idx), &g.s.Float, typed(arrow.Float32Traits.CastFromBytes, d), idx)
		return nil
	case format.Type_DOUBLE:
		g.rawBytes, g.dictBytes = 8*n, 8*n
		g.v.Double = view(g.contig(idx), &g.s.Double, typed(arrow.Float64Traits.CastFromBytes, d), idx)
		return nil
	case format.Type_INT96:
		g.rawBytes, g.dictBytes = 12*n, 12*n
		g.s.Int64 = gatherConv(g.s.Int64, typed(arrow.Int64Traits.CastFromBytes, d), idx)
		div := int64(1)
		switch c.conv.Unit {
		case arrow.Second:
			div = 1_000_000_000
		case arrow.Millisecond:
			div = 1_000_000
		case arrow.Microsecond:
			div = 1_000
		}
		// Values beyond the nanosecond range of INT96 would wrap.
		if div > 1 {
			lim := int64(math.MaxInt64) / div
			for _, v := range g.s.Int64 {
				if v > lim || v < -lim {
					return rangeError("timestamp", v)
				}
			}
		}
		g.tmp = timestampToInt96(g.tmp[:0], g.s.Int64, div)
		g.s.Int96 = grown(g.s.Int96, len(idx))
		for i := range g.s.Int96 {
			copy(g.s.Int96[i][:], g.tmp[i*12:])
		}
		g.v.Int96 = g.s.Int96
		return nil
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		g.rawBytes, g.dictBytes = int64(c.width)*n, int64(c.width)*n
		return c.gatherFixed(arr, idx)
	case format.Type_BYTE_ARRAY:
		return c.gatherByteArray(arr, idx)
	}
	return fmt.Errorf("physical type %s: %w", c.phys, metadata.ErrUnsupported)
}

func (c *columnWriter) gatherInt32(arr arrow.Array, idx []int64) error {
	g := &c.g
	d := arr.Data()
	switch c.conv.Kind {
	case typemap.Identity:
		g.v.Int32 = view(g.contig(idx), &g.s.Int32, typed(arrow.Int32Traits.CastFromBytes, d), idx)
		return nil
	case typemap.IntCast:
		switch arr.DataType().ID() {
		case arrow.INT8:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Int8Traits.CastFromBytes, d), idx)
		case arrow.UINT8:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Uint8Traits.CastFromBytes, d), idx)
		case arrow.INT16:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Int16Traits.CastFromBytes, d), idx)
		case arrow.UINT16:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Uint16Traits.CastFromBytes, d), idx)
		case arrow.UINT32:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Uint32Traits.CastFromBytes, d), idx)
		case arrow.INT32:
			g.s.Int32 = gatherConv(g.s.Int32, typed(arrow.Int32Traits.CastFromBytes, d), idx)
		default:
			return fmt.Errorf("int cast from %s to INT32: %w", arr.DataType(), metadata.ErrUnsupported)
		}
		g.v.Int32 = g.s.Int32
		return nil
	case typemap.Scale:
		switch arr.DataType().ID() {
		case arrow.DATE64:
			g.s.Int64 = gatherConv(g.s.Int64, typed(arrow.Int64Traits.CastFromBytes, d), idx)
			g.s.Int32 = grown(g.s.Int32, len(idx))
			div := c.conv.Div
			for i, v := range g.s.Int64 {
				q := v / div
				if v%div < 0 {
					q-- // days are floored: -1 ms is the day before the epoch
				}
				if q < math.MinInt32 || q > math.MaxInt32 {
					return rangeError("date64", v)
				}
				g.s.Int32[i] = int32(q)
			}
		default: // time32(s) -> TIME(MILLIS)
			if err := gatherScaled(&g.s.Int32, typed(arrow.Int32Traits.CastFromBytes, d), idx, c.conv.Mul); err != nil {
				return err
			}
		}
		g.v.Int32 = g.s.Int32
		return nil
	case typemap.Decimal:
		return c.gatherDecimalInt(arr, idx, 4)
	}
	return fmt.Errorf("conversion %s to INT32: %w", c.conv, metadata.ErrUnsupported)
}

func (c *columnWriter) gatherInt64(arr arrow.Array, idx []int64) error {
	g := &c.g
	d := arr.Data()
	switch c.conv.Kind {
	case typemap.Identity, typemap.IntCast:
		g.v.Int64 = view(g.contig(idx), &g.s.Int64, typed(arrow.Int64Traits.CastFromBytes, d), idx)
		return nil
	case typemap.Scale:
		if err := gatherScaled(&g.s.Int64, typed(arrow.Int64Traits.CastFromBytes, d), idx, c.conv.Mul); err != nil {
			return err
		}
		g.v.Int64 = g.s.Int64
		return nil
	case typemap.Decimal:
		return c.gatherDecimalInt(arr, idx, 8)
	}
	return fmt.Errorf("conversion %s to INT64: %w", c.conv, metadata.ErrUnsupported)
}

// gatherDecimalInt stores decimals as INT32 (size 4) or INT64 (size 8)
// unscaled values, failing on values that do not fit.
func (c *columnWriter) gatherDecimalInt(arr arrow.Array, idx []int64, size int) error {
	g := &c.g
	d := arr.Data()
	w := c.conv.ByteWidth
	raw := bufferBytes(d, 1)
	off := int64(d.Offset())
	if len(idx) > 0 && (off+maxIndex(idx)+1)*int64(w) > int64(len(raw)) {
		return fmt.Errorf("decimal buffer of %d bytes too short for %d values: %w", len(raw), off+maxIndex(idx)+1, errInvalidArray)
	}
	var err error
	if size == 4 {
		g.s.Int32 = grown(g.s.Int32, len(idx))
		err = decimalsToInt(g.s.Int32, raw, w, off, idx, 4)
	} else {
		g.s.Int64 = grown(g.s.Int64, len(idx))
		err = decimalsToInt(g.s.Int64, raw, w, off, idx, 8)
	}
	g.v.Int32, g.v.Int64 = g.s.Int32, g.s.Int64
	return err
}

// decimalsToInt stores in dst[i] the little-endian two's complement decimal
// of w bytes (4, 8, 16 or 32) at index off+idx[i] of raw, failing on a value
// that does not fit size (4 or 8) bytes. One loop per width, with word loads: byte by byte it
// was 14% of BenchmarkWrite data=lineitem.
func decimalsToInt[D int32 | int64](dst []D, raw []byte, w int, off int64, idx []int64, size int) error {
	dst = dst[:len(idx)]
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if size == 4 {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	for i, j := range idx {
		p := raw[(off+j)*int64(w):][:w]
		var v int64
		switch w {
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		case 8:
			v = int64(binary.LittleEndian.Uint64(p))
		case 16:
			v = int64(binary.LittleEndian.Uint64(p))
			if binary.LittleEndian.Uint64(p[8:]) != uint64(v>>63) {
				return decimalRangeError(size)
			}
		case 32:
			v = int64(binary.LittleEndian.Uint64(p))
			sign := uint64(v >> 63)
			if binary.LittleEndian.Uint64(p[8:]) != sign || binary.LittleEndian.Uint64(p[16:]) != sign || binary.LittleEndian.Uint64(p[24:]) != sign {
				return decimalRangeError(size)
			}
		default:
			return fmt.Errorf("decimal of %d bytes: %w", w, metadata.ErrUnsupported)
		}
		if v < lo || v > hi {
			return decimalRangeError(size)
		}
		dst[i] = D(v)
	}
	return nil
}

func decimalRangeError(size int) error {
	return fmt.Errorf("decimal does not fit %d bytes: %w", size, errOutOfRange)
}

// maxIndex returns the largest of idx (not empty).
func maxIndex(idx []int64) int64 {
	m := idx[0]
	for _, j := range idx[1:] {
		m = max(m, j)
	}
	return m
}

func (c *columnWriter) gatherFixed(arr arrow.Array, idx []int64) error {
	g := &c.g
	d := arr.Data()
	raw := bufferBytes(d, 1)
	off := int64(d.Offset())
	w := int64(c.width)
	switch c.conv.Kind {
	case typemap.Identity:
		// FixedSizeBinary, UUID and Float16 store their bytes as they are.
		sw := w
		if fsb, ok := arr.DataType().(*arrow.FixedSizeBinaryType); ok {
			sw = int64(fsb.ByteWidth)
		}
		if sw != w {
			return fmt.Errorf("fixed size binary of width %d for FIXED_LEN_BYTE_ARRAY(%d): %w", sw, w, metadata.ErrUnsupported)
		}
		if g.contig(idx) {
			g.v.FixedLenByteArray = raw[(off+idx[0])*w : (off+idx[len(idx)-1]+1)*w]
			return nil
		}
		g.s.FixedLenByteArray = grown(g.s.FixedLenByteArray, len(idx)*int(w))
		for i, j := range idx {
			copy(g.s.FixedLenByteArray[int64(i)*w:], raw[(off+j)*w:(off+j+1)*w])
		}
		g.v.FixedLenByteArray = g.s.FixedLenByteArray
		return nil
	case typemap.Decimal:
		aw := int64(c.conv.ByteWidth)
		g.s.FixedLenByteArray = grown(g.s.FixedLenByteArray, len(idx)*int(w))
		for i, j := range idx {
			if err := decimalToBigEndian(g.s.FixedLenByteArray[int64(i)*w:int64(i+1)*w], raw[(off+j)*aw:(off+j+1)*aw]); err != nil {
				return err
			}
		}
		g.v.FixedLenByteArray = g.s.FixedLenByteArray
		return nil
	case typemap.Interval:
		g.s.FixedLenByteArray = grown(g.s.FixedLenByteArray, len(idx)*12)
		out := g.s.FixedLenByteArray
		switch arr.DataType().ID() {
		case arrow.INTERVAL_MONTH_DAY_NANO:
			for i, j := range idx {
				s := raw[(off+j)*16 : (off+j+1)*16]
				months := int32(binary.LittleEndian.Uint32(s[0:]))
				days := int32(binary.LittleEndian.Uint32(s[4:]))
				nanos := int64(binary.LittleEndian.Uint64(s[8:]))
				if months < 0 || days < 0 || nanos < 0 || nanos%1_000_000 != 0 || nanos/1_000_000 > math.MaxUint32 {
					return rangeError("interval (INTERVAL needs non-negative months, days and whole milliseconds)", fmt.Sprintf("%dmo%dd%dns", months, days, nanos))
				}
				putInterval(out[i*12:], uint32(months), uint32(days), uint32(nanos/1_000_000))
			}
		case arrow.INTERVAL_MONTHS:
			for i, j := range idx {
				months := int32(binary.LittleEndian.Uint32(raw[(off+j)*4:]))
				if months < 0 {
					return rangeError("interval months", months)
				}
				putInterval(out[i*12:], uint32(months), 0, 0)
			}
		case arrow.INTERVAL_DAY_TIME:
			for i, j := range idx {
				s := raw[(off+j)*8 : (off+j+1)*8]
				days := int32(binary.LittleEndian.Uint32(s[0:]))
				ms := int32(binary.LittleEndian.Uint32(s[4:]))
				if days < 0 || ms < 0 {
					return rangeError("interval", fmt.Sprintf("%dd%dms", days, ms))
				}
				putInterval(out[i*12:], 0, uint32(days), uint32(ms))
			}
		default:
			return fmt.Errorf("interval type %s: %w", arr.DataType(), metadata.ErrUnsupported)
		}
		g.v.FixedLenByteArray = out
		return nil
	}
	return fmt.Errorf("conversion %s to FIXED_LEN_BYTE_ARRAY: %w", c.conv, metadata.ErrUnsupported)
}

func putInterval(b []byte, months, days, ms uint32) {
	binary.LittleEndian.PutUint32(b[0:], months)
	binary.LittleEndian.PutUint32(b[4:], days)
	binary.LittleEndian.PutUint32(b[8:], ms)
}

// gatherRuns copies the values idx of (offs, data) into the scratch
// slices and returns them as offsets and data. Runs of consecutive indices
// (the values between nulls) are copied with one copy each and their
// offsets shifted: a copy per value was half the memmove time of
// BenchmarkWrite data=strings.
func gatherRuns(soffs *[]int32, sdata *[]byte, offs []int32, data []byte, idx []int64) ([]int32, []byte) {
	total := int64(0)
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		total += int64(offs[idx[j-1]+1] - offs[idx[i]])
		i = j
	}
	o := grown(*soffs, len(idx)+1)
	d := grown(*sdata, int(total))
	o[0] = 0
	w := int32(0)
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		start, end := offs[idx[i]], offs[idx[j-1]+1]
		copy(d[w:], data[start:end])
		shift := w - start
		for k, x := range idx[i:j] {
			o[i+k+1] = offs[x+1] + shift
		}
		w += end - start
		i = j
	}
	*soffs, *sdata = o, d
	return o, d
}

// appendPlainRuns appends the PLAIN encoding of the values idx of (offs,
// data) to dst, a run of consecutive indices at a time.
func appendPlainRuns(dst []byte, offs []int32, data []byte, idx []int64) []byte {
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		dst = pagecodec.AppendPlainByteArray(dst, offs[idx[i]:idx[j-1]+2], data)
		i = j
	}
	return dst
}

// plainDirect reports whether BYTE_ARRAY values are written in PLAIN now,
// which gatherByteArray may append to the page itself.
func (c *columnWriter) plainDirect() bool {
	_, ok := c.cw.PlainBuffer()
	return ok
}

func (c *columnWriter) gatherByteArray(arr arrow.Array, idx []int64) error {
	g := &c.g
	d := arr.Data()
	off := int64(d.Offset())
	n := int64(len(idx))
	switch a := arr.(type) {
	case *array.String, *array.Binary:
		offs := arrow.Int32Traits.CastFromBytes(bufferBytes(d, 1))
		data := bufferBytes(d, 2)
		switch {
		case g.contig(idx):
			g.v.Offsets, g.v.Data = offs[off+idx[0]:off+idx[len(idx)-1]+2], data
		case c.plainDirect():
			// Values between nulls go straight into the PLAIN page, run by
			// run: one copy instead of a gather and an encoding.
			buf, _ := c.cw.PlainBuffer()
			from := len(buf)
			g.plain = appendPlainRuns(buf, offs[off:], data, idx)
			g.direct, g.directFrom = true, from
			g.v.Offsets, g.v.Data = nil, g.plain[from:]
			g.unencoded = int64(len(g.v.Data)) - 4*n
			g.rawBytes, g.dictBytes = int64(len(g.v.Data)), int64(len(g.v.Data))
			return nil
		default:
			g.v.Offsets, g.v.Data = gatherRuns(&g.s.Offsets, &g.s.Data, offs[off:], data, idx)
		}
	case *array.LargeString, *array.LargeBinary:
		offs := arrow.Int64Traits.CastFromBytes(bufferBytes(d, 1))
		data := bufferBytes(d, 2)
		total := int64(0)
		for _, j := range idx {
			total += offs[off+j+1] - offs[off+j]
		}
		if total > math.MaxInt32 {
			return fmt.Errorf("%d bytes of large binary values in one piece: %w", total, metadata.ErrLimit)
		}
		g.s.Offsets = grown(g.s.Offsets, len(idx)+1)
		g.s.Data = grown(g.s.Data, int(total))
		w := int32(0)
		g.s.Offsets[0] = 0
		for i, j := range idx {
			w += int32(copy(g.s.Data[w:], data[offs[off+j]:offs[off+j+1]]))
			g.s.Offsets[i+1] = w
		}
		g.v.Offsets, g.v.Data = g.s.Offsets, g.s.Data
	case *array.StringView, *array.BinaryView:
		var bv *array.BinaryView
		var sv *array.StringView
		if x, ok := a.(*array.BinaryView); ok {
			bv = x
		} else {
			sv = a.(*array.StringView)
		}
		g.s.Offsets = grown(g.s.Offsets, len(idx)+1)
		g.s.Data = g.s.Data[:0]
		g.s.Offsets[0] = 0
		for i, j := range idx {
			if bv != nil {
				g.s.Data = append(g.s.Data, bv.Value(int(j))...)
			} else {
				g.s.Data = append(g.s.Data, sv.Value(int(j))...)
			}
			if len(g.s.Data) > math.MaxInt32 {
				return fmt.Errorf("%d bytes of view values in one piece: %w", len(g.s.Data), metadata.ErrLimit)
			}
			g.s.Offsets[i+1] = int32(len(g.s.Data))
		}
		g.v.Offsets, g.v.Data = g.s.Offsets, g.s.Data
	default:
		return fmt.Errorf("arrays of type %s as BYTE_ARRAY: %w", arr.DataType(), metadata.ErrUnsupported)
	}
	total := int64(g.v.Offsets[len(g.v.Offsets)-1] - g.v.Offsets[0])
	g.unencoded = total
	g.rawBytes = total + 4*n
	g.dictBytes = g.rawBytes
	return nil
}
