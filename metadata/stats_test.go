package metadata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/float16"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	pqmeta "github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

const corpusDir = "../../shared/testdata/parquet-testing"

func ptr[T any](v T) *T { return &v }

// leaf builds a one-column schema whose leaf is el and returns the column.
func leaf(t *testing.T, el *format.SchemaElement) *Column {
	t.Helper()
	el.Name = "v"
	if el.RepetitionType == nil {
		el.RepetitionType = ptr(Optional)
	}
	s, err := NewSchema([]*format.SchemaElement{{Name: "schema", NumChildren: ptr[int32](1)}, el})
	if err != nil {
		t.Fatalf("NewSchema: %v", err)
	}
	return s.Columns[0]
}

func phys(p format.Type) *format.SchemaElement { return &format.SchemaElement{Type: ptr(p)} }

func flba(n int32) *format.SchemaElement {
	return &format.SchemaElement{Type: ptr(format.Type_FIXED_LEN_BYTE_ARRAY), TypeLength: ptr(n)}
}

func conv(p format.Type, ct format.ConvertedType) *format.SchemaElement {
	return &format.SchemaElement{Type: ptr(p), ConvertedType: ptr(ct)}
}

func logical(el *format.SchemaElement, lt *format.LogicalType) *format.SchemaElement {
	el.LogicalType = lt
	return el
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func f32(v float32) []byte { return le32(math.Float32bits(v)) }
func f64(v float64) []byte { return le64(math.Float64bits(v)) }

var (
	typeOrder  = &format.ColumnOrder{TYPE_ORDER: &format.TypeDefinedOrder{}}
	ieeeOrder  = &format.ColumnOrder{IEEE_754_TOTAL_ORDER: &format.IEEE754TotalOrder{}}
	int96Order = &format.ColumnOrder{INT96_TIMESTAMP_ORDER: &format.Int96TimestampOrder{}}
	// unknownOrder is what the generated reader makes of a union member
	// this package does not know: nothing set.
	unknownOrder = &format.ColumnOrder{}
)

func TestFloat16ToFloat32(t *testing.T) {
	// Hand-computed binary16 values.
	for _, tc := range []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x4500, 5}, {0x7bff, 65504}, {0x0001, 1.0 / (1 << 24)},
		{0x03ff, 1023.0 / (1 << 24)}, {0x0400, 1.0 / (1 << 14)}, {0x3555, 0.333251953125},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	} {
		if got := Float16ToFloat32(tc.bits); got != tc.want {
			t.Errorf("Float16ToFloat32(%#04x) = %v, want %v", tc.bits, got, tc.want)
		}
	}
	if got := Float16ToFloat32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("Float16ToFloat32(0x8000) = %v, want -0", got)
	}
	// Every value against the definition of binary16, computed in float64.
	// (arrow-go's float16 is no oracle here: it gets subnormals wrong.)
	for h := 0; h <= 0xffff; h++ {
		sign, exp, frac := h>>15, (h>>10)&0x1f, h&0x3ff
		var want float64
		switch {
		case exp == 0x1f && frac != 0:
			want = math.NaN()
		case exp == 0x1f:
			want = math.Inf(1)
		case exp == 0:
			want = math.Ldexp(float64(frac)/1024, -14)
		default:
			want = math.Ldexp(1+float64(frac)/1024, exp-15)
		}
		if sign == 1 {
			want = -want
		}
		got := float64(Float16ToFloat32(uint16(h)))
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("Float16ToFloat32(%#04x) = %v, want %v", h, got, want)
		}
	}
}

func TestSortOrder(t *testing.T) {
	ba := format.Type_BYTE_ARRAY
	i32, i64 := format.Type_INT32, format.Type_INT64
	millis := &format.TimeUnit{MILLIS: &format.MilliSeconds{}}
	nanos := &format.TimeUnit{NANOS: &format.NanoSeconds{}}
	tests := []struct {
		name string
		el   *format.SchemaElement
		want Order
	}{
		{"BOOLEAN", phys(format.Type_BOOLEAN), OrderSigned},
		{"INT32", phys(i32), OrderSigned},
		{"INT64", phys(i64), OrderSigned},
		{"INT96", phys(format.Type_INT96), OrderUndefined},
		{"FLOAT", phys(format.Type_FLOAT), OrderSigned},
		{"DOUBLE", phys(format.Type_DOUBLE), OrderSigned},
		{"BYTE_ARRAY", phys(ba), OrderUnsigned},
		{"FIXED_LEN_BYTE_ARRAY", flba(3), OrderUnsigned},
		{"UTF8", conv(ba, format.ConvertedType_UTF8), OrderUnsigned},
		{"ENUM", conv(ba, format.ConvertedType_ENUM), OrderUnsigned},
		{"JSON", conv(ba, format.ConvertedType_JSON), OrderUnsigned},
		{"BSON", conv(ba, format.ConvertedType_BSON), OrderUnsigned},
		{"UINT_8", conv(i32, format.ConvertedType_UINT_8), OrderUnsigned},
		{"UINT_32", conv(i32, format.ConvertedType_UINT_32), OrderUnsigned},
		{"UINT_64", conv(i64, format.ConvertedType_UINT_64), OrderUnsigned},
		{"INT_16", conv(i32, format.ConvertedType_INT_16), OrderSigned},
		{"INT_64", conv(i64, format.ConvertedType_INT_64), OrderSigned},
		{"DATE", conv(i32, format.ConvertedType_DATE), OrderSigned},
		{"TIME_MILLIS", conv(i32, format.ConvertedType_TIME_MILLIS), OrderSigned},
		{"TIMESTAMP_MICROS", conv(i64, format.ConvertedType_TIMESTAMP_MICROS), OrderSigned},
		{"DECIMAL converted", &format.SchemaElement{Type: ptr(i32), ConvertedType: ptr(format.ConvertedType_DECIMAL),
			Scale: ptr[int32](2), Precision: ptr[int32](4)}, OrderSigned},
		{"DECIMAL converted without precision", conv(i32, format.ConvertedType_DECIMAL), OrderUndefined},
		{"INTERVAL", func() *format.SchemaElement {
			el := flba(12)
			el.ConvertedType = ptr(format.ConvertedType_INTERVAL)
			return el
		}(), OrderUndefined},
		{"UINT_64 on INT32 does not fit", conv(i32, format.ConvertedType_UINT_64), OrderUndefined},
		{"UTF8 on INT32 does not fit", conv(i32, format.ConvertedType_UTF8), OrderUndefined},
		{"unknown converted type", conv(i32, format.ConvertedType(99)), OrderUndefined},
		{"STRING", logical(phys(ba), &format.LogicalType{STRING: &format.StringType{}}), OrderUnsigned},
		{"UUID", logical(flba(16), &format.LogicalType{UUID: &format.UUIDType{}}), OrderUnsigned},
		{"UUID on FLBA(8) does not fit", logical(flba(8), &format.LogicalType{UUID: &format.UUIDType{}}), OrderUndefined},
		{"FLOAT16", logical(flba(2), &format.LogicalType{FLOAT16: &format.Float16Type{}}), OrderSigned},
		{"INT(8, false)", logical(phys(i32), &format.LogicalType{INTEGER: &format.IntType{BitWidth: 8}}), OrderUnsigned},
		{"INT(64, false)", logical(phys(i64), &format.LogicalType{INTEGER: &format.IntType{BitWidth: 64}}), OrderUnsigned},
		{"INT(16, true)", logical(phys(i32), &format.LogicalType{INTEGER: &format.IntType{BitWidth: 16, IsSigned: true}}), OrderSigned},
		{"INT(64, true) on INT32 does not fit", logical(phys(i32), &format.LogicalType{INTEGER: &format.IntType{BitWidth: 64, IsSigned: true}}), OrderUndefined},
		{"DECIMAL", logical(flba(5), &format.LogicalType{DECIMAL: &format.DecimalType{Scale: 2, Precision: 10}}), OrderSigned},
		{"DECIMAL on BOOLEAN does not fit", logical(phys(format.Type_BOOLEAN), &format.LogicalType{DECIMAL: &format.DecimalType{Scale: 0, Precision: 1}}), OrderUndefined},
		{"DATE", logical(phys(i32), &format.LogicalType{DATE: &format.DateType{}}), OrderSigned},
		{"TIME millis", logical(phys(i32), &format.LogicalType{TIME: &format.TimeType{Unit: millis}}), OrderSigned},
		{"TIME nanos on INT32 does not fit", logical(phys(i32), &format.LogicalType{TIME: &format.TimeType{Unit: nanos}}), OrderUndefined},
		{"TIMESTAMP nanos", logical(phys(i64), &format.LogicalType{TIMESTAMP: &format.TimestampType{Unit: nanos}}), OrderSigned},
		{"JSON", logical(phys(ba), &format.LogicalType{JSON: &format.JsonType{}}), OrderUnsigned},
		{"BSON", logical(phys(ba), &format.LogicalType{BSON: &format.BsonType{}}), OrderUnsigned},
		{"ENUM", logical(phys(ba), &format.LogicalType{ENUM: &format.EnumType{}}), OrderUnsigned},
		{"UNKNOWN (null) falls back to the physical type", logical(phys(i32), &format.LogicalType{UNKNOWN: &format.NullType{}}), OrderSigned},
		{"VARIANT", logical(phys(ba), &format.LogicalType{VARIANT: &format.VariantType{}}), OrderUndefined},
		{"GEOMETRY", logical(phys(ba), &format.LogicalType{GEOMETRY: &format.GeometryType{}}), OrderUndefined},
		{"GEOGRAPHY", logical(phys(ba), &format.LogicalType{GEOGRAPHY: &format.GeographyType{}}), OrderUndefined},
		{"MAP on a leaf", logical(phys(ba), &format.LogicalType{MAP: &format.MapType{}}), OrderUndefined},
		{"LIST on a leaf", logical(phys(ba), &format.LogicalType{LIST: &format.ListType{}}), OrderUndefined},
		{"logical type unknown to this reader", logical(phys(i64), &format.LogicalType{}), OrderUndefined},
		{"logical type wins over converted type", logical(conv(i32, format.ConvertedType_INT_32),
			&format.LogicalType{INTEGER: &format.IntType{BitWidth: 32}}), OrderUnsigned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SortOrder(leaf(t, tc.el)); got != tc.want {
				t.Errorf("SortOrder = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDecodeStats(t *testing.T) {
	i32 := format.Type_INT32
	ba := format.Type_BYTE_ARRAY
	str := logical(phys(ba), &format.LogicalType{STRING: &format.StringType{}})
	f16 := logical(flba(2), &format.LogicalType{FLOAT16: &format.Float16Type{}})
	negZero32 := f32(float32(math.Copysign(0, -1)))
	type want struct {
		min, max string // Value.String(); "" = absent
		legacy   bool
	}
	tests := []struct {
		name  string
		el    *format.SchemaElement
		order *format.ColumnOrder
		stats *format.Statistics
		want  want
	}{
		{"legacy signed int32 without column orders", phys(i32), nil,
			&format.Statistics{Min: le32(0xfffffffe), Max: le32(7)}, want{"-2", "7", true}},
		{"min_value without column orders is ignored", phys(i32), nil,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"TYPE_ORDER prefers min_value over legacy min", phys(i32), typeOrder,
			&format.Statistics{Min: le32(5), Max: le32(6), MinValue: le32(1), MaxValue: le32(2)}, want{"1", "2", false}},
		{"TYPE_ORDER without min_value falls back to legacy for a signed type", phys(i32), typeOrder,
			&format.Statistics{Min: le32(5), Max: le32(6)}, want{"5", "6", true}},
		{"legacy min/max of UINT_32 are ignored", conv(i32, format.ConvertedType_UINT_32), nil,
			&format.Statistics{Min: le32(0), Max: le32(0xffffffff)}, want{}},
		{"min_value of UINT_32 is unsigned", conv(i32, format.ConvertedType_UINT_32), typeOrder,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(0xffffffff)}, want{"1", "4294967295", false}},
		{"INT(64, false)", logical(phys(format.Type_INT64), &format.LogicalType{INTEGER: &format.IntType{BitWidth: 64}}), typeOrder,
			&format.Statistics{MinValue: le64(0), MaxValue: le64(math.MaxUint64)}, want{"0", "18446744073709551615", false}},
		{"legacy min/max of a string are ignored", str, nil,
			&format.Statistics{Min: []byte("a"), Max: []byte("b")}, want{}},
		{"legacy min/max of a signed FLBA decimal are ignored", logical(flba(2), &format.LogicalType{DECIMAL: &format.DecimalType{Scale: 1, Precision: 4}}), nil,
			&format.Statistics{Min: []byte{0, 1}, Max: []byte{0, 2}}, want{}},
		{"string min_value under TYPE_ORDER", str, typeOrder,
			&format.Statistics{MinValue: []byte("Al"), MaxValue: []byte("Ke\xff")}, want{`"Al"`, "0x4b65ff", false}},
		{"unannotated byte array renders as hex", phys(ba), typeOrder,
			&format.Statistics{MinValue: []byte("Al"), MaxValue: []byte{}}, want{"0x416c", "0x", false}},
		{"unknown column order ignores everything", phys(i32), unknownOrder,
			&format.Statistics{Min: le32(1), Max: le32(2), MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"IEEE 754 order on an int is not understood", phys(i32), ieeeOrder,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"INT96 under TYPE_ORDER ignores even legacy stats", phys(format.Type_INT96), typeOrder,
			&format.Statistics{Min: make([]byte, 12), Max: make([]byte, 12), MinValue: make([]byte, 12), MaxValue: make([]byte, 12)}, want{}},
		{"INT96 without column orders", phys(format.Type_INT96), nil,
			&format.Statistics{Min: make([]byte, 12), Max: make([]byte, 12)}, want{}},
		{"INT96 under INT96_TIMESTAMP_ORDER", phys(format.Type_INT96), int96Order,
			// Julian day 2440588 = 1970-01-01, plus 1.5 s.
			&format.Statistics{MinValue: append(le64(1_500_000_000), le32(2440588)...), MaxValue: append(le64(0), le32(2440589)...)},
			want{"1970-01-01T00:00:01.500000000", "1970-01-02T00:00:00.000000000", false}},
		{"INT96 order on INT32 is not understood", phys(i32), int96Order,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"INTERVAL has no order", func() *format.SchemaElement {
			el := flba(12)
			el.ConvertedType = ptr(format.ConvertedType_INTERVAL)
			return el
		}(), typeOrder, &format.Statistics{MinValue: make([]byte, 12), MaxValue: make([]byte, 12)}, want{}},
		{"GEOMETRY has no order", logical(phys(ba), &format.LogicalType{GEOMETRY: &format.GeometryType{}}), typeOrder,
			&format.Statistics{MinValue: []byte{1}, MaxValue: []byte{2}}, want{}},
		{"VARIANT has no order", logical(phys(ba), &format.LogicalType{VARIANT: &format.VariantType{}}), typeOrder,
			&format.Statistics{MinValue: []byte{1}, MaxValue: []byte{2}}, want{}},
		{"float TYPE_ORDER drops a NaN max", phys(format.Type_FLOAT), typeOrder,
			&format.Statistics{MinValue: f32(1.5), MaxValue: f32(float32(math.NaN()))}, want{"1.5", "", false}},
		{"float TYPE_ORDER widens +0 min to -0 and -0 max to +0", phys(format.Type_FLOAT), typeOrder,
			&format.Statistics{MinValue: f32(0), MaxValue: negZero32}, want{"-0", "0", false}},
		{"float IEEE 754 order keeps NaN and zeros", phys(format.Type_FLOAT), ieeeOrder,
			&format.Statistics{MinValue: f32(0), MaxValue: le32(0x7fc00000)}, want{"0", "NaN", false}},
		{"legacy float under IEEE 754 order still drops NaN", phys(format.Type_FLOAT), ieeeOrder,
			&format.Statistics{Min: f32(0), Max: le32(0x7fc00000)}, want{"-0", "", true}},
		{"double legacy drops a NaN min", phys(format.Type_DOUBLE), nil,
			&format.Statistics{Min: f64(math.NaN()), Max: f64(0.1)}, want{"", "0.1", true}},
		{"FLOAT16 TYPE_ORDER", f16, typeOrder,
			&format.Statistics{MinValue: []byte{0x00, 0xc0}, MaxValue: []byte{0x55, 0x35}}, want{"-2", "0.33325195", false}},
		{"FLOAT16 TYPE_ORDER drops NaN", f16, typeOrder,
			&format.Statistics{MinValue: []byte{0x00, 0x7e}, MaxValue: []byte{0x00, 0x7e}}, want{}},
		{"FLOAT16 IEEE 754 order keeps NaN", f16, ieeeOrder,
			&format.Statistics{MinValue: []byte{0xff, 0xff}, MaxValue: []byte{0xff, 0x7f}}, want{"NaN", "NaN", false}},
		{"boolean", phys(format.Type_BOOLEAN), typeOrder,
			&format.Statistics{MinValue: []byte{0}, MaxValue: []byte{1}}, want{"false", "true", false}},
		{"decimal in FLBA", logical(flba(3), &format.LogicalType{DECIMAL: &format.DecimalType{Scale: 2, Precision: 6}}), typeOrder,
			&format.Statistics{MinValue: []byte{0xff, 0xff, 0xfb}, MaxValue: []byte{0x01, 0x00, 0x00}}, want{"-0.05", "655.36", false}},
		{"decimal in INT32", &format.SchemaElement{Type: ptr(i32), ConvertedType: ptr(format.ConvertedType_DECIMAL),
			Scale: ptr[int32](3), Precision: ptr[int32](9)}, nil,
			&format.Statistics{Min: le32(0xfffffc18), Max: le32(5)}, want{"-1.000", "0.005", true}},
		{"date", logical(phys(i32), &format.LogicalType{DATE: &format.DateType{}}), typeOrder,
			&format.Statistics{MinValue: le32(0xffffffff), MaxValue: le32(19723)}, want{"1969-12-31", "2024-01-01", false}},
		{"unknown logical type ignores min/max", logical(phys(i32), &format.LogicalType{}), typeOrder,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"STRING on INT32 does not fit", logical(phys(i32), &format.LogicalType{STRING: &format.StringType{}}), typeOrder,
			&format.Statistics{MinValue: le32(1), MaxValue: le32(2)}, want{}},
		{"only a max", phys(i32), typeOrder, &format.Statistics{MaxValue: le32(3)}, want{"", "3", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := DecodeStats(leaf(t, tc.el), tc.order, tc.stats)
			if err != nil {
				t.Fatalf("DecodeStats: %v", err)
			}
			got := want{legacy: st.Legacy}
			if st.HasMin {
				got.min = st.Min.String()
			}
			if st.HasMax {
				got.max = st.Max.String()
			}
			if !st.HasMin && !st.HasMax {
				got.legacy = false
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDecodeStatsCounts(t *testing.T) {
	c := leaf(t, phys(format.Type_DOUBLE))
	st, err := DecodeStats(c, typeOrder, &format.Statistics{})
	if err != nil {
		t.Fatal(err)
	}
	if st.HasNullCount || st.HasDistinctCount || st.HasNaNCount || st.HasMin || st.HasMax {
		t.Errorf("empty Statistics gave %+v", st)
	}
	st, err = DecodeStats(c, typeOrder, &format.Statistics{NullCount: ptr[int64](0), DistinctCount: ptr[int64](7),
		NanCount: ptr[int64](2), MinValue: f64(1), MaxValue: f64(2), IsMinValueExact: ptr(true), IsMaxValueExact: ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if !st.HasNullCount || st.NullCount != 0 || !st.HasDistinctCount || st.DistinctCount != 7 ||
		!st.HasNaNCount || st.NaNCount != 2 || st.MinExact != Exact || st.MaxExact != Inexact {
		t.Errorf("counts: %+v", st)
	}
	// Exactness flags belong to min_value/max_value; they do not carry
	// over to the legacy fields.
	st, err = DecodeStats(c, nil, &format.Statistics{Min: f64(1), Max: f64(2), IsMinValueExact: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if st.MinExact != ExactUnknown || !st.Legacy {
		t.Errorf("legacy exactness: %+v", st)
	}
	// Negative counts cannot be right: absent.
	st, err = DecodeStats(c, typeOrder, &format.Statistics{NullCount: ptr[int64](-1), DistinctCount: ptr[int64](-1), NanCount: ptr[int64](-3)})
	if err != nil || st.HasNullCount || st.HasDistinctCount || st.HasNaNCount {
		t.Errorf("negative counts: %+v, %v", st, err)
	}
	if st, err := DecodeStats(c, typeOrder, nil); err != nil || st.HasMin || st.HasMax || st.HasNullCount {
		t.Errorf("nil statistics: %+v, %v", st, err)
	}
}

func TestDecodeStatsCorrupt(t *testing.T) {
	tests := []struct {
		name  string
		el    *format.SchemaElement
		stats *format.Statistics
	}{
		{"int32 of 3 bytes", phys(format.Type_INT32), &format.Statistics{MinValue: []byte{1, 2, 3}}},
		{"int64 of 4 bytes", phys(format.Type_INT64), &format.Statistics{MaxValue: le32(1)}},
		{"double of 4 bytes", phys(format.Type_DOUBLE), &format.Statistics{MaxValue: le32(1)}},
		{"boolean of 0 bytes", phys(format.Type_BOOLEAN), &format.Statistics{MinValue: []byte{}}},
		{"FLBA(4) of 5 bytes", flba(4), &format.Statistics{MinValue: make([]byte, 5)}},
		{"FLOAT16 of 4 bytes", logical(flba(2), &format.LogicalType{FLOAT16: &format.Float16Type{}}),
			&format.Statistics{MinValue: make([]byte, 4)}},
		{"empty BYTE_ARRAY decimal", logical(phys(format.Type_BYTE_ARRAY), &format.LogicalType{DECIMAL: &format.DecimalType{Scale: 0, Precision: 3}}),
			&format.Statistics{MinValue: []byte{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeStats(leaf(t, tc.el), typeOrder, tc.stats)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), "column v") {
				t.Errorf("error %q does not name the column", err)
			}
		})
	}
}

func TestValueString(t *testing.T) {
	dec := func(s string, scale int32) Value {
		v := Value{Kind: KindDecimal, Scale: scale}
		v.Unscaled, _ = new(big.Int).SetString(s, 10)
		return v
	}
	tests := []struct {
		v    Value
		want string
	}{
		{Value{}, "<none>"},
		{Value{Kind: KindInt, Int: -42}, "-42"},
		{Value{Kind: KindUint, Uint: math.MaxUint64}, "18446744073709551615"},
		{Value{Kind: KindFloat, Physical: format.Type_FLOAT, Float: float64(float32(9.9))}, "9.9"},
		{Value{Kind: KindFloat, Physical: format.Type_DOUBLE, Float: 0.1}, "0.1"},
		{Value{Kind: KindString, Bytes: []byte("a\"b")}, `"a\"b"`},
		{Value{Kind: KindString, Bytes: []byte{0xff}}, "0xff"},
		{Value{Kind: KindBytes, Bytes: []byte("ok")}, "0x6f6b"},
		{Value{Kind: KindUUID, Bytes: []byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}},
			"12345678-9abc-def0-0123-456789abcdef"},
		{dec("12345", 2), "123.45"},
		{dec("-5", 3), "-0.005"},
		{dec("0", 2), "0.00"},
		{dec("-12345678901234567890123", 0), "-12345678901234567890123"},
		{dec("7", -2), "7e2"},
		{dec("-7", 33), "-0." + strings.Repeat("0", 32) + "7"},
		{dec("-7", 34), "-7e-34"},
		{dec("7", math.MaxInt32), "7e-2147483647"},
		{Value{Kind: KindDate, Int: 0}, "1970-01-01"},
		{Value{Kind: KindDate, Int: -719162}, "0001-01-01"},
		{Value{Kind: KindTime, Int: 3723004, Unit: Millis}, "01:02:03.004"},
		{Value{Kind: KindTime, Int: 86399999999, Unit: Micros}, "23:59:59.999999"},
		{Value{Kind: KindTime, Int: -1, Unit: Nanos}, "-1ns"},
		{Value{Kind: KindTimestamp, Int: 1704141296123456, Unit: Micros, AdjustedToUTC: true}, "2024-01-01T20:34:56.123456Z"},
		{Value{Kind: KindTimestamp, Int: -1, Unit: Millis}, "1969-12-31T23:59:59.999"},
		{Value{Kind: KindTimestamp, Int: 1, Unit: Nanos, AdjustedToUTC: true}, "1970-01-01T00:00:00.000000001Z"},
		{Value{Kind: KindInt96, Bytes: append(le64(0), le32(2440588)...)}, "1970-01-01T00:00:00.000000000"},
		{Value{Kind: KindInt96, Bytes: append(le64(math.MaxUint64), le32(1)...)}, "int96(julian day 1, -1 ns)"},
		{Value{Kind: KindBoolean, Bool: true}, "true"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%v value: String() = %q, want %q", tc.v.Kind, got, tc.want)
		}
	}
}

func openCorpus(t testing.TB, rel string) *File {
	t.Helper()
	fh, err := os.Open(filepath.Join(corpusDir, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFooter(fh, fi.Size())
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return f
}

// TestColumnStatsCorpus checks files whose contents the catalog states.
func TestColumnStatsCorpus(t *testing.T) {
	testshared.Need(t, corpusDir)
	type chunk struct {
		rg       int
		col      string
		min, max string // "" = absent
		nulls    int64  // -1 = absent
		nans     int64  // -1 = absent
	}
	tests := []struct {
		file   string
		chunks []chunk
	}{
		// [1.0, NaN] from pyarrow 0.8: the NaN max must go.
		{"data/nan_in_stats.parquet", []chunk{{0, "x", "1", "", 0, -1}}},
		// [null, 1, -2, NaN, 0, -1, -0, 2].
		{"data/float16_nonzeros_and_nans.parquet", []chunk{{0, "x", "-2", "2", 1, -1}}},
		// [null, 0, NaN]: -0 and +0 bounds.
		{"data/float16_zeros_and_nans.parquet", []chunk{{0, "x", "-0", "0", 1, -1}}},
		// Row groups: no NaN, some NaN, all NaN, zero min, zero max.
		{"data/floating_orders_nan_count.parquet", []chunk{
			{0, "float_ieee754", "-2", "5", 0, 0}, {0, "double_typedef", "-2", "5", 0, 0},
			{1, "float_ieee754", "-2", "3", 0, 4}, {1, "float_typedef", "", "", 0, 4},
			{1, "double_ieee754", "-2", "3", 0, 4}, {1, "float16_typedef", "", "", 0, 4},
			{2, "float_ieee754", "NaN", "NaN", 0, 10}, {2, "double_typedef", "", "", 0, 10},
			{2, "float16_ieee754", "NaN", "NaN", 0, 10},
			{3, "float_ieee754", "0", "5", 0, 0}, {3, "float_typedef", "-0", "5", 0, 0},
			{3, "float16_typedef", "-0", "5", 0, 0},
			{4, "float_ieee754", "-5", "-0", 0, 0}, {4, "float_typedef", "-5", "0", 0, 0},
			{4, "double_typedef", "-5", "0", 0, 0},
		}},
		{"data/binary_truncated_min_max.parquet", []chunk{
			{0, "utf8_partial_truncation", `"Al"`, `"🚀Kevin Bacon"`, 0, -1},
			{0, "binary_partial_truncation", "0x416c", "0xffff0102", 0, -1},
			{0, "utf8_no_truncation", `"Al"`, `"Ke"`, 0, -1},
		}},
		{"data/int32_decimal.parquet", []chunk{{0, "value", "1.00", "24.00", 0, -1}}},
		{"data/int64_decimal.parquet", []chunk{{0, "value", "1.00", "24.00", 0, -1}}},
		// FLBA decimal written by parquet-mr 1.8.2 with legacy min/max only:
		// binary legacy stats are not trusted.
		{"data/fixed_length_decimal.parquet", []chunk{{0, "value", "", "", 0, -1}}},
		{"data/alltypes_tiny_pages.parquet", []chunk{{0, "id", "0", "7299", 0, -1}, {0, "bool_col", "false", "true", 0, -1}}},
		// min_value/max_value without column_orders: undefined by the spec.
		{"data/concatenated_gzip_members.parquet", []chunk{{0, "long_col", "", "", -1, -1}}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f := openCorpus(t, tc.file)
			for _, ch := range tc.chunks {
				col := f.Schema.ColumnByPath(ch.col)
				if col == nil {
					t.Fatalf("no column %q", ch.col)
				}
				st, err := ColumnStats(f, ch.rg, col.Index)
				if err != nil {
					t.Fatalf("row group %d, %s: %v", ch.rg, ch.col, err)
				}
				var gotMin, gotMax string
				if st.HasMin {
					gotMin = st.Min.String()
				}
				if st.HasMax {
					gotMax = st.Max.String()
				}
				nulls, nans := int64(-1), int64(-1)
				if st.HasNullCount {
					nulls = st.NullCount
				}
				if st.HasNaNCount {
					nans = st.NaNCount
				}
				got := chunk{ch.rg, ch.col, gotMin, gotMax, nulls, nans}
				if got != ch {
					t.Errorf("got  %+v\nwant %+v", got, ch)
				}
			}
		})
	}
	// Exactness flags as the catalog describes them.
	f := openCorpus(t, "data/binary_truncated_min_max.parquet")
	for name, want := range map[string][2]Exactness{
		"utf8_partial_truncation": {Inexact, Exact},
		"utf8_no_truncation":      {Exact, Exact},
	} {
		st, err := ColumnStats(f, 0, f.Schema.ColumnByPath(name).Index)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]Exactness{st.MinExact, st.MaxExact}; got != want {
			t.Errorf("%s: exactness %v, want %v", name, got, want)
		}
	}
}

// corpusFiles lists every Parquet file of the corpus.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"data", "bad_data", "shredded_variant"} {
		err := filepath.WalkDir(filepath.Join(corpusDir, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".parquet.encrypted")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("corpus: %v", err)
		}
	}
	if len(files) < 50 {
		t.Fatalf("corpus at %s has only %d Parquet files", corpusDir, len(files))
	}
	return files
}

// TestColumnStatsOracle decodes the statistics of every column chunk of the
// corpus and, where arrow-go also reports a min and max, compares the
// values.
func TestColumnStatsOracle(t *testing.T) {
	testshared.Need(t, corpusDir)
	var compared int
	for _, p := range corpusFiles(t) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ReadFooter(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			continue // the footer tests cover files that do not open
		}
		ours := make(map[[2]int]Stats)
		for rg := range f.Meta.RowGroups {
			for c := range f.Schema.Columns {
				st, err := ColumnStats(f, rg, c)
				if err != nil {
					if errors.Is(err, ErrEncrypted) {
						continue
					}
					t.Errorf("%s: row group %d, column %d: %v", p, rg, c, err)
				}
				ours[[2]int{rg, c}] = st
			}
		}
		rd := openOracle(data)
		if rd == nil {
			continue
		}
		md := rd.MetaData()
		for rg := range f.Meta.RowGroups {
			for c, col := range f.Schema.Columns {
				st := ours[[2]int{rg, c}]
				cc, err := md.RowGroup(rg).ColumnChunk(c)
				if err != nil {
					continue
				}
				ts, err := cc.Statistics()
				if err != nil || ts == nil {
					continue
				}
				if ts.HasNullCount() && st.HasNullCount && ts.NullCount() != st.NullCount {
					t.Errorf("%s rg %d %s: null count %d, arrow-go %d", p, rg, col.DottedPath, st.NullCount, ts.NullCount())
				}
				if !ts.HasMinMax() || !st.HasMin || !st.HasMax {
					continue
				}
				if msg := compareOracle(st, ts); msg != "" {
					t.Errorf("%s rg %d %s: %s", p, rg, col.DottedPath, msg)
				}
				compared++
			}
		}
		rd.Close()
	}
	if compared < 100 {
		t.Errorf("only %d chunks compared with arrow-go", compared)
	}
	t.Logf("%d column chunks compared with arrow-go", compared)
}

func compareOracle(st Stats, ts pqmeta.TypedStatistics) string {
	eqFloat := func(a, b float64) bool { return a == b || (a != a && b != b) }
	var ok bool
	switch s := ts.(type) {
	case *pqmeta.BooleanStatistics:
		ok = st.Min.Bool == s.Min() && st.Max.Bool == s.Max()
	case *pqmeta.Int32Statistics:
		if st.Min.Kind == KindUint {
			ok = st.Min.Uint == uint64(uint32(s.Min())) && st.Max.Uint == uint64(uint32(s.Max()))
		} else {
			ok = st.Min.Int == int64(s.Min()) && st.Max.Int == int64(s.Max())
		}
	case *pqmeta.Int64Statistics:
		if st.Min.Kind == KindUint {
			ok = st.Min.Uint == uint64(s.Min()) && st.Max.Uint == uint64(s.Max())
		} else {
			ok = st.Min.Int == s.Min() && st.Max.Int == s.Max()
		}
	case *pqmeta.Float32Statistics:
		ok = eqFloat(st.Min.Float, float64(s.Min())) && eqFloat(st.Max.Float, float64(s.Max()))
	case *pqmeta.Float64Statistics:
		ok = eqFloat(st.Min.Float, s.Min()) && eqFloat(st.Max.Float, s.Max())
	case *pqmeta.Float16Statistics:
		lo := float64(float16.FromLEBytes(s.Min()).Float32())
		hi := float64(float16.FromLEBytes(s.Max()).Float32())
		ok = eqFloat(st.Min.Float, lo) && eqFloat(st.Max.Float, hi)
	case *pqmeta.ByteArrayStatistics:
		ok = bytes.Equal(st.Min.Bytes, s.Min()) && bytes.Equal(st.Max.Bytes, s.Max())
	case *pqmeta.FixedLenByteArrayStatistics:
		ok = bytes.Equal(st.Min.Bytes, s.Min()) && bytes.Equal(st.Max.Bytes, s.Max())
	default:
		return ""
	}
	if !ok {
		return "min/max " + st.Min.String() + "/" + st.Max.String() + " differ from arrow-go's"
	}
	return ""
}

// openOracle opens data with arrow-go, or returns nil when arrow-go fails
// or panics (it panics on logical types it does not know).
func openOracle(data []byte) (rd *pqfile.Reader) {
	defer func() {
		if recover() != nil {
			rd = nil
		}
	}()
	rd, err := pqfile.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	return rd
}

// TestDecodeStatsAllocs checks that decoding statistics allocates nothing
// for types that need no big integer: ColumnStats runs once per column
// chunk when a reader prunes row groups.
func TestDecodeStatsAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		el   *format.SchemaElement
		s    *format.Statistics
	}{
		{"int64", phys(format.Type_INT64), &format.Statistics{MinValue: le64(1), MaxValue: le64(2), NullCount: ptr[int64](0)}},
		{"double", phys(format.Type_DOUBLE), &format.Statistics{MinValue: f64(0), MaxValue: f64(math.NaN())}},
		{"string", logical(phys(format.Type_BYTE_ARRAY), &format.LogicalType{STRING: &format.StringType{}}),
			&format.Statistics{MinValue: []byte("a"), MaxValue: []byte("b")}},
		{"timestamp", logical(phys(format.Type_INT64), &format.LogicalType{TIMESTAMP: &format.TimestampType{
			Unit: &format.TimeUnit{MICROS: &format.MicroSeconds{}}}}), &format.Statistics{MinValue: le64(1), MaxValue: le64(2)}},
	} {
		c := leaf(t, tc.el)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := DecodeStats(c, typeOrder, tc.s); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per DecodeStats", tc.name, allocs)
		}
	}
}

// TestTruncateBounds: truncated statistics bounds, hand-computed.
func TestTruncateBounds(t *testing.T) {
	for _, c := range []struct {
		in      string
		n       int
		lo, hi  string
		hiNil   bool
		exactLo bool
		exactHi bool
	}{
		{in: "abc", n: 5, lo: "abc", hi: "abc", exactLo: true, exactHi: true},
		{in: "abcdef", n: 3, lo: "abc", hi: "abd"},
		{in: "ab\xff\xffz", n: 4, lo: "ab\xff\xff", hi: "ac"},
		{in: "\xff\xff\xff", n: 2, lo: "\xff\xff", hiNil: true},
	} {
		lo, exLo := TruncateMin([]byte(c.in), c.n)
		hi, exHi := TruncateMax([]byte(c.in), c.n)
		if string(lo) != c.lo || exLo != c.exactLo || exHi != c.exactHi || (hi == nil) != c.hiNil || (!c.hiNil && string(hi) != c.hi) {
			t.Errorf("%q cut to %d: min %q (%v) max %q (%v), want %q (%v) %q (%v, nil %v)", c.in, c.n, lo, exLo, hi, exHi, c.lo, c.exactLo, c.hi, c.exactHi, c.hiNil)
		}
	}
	// TruncateMax does not modify its input.
	in := []byte("abcdef")
	TruncateMax(in, 3)
	if string(in) != "abcdef" {
		t.Errorf("input changed to %q", in)
	}
}

// TestCompareSignedBigEndian: two's complement integers of equal and of
// different lengths.
func TestCompareSignedBigEndian(t *testing.T) {
	for _, c := range []struct {
		a, b []byte
		want int
	}{
		{[]byte{0x00, 0x01}, []byte{0x00, 0x02}, -1},
		{[]byte{0xff, 0xff}, []byte{0x00, 0x00}, -1}, // -1 < 0
		{[]byte{0x80, 0x00}, []byte{0x7f, 0xff}, -1}, // -32768 < 32767
		{[]byte{0x01, 0x00}, []byte{0x00, 0xff}, 1},  // 256 > 255
		{[]byte{0xff}, []byte{0xff, 0xff}, 0},        // -1 = -1
		{[]byte{0x00, 0x80}, []byte{0x80}, 1},        // 128 > -128
		{[]byte{}, []byte{0x00}, -1},
	} {
		if got := CompareSignedBigEndian(c.a, c.b); got != c.want {
			t.Errorf("CompareSignedBigEndian(%x, %x) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := CompareSignedBigEndian(c.b, c.a); got != -c.want {
			t.Errorf("CompareSignedBigEndian(%x, %x) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestFloat32ToFloat16: binary16 bits of hand-picked values, and back.
func TestFloat32ToFloat16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {float32(math.Inf(1)), 0x7c00},
		{0.000060975552, 0x03ff}, // largest subnormal
		{5.9604645e-08, 0x0001},  // smallest subnormal
		{float32(math.Copysign(0, -1)), 0x8000},
	} {
		if got := Float32ToFloat16(c.f); got != c.bits {
			t.Errorf("Float32ToFloat16(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
		if back := Float16ToFloat32(c.bits); back != c.f {
			t.Errorf("Float16ToFloat32(%#04x) = %v, want %v", c.bits, back, c.f)
		}
	}
}

// TestComparePlain: ComparePlain agrees with CompareValues over decoded
// values (and, for decimals, with big.Int order), and allocates nothing.
func TestComparePlain(t *testing.T) {
	i32, i64, flba, ba := format.Type_INT32, format.Type_INT64, format.Type_FIXED_LEN_BYTE_ARRAY, format.Type_BYTE_ARRAY
	for _, tc := range []struct {
		name string
		el   *format.SchemaElement
		vals [][]byte
	}{
		{"int32", &format.SchemaElement{Name: "c", Type: &i32}, [][]byte{{1, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 0x80}, {0xff, 0xff, 0xff, 0x7f}}},
		{"uint32", &format.SchemaElement{Name: "c", Type: &i32, LogicalType: &format.LogicalType{INTEGER: &format.IntType{BitWidth: 32, IsSigned: false}}},
			[][]byte{{1, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 0x80}}},
		{"decimal64", &format.SchemaElement{Name: "c", Type: &i64, LogicalType: &format.LogicalType{DECIMAL: &format.DecimalType{Precision: 18, Scale: 2}}},
			[][]byte{{1, 0, 0, 0, 0, 0, 0, 0}, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0, 0, 0, 0, 0, 0, 0, 0x80}}},
		{"decimalFLBA", &format.SchemaElement{Name: "c", Type: &flba, TypeLength: ptr(int32(3)), LogicalType: &format.LogicalType{DECIMAL: &format.DecimalType{Precision: 6, Scale: 1}}},
			[][]byte{{0, 0, 1}, {0xff, 0xff, 0xfe}, {0x80, 0, 0}, {0x7f, 0xff, 0xff}, {0, 1, 0}}},
		{"string", &format.SchemaElement{Name: "c", Type: &ba, LogicalType: &format.LogicalType{STRING: &format.StringType{}}},
			[][]byte{{}, []byte("a"), []byte("ab"), []byte("\xff"), []byte("b")}},
		{"float16", &format.SchemaElement{Name: "c", Type: &flba, TypeLength: ptr(int32(2)), LogicalType: &format.LogicalType{FLOAT16: &format.Float16Type{}}},
			[][]byte{{0x00, 0x3c}, {0x00, 0xc0}, {0xff, 0x7b}, {0x00, 0x80}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := leaf(t, tc.el)
			for _, a := range tc.vals {
				for _, b := range tc.vals {
					got, err := ComparePlain(c, a, b)
					if err != nil {
						t.Fatal(err)
					}
					va, _ := DecodeValue(c, a)
					vb, _ := DecodeValue(c, b)
					if want := CompareValues(va, vb); got != want {
						t.Errorf("ComparePlain(%x, %x) = %d, CompareValues says %d", a, b, got, want)
					}
				}
			}
			a, b := tc.vals[0], tc.vals[1]
			if n := testing.AllocsPerRun(100, func() { ComparePlain(c, a, b) }); n != 0 {
				t.Errorf("%v allocations per call", n)
			}
		})
	}
}
