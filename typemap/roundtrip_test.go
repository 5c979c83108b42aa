package typemap

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func md(kv ...string) arrow.Metadata {
	var k, v []string
	for i := 0; i+1 < len(kv); i += 2 {
		k, v = append(k, kv[i]), append(v, kv[i+1])
	}
	return arrow.NewMetadata(k, v)
}

// everyType is an Arrow schema with every storable type of the issue, each
// paired with the field it reads back as without ARROW:schema (the
// Parquet-only mapping of docs/type-mapping.md).
var everyType = []struct {
	f           arrow.Field
	parquetOnly string
}{
	{arrow.Field{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}, "bool: bool"},
	{arrow.Field{Name: "i8", Type: arrow.PrimitiveTypes.Int8}, "i8: int8 not null"},
	{arrow.Field{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true}, "i16: int16"},
	{arrow.Field{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true, Metadata: md(FieldIDKey, "7")}, "i32: int32 {PARQUET:field_id=7}"},
	{arrow.Field{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, "i64: int64"},
	{arrow.Field{Name: "u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true}, "u8: uint8"},
	{arrow.Field{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true}, "u16: uint16"},
	{arrow.Field{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true}, "u32: uint32"},
	{arrow.Field{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true}, "u64: uint64"},
	{arrow.Field{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true}, "f16: float16"},
	{arrow.Field{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true}, "f32: float32"},
	{arrow.Field{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true}, "f64: float64"},
	{arrow.Field{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true}, "str: utf8"},
	{arrow.Field{Name: "lstr", Type: arrow.BinaryTypes.LargeString, Nullable: true}, "lstr: utf8"},
	{arrow.Field{Name: "vstr", Type: arrow.BinaryTypes.StringView, Nullable: true}, "vstr: utf8"},
	{arrow.Field{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true}, "bin: binary"},
	{arrow.Field{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary, Nullable: true}, "lbin: binary"},
	{arrow.Field{Name: "vbin", Type: arrow.BinaryTypes.BinaryView, Nullable: true}, "vbin: binary"},
	{arrow.Field{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}, Nullable: true}, "fsb: fixed_size_binary[5]"},
	{arrow.Field{Name: "d32", Type: &arrow.Decimal32Type{Precision: 7, Scale: 2}, Nullable: true}, "d32: decimal(7, 2)"},
	{arrow.Field{Name: "d64", Type: &arrow.Decimal64Type{Precision: 15, Scale: 3}, Nullable: true}, "d64: decimal(15, 3)"},
	{arrow.Field{Name: "d128", Type: &arrow.Decimal128Type{Precision: 30, Scale: 5}, Nullable: true}, "d128: decimal(30, 5)"},
	{arrow.Field{Name: "d256", Type: &arrow.Decimal256Type{Precision: 60, Scale: 10}, Nullable: true}, "d256: decimal256(60, 10)"},
	{arrow.Field{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true}, "date32: date32"},
	{arrow.Field{Name: "date64", Type: arrow.FixedWidthTypes.Date64, Nullable: true}, "date64: date32"},
	{arrow.Field{Name: "t32s", Type: arrow.FixedWidthTypes.Time32s, Nullable: true}, "t32s: time32[ms]"},
	{arrow.Field{Name: "t32ms", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true}, "t32ms: time32[ms]"},
	{arrow.Field{Name: "t64us", Type: arrow.FixedWidthTypes.Time64us, Nullable: true}, "t64us: time64[us]"},
	{arrow.Field{Name: "t64ns", Type: arrow.FixedWidthTypes.Time64ns, Nullable: true}, "t64ns: time64[ns]"},
	{arrow.Field{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true}, "ts_s: timestamp[ms]"},
	{arrow.Field{Name: "ts_ms_utc", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true}, "ts_ms_utc: timestamp[ms, tz=UTC]"},
	{arrow.Field{Name: "ts_us_paris", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}, Nullable: true}, "ts_us_paris: timestamp[us, tz=UTC]"},
	{arrow.Field{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true}, "ts_ns: timestamp[ns]"},
	{arrow.Field{Name: "ts_s_tz", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+02:00"}, Nullable: true}, "ts_s_tz: timestamp[ms, tz=UTC]"},
	{arrow.Field{Name: "dur_s", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true}, "dur_s: int64"},
	{arrow.Field{Name: "dur_ns", Type: arrow.FixedWidthTypes.Duration_ns, Nullable: true}, "dur_ns: int64"},
	{arrow.Field{Name: "iv_mdn", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true}, "iv_mdn: month_day_nano_interval"},
	{arrow.Field{Name: "iv_m", Type: arrow.FixedWidthTypes.MonthInterval, Nullable: true}, "iv_m: month_day_nano_interval"},
	{arrow.Field{Name: "iv_dt", Type: arrow.FixedWidthTypes.DayTimeInterval, Nullable: true}, "iv_dt: month_day_nano_interval"},
	{arrow.Field{Name: "null", Type: arrow.Null, Nullable: true}, "null: null"},
	{arrow.Field{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, Nullable: true}, "dict: utf8"},
	{arrow.Field{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true}, "list: list<element: int32>"},
	{arrow.Field{Name: "llist", Type: arrow.LargeListOfNonNullable(arrow.BinaryTypes.String), Nullable: true}, "llist: list<element: utf8 not null>"},
	{arrow.Field{Name: "vlist", Type: arrow.ListViewOf(arrow.PrimitiveTypes.Int64)}, "vlist: list<element: int64> not null"},
	{arrow.Field{Name: "fslist", Type: arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), Nullable: true}, "fslist: list<element: float32>"},
	{arrow.Field{Name: "struct", Type: arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Metadata: md(FieldIDKey, "12", "note", "kept")},
		arrow.Field{Name: "b", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "c", Type: arrow.BinaryTypes.LargeString, Nullable: true})), Nullable: true},
	), Nullable: true}, "struct: struct<a: int32 not null {PARQUET:field_id=12}, b: list<element: struct<c: utf8>>>"},
	{arrow.Field{Name: "map", Type: func() arrow.DataType {
		m := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
		m.KeysSorted = true
		return m
	}(), Nullable: true}, "map: map<key: utf8 not null, value: int64>"},
	{arrow.Field{Name: "uuid", Type: extensions.NewUUIDType(), Nullable: true}, "uuid: ext<arrow.uuid>(fixed_size_binary[16])"},
	{arrow.Field{Name: "json", Type: mustJSON(arrow.BinaryTypes.String), Nullable: true}, "json: ext<arrow.json>(utf8)"},
	{arrow.Field{Name: "ljson", Type: mustJSON(arrow.BinaryTypes.LargeString), Nullable: true}, "ljson: ext<arrow.json>(utf8)"},
	{arrow.Field{Name: "variant", Type: extensions.NewDefaultVariantType(), Nullable: true}, "variant: ext<arrow.parquet.variant>(struct<metadata: binary not null, value: binary not null>)"},
	{arrow.Field{Name: "geo", Type: arrow.BinaryTypes.Binary, Nullable: true, Metadata: md(ExtensionNameKey, GeoArrowWKB, ExtensionMetadataKey, `{"crs":"OGC:CRS27","edges":"vincenty"}`)},
		`geo: binary {ARROW:extension:metadata={"crs":"OGC:CRS27","edges":"vincenty"}, ARROW:extension:name=geoarrow.wkb}`},
}

func mustJSON(st arrow.DataType) arrow.DataType {
	t, err := extensions.NewJSONType(st)
	if err != nil {
		panic(err)
	}
	return t
}

func everyTypeSchema() *arrow.Schema {
	fields := make([]arrow.Field, len(everyType))
	for i, e := range everyType {
		fields[i] = e.f
	}
	m := md("writer", "typemap test")
	return arrow.NewSchema(fields, &m)
}

// roundTrip maps s to Parquet and back through the schema elements (and the
// ARROW:schema entry unless ignored).
func roundTrip(t *testing.T, s *arrow.Schema, wopts WriteOptions) *Manifest {
	t.Helper()
	wm, err := FromArrow(s, wopts)
	if err != nil {
		t.Fatalf("FromArrow: %v", err)
	}
	// Through the Thrift encoding, as a file would carry it.
	fmd := &format.FileMetaData{Version: 2, Schema: wm.Elements, RowGroups: []*format.RowGroup{}}
	if wm.KeyValue != nil {
		fmd.KeyValueMetadata = []*format.KeyValue{wm.KeyValue}
	}
	buf, err := metadata.Marshal(nil, fmd)
	if err != nil {
		t.Fatal(err)
	}
	back, err := metadata.ParseFileMetaData(buf)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := metadata.NewSchema(back.Schema)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ToArrow(sch, back.KeyValueMetadata, ReadOptions{})
	if err != nil {
		t.Fatalf("ToArrow: %v", err)
	}
	if m.OriginErr != nil {
		t.Fatalf("ARROW:schema not used: %v", m.OriginErr)
	}
	return m
}

func TestRoundTripWithArrowSchema(t *testing.T) {
	s := everyTypeSchema()
	m := roundTrip(t, s, WriteOptions{})
	want := describeSchema(s)
	got := describeSchema(m.Schema)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
	if v, _ := m.Schema.Metadata().GetValue("writer"); v != "typemap test" {
		t.Errorf("schema metadata lost: %v", m.Schema.Metadata())
	}
}

func TestRoundTripWithoutArrowSchema(t *testing.T) {
	s := everyTypeSchema()
	m := roundTrip(t, s, WriteOptions{IgnoreArrowSchema: true})
	got := describeSchema(m.Schema)
	for i, e := range everyType {
		if got[i] != e.parquetOnly {
			t.Errorf("field %d:\n got  %s\n want %s", i, got[i], e.parquetOnly)
		}
	}
}

// TestWriteElements checks the Parquet side of the write mapping against
// the spec's forward-compatibility tables, element by element.
func TestWriteElements(t *testing.T) {
	wm, err := FromArrow(everyTypeSchema(), WriteOptions{IgnoreArrowSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*format.SchemaElement{}
	for _, n := range wm.Schema.Nodes[1:] {
		byName[strings.Join(n.Path(), ".")] = n.Element
	}
	tests := []struct {
		path      string
		phys      format.Type
		width     int32
		logical   string
		converted string
	}{
		{"i8", format.Type_INT32, 0, "INTEGER(8,true)", "INT_8"},
		{"u16", format.Type_INT32, 0, "INTEGER(16,false)", "UINT_16"},
		{"u32", format.Type_INT32, 0, "INTEGER(32,false)", "UINT_32"},
		{"u64", format.Type_INT64, 0, "INTEGER(64,false)", "UINT_64"},
		{"f16", format.Type_FIXED_LEN_BYTE_ARRAY, 2, "FLOAT16", ""},
		{"lstr", format.Type_BYTE_ARRAY, 0, "STRING", "UTF8"},
		{"vbin", format.Type_BYTE_ARRAY, 0, "", ""},
		{"d32", format.Type_INT32, 0, "DECIMAL(7,2)", "DECIMAL"},
		{"d64", format.Type_INT64, 0, "DECIMAL(15,3)", "DECIMAL"},
		{"d128", format.Type_FIXED_LEN_BYTE_ARRAY, 13, "DECIMAL(30,5)", "DECIMAL"},
		{"d256", format.Type_FIXED_LEN_BYTE_ARRAY, 26, "DECIMAL(60,10)", "DECIMAL"},
		{"date64", format.Type_INT32, 0, "DATE", "DATE"},
		{"t32s", format.Type_INT32, 0, "TIME(false,MILLIS)", "TIME_MILLIS"},
		{"t64ns", format.Type_INT64, 0, "TIME(false,NANOS)", ""},
		{"ts_s", format.Type_INT64, 0, "TIMESTAMP(false,MILLIS)", "TIMESTAMP_MILLIS"},
		{"ts_us_paris", format.Type_INT64, 0, "TIMESTAMP(true,MICROS)", "TIMESTAMP_MICROS"},
		{"ts_ns", format.Type_INT64, 0, "TIMESTAMP(false,NANOS)", ""},
		{"dur_ns", format.Type_INT64, 0, "", ""},
		{"iv_dt", format.Type_FIXED_LEN_BYTE_ARRAY, 12, "", "INTERVAL"},
		{"null", format.Type_INT32, 0, "UNKNOWN", ""},
		{"uuid", format.Type_FIXED_LEN_BYTE_ARRAY, 16, "UUID", ""},
		{"json", format.Type_BYTE_ARRAY, 0, "JSON", "JSON"},
		{"list.list.element", format.Type_INT32, 0, "INTEGER(32,true)", "INT_32"},
		{"map.key_value.key", format.Type_BYTE_ARRAY, 0, "STRING", "UTF8"},
		{"geo", format.Type_BYTE_ARRAY, 0, "GEOGRAPHY(OGC:CRS27,VINCENTY)", ""},
	}
	for _, tt := range tests {
		e := byName[tt.path]
		if e == nil {
			t.Errorf("%s: no element", tt.path)
			continue
		}
		if e.Type == nil || *e.Type != tt.phys || e.GetTypeLength() != tt.width {
			t.Errorf("%s: physical %v(%d), want %v(%d)", tt.path, e.Type, e.GetTypeLength(), tt.phys, tt.width)
		}
		if got := logicalString(e.LogicalType); got != tt.logical {
			t.Errorf("%s: logical %q, want %q", tt.path, got, tt.logical)
		}
		got := ""
		if e.ConvertedType != nil {
			got = e.ConvertedType.String()
		}
		if got != tt.converted {
			t.Errorf("%s: converted %q, want %q", tt.path, got, tt.converted)
		}
	}
	if d := byName["d128"]; d.GetPrecision() != 30 || d.GetScale() != 5 {
		t.Errorf("d128: SchemaElement precision/scale %d/%d, want 30/5", d.GetPrecision(), d.GetScale())
	}
	for _, p := range []string{"list", "map"} {
		if byName[p].ConvertedType == nil {
			t.Errorf("%s: no ConvertedType", p)
		}
	}
	if got := byName["i32"].GetFieldID(); got != 7 {
		t.Errorf("i32 field id %d, want 7", got)
	}
	// The Field tree points at the new nodes.
	if len(wm.Fields) != len(everyType) {
		t.Fatalf("%d fields", len(wm.Fields))
	}
	for i, f := range wm.Leaves {
		if f == nil || f.Kind != Leaf || f.Column != i || f.Node != wm.Schema.Columns[i].Node {
			t.Fatalf("leaf %d (%s) not linked: %+v", i, wm.Schema.Columns[i].DottedPath, f)
		}
	}
	for _, f := range wm.Fields {
		if f.Node == nil || f.Node.Name != f.Arrow.Name {
			t.Errorf("field %s: node %v", f.Arrow.Name, f.Node)
		}
		if (f.Kind == List || f.Kind == Map) && (f.Repeated == nil || f.Repeated.Repetition != metadata.Repeated) {
			t.Errorf("field %s: repeated node %v", f.Arrow.Name, f.Repeated)
		}
	}
}

// logicalString renders a LogicalType compactly for TestWriteElements.
func logicalString(lt *format.LogicalType) string {
	if lt == nil {
		return ""
	}
	unit := func(u *format.TimeUnit) string {
		switch {
		case u.MILLIS != nil:
			return "MILLIS"
		case u.MICROS != nil:
			return "MICROS"
		}
		return "NANOS"
	}
	switch {
	case lt.INTEGER != nil:
		return "INTEGER(" + itoa(int(lt.INTEGER.BitWidth)) + "," + btoa(lt.INTEGER.IsSigned) + ")"
	case lt.DECIMAL != nil:
		return "DECIMAL(" + itoa(int(lt.DECIMAL.Precision)) + "," + itoa(int(lt.DECIMAL.Scale)) + ")"
	case lt.TIME != nil:
		return "TIME(" + btoa(lt.TIME.IsAdjustedToUTC) + "," + unit(lt.TIME.Unit) + ")"
	case lt.TIMESTAMP != nil:
		return "TIMESTAMP(" + btoa(lt.TIMESTAMP.IsAdjustedToUTC) + "," + unit(lt.TIMESTAMP.Unit) + ")"
	case lt.GEOGRAPHY != nil:
		return "GEOGRAPHY(" + lt.GEOGRAPHY.GetCrs() + "," + lt.GEOGRAPHY.GetAlgorithm().String() + ")"
	case lt.STRING != nil:
		return "STRING"
	case lt.DATE != nil:
		return "DATE"
	case lt.UNKNOWN != nil:
		return "UNKNOWN"
	case lt.UUID != nil:
		return "UUID"
	case lt.JSON != nil:
		return "JSON"
	case lt.FLOAT16 != nil:
		return "FLOAT16"
	case lt.LIST != nil:
		return "LIST"
	case lt.MAP != nil:
		return "MAP"
	}
	return "?"
}

func itoa(i int) string { return strconv.Itoa(i) }

func btoa(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestFromArrowUnsupported(t *testing.T) {
	tests := []struct {
		f    arrow.Field
		want string
	}{
		{arrow.Field{Name: "u", Type: arrow.SparseUnionOf(nil, nil)}, "field u: Arrow type sparse_union<> cannot be stored"},
		{arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "e", Type: arrow.StructOf()})}, "field s.e: Arrow type struct<> cannot be stored"},
		{arrow.Field{Name: "l", Type: arrow.ListOf(arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String))}, "field l.list.element: Arrow type run_end_encoded<run_ends: int32, values: utf8> cannot be stored"},
		{arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int32, Metadata: md(FieldIDKey, "x1")}, `field id: PARQUET:field_id "x1" is not a 32-bit integer`},
	}
	for _, tt := range tests {
		_, err := FromArrow(arrow.NewSchema([]arrow.Field{tt.f}, nil), WriteOptions{})
		if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q wrapping ErrUnsupported", tt.f.Name, err, tt.want)
		}
	}
}

func TestDecimalPhysical(t *testing.T) {
	// Widths from the spec's formula floor(log10(2^(8n-1)-1)): n bytes hold
	// 2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38 digits.
	digits := []int32{2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38}
	for n, d := range digits {
		if got := maxDigits(int32(n + 1)); got != d {
			t.Errorf("maxDigits(%d) = %d, want %d", n+1, got, d)
		}
	}
	for _, tt := range []struct {
		p     int32
		phys  format.Type
		width int32
	}{{1, format.Type_INT32, 0}, {9, format.Type_INT32, 0}, {10, format.Type_INT64, 0}, {18, format.Type_INT64, 0},
		{19, format.Type_FIXED_LEN_BYTE_ARRAY, 9}, {38, format.Type_FIXED_LEN_BYTE_ARRAY, 16}, {39, format.Type_FIXED_LEN_BYTE_ARRAY, 17},
		{76, format.Type_FIXED_LEN_BYTE_ARRAY, 32}} {
		phys, w := decimalPhysical(tt.p)
		if phys != tt.phys || w != tt.width {
			t.Errorf("precision %d: %v(%d), want %v(%d)", tt.p, phys, w, tt.phys, tt.width)
		}
	}
}
