package typemap

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Sentinel errors. They are the sentinels of package metadata, so that a
// caller checks one set whichever package reported the problem:
// ErrCorrupt for a Parquet schema whose shape the spec forbids and no
// compatibility rule accepts, ErrUnsupported for an Arrow type that cannot be
// stored in Parquet.
var (
	ErrCorrupt     = metadata.ErrCorrupt
	ErrUnsupported = metadata.ErrUnsupported
)

// ConversionKind names the per-value transform between the physical values
// of a Parquet leaf column and the storage of its Arrow array. The decoder
// (and encoder) dispatches on it once per page and fuses the transform into
// its value loop.
type ConversionKind uint8

// Conversion kinds. "Physical" is the Parquet physical type of the leaf,
// "storage" the Arrow storage type ([Conversion.Arrow]).
const (
	// Identity: the physical values are the Arrow values bit for bit:
	// BOOLEAN to Boolean, INT32 to Int32/Date32/Time32, INT64 to
	// Int64/Timestamp/Time64/Duration, FLOAT, DOUBLE, BYTE_ARRAY to any
	// binary or string layout (Binary, String, Large*, *View: offsets or
	// views are the decoder's business, the bytes are unchanged) and
	// FIXED_LEN_BYTE_ARRAY to FixedSizeBinary, Float16 or the UUID storage.
	Identity ConversionKind = iota
	// IntCast: an integer of one width or signedness becomes another
	// (INT32 to Int8/Int16/Uint8/Uint16/Uint32, INT64 to Uint64 or, when
	// ARROW:schema asks, Uint32; the reverse when writing). Narrowing keeps
	// the low bits: the spec leaves out-of-range values undefined.
	IntCast
	// Scale: value × Mul ÷ Div, both ≥ 1 and one of them 1. Reading DATE
	// as Date64 multiplies by 86400000, TIMESTAMP(MILLIS) as Timestamp(s) and
	// TIME(MILLIS) as Time32(s) divide by 1000. The source integer (INT32 or
	// INT64) takes the width of the Arrow storage (Time64 from TIME(MILLIS)
	// widens). A multiplication that overflows the target is an error
	// naming the column, never a wrap; division truncates toward zero.
	Scale
	// Int96: a 12-byte INT96 (8 bytes nanoseconds of the day, then 4 bytes
	// Julian day, little-endian) becomes a Timestamp in [Conversion.Unit],
	// or the reverse when writing. A value outside the int64 range of that
	// unit is an error naming the column.
	Int96
	// Decimal: an unscaled two's complement integer (INT32, INT64, or
	// big-endian FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY) becomes a
	// little-endian Decimal32/64/128/256 of [Conversion.ByteWidth] bytes,
	// sign-extended; a value that does not fit is an error. Writing goes the
	// other way, to the physical type and [Conversion.TypeLength].
	Decimal
	// Interval: a 12-byte INTERVAL (three little-endian uint32: months,
	// days, milliseconds) becomes MonthDayNano (months, days, ms × 10^6 ns),
	// YearMonth (months; days and ms must be 0) or DayTime (days, ms; months
	// must be 0). A month or day count above 2^31-1, or a part that the
	// target cannot hold, is an error at read time. Writing requires
	// non-negative parts and, for MonthDayNano, whole milliseconds.
	Interval
	// Null: the column holds no values (UNKNOWN / Arrow Null); only its
	// levels matter.
	Null
)

var conversionKindNames = [...]string{
	Identity: "identity",
	IntCast:  "int-cast",
	Scale:    "scale",
	Int96:    "int96",
	Decimal:  "decimal",
	Interval: "interval",
	Null:     "null",
}

// String returns the lower-case name of k.
func (k ConversionKind) String() string {
	if int(k) < len(conversionKindNames) {
		return conversionKindNames[k]
	}
	return fmt.Sprintf("ConversionKind(%d)", uint8(k))
}

// Conversion describes how the physical values of one Parquet leaf column
// become the values of its Arrow storage array (when reading) or the reverse
// (when writing). It is a plain value; the zero value is an Identity
// conversion of BOOLEAN.
type Conversion struct {
	Kind ConversionKind
	// Physical and TypeLength are the Parquet physical type of the leaf and,
	// for FIXED_LEN_BYTE_ARRAY, its byte width.
	Physical   format.Type
	TypeLength int32
	// Arrow is the Arrow storage type of the values: for an extension type
	// its storage type, for a dictionary its value type.
	Arrow arrow.DataType
	// Mul and Div are the factors of a Scale conversion (both 1 otherwise).
	// Reading: arrow = physical × Mul ÷ Div. Writing: physical = arrow ×
	// Mul ÷ Div.
	Mul, Div int64
	// Unit is the Arrow time unit of an Int96 conversion.
	Unit arrow.TimeUnit
	// ByteWidth is the width of the Arrow decimal of a Decimal conversion:
	// 4, 8, 16 or 32.
	ByteWidth int
}

// String renders c for the type-mapping tables, e.g. "identity",
// "int-cast int32→uint8", "scale ×86400000", "int96→timestamp[ns]
// (overflow checked)", "decimal FIXED_LEN_BYTE_ARRAY(16)→decimal128".
func (c Conversion) String() string {
	var b strings.Builder
	switch c.Kind {
	case Identity, Null:
		b.WriteString(c.Kind.String())
	case IntCast:
		fmt.Fprintf(&b, "int-cast %s→%s", strings.ToLower(c.Physical.String()), typeName(c.Arrow))
	case Scale:
		if c.Mul > 1 {
			fmt.Fprintf(&b, "scale ×%d (overflow checked)", c.Mul)
		} else {
			fmt.Fprintf(&b, "scale ÷%d", c.Div)
		}
	case Int96:
		fmt.Fprintf(&b, "int96↔timestamp[%s] (overflow checked)", c.Unit)
	case Decimal:
		phys := c.Physical.String()
		if c.Physical == format.Type_FIXED_LEN_BYTE_ARRAY {
			phys = fmt.Sprintf("%s(%d)", phys, c.TypeLength)
		}
		fmt.Fprintf(&b, "decimal %s↔decimal%d (range checked)", phys, c.ByteWidth*8)
	case Interval:
		fmt.Fprintf(&b, "interval↔%s (range checked)", typeName(c.Arrow))
	default:
		b.WriteString(c.Kind.String())
	}
	return b.String()
}

func typeName(dt arrow.DataType) string {
	if dt == nil {
		return "<nil>"
	}
	return dt.String()
}

func identity(phys format.Type, typeLen int32, dt arrow.DataType) Conversion {
	return Conversion{Kind: Identity, Physical: phys, TypeLength: typeLen, Arrow: dt, Mul: 1, Div: 1}
}
