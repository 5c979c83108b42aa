package metadata

// Statistics of column chunks and pages: which of the min/max fields of a
// format.Statistics may be trusted, and their typed values.
//
// The rules come from the ColumnOrder union of parquet.thrift and from
// LogicalTypes.md:
//   - min_value/max_value (ids 6, 5) are ordered by the column's ColumnOrder.
//     They are used only when the footer has column_orders and the column's
//     entry is TYPE_ORDER (for a type with a defined order, never INT96),
//     IEEE_754_TOTAL_ORDER (floating point only) or INT96_TIMESTAMP_ORDER
//     (INT96 only). An order this package does not know means no min/max.
//   - the deprecated min/max (ids 2, 1) were computed with signed comparison
//     whatever the type; they are used only when the type's order is signed.
//     They are not used for BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY at all: old
//     parquet-mr compared bytes as signed Java bytes (PARQUET-686) and reused
//     buffers (PARQUET-251), so their binary min/max cannot be trusted, and
//     every writer that stores a signed binary type (a decimal, FLOAT16) also
//     writes min_value/max_value.
//   - under TYPE_ORDER and for the deprecated fields, a NaN min or max of a
//     FLOAT, DOUBLE or FLOAT16 column is dropped, a min of +0 widens to -0 and
//     a max of -0 widens to +0, as the spec tells readers to assume.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Order is the sort order a column's type defines for its statistics.
type Order uint8

// Sort orders, from the table in the ColumnOrder section of parquet.thrift.
const (
	// OrderUndefined: no min/max can be used (INTERVAL, MAP, LIST, VARIANT,
	// GEOMETRY, GEOGRAPHY, INT96 under TYPE_ORDER, an annotation this package
	// does not know or that does not fit the physical type).
	OrderUndefined Order = iota
	// OrderSigned: signed comparison of the represented value.
	OrderSigned
	// OrderUnsigned: unsigned integer or unsigned byte-wise comparison.
	OrderUnsigned
)

// String returns "signed", "unsigned" or "undefined".
func (o Order) String() string {
	switch o {
	case OrderSigned:
		return "signed"
	case OrderUnsigned:
		return "unsigned"
	}
	return "undefined"
}

// Exactness says whether a min or max is known to be a value of the column.
type Exactness uint8

// Exactness values, from is_min_value_exact / is_max_value_exact.
const (
	// ExactUnknown: the flag is absent (always so for the deprecated fields).
	ExactUnknown Exactness = iota
	// Exact: the value occurs in the column chunk or page.
	Exact
	// Inexact: the value is only a bound, for example a truncated string.
	Inexact
)

// Stats is the decoded, trusted part of a format.Statistics. A zero Stats
// carries nothing. Min and Max alias the bytes of the Statistics they were
// decoded from.
type Stats struct {
	// HasMin and HasMax say whether Min and Max may be used; when false the
	// corresponding Value is the zero Value.
	HasMin, HasMax bool
	Min, Max       Value
	// MinExact and MaxExact come from is_min_value_exact/is_max_value_exact.
	MinExact, MaxExact Exactness
	// Legacy is true when Min and Max come from the deprecated min/max fields.
	Legacy bool

	// NullCount is valid when HasNullCount; an absent null count must not be
	// taken as zero.
	NullCount     int64
	HasNullCount  bool
	DistinctCount int64
	// HasDistinctCount says whether DistinctCount is set.
	HasDistinctCount bool
	// NaNCount is valid when HasNaNCount; when it is absent a floating point
	// column may hold NaNs.
	NaNCount    int64
	HasNaNCount bool
	// TotalOrder is true when Min and Max of a float column are ordered by
	// IEEE_754_TOTAL_ORDER (see [CompareTotalOrder]): -0 and +0 are then
	// distinct bounds, and NaN bounds mean every non-null value is NaN
	// ([Stats.AllNaN]).
	TotalOrder bool
}

// columnType is the interpretation of a column's values that statistics
// need: how to decode one, how to render it and how it sorts.
type columnType struct {
	kind     Kind
	order    Order
	physical format.Type
	width    int // FIXED_LEN_BYTE_ARRAY length
	unit     TimeUnit
	utc      bool
	scale    int32
}

// SortOrder returns the sort order defined by the type of column c: by its
// LogicalType when it has one, else its ConvertedType, else its physical
// type. An annotation that does not fit the physical type, or that this
// package does not know, gives OrderUndefined.
func SortOrder(c *Column) Order {
	return resolveType(c).order
}

func resolveType(c *Column) columnType {
	t := columnType{physical: c.Physical, width: int(c.TypeLength)}
	el := c.Node.Element
	if el.LogicalType != nil {
		if lt := c.Node.LogicalType(); lt != nil {
			t.fromLogical(lt)
		}
		// An unknown logical type may define any order: OrderUndefined.
		return t
	}
	if el.ConvertedType != nil {
		t.fromConverted(*el.ConvertedType, el)
		return t
	}
	t.fromPhysical()
	return t
}

func (t *columnType) fromPhysical() {
	t.order = OrderSigned
	switch t.physical {
	case format.Type_BOOLEAN:
		t.kind = KindBoolean
	case format.Type_INT32, format.Type_INT64:
		t.kind = KindInt
	case format.Type_FLOAT, format.Type_DOUBLE:
		t.kind = KindFloat
	case format.Type_INT96:
		// Only INT96_TIMESTAMP_ORDER orders INT96.
		t.kind, t.order = KindInt96, OrderUndefined
	case format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY:
		t.kind, t.order = KindBytes, OrderUnsigned
	default:
		t.kind, t.order = KindNone, OrderUndefined
	}
}

func (t *columnType) set(fits bool, kind Kind, order Order) {
	if !fits {
		t.kind, t.order = KindNone, OrderUndefined
		return
	}
	t.kind, t.order = kind, order
}

func (t *columnType) isBinary() bool {
	return t.physical == format.Type_BYTE_ARRAY || t.physical == format.Type_FIXED_LEN_BYTE_ARRAY
}

func (t *columnType) fromLogical(lt *format.LogicalType) {
	p := t.physical
	switch {
	case lt.STRING != nil, lt.ENUM != nil, lt.JSON != nil:
		t.set(p == format.Type_BYTE_ARRAY, KindString, OrderUnsigned)
	case lt.BSON != nil:
		t.set(p == format.Type_BYTE_ARRAY, KindBytes, OrderUnsigned)
	case lt.UUID != nil:
		t.set(p == format.Type_FIXED_LEN_BYTE_ARRAY && t.width == 16, KindUUID, OrderUnsigned)
	case lt.FLOAT16 != nil:
		t.set(p == format.Type_FIXED_LEN_BYTE_ARRAY && t.width == 2, KindFloat, OrderSigned)
	case lt.INTEGER != nil:
		w := lt.INTEGER.BitWidth
		fits := (p == format.Type_INT32 && (w == 8 || w == 16 || w == 32)) || (p == format.Type_INT64 && w == 64)
		if lt.INTEGER.IsSigned {
			t.set(fits, KindInt, OrderSigned)
		} else {
			t.set(fits, KindUint, OrderUnsigned)
		}
	case lt.DECIMAL != nil:
		t.scale = lt.DECIMAL.Scale
		t.set(t.decimalFits(lt.DECIMAL.Precision), KindDecimal, OrderSigned)
	case lt.DATE != nil:
		t.set(p == format.Type_INT32, KindDate, OrderSigned)
	case lt.TIME != nil:
		t.utc = lt.TIME.IsAdjustedToUTC
		t.unit = unitOf(lt.TIME.Unit)
		fits := (t.unit == Millis && p == format.Type_INT32) ||
			((t.unit == Micros || t.unit == Nanos) && p == format.Type_INT64)
		t.set(fits, KindTime, OrderSigned)
	case lt.TIMESTAMP != nil:
		t.utc = lt.TIMESTAMP.IsAdjustedToUTC
		t.unit = unitOf(lt.TIMESTAMP.Unit)
		t.set(t.unit != 0 && p == format.Type_INT64, KindTimestamp, OrderSigned)
	case lt.UNKNOWN != nil:
		// Only nulls are stored; the physical type still orders.
		t.fromPhysical()
	default:
		// MAP, LIST, VARIANT, GEOMETRY, GEOGRAPHY, VECTOR: undefined.
		t.set(false, KindNone, OrderUndefined)
	}
}

func (t *columnType) decimalFits(precision int32) bool {
	if t.scale < 0 || precision <= 0 || t.scale > precision {
		return false
	}
	switch t.physical {
	case format.Type_INT32, format.Type_INT64, format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY:
		return true
	}
	return false
}

func (t *columnType) fromConverted(ct format.ConvertedType, el *format.SchemaElement) {
	p := t.physical
	switch ct {
	case format.ConvertedType_UTF8, format.ConvertedType_ENUM, format.ConvertedType_JSON:
		t.set(p == format.Type_BYTE_ARRAY, KindString, OrderUnsigned)
	case format.ConvertedType_BSON:
		t.set(p == format.Type_BYTE_ARRAY, KindBytes, OrderUnsigned)
	case format.ConvertedType_UINT_8, format.ConvertedType_UINT_16, format.ConvertedType_UINT_32:
		t.set(p == format.Type_INT32, KindUint, OrderUnsigned)
	case format.ConvertedType_UINT_64:
		t.set(p == format.Type_INT64, KindUint, OrderUnsigned)
	case format.ConvertedType_INT_8, format.ConvertedType_INT_16, format.ConvertedType_INT_32:
		t.set(p == format.Type_INT32, KindInt, OrderSigned)
	case format.ConvertedType_INT_64:
		t.set(p == format.Type_INT64, KindInt, OrderSigned)
	case format.ConvertedType_DECIMAL:
		fits := el.Scale != nil && el.Precision != nil
		if fits {
			t.scale = *el.Scale
			fits = t.decimalFits(*el.Precision)
		}
		t.set(fits, KindDecimal, OrderSigned)
	case format.ConvertedType_DATE:
		t.set(p == format.Type_INT32, KindDate, OrderSigned)
	case format.ConvertedType_TIME_MILLIS:
		t.unit, t.utc = Millis, true
		t.set(p == format.Type_INT32, KindTime, OrderSigned)
	case format.ConvertedType_TIME_MICROS:
		t.unit, t.utc = Micros, true
		t.set(p == format.Type_INT64, KindTime, OrderSigned)
	case format.ConvertedType_TIMESTAMP_MILLIS:
		t.unit, t.utc = Millis, true
		t.set(p == format.Type_INT64, KindTimestamp, OrderSigned)
	case format.ConvertedType_TIMESTAMP_MICROS:
		t.unit, t.utc = Micros, true
		t.set(p == format.Type_INT64, KindTimestamp, OrderSigned)
	default:
		// INTERVAL, MAP, MAP_KEY_VALUE, LIST and values this package does
		// not know.
		t.set(false, KindNone, OrderUndefined)
	}
}

func unitOf(u *format.TimeUnit) TimeUnit {
	switch {
	case u == nil || u.CountSetFieldsTimeUnit() != 1:
		return 0
	case u.MILLIS != nil:
		return Millis
	case u.MICROS != nil:
		return Micros
	default:
		return Nanos
	}
}

// orderKind classifies a ColumnOrder entry.
type orderKind uint8

const (
	orderAbsent orderKind = iota
	orderUnknown
	orderType
	orderIEEE754
	orderInt96
)

func classifyOrder(o *format.ColumnOrder) orderKind {
	switch {
	case o == nil:
		return orderAbsent
	case o.CountSetFieldsColumnOrder() != 1:
		return orderUnknown
	case o.TYPE_ORDER != nil:
		return orderType
	case o.IEEE_754_TOTAL_ORDER != nil:
		return orderIEEE754
	default:
		return orderInt96
	}
}

// ColumnOrder returns the ColumnOrder entry of column col of f, or nil when
// the footer has no column_orders. A column_orders list whose length is not
// the number of columns gives an empty ColumnOrder, which [DecodeStats]
// treats as an unknown order.
func ColumnOrder(f *File, col int) *format.ColumnOrder {
	orders := f.Meta.ColumnOrders
	if len(orders) == 0 {
		return nil
	}
	if len(orders) != len(f.Schema.Columns) || col < 0 || col >= len(orders) || orders[col] == nil {
		return &format.ColumnOrder{}
	}
	return orders[col]
}

// ColumnStats decodes the statistics of column col in row group rg of f.
// A chunk without statistics gives a zero Stats and no error.
func ColumnStats(f *File, rg, col int) (Stats, error) {
	md, err := f.ColumnChunk(rg, col)
	if err != nil {
		return Stats{}, err
	}
	st, err := DecodeStats(f.Schema.Columns[col], ColumnOrder(f, col), md.Statistics)
	if err != nil {
		return Stats{}, fmt.Errorf("metadata: row group %d: %w", rg, err)
	}
	return st, nil
}

// DecodeStats decodes s, the statistics of a column chunk or page of column
// c, whose entry in the footer's column_orders is order (nil when the
// footer has none; see [ColumnOrder]). Min and max that the ordering rules
// do not allow are left out; a min or max of the wrong length for the type
// is an error wrapping [ErrCorrupt]. s may be nil.
func DecodeStats(c *Column, order *format.ColumnOrder, s *format.Statistics) (Stats, error) {
	var st Stats
	if s == nil {
		return st, nil
	}
	// A negative count is treated as absent: parquet-mr writes -1 for an
	// unknown null count in page indexes, and a count that cannot be
	// right must not be used.
	if s.NullCount != nil && *s.NullCount >= 0 {
		st.NullCount, st.HasNullCount = *s.NullCount, true
	}
	if s.DistinctCount != nil && *s.DistinctCount >= 0 {
		st.DistinctCount, st.HasDistinctCount = *s.DistinctCount, true
	}
	if s.NanCount != nil && *s.NanCount >= 0 {
		st.NaNCount, st.HasNaNCount = *s.NanCount, true
	}

	t := resolveType(c)
	ord := classifyOrder(order)
	var lo, hi []byte
	switch {
	case ord == orderUnknown:
		// The spec: ignore min and max under an order we do not know.
		return st, nil
	case t.physical == format.Type_INT96 && ord != orderInt96:
		// INT96 stats count only under INT96_TIMESTAMP_ORDER.
		return st, nil
	case modernAllowed(t, ord) && (s.MinValue != nil || s.MaxValue != nil):
		lo, hi = s.MinValue, s.MaxValue
		st.MinExact = exactness(s.IsMinValueExact)
		st.MaxExact = exactness(s.IsMaxValueExact)
	case t.order == OrderSigned && !t.isBinary() && (s.Min != nil || s.Max != nil):
		lo, hi = s.Min, s.Max
		st.Legacy = true
	default:
		return st, nil
	}
	var err error
	if lo != nil {
		if st.Min, err = t.decode(lo); err != nil {
			return Stats{}, statsError(c, "min: %v", err)
		}
		st.HasMin = true
	}
	if hi != nil {
		if st.Max, err = t.decode(hi); err != nil {
			return Stats{}, statsError(c, "max: %v", err)
		}
		st.HasMax = true
	}
	// The deprecated fields were ordered like TYPE_ORDER whatever the
	// column order says.
	if t.kind == KindFloat && (st.Legacy || ord != orderIEEE754) {
		st.adjustFloats()
	} else if t.kind == KindFloat {
		st.applyTotalOrder()
	}
	if !st.HasMin {
		st.MinExact = ExactUnknown
	}
	if !st.HasMax {
		st.MaxExact = ExactUnknown
	}
	return st, nil
}

// modernAllowed reports whether min_value/max_value are ordered in a way
// this package understands for type t.
func modernAllowed(t columnType, ord orderKind) bool {
	switch ord {
	case orderType:
		return t.order != OrderUndefined
	case orderIEEE754:
		return t.kind == KindFloat
	case orderInt96:
		return t.kind == KindInt96
	}
	return false
}

// adjustFloats applies the TYPE_ORDER reading rules for floating point: a
// NaN bound says nothing, and a zero bound may stand for either zero.
func (st *Stats) adjustFloats() {
	if st.HasMin {
		switch f := st.Min.Float; {
		case math.IsNaN(f):
			st.HasMin, st.Min, st.MinExact = false, Value{}, ExactUnknown
		case f == 0 && !math.Signbit(f):
			st.Min.Float = math.Copysign(0, -1)
		}
	}
	if st.HasMax {
		switch f := st.Max.Float; {
		case math.IsNaN(f):
			st.HasMax, st.Max, st.MaxExact = false, Value{}, ExactUnknown
		case f == 0 && math.Signbit(f):
			st.Max.Float = 0
		}
	}
}

func exactness(b *bool) Exactness {
	switch {
	case b == nil:
		return ExactUnknown
	case *b:
		return Exact
	}
	return Inexact
}

func statsError(c *Column, format string, args ...any) error {
	return fmt.Errorf("metadata: column %s: statistics: %s: %w", c.DottedPath, fmt.Sprintf(format, args...), ErrCorrupt)
}

// DecodeValue decodes one PLAIN-encoded statistics value of column c (a
// min or max of a Statistics or of a ColumnIndex; byte arrays without their
// length prefix). It does not apply any ordering rule. A column whose type
// defines no order gives a Value of its physical type. The Value aliases b.
func DecodeValue(c *Column, b []byte) (Value, error) {
	t := resolveType(c)
	if t.kind == KindNone {
		t.fromPhysical()
	}
	v, err := t.decode(b)
	if err != nil {
		return Value{}, fmt.Errorf("metadata: column %s: %v: %w", c.DottedPath, err, ErrCorrupt)
	}
	return v, nil
}

// decode turns the PLAIN bytes of one value into a Value. Its errors are
// plain descriptions; callers add the column and ErrCorrupt.
func (t *columnType) decode(b []byte) (Value, error) {
	v := Value{Kind: t.kind, Physical: t.physical, Unit: t.unit, AdjustedToUTC: t.utc, Scale: t.scale}
	if want := physicalSize(t.physical, t.width); want >= 0 && len(b) != want {
		return Value{}, fmt.Errorf("%d bytes for a %s value, want %d", len(b), t.physical, want)
	}
	switch t.physical {
	case format.Type_BOOLEAN:
		// PLAIN booleans are bit-packed: one value is the low bit.
		v.Bool = b[0]&1 == 1
		return v, nil
	case format.Type_INT32:
		i := int32(binary.LittleEndian.Uint32(b))
		if t.kind == KindUint {
			v.Uint = uint64(uint32(i))
		} else {
			v.Int = int64(i)
		}
	case format.Type_INT64:
		i := binary.LittleEndian.Uint64(b)
		if t.kind == KindUint {
			v.Uint = i
		} else {
			v.Int = int64(i)
		}
	case format.Type_FLOAT:
		v.Bits = uint64(binary.LittleEndian.Uint32(b))
		v.Float = float64(math.Float32frombits(uint32(v.Bits)))
		return v, nil
	case format.Type_DOUBLE:
		v.Bits = binary.LittleEndian.Uint64(b)
		v.Float = math.Float64frombits(v.Bits)
		return v, nil
	case format.Type_INT96:
		v.Bytes = b
		return v, nil
	case format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY:
		switch t.kind {
		case KindFloat:
			v.Bits = uint64(binary.LittleEndian.Uint16(b))
			v.Float = float64(Float16ToFloat32(uint16(v.Bits)))
		case KindDecimal:
			if len(b) == 0 {
				return Value{}, fmt.Errorf("decimal of 0 bytes")
			}
			v.Bytes = b
			v.Unscaled = bigFromTwosComplement(b)
		default:
			v.Bytes = b
		}
		return v, nil
	}
	if t.kind == KindDecimal {
		v.Unscaled = big.NewInt(v.Int)
	}
	return v, nil
}

// PlainSize is the PLAIN size of one value of c as statistics and bloom
// filters hold it (a BOOLEAN one byte), or -1 for BYTE_ARRAY.
func (c *Column) PlainSize() int { return physicalSize(c.Physical, int(c.TypeLength)) }

// physicalSize is the PLAIN size of one value of a fixed-width physical
// type, or -1 for BYTE_ARRAY.
func physicalSize(p format.Type, width int) int {
	switch p {
	case format.Type_BOOLEAN:
		return 1
	case format.Type_INT32, format.Type_FLOAT:
		return 4
	case format.Type_INT64, format.Type_DOUBLE:
		return 8
	case format.Type_INT96:
		return 12
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		return width
	}
	return -1
}

// bigFromTwosComplement reads a big-endian two's complement integer.
func bigFromTwosComplement(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return n
}

// Float16ToFloat32 converts IEEE 754 binary16 bits (the FLOAT16 logical
// type, stored little-endian in a FIXED_LEN_BYTE_ARRAY(2)) to a float32.
// Every binary16 value, subnormals and NaN payloads included, is exact in
// binary32.
func Float16ToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		// Inf or NaN: keep the payload in the top fraction bits.
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: frac * 2^-24, exact in binary32.
	f := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}

// Ordering and truncation of statistics values, one set of rules for the
// column writer (which accumulates min and max and builds column indexes)
// and for readers (which compare bounds).

// CompareValues orders two values of the same Kind by the order their type
// defines (the ColumnOrder section of parquet.thrift): numbers by value,
// decimals by their unscaled value, byte arrays as unsigned bytes. NaN is
// not ordered: callers leave it out (statistics never hold one).
func CompareValues(a, b Value) int {
	switch a.Kind {
	case KindBoolean:
		switch {
		case a.Bool == b.Bool:
			return 0
		case !a.Bool:
			return -1
		}
		return 1
	case KindInt, KindDate, KindTime, KindTimestamp:
		return cmpOrdered(a.Int, b.Int)
	case KindUint:
		return cmpOrdered(a.Uint, b.Uint)
	case KindFloat:
		return cmpOrdered(a.Float, b.Float)
	case KindDecimal:
		if a.Unscaled != nil && b.Unscaled != nil {
			return a.Unscaled.Cmp(b.Unscaled)
		}
	}
	return bytesCompare(a.Bytes, b.Bytes)
}

func cmpOrdered[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func bytesCompare(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return cmpOrdered(int64(len(a)), int64(len(b)))
}

// ComparePlain orders two PLAIN-encoded statistics values of column c (as
// [DecodeValue] takes them) by the rule of [CompareValues], without
// allocating: the column writer compares page bounds with it.
func ComparePlain(c *Column, a, b []byte) (int, error) {
	t := resolveType(c)
	if t.kind == KindNone {
		t.fromPhysical()
	}
	if t.kind == KindDecimal {
		if t.isBinary() {
			if len(a) == 0 || len(b) == 0 {
				return 0, fmt.Errorf("metadata: column %s: decimal of 0 bytes: %w", c.DottedPath, ErrCorrupt)
			}
			return CompareSignedBigEndian(a, b), nil
		}
		t.kind = KindInt // INT32 and INT64 decimals: the unscaled integers
	}
	va, err := t.decode(a)
	if err != nil {
		return 0, fmt.Errorf("metadata: column %s: %v: %w", c.DottedPath, err, ErrCorrupt)
	}
	vb, err := t.decode(b)
	if err != nil {
		return 0, fmt.Errorf("metadata: column %s: %v: %w", c.DottedPath, err, ErrCorrupt)
	}
	return CompareValues(va, vb), nil
}

// CompareSignedBigEndian orders two big-endian two's complement integers
// (decimals stored as BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY) by value; they
// may differ in length. An empty slice is less than any other.
func CompareSignedBigEndian(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmpOrdered(int64(len(a)), int64(len(b)))
	}
	if len(a) == len(b) {
		// Same length: the sign byte decides, then unsigned bytes.
		if a[0] != b[0] {
			return cmpOrdered(int64(int8(a[0])), int64(int8(b[0])))
		}
		return bytesCompare(a[1:], b[1:])
	}
	return bigFromTwosComplement(a).Cmp(bigFromTwosComplement(b))
}

// TruncateMin returns b cut to at most n bytes (n > 0): a lower bound of
// b in unsigned byte order, and whether it is b itself. It aliases b.
func TruncateMin(b []byte, n int) (lo []byte, exact bool) {
	if len(b) <= n {
		return b, true
	}
	return b[:n], false
}

// TruncateMax returns an upper bound of b in unsigned byte order of at
// most n bytes (n > 0), and whether it is b itself: b when it is short
// enough, else its first n bytes with the last byte that is not 0xff
// incremented and the bytes after it dropped (a new slice). It returns
// nil and false when the first n bytes are all 0xff: no such bound exists.
func TruncateMax(b []byte, n int) (hi []byte, exact bool) {
	if len(b) <= n {
		return b, true
	}
	for i := n - 1; i >= 0; i-- {
		if b[i] != 0xff {
			hi = append([]byte(nil), b[:i+1]...)
			hi[i]++
			return hi, false
		}
	}
	return nil, false
}

// Float32ToFloat16 converts a float32 that is exactly a binary16 value
// (one read from FLOAT16 data: see [Float16ToFloat32]) back to its bits.
// NaN is not handled (statistics never hold one).
func Float32ToFloat16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127
	mant := b & 0x7fffff
	switch {
	case exp == 128: // Inf
		return sign | 0x7c00
	case exp >= -14:
		return sign | uint16(exp+15)<<10 | uint16(mant>>13)
	case exp >= -24:
		return sign | uint16((mant|0x800000)>>uint(-exp-1))
	}
	return sign
}
