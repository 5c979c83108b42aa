package metadata

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Kind says which field of a [Value] holds it and how it is rendered.
type Kind uint8

// Value kinds. The comment names the Value field that holds the value.
const (
	KindNone      Kind = iota // no value
	KindBoolean               // Bool
	KindInt                   // Int: INT32, INT64, INT(n, true)
	KindUint                  // Uint: INT(n, false), UINT_n
	KindFloat                 // Float: FLOAT, DOUBLE, FLOAT16 (converted exactly)
	KindInt96                 // Bytes: the 12 bytes of a legacy INT96 timestamp
	KindBytes                 // Bytes: BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY without a text annotation
	KindString                // Bytes: STRING, ENUM or JSON text (UTF-8 unless the file is wrong)
	KindUUID                  // Bytes: 16 bytes
	KindDecimal               // Unscaled and Scale; Int too for INT32/INT64, Bytes for byte arrays
	KindDate                  // Int: days since 1970-01-01
	KindTime                  // Int: Unit since midnight
	KindTimestamp             // Int: Unit since 1970-01-01T00:00:00, UTC when AdjustedToUTC
)

var kindNames = [...]string{"none", "boolean", "int", "uint", "float", "int96", "bytes", "string", "uuid",
	"decimal", "date", "time", "timestamp"}

// String returns the lower-case name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// TimeUnit is the unit of a TIME or TIMESTAMP value; zero means none.
type TimeUnit uint8

// Time units of the TIME and TIMESTAMP logical types.
const (
	Millis TimeUnit = iota + 1
	Micros
	Nanos
)

// String returns "ms", "us", "ns", or "none" for the zero unit.
func (u TimeUnit) String() string {
	switch u {
	case Millis:
		return "ms"
	case Micros:
		return "us"
	case Nanos:
		return "ns"
	}
	return "none"
}

// perSecond is the number of units in a second.
func (u TimeUnit) perSecond() int64 {
	switch u {
	case Millis:
		return 1e3
	case Micros:
		return 1e6
	}
	return 1e9
}

// Value is one typed statistics value. Kind says which field holds it;
// Physical is the column's physical type (FLOAT vs DOUBLE, the storage of a
// decimal). Bytes alias the buffer the value was decoded from.
type Value struct {
	Kind     Kind
	Physical format.Type

	Bool  bool
	Int   int64
	Uint  uint64
	Float float64
	Bytes []byte
	// Bits holds the IEEE 754 bits of a KindFloat value as stored
	// (binary64 for DOUBLE, binary32 for FLOAT, binary16 for FLOAT16), so
	// that NaN payloads and the sign of zero survive for
	// [CompareTotalOrder]; Float is the same value widened.
	Bits uint64

	// Unscaled and Scale give a decimal: Unscaled * 10^-Scale.
	Unscaled *big.Int
	Scale    int32
	// Unit and AdjustedToUTC qualify TIME and TIMESTAMP values.
	Unit          TimeUnit
	AdjustedToUTC bool
}

// julianUnixEpoch is the Julian day number of 1970-01-01.
const julianUnixEpoch = 2440588

// Int96 splits an INT96 value into its Julian day and nanoseconds of the
// day. It returns false when v is not a 12-byte INT96.
func (v Value) Int96() (julianDay int32, nanosOfDay int64, ok bool) {
	if v.Kind != KindInt96 || len(v.Bytes) != 12 {
		return 0, 0, false
	}
	return int32(binary.LittleEndian.Uint32(v.Bytes[8:])), int64(binary.LittleEndian.Uint64(v.Bytes[:8])), true
}

// String renders v for people: strings quoted, other bytes in hex, decimals
// with their scale, dates as yyyy-mm-dd, times and timestamps in RFC 3339
// form with as many fraction digits as their unit has (a trailing Z when
// adjusted to UTC), INT96 as a nanosecond timestamp.
func (v Value) String() string {
	switch v.Kind {
	case KindNone:
		return "<none>"
	case KindBoolean:
		return strconv.FormatBool(v.Bool)
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindUint:
		return strconv.FormatUint(v.Uint, 10)
	case KindFloat:
		bits := 64
		if v.Physical != format.Type_DOUBLE {
			bits = 32
		}
		return strconv.FormatFloat(v.Float, 'g', -1, bits)
	case KindString:
		if utf8.Valid(v.Bytes) {
			return strconv.Quote(string(v.Bytes))
		}
		return hexString(v.Bytes)
	case KindUUID:
		if len(v.Bytes) == 16 {
			h := hex.EncodeToString(v.Bytes)
			return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
		return hexString(v.Bytes)
	case KindDecimal:
		if v.Unscaled == nil {
			return "<invalid decimal>"
		}
		return formatDecimal(v.Unscaled, v.Scale)
	case KindDate:
		return time.Unix(v.Int*86400, 0).UTC().Format(time.DateOnly)
	case KindTime:
		return formatTime(v.Int, v.Unit)
	case KindTimestamp:
		per := v.Unit.perSecond()
		sec, frac := v.Int/per, v.Int%per
		if frac < 0 {
			sec, frac = sec-1, frac+per
		}
		return formatTimestamp(sec, frac*(1e9/per), v.Unit, v.AdjustedToUTC)
	case KindInt96:
		day, nanos, ok := v.Int96()
		if !ok {
			return hexString(v.Bytes)
		}
		if nanos < 0 || nanos >= 86400e9 {
			return fmt.Sprintf("int96(julian day %d, %d ns)", day, nanos)
		}
		sec := (int64(day)-julianUnixEpoch)*86400 + nanos/1e9
		return formatTimestamp(sec, nanos%1e9, Nanos, false)
	}
	return hexString(v.Bytes)
}

func hexString(b []byte) string {
	return "0x" + hex.EncodeToString(b)
}

// maxLeadingZeros bounds the zeros written after "0." for a decimal.
const maxLeadingZeros = 32

func formatDecimal(unscaled *big.Int, scale int32) string {
	digits := new(big.Int).Abs(unscaled).String()
	var sb strings.Builder
	if unscaled.Sign() < 0 {
		sb.WriteByte('-')
	}
	switch {
	case scale <= 0:
		sb.WriteString(digits)
		if scale < 0 && unscaled.Sign() != 0 {
			sb.WriteString("e" + strconv.Itoa(int(-scale)))
		}
	case int64(scale) > int64(len(digits))+maxLeadingZeros:
		// A scale far past the digits (the schema's scale is any int32)
		// would render as millions of zeros.
		sb.WriteString(digits + "e-" + strconv.Itoa(int(scale)))
	case int(scale) >= len(digits):
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", int(scale)-len(digits)))
		sb.WriteString(digits)
	default:
		cut := len(digits) - int(scale)
		sb.WriteString(digits[:cut])
		sb.WriteByte('.')
		sb.WriteString(digits[cut:])
	}
	return sb.String()
}

func fracDigits(u TimeUnit) int {
	switch u {
	case Millis:
		return 3
	case Micros:
		return 6
	}
	return 9
}

// formatTime renders a time of day; values outside a day keep their raw
// count and unit rather than wrapping.
func formatTime(v int64, u TimeUnit) string {
	per := u.perSecond()
	if v < 0 || v >= 86400*per {
		return strconv.FormatInt(v, 10) + u.String()
	}
	sec, frac := v/per, v%per
	return fmt.Sprintf("%02d:%02d:%02d.%0*d", sec/3600, sec/60%60, sec%60, fracDigits(u), frac)
}

func formatTimestamp(sec, nanos int64, u TimeUnit, utc bool) string {
	layout := "2006-01-02T15:04:05." + strings.Repeat("0", fracDigits(u))
	if utc {
		layout += "Z07:00"
	}
	return time.Unix(sec, nanos).UTC().Format(layout)
}
