package typemap

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/arrowpq/arrowpq/metadata/format"
)

var update = flag.Bool("update", false, "rewrite docs/type-mapping.md and the table in doc.go")

const docPath = "../docs/type-mapping.md"

// leafCase is one row of the Parquet → Arrow leaf table: a primitive
// element, the options, and the Arrow type the spec (and our choices in
// doc.go) say it reads as. The test asserts want; the doc shows the result.
type leafCase struct {
	el   *el
	opts ReadOptions
	want string // writeType rendering
	note string
}

func lt(l format.LogicalType) func(*el) { return withLogical(&l) }

func tsUnit(u string) *format.TimeUnit {
	switch u {
	case "MILLIS":
		return &format.TimeUnit{MILLIS: &format.MilliSeconds{}}
	case "MICROS":
		return &format.TimeUnit{MICROS: &format.MicroSeconds{}}
	}
	return &format.TimeUnit{NANOS: &format.NanoSeconds{}}
}

var (
	i32  = format.Type_INT32
	i64  = format.Type_INT64
	i96  = format.Type_INT96
	ba   = format.Type_BYTE_ARRAY
	flba = format.Type_FIXED_LEN_BYTE_ARRAY
)

func leafCases() []leafCase {
	c := func(phys format.Type, want string, opts ...func(*el)) leafCase {
		return leafCase{el: prim("x", opt, phys, opts...), want: want}
	}
	intLT := func(bits int8, signed bool) func(*el) {
		return lt(format.LogicalType{INTEGER: &format.IntType{BitWidth: bits, IsSigned: signed}})
	}
	dec := func(p, s int32) func(*el) {
		return lt(format.LogicalType{DECIMAL: &format.DecimalType{Precision: p, Scale: s}})
	}
	timeLT := func(u string, utc bool) func(*el) {
		return lt(format.LogicalType{TIME: &format.TimeType{IsAdjustedToUTC: utc, Unit: tsUnit(u)}})
	}
	tsLT := func(u string, utc bool) func(*el) {
		return lt(format.LogicalType{TIMESTAMP: &format.TimestampType{IsAdjustedToUTC: utc, Unit: tsUnit(u)}})
	}
	ct := withConverted
	alg := format.EdgeInterpolationAlgorithm_KARNEY
	cases := []leafCase{
		c(format.Type_BOOLEAN, "bool"),
		c(i32, "int32"),
		c(i64, "int64"),
		c(i96, "timestamp[ns]"),
		{el: prim("x", opt, i96), opts: ReadOptions{Int96Unit: Int96Micros}, want: "timestamp[us]", note: "Int96Unit: arrow.Microsecond"},
		{el: prim("x", opt, i96), opts: ReadOptions{Int96Unit: Int96Millis}, want: "timestamp[ms]", note: "Int96Unit: arrow.Millisecond"},
		{el: prim("x", opt, i96), opts: ReadOptions{Int96Unit: Int96Seconds}, want: "timestamp[s]", note: "typemap Int96Unit: Int96Seconds"},
		c(format.Type_FLOAT, "float32"),
		c(format.Type_DOUBLE, "float64"),
		c(ba, "binary"),
		c(flba, "fixed_size_binary[5]", withLength(5)),
		c(i32, "int8", intLT(8, true)),
		c(i32, "int16", intLT(16, true)),
		c(i32, "int32", intLT(32, true)),
		c(i32, "uint8", intLT(8, false)),
		c(i32, "uint16", intLT(16, false)),
		c(i32, "uint32", intLT(32, false)),
		c(i64, "int64", intLT(64, true)),
		c(i64, "uint64", intLT(64, false)),
		c(i32, "int8", ct(format.ConvertedType_INT_8)),
		c(i32, "int16", ct(format.ConvertedType_INT_16)),
		c(i32, "int32", ct(format.ConvertedType_INT_32)),
		c(i64, "int64", ct(format.ConvertedType_INT_64)),
		c(i32, "uint8", ct(format.ConvertedType_UINT_8)),
		c(i32, "uint16", ct(format.ConvertedType_UINT_16)),
		c(i32, "uint32", ct(format.ConvertedType_UINT_32)),
		c(i64, "uint64", ct(format.ConvertedType_UINT_64)),
		c(i32, "decimal(4, 2)", dec(4, 2)),
		c(i64, "decimal(10, 2)", dec(10, 2)),
		c(flba, "decimal(25, 2)", dec(25, 2), withLength(11)),
		c(flba, "decimal256(40, 5)", dec(40, 5), withLength(17)),
		c(ba, "decimal(4, 2)", dec(4, 2)),
		c(ba, "decimal256(60, 0)", dec(60, 0)),
		c(flba, "decimal(13, 2)", ct(format.ConvertedType_DECIMAL), withDecimal(13, 2), withLength(6)),
		{el: prim("x", opt, i32, dec(4, 2)), opts: ReadOptions{SmallDecimals: true}, want: "decimal32(4, 2)", note: "SmallDecimals"},
		{el: prim("x", opt, i64, dec(15, 2)), opts: ReadOptions{SmallDecimals: true}, want: "decimal64(15, 2)", note: "SmallDecimals"},
		{el: prim("x", opt, flba, dec(30, 2), withLength(13)), opts: ReadOptions{SmallDecimals: true}, want: "decimal(30, 2)", note: "SmallDecimals"},
		c(i32, "date32", lt(format.LogicalType{DATE: &format.DateType{}})),
		c(i32, "date32", ct(format.ConvertedType_DATE)),
		c(i32, "time32[ms]", timeLT("MILLIS", true)),
		c(i64, "time64[us]", timeLT("MICROS", false)),
		c(i64, "time64[ns]", timeLT("NANOS", true)),
		c(i32, "time32[ms]", ct(format.ConvertedType_TIME_MILLIS)),
		c(i64, "time64[us]", ct(format.ConvertedType_TIME_MICROS)),
		c(i64, "timestamp[ms, tz=UTC]", tsLT("MILLIS", true)),
		c(i64, "timestamp[us]", tsLT("MICROS", false)),
		c(i64, "timestamp[ns, tz=UTC]", tsLT("NANOS", true)),
		c(i64, "timestamp[ms, tz=UTC]", ct(format.ConvertedType_TIMESTAMP_MILLIS)),
		c(i64, "timestamp[us, tz=UTC]", ct(format.ConvertedType_TIMESTAMP_MICROS)),
		{el: prim("x", opt, i64, tsLT("MILLIS", false), ct(format.ConvertedType_TIMESTAMP_MILLIS)), want: "timestamp[ms]", note: "LogicalType wins over ConvertedType"},
		c(ba, "utf8", lt(format.LogicalType{STRING: &format.StringType{}})),
		c(ba, "utf8", ct(format.ConvertedType_UTF8)),
		c(ba, "utf8", lt(format.LogicalType{ENUM: &format.EnumType{}})),
		c(ba, "utf8", ct(format.ConvertedType_ENUM)),
		c(ba, "ext<arrow.json>(utf8)", lt(format.LogicalType{JSON: &format.JsonType{}})),
		c(ba, "ext<arrow.json>(utf8)", ct(format.ConvertedType_JSON)),
		c(ba, "binary", lt(format.LogicalType{BSON: &format.BsonType{}})),
		c(ba, "binary", ct(format.ConvertedType_BSON)),
		c(flba, "ext<arrow.uuid>(fixed_size_binary[16])", lt(format.LogicalType{UUID: &format.UUIDType{}}), withLength(16)),
		c(flba, "float16", lt(format.LogicalType{FLOAT16: &format.Float16Type{}}), withLength(2)),
		c(flba, "month_day_nano_interval", ct(format.ConvertedType_INTERVAL), withLength(12)),
		c(i32, "null", lt(format.LogicalType{UNKNOWN: &format.NullType{}})),
		c(ba, "binary", lt(format.LogicalType{GEOMETRY: &format.GeometryType{}})),
		c(ba, "binary", lt(format.LogicalType{GEOGRAPHY: &format.GeographyType{Crs: ptr("srid:4326"), Algorithm: &alg}})),
		{el: prim("x", opt, ba, lt(format.LogicalType{STRING: &format.StringType{}})), opts: ReadOptions{Dictionary: []string{"x"}}, want: "dictionary<int32, utf8>", note: "Dictionary: [x]"},
		{el: prim("x", opt, ba, lt(format.LogicalType{})), want: "binary", note: "LogicalType with no member this code knows"},
		{el: prim("x", opt, i32, lt(format.LogicalType{VECTOR: &format.VectorType{}})), want: "int32", note: "an annotation this code does not map"},
		{el: prim("x", opt, i32, lt(format.LogicalType{STRING: &format.StringType{}})), want: "int32", note: "annotation that cannot annotate the physical type"},
		{el: prim("x", opt, flba, lt(format.LogicalType{UUID: &format.UUIDType{}}), withLength(4)), want: "fixed_size_binary[4]", note: "UUID of the wrong width"},
		{el: prim("x", opt, i32, dec(0, 0)), want: "int32", note: "DECIMAL with precision 0"},
		{el: prim("x", opt, i64, tsLT("", true), func(e *el) { e.LogicalType.TIMESTAMP.Unit = &format.TimeUnit{} }), want: "int64", note: "TIMESTAMP with an unknown unit"},
	}
	return cases
}

// TestLeafMapping asserts the Arrow type of every primitive and annotation.
func TestLeafMapping(t *testing.T) {
	for i, lc := range leafCases() {
		m, err := mapSchema(t, []*el{root(1), lc.el}, nil, lc.opts)
		if err != nil {
			t.Errorf("case %d (%s): %v", i, annotationText(lc.el), err)
			continue
		}
		var b strings.Builder
		writeType(&b, m.Schema.Field(0).Type)
		if b.String() != lc.want {
			t.Errorf("case %d: %s %s: got %s, want %s", i, physText(lc.el), annotationText(lc.el), b.String(), lc.want)
		}
	}
}

func TestGeoMetadata(t *testing.T) {
	alg := format.EdgeInterpolationAlgorithm_KARNEY
	m, err := mapSchema(t, []*el{root(2),
		prim("g", opt, ba, lt(format.LogicalType{GEOGRAPHY: &format.GeographyType{Crs: ptr("srid:4326"), Algorithm: &alg}})),
		prim("h", opt, ba, lt(format.LogicalType{GEOMETRY: &format.GeometryType{Crs: ptr("projjson:crs_key")}}))},
		[]*format.KeyValue{{Key: "crs_key", Value: ptr(`{"type": "GeographicCRS"}`)}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`g: binary {ARROW:extension:metadata={"crs":"4326","crs_type":"srid","edges":"karney"}, ARROW:extension:name=geoarrow.wkb}`,
		`h: binary {ARROW:extension:metadata={"crs":{"type":"GeographicCRS"},"crs_type":"projjson"}, ARROW:extension:name=geoarrow.wkb}`,
	}
	for i, got := range describeSchema(m.Schema) {
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
}

// originCase is a row of the ARROW:schema restoration table.
type originCase struct {
	el     *el
	origin arrow.DataType
	want   string
}

func originCases() []originCase {
	tsLT := func(u string, utc bool) func(*el) {
		return lt(format.LogicalType{TIMESTAMP: &format.TimestampType{IsAdjustedToUTC: utc, Unit: tsUnit(u)}})
	}
	timeLT := func(u string) func(*el) {
		return lt(format.LogicalType{TIME: &format.TimeType{Unit: tsUnit(u)}})
	}
	str := lt(format.LogicalType{STRING: &format.StringType{}})
	o := func(phys format.Type, origin arrow.DataType, want string, opts ...func(*el)) originCase {
		return originCase{el: prim("x", opt, phys, opts...), origin: origin, want: want}
	}
	return []originCase{
		o(i64, arrow.PrimitiveTypes.Uint32, "uint32"),
		o(i32, arrow.PrimitiveTypes.Int8, "int8"),
		o(i64, &arrow.TimestampType{Unit: arrow.Second}, "timestamp[s]", tsLT("MILLIS", false)),
		o(i64, &arrow.TimestampType{Unit: arrow.Nanosecond}, "timestamp[ns]", tsLT("MICROS", false)),
		o(i64, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"}, "timestamp[ms, tz=Europe/Paris]", tsLT("MILLIS", true)),
		o(i64, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, "timestamp[ms]", tsLT("MILLIS", false)),
		o(i96, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "timestamp[us, tz=UTC]"),
		o(i96, &arrow.TimestampType{Unit: arrow.Nanosecond}, "timestamp[ns]"),
		o(i32, arrow.FixedWidthTypes.Date64, "date64", lt(format.LogicalType{DATE: &format.DateType{}})),
		o(i32, arrow.FixedWidthTypes.Time32s, "time32[s]", timeLT("MILLIS")),
		o(i64, arrow.FixedWidthTypes.Time64ns, "time64[ns]", timeLT("MICROS")),
		o(i64, arrow.FixedWidthTypes.Duration_ms, "duration[ms]"),
		o(ba, arrow.BinaryTypes.LargeString, "large_utf8", str),
		o(ba, arrow.BinaryTypes.StringView, "string_view", str),
		o(ba, arrow.BinaryTypes.LargeBinary, "large_binary"),
		o(ba, arrow.BinaryTypes.BinaryView, "binary_view"),
		o(ba, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, "dictionary<int8, utf8>", str),
		o(i32, &arrow.Decimal32Type{Precision: 7, Scale: 2}, "decimal32(7, 2)", lt(format.LogicalType{DECIMAL: &format.DecimalType{Precision: 7, Scale: 2}})),
		o(i64, &arrow.Decimal64Type{Precision: 7, Scale: 2}, "decimal64(7, 2)", lt(format.LogicalType{DECIMAL: &format.DecimalType{Precision: 7, Scale: 2}})),
		o(flba, arrow.FixedWidthTypes.MonthInterval, "month_interval", withConverted(format.ConvertedType_INTERVAL), withLength(12)),
		o(flba, arrow.FixedWidthTypes.DayTimeInterval, "day_time_interval", withConverted(format.ConvertedType_INTERVAL), withLength(12)),
		o(i32, extensions.NewBool8Type(), "ext<arrow.bool8>(int8)", lt(format.LogicalType{INTEGER: &format.IntType{BitWidth: 8, IsSigned: true}})),
		o(ba, mustJSON(arrow.BinaryTypes.LargeString), "ext<arrow.json>(large_utf8)", lt(format.LogicalType{JSON: &format.JsonType{}})),
		o(i32, arrow.BinaryTypes.String, "int32"),
		// Bare INT64/INT32 as arrow-rs writes the types Parquet cannot
		// annotate: the ARROW:schema type is taken as is.
		o(i64, &arrow.TimestampType{Unit: arrow.Second}, "timestamp[s]"),
		o(i64, &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, "timestamp[s, tz=+01:00]"),
		o(i64, arrow.FixedWidthTypes.Date64, "date64"),
		o(i64, arrow.FixedWidthTypes.Time64us, "time64[us]"),
		o(i32, arrow.FixedWidthTypes.Time32s, "time32[s]"),
		o(i32, arrow.FixedWidthTypes.Date32, "date32"),
		o(i64, arrow.FixedWidthTypes.Date64, "date64", lt(format.LogicalType{INTEGER: &format.IntType{BitWidth: 64, IsSigned: true}})),
		// The storage must fit: a 32-bit column does not become a 64-bit
		// type, and an integer annotation that narrows stays.
		o(i32, &arrow.TimestampType{Unit: arrow.Second}, "int32"),
		o(i32, arrow.FixedWidthTypes.Date64, "int32"),
		o(i64, arrow.FixedWidthTypes.Time32s, "int64"),
		o(i32, arrow.FixedWidthTypes.Time32s, "int16", lt(format.LogicalType{INTEGER: &format.IntType{BitWidth: 16, IsSigned: true}})),
	}
}

func TestArrowSchemaRestoresLeaves(t *testing.T) {
	for i, oc := range originCases() {
		got, conv := mapWithOrigin(t, oc)
		if got != oc.want {
			t.Errorf("case %d: %s %s with ARROW:schema %s: got %s (%s), want %s", i, physText(oc.el), annotationText(oc.el), oc.origin, got, conv, oc.want)
		}
	}
}

func mapWithOrigin(t *testing.T, oc originCase) (string, Conversion) {
	t.Helper()
	v, err := EncodeArrowSchema(arrow.NewSchema([]arrow.Field{{Name: "x", Type: oc.origin, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapSchema(t, []*el{root(1), oc.el}, []*format.KeyValue{{Key: ArrowSchemaKey, Value: &v}}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeType(&b, m.Schema.Field(0).Type)
	return b.String(), m.Leaves[0].Conv
}

// TestDocs regenerates docs/type-mapping.md and the table in doc.go from
// the code and fails when either is out of date; run with -update to
// rewrite them.
func TestDocs(t *testing.T) {
	doc := generateDoc(t)
	checkGenerated(t, docPath, doc)
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	newSrc, err := replaceBetween(string(src), "// Type table (generated by TestDocs", "//\n// End of type table.", docGoTable(t))
	if err != nil {
		t.Fatal(err)
	}
	checkGenerated(t, "doc.go", newSrc)
}

func checkGenerated(t *testing.T, path, want string) {
	t.Helper()
	have, _ := os.ReadFile(path)
	if string(have) == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is out of date; run go test ./typemap -run TestDocs -update", path)
}

func replaceBetween(src, start, end, body string) (string, error) {
	i := strings.Index(src, start)
	j := strings.Index(src, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("doc.go lacks the markers %q ... %q", start, end)
	}
	line := strings.Index(src[i:], "\n")
	return src[:i+line+1] + body + src[j:], nil
}

func physText(e *el) string {
	s := e.Type.String()
	if *e.Type == format.Type_BYTE_ARRAY {
		s = "BINARY"
	}
	if e.TypeLength != nil {
		s += fmt.Sprintf("(%d)", *e.TypeLength)
	}
	return s
}

func annotationText(e *el) string {
	var parts []string
	if e.LogicalType != nil {
		parts = append(parts, logicalText(e.LogicalType))
	}
	if e.ConvertedType != nil {
		s := e.ConvertedType.String()
		if *e.ConvertedType == format.ConvertedType_DECIMAL {
			s += fmt.Sprintf(" precision=%d scale=%d", e.GetPrecision(), e.GetScale())
		}
		parts = append(parts, "ConvertedType "+s)
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " + ")
}

func logicalText(l *format.LogicalType) string {
	unit := func(u *format.TimeUnit) string {
		switch {
		case u == nil:
			return "?"
		case u.MILLIS != nil:
			return "MILLIS"
		case u.MICROS != nil:
			return "MICROS"
		case u.NANOS != nil:
			return "NANOS"
		}
		return "unknown unit"
	}
	switch {
	case l.INTEGER != nil:
		return fmt.Sprintf("INT(%d, %t)", l.INTEGER.BitWidth, l.INTEGER.IsSigned)
	case l.DECIMAL != nil:
		return fmt.Sprintf("DECIMAL(%d, %d)", l.DECIMAL.Precision, l.DECIMAL.Scale)
	case l.TIME != nil:
		return fmt.Sprintf("TIME(%s, isAdjustedToUTC=%t)", unit(l.TIME.Unit), l.TIME.IsAdjustedToUTC)
	case l.TIMESTAMP != nil:
		return fmt.Sprintf("TIMESTAMP(%s, isAdjustedToUTC=%t)", unit(l.TIMESTAMP.Unit), l.TIMESTAMP.IsAdjustedToUTC)
	case l.GEOGRAPHY != nil:
		return fmt.Sprintf("GEOGRAPHY(%s, %s)", l.GEOGRAPHY.GetCrs(), l.GEOGRAPHY.GetAlgorithm())
	case l.GEOMETRY != nil:
		if l.GEOMETRY.Crs != nil {
			return fmt.Sprintf("GEOMETRY(%s)", *l.GEOMETRY.Crs)
		}
		return "GEOMETRY"
	case l.VARIANT != nil:
		return "VARIANT"
	}
	if s := logicalString(l); s != "?" {
		return s
	}
	switch {
	case l.ENUM != nil:
		return "ENUM"
	case l.BSON != nil:
		return "BSON"
	case l.VECTOR != nil:
		return "VECTOR"
	}
	return "LogicalType{} (unknown member)"
}

// schemaText renders schema elements (without the root) in the spec's
// message syntax on one line.
func schemaText(elems []*el) string {
	var b strings.Builder
	i := 0
	var node func()
	node = func() {
		e := elems[i]
		i++
		fmt.Fprintf(&b, "%s ", strings.ToLower(e.GetRepetitionType().String()))
		if e.Type != nil && (e.NumChildren == nil) {
			fmt.Fprintf(&b, "%s ", strings.ToLower(physText(e)))
		} else {
			b.WriteString("group ")
		}
		b.WriteString(e.Name)
		if a := annotationText(e); a != "—" {
			fmt.Fprintf(&b, " (%s)", a)
		}
		if e.NumChildren != nil {
			b.WriteString(" { ")
			for k := 0; k < int(*e.NumChildren); k++ {
				node()
				b.WriteString(" ")
			}
			b.WriteString("}")
		} else {
			b.WriteString(";")
		}
	}
	for i < len(elems) {
		node()
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

// nestedCases are the rows of the nested table: the spec's LIST and MAP
// examples and the other shapes the compatibility rules cover.
func nestedCases() []struct {
	rule  string
	elems []*el
} {
	lst := withLogical(ltList)
	mp := withLogical(ltMap)
	s := withLogical(ltString)
	return []struct {
		rule  string
		elems []*el
	}{
		{"3-level LIST", []*el{group("my_list", req, 1, lst), group("list", rep, 1), prim("element", opt, ba, s)}},
		{"3-level LIST", []*el{group("my_list", opt, 1, lst), group("list", rep, 1), prim("element", req, ba, s)}},
		{"names not enforced", []*el{group("my_list", opt, 1, lst), group("element", rep, 1), prim("str", req, ba, s)}},
		{"rule 1", []*el{group("my_list", opt, 1, lst), prim("element", rep, i32)}},
		{"rule 2", []*el{group("my_list", opt, 1, lst), group("element", rep, 2), prim("str", req, ba, s), prim("num", req, i32)}},
		{"rule 3", []*el{group("my_list", opt, 1, lst), group("array", rep, 1, lst), prim("array", rep, i32)}},
		{"rule 4", []*el{group("my_list", opt, 1, lst), group("array", rep, 1), prim("str", req, ba, s)}},
		{"rule 4", []*el{group("my_list", opt, 1, lst), group("my_list_tuple", rep, 1), prim("str", req, ba, s)}},
		{"rule 5", []*el{group("my_list", opt, 1, lst), group("element", rep, 1), prim("str", opt, ba, s)}},
		{"unannotated repeated", []*el{prim("num", rep, i32)}},
		{"unannotated repeated", []*el{group("my_list", rep, 2), prim("num", req, i32), prim("str", opt, ba, s)}},
		{"3-level MAP", []*el{group("my_map", req, 1, mp), group("key_value", rep, 2), prim("key", req, ba, s), prim("value", opt, i32)}},
		{"MAP, names by position", []*el{group("my_map", opt, 1, mp), group("map", rep, 2), prim("str", req, ba, s), prim("num", req, i32)}},
		{"MAP_KEY_VALUE as MAP", []*el{group("my_map", opt, 1, withConverted(format.ConvertedType_MAP_KEY_VALUE)), group("map", rep, 2), prim("key", req, ba, s), prim("value", opt, i32)}},
		{"MAP without value", []*el{group("my_set", req, 1, mp), group("key_value", rep, 1), prim("key", req, i32)}},
		{"MAP with optional key", []*el{group("m", opt, 1, mp), group("key_value", rep, 2), prim("key", opt, ba, s), prim("value", opt, i32)}},
		{"group", []*el{group("s", opt, 2), prim("a", req, i32), prim("b", opt, ba, s)}},
		{"VARIANT", []*el{group("v", opt, 2, withLogical(&format.LogicalType{VARIANT: &format.VariantType{}})), prim("metadata", req, ba), prim("value", req, ba)}},
		{"VARIANT, shredded", []*el{group("v", opt, 3, withLogical(&format.LogicalType{VARIANT: &format.VariantType{}})), prim("metadata", req, ba), prim("value", opt, ba), prim("typed_value", opt, i64)}},
		{"field id", []*el{prim("id", req, i64, withFieldID(3))}},
	}
}

func generateDoc(t *testing.T) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("<!-- Generated by TestDocs in typemap/docgen_test.go from the code; do not edit. -->\n\n")
	w("# Type mapping between Parquet and Arrow\n\n")
	w("Package `typemap` decides what Arrow schema a Parquet file reads as (`typemap.ToArrow`) and what Parquet\n")
	w("schema an Arrow schema writes as (`typemap.FromArrow`). Every table below is produced by running that code;\n")
	w("`go test ./typemap -run TestDocs` fails when this file is out of date (`-update` rewrites it).\n")
	w("Spec: apache/parquet-format `LogicalTypes.md` at commit 0038848a0855e48eccd416d7340ec929a6d23f27.\n\n")
	w("Arrow types are written as arrow-go prints them; `ext<name>(storage)` is an extension type. \"Conversion\" is the\n")
	w("per-value transform the decoder fuses into its loop (`typemap.Conversion`); \"range checked\" / \"overflow checked\"\n")
	w("means a value that does not fit is an error naming the column, never a silent wrap.\n\n")

	w("## Options\n\n")
	w("Fields of `arrowpq.ReadOptions` and `arrowpq.WriteOptions` (`arrowpq.TestDocsNameRealOptions` checks that\n")
	w("every option this file names is one); `arrowpq` passes them to `typemap.ReadOptions` / `typemap.WriteOptions`.\n\n")
	w("| Option | Effect |\n|---|---|\n")
	w("| `ReadOptions.Int96Unit` | unit of the timestamp INT96 reads as: nanoseconds (the zero value), `arrow.Microsecond` or `arrow.Millisecond`; nanoseconds cover 1677–2262 only, Spark writes dates beyond (use µs for `int96_from_spark.parquet`). Seconds only through `typemap` (`typemap.Int96Seconds`) |\n")
	w("| `ReadOptions.SmallDecimals` | DECIMAL of precision ≤ 9 reads as decimal32, ≤ 18 as decimal64 (default: decimal128, decimal256 above 38), also where `ARROW:schema` names decimal128/decimal256 (the request wins); `arrowpq.TestSmallDecimals` |\n")
	w("| `ReadOptions.Views` | String/LargeString reads as string_view, Binary/LargeBinary as binary_view, whatever `ARROW:schema` names; `arrowpq.TestReadViews` |\n")
	w("| `ReadOptions.RunEndEncoded` | columns (names or dotted leaf paths) to read as `run_end_encoded<int32, T>`; `arrowpq.TestReadRunEndEncodedAndListViews` |\n")
	w("| `ReadOptions.ListViews` | lists read as list_view (large_list as large_list_view), whatever `ARROW:schema` names; `arrowpq.TestReadRunEndEncodedAndListViews` |\n")
	w("| `ReadOptions.IgnoreArrowSchema` | disregard the `ARROW:schema` footer entry |\n")
	w("| `ReadOptions.Dictionary` | columns (names or dotted leaf paths) to read as `dictionary<int32, T>`, T any leaf type but bool, the chunk's dictionary shared by its batches; `arrowpq.TestDictionaryOutputEveryType` |\n")
	w("| `WriteOptions.ArrowSchema` | `arrowpq.Off`: do not write `ARROW:schema`; readers then get the Parquet-only mapping (last column of the write table) |\n")
	w("| `WriteOptions.Int96Timestamps` | store every timestamp as INT96 (Impala/old Spark) |\n")
	w("| `WriteOptions.RootName` | name of the schema root (default `schema`) |\n\n")

	w("## Parquet → Arrow: primitive columns\n\n")
	w("LogicalType wins over ConvertedType; a ConvertedType alone is read through the spec's backward-compatibility\n")
	w("tables (TIME_* and TIMESTAMP_* are UTC-adjusted). An annotation this code does not know, or one that cannot\n")
	w("annotate the physical type, leaves the physical type's mapping: never an error.\n\n")
	w("| Physical | Annotation | Options | Arrow | Conversion | Note |\n|---|---|---|---|---|---|\n")
	for _, lc := range leafCases() {
		m, err := mapSchema(t, []*el{root(1), lc.el}, nil, lc.opts)
		if err != nil {
			t.Fatal(err)
		}
		tb := typeWithMeta(m.Schema.Field(0))
		opts := "—"
		if lc.note != "" && strings.Contains(lc.note, ":") || lc.note == "SmallDecimals" {
			opts, lc.note = lc.note, ""
		}
		w("| %s | %s | %s | `%s` | %s | %s |\n", physText(lc.el), annotationText(lc.el), opts, tb, m.Leaves[0].Conv, lc.note)
	}
	w("\nINTERVAL is kept lossless as month_day_nano: months and days are copied, milliseconds become ms × 10⁶ ns\n")
	w("(always fits int64). Parquet's parts are unsigned: a month or day count above 2³¹−1 does not fit Arrow's int32\n")
	w("and is an error at read time naming the column, never a wrap.\n")
	w("GEOMETRY and GEOGRAPHY read as binary (WKB) whose field metadata marks the GeoArrow extension `geoarrow.wkb`:\n")
	w("`ARROW:extension:metadata` holds `crs` (a `projjson:KEY` reference is resolved through the footer's key/value\n")
	w("metadata, a JSON object is embedded, `srid:N` becomes `crs_type: srid`) and, for GEOGRAPHY, `edges` (the\n")
	w("algorithm, default `spherical`).\n\n")

	w("## Parquet → Arrow: nested columns\n\n")
	w("The LIST rules are those of LogicalTypes.md (\"Lists\", backward-compatibility rules 1–5); each row is a test in\n")
	w("`compat_test.go`. Arrow-go names the map fields `key` and `value` whatever Parquet calls them.\n\n")
	w("| Rule | Parquet | Arrow |\n|---|---|---|\n")
	for _, nc := range nestedCases() {
		elems := append([]*el{root(countTop(nc.elems))}, nc.elems...)
		m, err := mapSchema(t, elems, nil, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w("| %s | `%s` | `%s` |\n", nc.rule, schemaText(nc.elems), strings.Join(describeSchema(m.Schema), "; "))
	}
	w("\nField identity for the read path (`typemap.Field`): `Node` is the node whose definition level makes the value\n")
	w("present (nil or required: never null), `Repeated` the repeated node of a list or map. A map key is non-null in\n")
	w("Arrow even when its node is optional; a null key is an error at read time. A VARIANT group whose shape arrow-go's\n")
	w("Variant type rejects reads as its plain struct. VECTOR repetition is not supported (error).\n\n")

	w("## ARROW:schema\n\n")
	w("When the footer has an `ARROW:schema` entry (base64 of an encapsulated Arrow IPC Schema message, as Arrow C++,\n")
	w("pyarrow, arrow-rs and arrow-go write it; unpadded base64 and pre-0.15 framing accepted) with as many fields as the\n")
	w("Parquet root, it restores what Parquet cannot say whenever the stored values can produce that type; otherwise the\n")
	w("Parquet mapping stands and `Manifest.OriginErr` says why. It is verified (every flatbuffer offset and length)\n")
	w("before arrow-go's IPC reader sees it. Nested: list flavours (large, fixed-size, view) and list element names, map\n")
	w("`keys_sorted`, extension types over a matching storage type, and field metadata are restored too.\n")
	w("arrow-rs stores the types Parquet cannot annotate (Date64, Time32(s), Timestamp(s) of any zone, Duration) as bare\n")
	w("INT64/INT32 columns: a bare INT64 (or INT(64, true)) takes a Date64, Timestamp, Time64 or Duration type from\n")
	w("`ARROW:schema`, a bare INT32 a Date32 or Time32, as arrow-rs reads them (the values are the Arrow values); arrow-go's\n")
	w("pqarrow (v18.8) reads them as plain integers (`arrowpq.TestArrowSchemaHintTypes`, on a file arrow-rs wrote).\n\n")
	w("| Parquet | ARROW:schema type | Arrow | Conversion |\n|---|---|---|---|\n")
	for _, oc := range originCases() {
		got, conv := mapWithOrigin(t, oc)
		w("| %s %s | `%s` | `%s` | %s |\n", physText(oc.el), annotationText(oc.el), oc.origin, got, conv)
	}
	w("\n")

	w("## Arrow → Parquet\n\n")
	w("LogicalType and the matching ConvertedType are both written per the spec's forward-compatibility tables;\n")
	w("DECIMAL also sets precision and scale on the SchemaElement and uses the smallest physical type (INT32 ≤ 9 digits,\n")
	w("INT64 ≤ 18, else the narrowest FIXED_LEN_BYTE_ARRAY). Lists are written `list`/`element`, maps\n")
	w("`key_value`/`key`/`value`. `PARQUET:field_id` field metadata becomes the field id (−1 means none). The last\n")
	w("column is what a reader gets without `ARROW:schema`.\n\n")
	w("| Arrow | Physical | LogicalType | ConvertedType | Conversion | Read back without ARROW:schema |\n|---|---|---|---|---|---|\n")
	wm, err := FromArrow(everyTypeSchema(), WriteOptions{IgnoreArrowSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	readBack := roundTrip(t, everyTypeSchema(), WriteOptions{IgnoreArrowSchema: true})
	for i, e := range everyType {
		if id := e.f.Type.ID(); id == arrow.LIST_VIEW || id == arrow.LARGE_LIST_VIEW {
			continue // typemap maps it, the writer does not write it yet (below)
		}
		var tb strings.Builder
		writeType(&tb, e.f.Type)
		f := wm.Fields[i]
		el := f.Node.Element
		phys, logical, conv := "group", "—", "—"
		if el.LogicalType != nil {
			logical = logicalText(el.LogicalType)
		}
		if f.Kind == Leaf {
			phys = physText(el)
			conv = f.Conv.String()
		}
		converted := "—"
		if el.ConvertedType != nil {
			converted = el.ConvertedType.String()
		}
		back := typeWithMeta(readBack.Schema.Field(i))
		w("| `%s` | %s | %s | %s | %s | `%s` |\n", tb.String(), phys, logical, converted, conv, back)
	}
	w("\nArrow types Parquet cannot store give an error naming the field and the type (wrapping `ErrUnsupported`):\n")
	w("unions, structs without fields, decimals with scale outside [0, precision] (and, in `typemap.FromArrow`,\n")
	w("run-end encoded arrays). `arrowpq.Writer` writes two Arrow layouts Parquet has no shape for by mapping\n")
	w("their plain form and keeping the type in `ARROW:schema`, so that arrowpq reads them back as written\n")
	w("(`arrowpq.TestWriteLayouts`, where pqarrow and DuckDB read the plain form):\n\n")
	w("| Arrow | written as | read back by arrowpq | read by other readers |\n|---|---|---|---|\n")
	w("| `list_view<T>`, `large_list_view<T>` (views in any order, overlapping) | LIST of T | `list_view` / `large_list_view` | list / large_list |\n")
	w("| `run_end_encoded<int16/32/64, T>` (T boolean, numeric, decimal128/256, date, time, timestamp, string, binary, fixed-size binary) | T's mapping | `run_end_encoded` (runs rebuilt per batch) | T |\n\n")
	w("Read options give these layouts for any file: `ReadOptions.ListViews` (lists as list views),\n")
	w("`ReadOptions.RunEndEncoded` (columns as run_end_encoded<int32, T>), `ReadOptions.Views` (strings and\n")
	w("binaries as views) — `arrowpq.TestReadRunEndEncodedAndListViews`, `arrowpq.TestReadViews`.\n")
	w("Interval values are checked per value when written: parts must be non-negative and month_day_nano\n")
	w("nanoseconds whole milliseconds.\n\n")

	w("## Where we deliberately differ from arrow-go's pqarrow\n\n")
	w("`TestFilesAgainstPqarrow` maps every readable file of parquet-testing and arrow-testing and compares each field\n")
	w("with pqarrow (ignoring pqarrow's placeholder `PARQUET:field_id=-1`; we set the field id only when the file has\n")
	w("one). These are all the differences, each asserted exactly:\n\n")
	byReason := map[string][]string{}
	for k, d := range deliberateDiffs {
		name := k.file
		if k.field != "*" {
			name += " (" + k.field + ")"
		}
		byReason[d.reason] = append(byReason[d.reason], name)
	}
	reasons := make([]string, 0, len(byReason))
	for r := range byReason {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		files := byReason[r]
		sort.Strings(files)
		w("- %s:\n", r)
		for _, f := range files {
			w("  - `%s`\n", f)
		}
	}
	return b.String()
}

func countTop(elems []*el) int {
	n, i := 0, 0
	var skip func()
	skip = func() {
		e := elems[i]
		i++
		for k := 0; k < int(e.GetNumChildren()); k++ {
			skip()
		}
	}
	for i < len(elems) {
		skip()
		n++
	}
	return n
}

// docGoTable renders the compact type table of doc.go.
func docGoTable(t *testing.T) string {
	var b strings.Builder
	fmt.Fprintf(&b, "//\n//\t%-60s %s\n", "Parquet (annotation)", "Arrow")
	seen := map[string]bool{}
	for _, lc := range leafCases() {
		if lc.note != "" {
			continue
		}
		m, err := mapSchema(t, []*el{root(1), lc.el}, nil, lc.opts)
		if err != nil {
			t.Fatal(err)
		}
		var tb strings.Builder
		writeType(&tb, m.Schema.Field(0).Type)
		left := physText(lc.el)
		if a := annotationText(lc.el); a != "—" {
			left += " (" + a + ")"
		}
		line := fmt.Sprintf("//\t%-60s %s\n", left, tb.String())
		if !seen[line] {
			seen[line] = true
			b.WriteString(line)
		}
	}
	b.WriteString("//\n//\tLIST, MAP, groups, VARIANT: see docs/type-mapping.md.\n")
	return b.String()
}

// typeWithMeta renders the type of f with its field metadata, if any.
func typeWithMeta(f arrow.Field) string {
	d := describeField(f)
	return strings.TrimSuffix(d[len(f.Name)+2:], " not null")
}
