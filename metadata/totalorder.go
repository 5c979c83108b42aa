package metadata

// IEEE 754 total order (the IEEE_754_TOTAL_ORDER member of ColumnOrder in
// parquet.thrift; totalOrder of IEEE 754-2008 §5.10) for FLOAT, DOUBLE and
// FLOAT16:
//
//	-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN
//
// and between two NaNs of one sign, or two encodings of one value, by their
// bits. Read as a sign-magnitude integer, the bits of a float are already in
// this order; flipping every bit but the sign of the negative ones turns
// them into a two's complement integer in the same order (the key below),
// which a signed comparison sorts.
//
// Statistics under this order (parquet.thrift): nan_count is mandatory;
// min/max are the smallest and largest non-NaN values, or, when every
// non-null value is NaN, the smallest and largest NaN. -0 and +0 are
// distinct values: a max of -0 says there is no +0.

import (
	"encoding/binary"
	"math"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// TotalOrderKey64 maps the bits of a binary64 to an integer whose signed
// order is the IEEE 754 total order of the floats. It is its own inverse
// on the bits: uint64(TotalOrderKey64(b)) read back through TotalOrderKey64
// gives b.
func TotalOrderKey64(bits uint64) int64 {
	k := int64(bits)
	return k ^ int64(uint64(k>>63)>>1)
}

// TotalOrderKey32 is [TotalOrderKey64] for binary32.
func TotalOrderKey32(bits uint32) int32 {
	k := int32(bits)
	return k ^ int32(uint32(k>>31)>>1)
}

// TotalOrderKey16 is [TotalOrderKey64] for binary16 (FLOAT16).
func TotalOrderKey16(bits uint16) int16 {
	k := int16(bits)
	return k ^ int16(uint16(k>>15)>>1)
}

func cmpKey[T int16 | int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// CompareTotalOrder64 returns -1, 0 or +1 as a sorts before, with or after
// b in the IEEE 754 total order (0 only for identical bits).
func CompareTotalOrder64(a, b float64) int {
	return cmpKey(TotalOrderKey64(math.Float64bits(a)), TotalOrderKey64(math.Float64bits(b)))
}

// CompareTotalOrder32 is [CompareTotalOrder64] for FLOAT.
func CompareTotalOrder32(a, b float32) int {
	return cmpKey(TotalOrderKey32(math.Float32bits(a)), TotalOrderKey32(math.Float32bits(b)))
}

// CompareTotalOrderFloat16 is [CompareTotalOrder64] for FLOAT16 values given
// as their binary16 bits.
func CompareTotalOrderFloat16(a, b uint16) int {
	return cmpKey(TotalOrderKey16(a), TotalOrderKey16(b))
}

// CompareTotalOrder compares two KindFloat statistics values of one column
// (decoded by [DecodeStats] or [DecodeValue]) in the IEEE 754 total order,
// using the bits as stored ([Value.Bits]), so NaN payloads and the sign of
// zero count. ok is false when either value is not a float or the two are of
// different physical types.
func CompareTotalOrder(a, b Value) (c int, ok bool) {
	if a.Kind != KindFloat || b.Kind != KindFloat || a.Physical != b.Physical {
		return 0, false
	}
	switch a.Physical {
	case format.Type_DOUBLE:
		return cmpKey(TotalOrderKey64(a.Bits), TotalOrderKey64(b.Bits)), true
	case format.Type_FLOAT:
		return cmpKey(TotalOrderKey32(uint32(a.Bits)), TotalOrderKey32(uint32(b.Bits))), true
	default: // FLOAT16 in a FIXED_LEN_BYTE_ARRAY(2)
		return cmpKey(TotalOrderKey16(uint16(a.Bits)), TotalOrderKey16(uint16(b.Bits))), true
	}
}

// isNaNBits reports whether bits of the given width (2, 4 or 8 bytes) are a
// NaN: all exponent bits set and a non-zero fraction.
func isNaNBits(bits uint64, width int) bool {
	switch width {
	case 2:
		return bits&0x7fff > 0x7c00
	case 4:
		return bits&0x7fffffff > 0x7f800000
	}
	return bits&0x7fffffffffffffff > 0x7ff0000000000000
}

// TotalOrderBounds computes the statistics a writer stores for a FLOAT,
// DOUBLE or FLOAT16 column under IEEE_754_TOTAL_ORDER: the smallest and
// largest non-NaN values (or the smallest and largest NaN when every value
// is NaN) and the NaN count. Add values of one type only (mixing them is a
// programmer error and panics); Merge combines the bounds of pages into
// those of a chunk. The zero value is empty and ready; it is not safe for
// concurrent use.
type TotalOrderBounds struct {
	width    int   // 2, 4 or 8; 0 before the first value
	values   int64 // non-NaN values
	nans     int64
	lo, hi   int64 // keys of the non-NaN extremes
	nlo, nhi int64 // keys of the NaN extremes
}

func (b *TotalOrderBounds) setWidth(w int) {
	if b.width == 0 {
		b.width = w
	} else if b.width != w {
		panic("metadata: TotalOrderBounds given values of two widths")
	}
}

// add folds one key in; nan says whether it is a NaN's.
func (b *TotalOrderBounds) add(k int64, nan bool) {
	if nan {
		if b.nans == 0 || k < b.nlo {
			b.nlo = k
		}
		if b.nans == 0 || k > b.nhi {
			b.nhi = k
		}
		b.nans++
		return
	}
	if b.values == 0 || k < b.lo {
		b.lo = k
	}
	if b.values == 0 || k > b.hi {
		b.hi = k
	}
	b.values++
}

// AddDouble adds DOUBLE values.
func (b *TotalOrderBounds) AddDouble(values []float64) {
	b.setWidth(8)
	for _, v := range values {
		u := math.Float64bits(v)
		b.add(TotalOrderKey64(u), isNaNBits(u, 8))
	}
}

// AddFloat adds FLOAT values.
func (b *TotalOrderBounds) AddFloat(values []float32) {
	b.setWidth(4)
	for _, v := range values {
		u := math.Float32bits(v)
		b.add(int64(TotalOrderKey32(u)), isNaNBits(uint64(u), 4))
	}
}

// AddFloat16 adds FLOAT16 values stored back to back as in a
// FIXED_LEN_BYTE_ARRAY(2) column (little-endian binary16); a trailing odd
// byte is ignored.
func (b *TotalOrderBounds) AddFloat16(values []byte) {
	b.setWidth(2)
	for i := 0; i+1 < len(values); i += 2 {
		u := binary.LittleEndian.Uint16(values[i:])
		b.add(int64(TotalOrderKey16(u)), isNaNBits(uint64(u), 2))
	}
}

// Merge adds the values counted by o.
func (b *TotalOrderBounds) Merge(o *TotalOrderBounds) {
	if o.width == 0 {
		return
	}
	b.setWidth(o.width)
	if o.values > 0 {
		b.add(o.lo, false)
		b.add(o.hi, false)
		b.values += o.values - 2
	}
	if o.nans > 0 {
		b.add(o.nlo, true)
		b.add(o.nhi, true)
		b.nans += o.nans - 2
	}
}

// Reset empties b.
func (b *TotalOrderBounds) Reset() { *b = TotalOrderBounds{} }

// NaNCount returns the number of NaNs added.
func (b *TotalOrderBounds) NaNCount() int64 { return b.nans }

// MinMax returns min_value and max_value in PLAIN (little-endian bits of
// the width added), and false when no value was added.
func (b *TotalOrderBounds) MinMax() (minValue, maxValue []byte, ok bool) {
	lo, hi := b.lo, b.hi
	switch {
	case b.values > 0:
	case b.nans > 0:
		lo, hi = b.nlo, b.nhi
	default:
		return nil, nil, false
	}
	return b.plain(lo), b.plain(hi), true
}

// plain turns a key back into the bits of a value (the key is its own
// inverse) in PLAIN.
func (b *TotalOrderBounds) plain(k int64) []byte {
	switch b.width {
	case 2:
		return binary.LittleEndian.AppendUint16(nil, uint16(TotalOrderKey16(uint16(k))))
	case 4:
		return binary.LittleEndian.AppendUint32(nil, uint32(TotalOrderKey32(uint32(int32(k)))))
	}
	return binary.LittleEndian.AppendUint64(nil, uint64(TotalOrderKey64(uint64(k))))
}

// Fill sets the statistics s of a page or column chunk written with
// IEEE_754_TOTAL_ORDER: nan_count always (the spec makes it mandatory),
// min_value and max_value (exact) when any value was added. Other fields of
// s are left alone.
func (b *TotalOrderBounds) Fill(s *format.Statistics) {
	n := b.nans
	s.NanCount = &n
	lo, hi, ok := b.MinMax()
	if !ok {
		return
	}
	exact := true
	s.MinValue, s.MaxValue = lo, hi
	s.IsMinValueExact, s.IsMaxValueExact = &exact, &exact
}

// TotalOrderColumnOrder returns a ColumnOrder entry naming
// IEEE_754_TOTAL_ORDER, for the footer's column_orders.
func TotalOrderColumnOrder() *format.ColumnOrder {
	return &format.ColumnOrder{IEEE_754_TOTAL_ORDER: &format.IEEE754TotalOrder{}}
}

// applyTotalOrder marks the bounds of a float column as ordered by
// IEEE_754_TOTAL_ORDER. They are kept as stored: a NaN bound next to a
// non-NaN one breaks the writing rules (NaN bounds only when every value is
// NaN) but is still a true bound in the total order (+NaN is above
// everything, -NaN below), so it is never wrong to keep.
func (st *Stats) applyTotalOrder() { st.TotalOrder = true }

// AllNaN reports whether the statistics show that every non-null value is
// NaN: under IEEE_754_TOTAL_ORDER, a NaN min and max. (Under TYPE_ORDER a
// reader needs the value count too: nan_count + null_count == num_values.)
func (st *Stats) AllNaN() bool {
	return st.TotalOrder && st.HasMin && st.HasMax && st.Min.IsNaN() && st.Max.IsNaN()
}

// IsNaN reports whether v is a floating point NaN, from its stored bits. In
// a ColumnIndex of a column under IEEE_754_TOTAL_ORDER, a NaN in min_values
// or max_values says that every non-null value of the page is NaN.
func (v Value) IsNaN() bool {
	return v.Kind == KindFloat && isNaNBits(v.Bits, v.floatWidth())
}

// floatWidth is the byte width of a KindFloat value's bits.
func (v Value) floatWidth() int {
	switch v.Physical {
	case format.Type_DOUBLE:
		return 8
	case format.Type_FLOAT:
		return 4
	}
	return 2
}
