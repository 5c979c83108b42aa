package arrowpq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The kernels in this file turn dense physical values into the Arrow
// storage of a leaf (typemap.Conversion says which one applies) and back.
// Each works on whole slices; none allocates.

// errOutOfRange is wrapped by conversions whose value does not fit the
// target type.
var errOutOfRange = errors.New("value out of range")

// castInts converts every src value to the narrower or other-signed dst type
// keeping the low bits, as the spec leaves out-of-range values undefined.
func castInts[D, S int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](dst []D, src []S) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// scaleUp multiplies every value by mul, failing on overflow.
func scaleUp[T int32 | int64](dst, src []T, mul int64) error {
	dst = dst[:len(src)]
	var lo, hi int64
	if isInt32[T]() {
		lo, hi = math.MinInt32/mul, math.MaxInt32/mul
	} else {
		lo, hi = math.MinInt64/mul, math.MaxInt64/mul
	}
	for i, v := range src {
		if int64(v) < lo || int64(v) > hi {
			return fmt.Errorf("%d × %d: %w", v, mul, errOutOfRange)
		}
		dst[i] = v * T(mul)
	}
	return nil
}

// scaleDown divides every value by div (truncating toward zero).
func scaleDown[T int32 | int64](dst, src []T, div int64) {
	dst = dst[:len(src)]
	d := T(div)
	for i, v := range src {
		dst[i] = v / d
	}
}

func isInt32[T int32 | int64]() bool {
	var z T
	return any(z) == any(int32(0))
}

// Julian day number of 1970-01-01: INT96 timestamps count days from the
// start of the Julian period.
const julianUnixEpoch = 2_440_588

const nanosPerDay = 86_400 * 1_000_000_000

// int96ToTimestamp converts 12-byte INT96 values (nanoseconds of the day,
// then the Julian day, little-endian) to timestamps in units of divisor
// nanoseconds (1 for ns, 1000 for µs, 1e6 for ms). A value outside the
// int64 range of the unit is an error, never a silent wrap (in nanoseconds
// that is any date outside 1677–2262: read such files in µs or ms).
//
// One exception mirrors the writer: Spark converts with julian = unix +
// epoch in wrapping int64 arithmetic, so an instant within a few thousand
// years of the end of the µs range (year 290000 in int96_from_spark.parquet)
// is stored with a wrapped Julian day. When the Julian-based count itself
// fits int64 — the intermediate Spark computed — the inverse wraps the same
// way and gives back the instant that was written.
func int96ToTimestamp(dst []int64, src []byte, divisor int64) error {
	n := len(src) / 12
	dst = dst[:n]
	perDay := nanosPerDay / divisor
	epoch := julianUnixEpoch * perDay
	for i := range dst {
		b := src[i*12 : i*12+12 : i*12+12]
		nanos := int64(binary.LittleEndian.Uint64(b[:8]))
		day := int64(int32(binary.LittleEndian.Uint32(b[8:])))
		sub := nanos / divisor
		if v, ok := mulAdd(day-julianUnixEpoch, perDay, sub); ok {
			dst[i] = v
			continue
		}
		if v, ok := mulAdd(day, perDay, sub); ok {
			dst[i] = v - epoch // wraps exactly as the writer's addition did
			continue
		}
		return fmt.Errorf("INT96 Julian day %d, %d ns does not fit a timestamp in units of %d ns: %w", day, nanos, divisor, errOutOfRange)
	}
	return nil
}

// mulAdd returns a*b+c and whether it fits int64.
func mulAdd(a, b, c int64) (int64, bool) {
	if a != 0 && (a > math.MaxInt64/b || a < math.MinInt64/b) {
		return 0, false
	}
	v := a * b
	if (c > 0 && v > math.MaxInt64-c) || (c < 0 && v < math.MinInt64-c) {
		return 0, false
	}
	return v + c, true
}

// timestampToInt96 is the inverse of int96ToTimestamp: values in units of
// divisor nanoseconds become 12-byte INT96 values appended to dst.
func timestampToInt96(dst []byte, src []int64, divisor int64) []byte {
	perDay := nanosPerDay / divisor
	for _, v := range src {
		days := v / perDay
		rem := v % perDay
		if rem < 0 {
			rem += perDay
			days--
		}
		dst = binary.LittleEndian.AppendUint64(dst, uint64(rem*divisor))
		dst = binary.LittleEndian.AppendUint32(dst, uint32(int32(days+julianUnixEpoch)))
	}
	return dst
}

// decimalFromInts sign-extends INT32 or INT64 unscaled values into
// little-endian decimals of width bytes (4, 8, 16 or 32). A value that does
// not fit a narrower width is an error.
func decimalFromInts[T int32 | int64](dst []byte, src []T, width int) error {
	dst = dst[:len(src)*width]
	for i, v := range src {
		x := int64(v)
		out := dst[i*width : i*width+width : i*width+width]
		switch width {
		case 4:
			if x < math.MinInt32 || x > math.MaxInt32 {
				return fmt.Errorf("decimal unscaled %d in 4 bytes: %w", x, errOutOfRange)
			}
			binary.LittleEndian.PutUint32(out, uint32(int32(x)))
		default:
			binary.LittleEndian.PutUint64(out, uint64(x))
			fill := byte(0)
			if x < 0 {
				fill = 0xff
			}
			for j := 8; j < width; j++ {
				out[j] = fill
			}
		}
	}
	return nil
}

// decimalFromBigEndian converts one big-endian two's complement unscaled
// value (FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY) into a little-endian decimal of
// len(out) bytes, sign-extending. Bytes beyond the width must be pure sign
// extension, else the value does not fit. An empty value is zero.
func decimalFromBigEndian(out, be []byte) error {
	width := len(out)
	neg := len(be) > 0 && be[0]&0x80 != 0
	fill := byte(0)
	if neg {
		fill = 0xff
	}
	if len(be) > width {
		extra := be[:len(be)-width]
		for _, b := range extra {
			if b != fill {
				return fmt.Errorf("decimal of %d bytes in %d: %w", len(be), width, errOutOfRange)
			}
		}
		// The sign must survive the cut.
		if (be[len(be)-width]&0x80 != 0) != neg {
			return fmt.Errorf("decimal of %d bytes in %d: %w", len(be), width, errOutOfRange)
		}
		be = be[len(be)-width:]
	}
	n := len(be)
	for j := 0; j < n; j++ {
		out[j] = be[n-1-j]
	}
	for j := n; j < width; j++ {
		out[j] = fill
	}
	return nil
}

// decimalToBigEndian writes the low len(out) bytes of a little-endian
// decimal in big-endian order, failing when the dropped bytes are not sign
// extension of what is kept.
func decimalToBigEndian(out, le []byte) error {
	width := len(out)
	if width < len(le) {
		fill := byte(0)
		if le[len(le)-1]&0x80 != 0 {
			fill = 0xff
		}
		for _, b := range le[width:] {
			if b != fill {
				return fmt.Errorf("decimal does not fit %d bytes: %w", width, errOutOfRange)
			}
		}
		if (le[width-1]&0x80 != 0) != (fill == 0xff) {
			return fmt.Errorf("decimal does not fit %d bytes: %w", width, errOutOfRange)
		}
	}
	for j := 0; j < width; j++ {
		if j < len(le) {
			out[width-1-j] = le[j]
		} else if le[len(le)-1]&0x80 != 0 {
			out[width-1-j] = 0xff
		} else {
			out[width-1-j] = 0
		}
	}
	return nil
}

// intervalToMonthDayNano converts 12-byte INTERVAL values (three
// little-endian uint32: months, days, milliseconds) to Arrow's 16-byte
// MonthDayNano layout (int32 months, int32 days, int64 nanoseconds).
// Months or days above 2^31-1 do not fit and are an error.
func intervalToMonthDayNano(dst []byte, src []byte) error {
	n := len(src) / 12
	dst = dst[:n*16]
	for i := 0; i < n; i++ {
		s := src[i*12 : i*12+12 : i*12+12]
		months := binary.LittleEndian.Uint32(s[0:4])
		days := binary.LittleEndian.Uint32(s[4:8])
		millis := binary.LittleEndian.Uint32(s[8:12])
		if months > math.MaxInt32 || days > math.MaxInt32 {
			return fmt.Errorf("INTERVAL of %d months, %d days: %w", months, days, errOutOfRange)
		}
		d := dst[i*16 : i*16+16 : i*16+16]
		binary.LittleEndian.PutUint32(d[0:4], months)
		binary.LittleEndian.PutUint32(d[4:8], days)
		binary.LittleEndian.PutUint64(d[8:16], uint64(int64(millis)*1_000_000))
	}
	return nil
}

// decimalsFromShortBigEndian converts big-endian two's complement values of
// in (≤ 8) bytes each into little-endian decimals of out (≥ 8) bytes,
// sign-extended. Such values always fit. Each value is one 64-bit load
// ending at its last byte (the bytes before it are shifted out).
func decimalsFromShortBigEndian(dst, src []byte, in, out int) {
	n := len(src) / in
	shift := uint(64 - 8*in)
	i := 0
	// The first values may start less than 8 bytes into src.
	for ; i < n && i*in+in < 8; i++ {
		var u uint64
		for _, b := range src[i*in : i*in+in] {
			u = u<<8 | uint64(b)
		}
		putDecimal64(dst[i*out:i*out+out], int64(u<<shift)>>shift)
	}
	if out == 16 && i < n {
		// Decimal128, the common target: two stores a value. s starts
		// at the 8 bytes that end with value i and d at its output, both
		// advanced by a value a step: one bounds check a value besides
		// the loop's (three before: 40 instructions a value of
		// lineitem's l_extendedprice, callgrind).
		s := src[i*in+in-8 : n*in]
		d := dst[i*16 : n*16]
		for len(s) >= 8 && len(d) >= 16 {
			v := int64(binary.BigEndian.Uint64(s)<<shift) >> shift
			binary.LittleEndian.PutUint64(d, uint64(v))
			binary.LittleEndian.PutUint64(d[8:], uint64(v>>63))
			s, d = s[in:], d[16:]
		}
		return
	}
	for ; i < n; i++ {
		end := i*in + in
		u := binary.BigEndian.Uint64(src[end-8 : end])
		putDecimal64(dst[i*out:i*out+out], int64(u<<shift)>>shift)
	}
}

// putDecimal64 writes v as a little-endian decimal of len(d) ≥ 8 bytes.
func putDecimal64(d []byte, v int64) {
	binary.LittleEndian.PutUint64(d, uint64(v))
	fill := byte(uint64(v>>63) & 0xff)
	for j := 8; j < len(d); j++ {
		d[j] = fill
	}
}
