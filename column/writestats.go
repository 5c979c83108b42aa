package column

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Statistics of written values follow the sort orders of the ColumnOrder
// section of parquet.thrift (TYPE_ORDER): signed or unsigned integer
// comparison by the logical type, floats ignoring NaN (a min of ±0 is written
// as -0, a max of ±0 as +0), decimals by value, byte arrays unsigned
// byte-wise, nothing for INTERVAL and INT96.

// cmpKind is the comparison a column's statistics use.
type cmpKind uint8

const (
	cmpNone cmpKind = iota
	cmpBool
	cmpInt32
	cmpUint32
	cmpInt64
	cmpUint64
	cmpFloat
	cmpDouble
	cmpFloat16
	cmpBytes     // unsigned byte-wise (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)
	cmpDecimalBE // signed big-endian two's complement of equal length
)

// statsKind picks the comparison for column c.
func statsKind(c *metadata.Column) cmpKind {
	order := metadata.SortOrder(c)
	if order == metadata.OrderUndefined {
		return cmpNone
	}
	lt := c.Node.LogicalType()
	switch c.Physical {
	case format.Type_BOOLEAN:
		return cmpBool
	case format.Type_INT32:
		if order == metadata.OrderUnsigned {
			return cmpUint32
		}
		return cmpInt32
	case format.Type_INT64:
		if order == metadata.OrderUnsigned {
			return cmpUint64
		}
		return cmpInt64
	case format.Type_FLOAT:
		return cmpFloat
	case format.Type_DOUBLE:
		return cmpDouble
	case format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY:
		if lt != nil && lt.FLOAT16 != nil && c.Physical == format.Type_FIXED_LEN_BYTE_ARRAY && c.TypeLength == 2 {
			return cmpFloat16
		}
		if order == metadata.OrderSigned {
			return cmpDecimalBE
		}
		return cmpBytes
	}
	return cmpNone
}

// statsAcc accumulates the statistics of a page or a column chunk.
type statsAcc struct {
	kind       cmpKind
	has        bool // a non-NaN value was seen
	iMin, iMax int64
	uMin, uMax uint64
	fMin, fMax float64
	bMin, bMax []byte // owned copies
	nulls      int64
	nans       int64
	// totalOrder: a float column written under IEEE_754_TOTAL_ORDER;
	// tob holds its bounds (NaN and -0 ordered by the spec), which encode
	// returns instead of the TYPE_ORDER ones.
	totalOrder bool
	tob        metadata.TotalOrderBounds
}

func (s *statsAcc) reset() {
	s.has = false
	s.bMin, s.bMax = s.bMin[:0], s.bMax[:0]
	s.nulls, s.nans = 0, 0
	s.tob.Reset()
}

func minMax[T int32 | int64](vals []T) (lo, hi T) {
	lo, hi = vals[0], vals[0]
	for _, v := range vals[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}

func (s *statsAcc) addSigned(lo, hi int64) {
	if !s.has {
		s.iMin, s.iMax, s.has = lo, hi, true
		return
	}
	s.iMin, s.iMax = min(s.iMin, lo), max(s.iMax, hi)
}

func (s *statsAcc) addUnsigned(lo, hi uint64) {
	if !s.has {
		s.uMin, s.uMax, s.has = lo, hi, true
		return
	}
	s.uMin, s.uMax = min(s.uMin, lo), max(s.uMax, hi)
}

func (s *statsAcc) addFloat(lo, hi float64) {
	if !s.has {
		s.fMin, s.fMax, s.has = lo, hi, true
		return
	}
	if lo < s.fMin || (lo == 0 && s.fMin == 0 && math.Signbit(lo)) {
		s.fMin = lo
	}
	if hi > s.fMax || (hi == 0 && s.fMax == 0 && !math.Signbit(hi)) {
		s.fMax = hi
	}
}

func (s *statsAcc) updateInt32(vals []int32) {
	if len(vals) == 0 || s.kind == cmpNone {
		return
	}
	if s.kind == cmpUint32 {
		lo, hi := uint32(vals[0]), uint32(vals[0])
		for _, v := range vals[1:] {
			lo, hi = min(lo, uint32(v)), max(hi, uint32(v))
		}
		s.addUnsigned(uint64(lo), uint64(hi))
		return
	}
	lo, hi := minMax(vals)
	s.addSigned(int64(lo), int64(hi))
}

func (s *statsAcc) updateInt64(vals []int64) {
	if len(vals) == 0 || s.kind == cmpNone {
		return
	}
	if s.kind == cmpUint64 {
		lo, hi := vals[0], vals[0]
		for _, v := range vals[1:] {
			if uint64(v) < uint64(lo) {
				lo = v
			}
			if uint64(v) > uint64(hi) {
				hi = v
			}
		}
		s.addUnsigned(uint64(lo), uint64(hi))
		return
	}
	lo, hi := minMax(vals)
	s.addSigned(lo, hi)
}

func floatMinMax[T float32 | float64](vals []T) (lo, hi T, nans int64, ok bool) {
	i := 0
	for ; i < len(vals); i++ {
		if vals[i] == vals[i] {
			break
		}
		nans++
	}
	if i == len(vals) {
		return 0, 0, nans, false
	}
	lo, hi = vals[i], vals[i]
	for _, v := range vals[i+1:] {
		if v != v {
			nans++
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi, nans, true
}

func (s *statsAcc) updateFloat(vals []float32) {
	if s.totalOrder {
		s.tob.AddFloat(vals)
	}
	lo, hi, nans, ok := floatMinMax(vals)
	s.nans += nans
	if ok && s.kind != cmpNone {
		s.addFloat(float64(lo), float64(hi))
	}
}

func (s *statsAcc) updateDouble(vals []float64) {
	if s.totalOrder {
		s.tob.AddDouble(vals)
	}
	lo, hi, nans, ok := floatMinMax(vals)
	s.nans += nans
	if ok && s.kind != cmpNone {
		s.addFloat(lo, hi)
	}
}

// updateBool takes n values of bitmap from bit off.
func (s *statsAcc) updateBool(bitmap []byte, off, n int) {
	if n == 0 || s.kind == cmpNone {
		return
	}
	ones := 0
	for i := off; i < off+n; i++ {
		ones += int(bitmap[i>>3] >> (i & 7) & 1)
	}
	lo, hi := int64(0), int64(1)
	if ones == n {
		lo = 1
	}
	if ones == 0 {
		hi = 0
	}
	s.addSigned(lo, hi)
}

func (s *statsAcc) less(a, b []byte) bool {
	if s.kind == cmpDecimalBE {
		return metadata.CompareSignedBigEndian(a, b) < 0
	}
	return bytes.Compare(a, b) < 0
}

func (s *statsAcc) addBytes(lo, hi []byte) {
	if !s.has {
		s.bMin, s.bMax, s.has = append(s.bMin[:0], lo...), append(s.bMax[:0], hi...), true
		return
	}
	if s.less(lo, s.bMin) {
		s.bMin = append(s.bMin[:0], lo...)
	}
	if s.less(s.bMax, hi) {
		s.bMax = append(s.bMax[:0], hi...)
	}
}

// updateFixed takes FIXED_LEN_BYTE_ARRAY values of width bytes.
func (s *statsAcc) updateFixed(vals []byte, width int) {
	if len(vals) < width || s.kind == cmpNone {
		return
	}
	if s.kind == cmpFloat16 {
		if s.totalOrder {
			s.tob.AddFloat16(vals)
		}
		var lo, hi float32
		ok := false
		for i := 0; i+2 <= len(vals); i += 2 {
			f := metadata.Float16ToFloat32(binary.LittleEndian.Uint16(vals[i:]))
			if f != f {
				s.nans++
				continue
			}
			if !ok {
				lo, hi, ok = f, f, true
				continue
			}
			lo, hi = min(lo, f), max(hi, f)
		}
		if ok {
			s.addFloat(float64(lo), float64(hi))
		}
		return
	}
	lo, hi := vals[:width], vals[:width]
	for i := width; i+width <= len(vals); i += width {
		v := vals[i : i+width]
		if s.less(v, lo) {
			lo = v
		}
		if s.less(hi, v) {
			hi = v
		}
	}
	s.addBytes(lo, hi)
}

// updateByteArray takes data[offsets[i]:offsets[i+1]].
func (s *statsAcc) updateByteArray(offsets []int32, data []byte) {
	if len(offsets) < 2 || s.kind == cmpNone {
		return
	}
	lo, hi := byteArrayMinMax(offsets, data)
	s.addBytes(lo, hi)
}

// updatePlainByteArray takes PLAIN encoded BYTE_ARRAY values (at least
// one, well formed: written by us).
func (s *statsAcc) updatePlainByteArray(plain []byte) {
	if len(plain) < 4 || s.kind == cmpNone {
		return
	}
	lo, hi := plainByteArrayMinMax(plain)
	s.addBytes(lo, hi)
}

// plainByteArrayMinMax is [byteArrayMinMax] for PLAIN encoded values.
func plainByteArrayMinMax(plain []byte) (lo, hi []byte) {
	l := int32(binary.LittleEndian.Uint32(plain))
	lo = plain[4 : 4+l]
	hi = lo
	loK := NewPrefixKey(plain, 4, 4+l)
	hiK := loK
	for pos := 4 + l; int(pos) < len(plain); {
		start := pos + 4
		end := start + int32(binary.LittleEndian.Uint32(plain[pos:]))
		pos = end
		k := NewPrefixKey(plain, start, end)
		if loK.Less(k) && k.Less(hiK) {
			continue
		}
		v := plain[start:end]
		if k.Less(loK) || k == loK && bytes.Compare(v, lo) < 0 {
			lo, loK = v, k
		} else if hiK.Less(k) || k == hiK && bytes.Compare(v, hi) > 0 {
			hi, hiK = v, k
		}
	}
	return lo, hi
}

// byteArrayMinMax returns the least and the greatest of the values
// data[offsets[i]:offsets[i+1]] (at least one) in unsigned byte-wise order.
// A value is compared in full only when its first 16 bytes (PrefixKey) do not
// place it strictly between the bounds so far: one bytes.Compare per value
// was 15% of BenchmarkWrite data=lineitem.
func byteArrayMinMax(offsets []int32, data []byte) (lo, hi []byte) {
	lo = data[offsets[0]:offsets[1]]
	hi = lo
	loK := NewPrefixKey(data, offsets[0], offsets[1])
	hiK := loK
	for i := 1; i+1 < len(offsets); i++ {
		start, end := offsets[i], offsets[i+1]
		k := NewPrefixKey(data, start, end)
		if loK.Less(k) && k.Less(hiK) {
			continue
		}
		v := data[start:end]
		if k.Less(loK) || k == loK && bytes.Compare(v, lo) < 0 {
			lo, loK = v, k
		} else if hiK.Less(k) || k == hiK && bytes.Compare(v, hi) > 0 {
			hi, hiK = v, k
		}
	}
	return lo, hi
}

// PrefixKey is the first 16 bytes of a value as two big-endian integers, zero
// padded: a smaller key means a smaller value; equal keys tell nothing.
// Sixteen rather than eight bytes, because values often share their first
// eight ("category-042-…": every value of BenchmarkWrite data=strings's
// category column went to bytes.Compare twice).
type PrefixKey struct{ a, b uint64 }

// Less reports whether x is a smaller key than y: every value with key x
// is less than every value with key y (unsigned byte-wise).
func (x PrefixKey) Less(y PrefixKey) bool { return x.a < y.a || x.a == y.a && x.b < y.b }

// NewPrefixKey returns the PrefixKey of data[start:end].
func NewPrefixKey(data []byte, start, end int32) PrefixKey {
	if end-start <= 8 {
		return PrefixKey{prefixKey(data, start, end), 0}
	}
	return PrefixKey{prefixKey(data, start, start+8), prefixKey(data, start+8, end)}
}

// prefixKey returns the first 8 bytes of data[start:end] as a big-endian
// integer, zero padded: a smaller key means a smaller value; equal keys
// tell nothing.
func prefixKey(data []byte, start, end int32) uint64 {
	n := end - start
	if int(start)+8 <= len(data) {
		k := binary.BigEndian.Uint64(data[start:])
		if n >= 8 {
			return k
		}
		return k &^ (math.MaxUint64 >> (8 * uint(n))) // keep n bytes
	}
	var k uint64
	for i, b := range data[start:end] {
		if i == 8 {
			break
		}
		k |= uint64(b) << (56 - 8*uint(i))
	}
	return k
}

// merge adds the statistics of o (same kind) to s.
func (s *statsAcc) merge(o *statsAcc) {
	s.nulls += o.nulls
	s.nans += o.nans
	if s.totalOrder {
		s.tob.Merge(&o.tob)
	}
	if !o.has {
		return
	}
	switch s.kind {
	case cmpBool, cmpInt32, cmpInt64:
		s.addSigned(o.iMin, o.iMax)
	case cmpUint32, cmpUint64:
		s.addUnsigned(o.uMin, o.uMax)
	case cmpFloat, cmpDouble, cmpFloat16:
		s.addFloat(o.fMin, o.fMax)
	case cmpBytes, cmpDecimalBE:
		s.addBytes(o.bMin, o.bMax)
	}
}

// encode returns the PLAIN encoded min and max (nil when there is none),
// truncating byte arrays longer than truncLen, and whether each is exact.
func (s *statsAcc) encode(phys format.Type, truncLen int) (lo, hi []byte, loExact, hiExact bool) {
	if s.totalOrder {
		// NaN bounds when every value is NaN, -0 and +0 as they are.
		lo, hi, ok := s.tob.MinMax()
		return lo, hi, ok, ok
	}
	if !s.has || s.kind == cmpNone {
		return nil, nil, false, false
	}
	switch s.kind {
	case cmpBool:
		return []byte{byte(s.iMin)}, []byte{byte(s.iMax)}, true, true
	case cmpInt32:
		return binary.LittleEndian.AppendUint32(nil, uint32(s.iMin)), binary.LittleEndian.AppendUint32(nil, uint32(s.iMax)), true, true
	case cmpUint32:
		return binary.LittleEndian.AppendUint32(nil, uint32(s.uMin)), binary.LittleEndian.AppendUint32(nil, uint32(s.uMax)), true, true
	case cmpInt64:
		return binary.LittleEndian.AppendUint64(nil, uint64(s.iMin)), binary.LittleEndian.AppendUint64(nil, uint64(s.iMax)), true, true
	case cmpUint64:
		return binary.LittleEndian.AppendUint64(nil, s.uMin), binary.LittleEndian.AppendUint64(nil, s.uMax), true, true
	case cmpFloat, cmpDouble, cmpFloat16:
		fmin, fmax := s.fMin, s.fMax
		if fmin == 0 {
			fmin = math.Copysign(0, -1)
		}
		if fmax == 0 {
			fmax = 0
		}
		switch s.kind {
		case cmpFloat:
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(fmin))), binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(fmax))), true, true
		case cmpDouble:
			return binary.LittleEndian.AppendUint64(nil, math.Float64bits(fmin)), binary.LittleEndian.AppendUint64(nil, math.Float64bits(fmax)), true, true
		}
		return binary.LittleEndian.AppendUint16(nil, metadata.Float32ToFloat16(float32(fmin))), binary.LittleEndian.AppendUint16(nil, metadata.Float32ToFloat16(float32(fmax))), true, true
	}
	lo, hi, loExact, hiExact = s.bMin, s.bMax, true, true
	if phys == format.Type_BYTE_ARRAY {
		lo, loExact = metadata.TruncateMin(lo, truncLen)
		hi, hiExact = metadata.TruncateMax(hi, truncLen)
	}
	// The bounds are the caller's: copies of the accumulator's (a
	// truncated max is one already).
	lo = bytes.Clone(lo)
	if hiExact {
		hi = bytes.Clone(hi)
	}
	if lo == nil {
		lo = []byte{}
	}
	return lo, hi, loExact, hiExact
}

// statistics returns the format.Statistics of s.
func (s *statsAcc) statistics(phys format.Type, truncLen int, withMinMax bool) *format.Statistics {
	st := &format.Statistics{NullCount: ptrTo(s.nulls)}
	if s.kind == cmpFloat || s.kind == cmpDouble || s.kind == cmpFloat16 {
		st.NanCount = ptrTo(s.nans)
	}
	if !withMinMax {
		return st
	}
	lo, hi, loExact, hiExact := s.encode(phys, truncLen)
	if lo != nil {
		st.MinValue, st.IsMinValueExact = lo, ptrTo(loExact)
	}
	if hi != nil {
		st.MaxValue, st.IsMaxValueExact = hi, ptrTo(hiExact)
	}
	return st
}

func ptrTo[T any](v T) *T { return &v }
