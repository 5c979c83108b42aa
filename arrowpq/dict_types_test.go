package arrowpq_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// dictTypesFile writes, with pqarrow, one nullable column of each type a
// dictionary read should cover, in two row groups whose chunks start
// dictionary-encoded and fall back to PLAIN mid-chunk (the first rows of
// each row group repeat 40 values, later ones are mostly distinct and
// overflow a 2 KiB dictionary page limit). Decimals of precision ≤ 18 are
// stored as INT32/INT64, larger ones as FIXED_LEN_BYTE_ARRAY.
func dictTypesFile(t *testing.T) (path string, src arrow.RecordBatch) {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "dec18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 3}, Nullable: true},
		{Name: "dec30", Type: &arrow.Decimal128Type{Precision: 30, Scale: 4}, Nullable: true},
		{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "time", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}, Nullable: true},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(18, 2))
	const rows, rgRows = 12_000, 6_000
	for i := range rows {
		v := int64(i % 40)
		if i%rgRows > rgRows/3 {
			v = rng.Int64N(1 << 30)
		}
		if i%9 == 4 {
			for c := range schema.NumFields() {
				b.Field(c).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.Int8Builder).Append(int8(v))
		b.Field(1).(*array.Uint16Builder).Append(uint16(v))
		b.Field(2).(*array.Int32Builder).Append(int32(v) - 1<<29)
		b.Field(3).(*array.Int64Builder).Append(v * -1_000_003)
		b.Field(4).(*array.Uint64Builder).Append(uint64(v) << 33)
		b.Field(5).(*array.Float32Builder).Append(float32(v) / 8)
		b.Field(6).(*array.Float64Builder).Append(float64(v) / 3)
		b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(v % 999_999_999))
		b.Field(8).(*array.Decimal128Builder).Append(decimal128.FromI64(-v * 1_000_007))
		b.Field(9).(*array.Decimal128Builder).Append(decimal128.FromI64(v).Mul(decimal128.FromI64(1 << 62)))
		b.Field(10).(*array.Date32Builder).Append(arrow.Date32(v % 100_000))
		b.Field(11).(*array.TimestampBuilder).Append(arrow.Timestamp(v * 1_000_001))
		b.Field(12).(*array.Time64Builder).Append(arrow.Time64(v % 86_400_000_000))
		b.Field(13).(*array.FixedSizeBinaryBuilder).Append([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24), 7})
		b.Field(14).(*array.Float16Builder).Append(float16.New(float32(v%2000) / 4))
	}
	src = b.NewRecordBatch()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDictionaryPageSizeLimit(2<<10), parquet.WithDataPageSize(4<<10),
		parquet.WithMaxRowGroupLength(rgRows), parquet.WithStoreDecimalAsInteger(true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The premise: every chunk holds dictionary pages and PLAIN ones.
	footer, err := metadata.ReadFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range footer.Meta.RowGroups {
		for i, cc := range rg.Columns {
			var dict, plain bool
			for _, e := range cc.MetaData.Encodings {
				dict = dict || e == format.Encoding_RLE_DICTIONARY || e == format.Encoding_PLAIN_DICTIONARY
				plain = plain || e == format.Encoding_PLAIN
			}
			if !dict || !plain {
				t.Fatalf("column %s: encodings %v, want dictionary and PLAIN", schema.Field(i).Name, cc.MetaData.Encodings)
			}
		}
	}
	path = t.TempDir() + "/dict.parquet"
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, src
}

// TestDictionaryOutputEveryType reads every column of dictTypesFile as an
// Arrow dictionary, in batches that straddle the PLAIN fallback: each slot
// must equal the source pqarrow wrote and the plain read; the batches of a
// chunk read before the fallback share one dictionary (the same Data), and
// the next chunk brings a new one.
func TestDictionaryOutputEveryType(t *testing.T) {
	path, src := dictTypesFile(t)
	defer src.Release()
	var names []string
	for _, f := range src.Schema().Fields() {
		names = append(names, f.Name)
	}
	plain := readRecords(t, path, &arrowpq.ReadOptions{BatchSize: 700})
	dict := readRecords(t, path, &arrowpq.ReadOptions{BatchSize: 700, Dictionary: names})
	if len(plain) != len(dict) {
		t.Fatalf("%d plain batches, %d dictionary batches", len(plain), len(dict))
	}
	row := 0
	for bi := range dict {
		for c, name := range names {
			want := src.Column(c)
			p := plain[bi].Column(c)
			d, ok := dict[bi].Column(c).(*array.Dictionary)
			if !ok {
				t.Fatalf("batch %d column %s: %s, want a dictionary", bi, name, dict[bi].Column(c).DataType())
			}
			if !arrow.TypeEqual(d.Dictionary().DataType(), want.DataType()) {
				t.Fatalf("column %s: dictionary of %s, want %s", name, d.Dictionary().DataType(), want.DataType())
			}
			for i := 0; i < d.Len(); i++ {
				k := row + i
				if want.IsNull(k) != d.IsNull(i) || want.IsNull(k) != p.IsNull(i) {
					t.Fatalf("batch %d column %s row %d: null mismatch", bi, name, k)
				}
				if want.IsNull(k) {
					continue
				}
				x := d.GetValueIndex(i)
				if !array.SliceEqual(want, int64(k), int64(k+1), d.Dictionary(), int64(x), int64(x+1)) ||
					!array.SliceEqual(want, int64(k), int64(k+1), p, int64(i), int64(i+1)) {
					t.Fatalf("batch %d column %s row %d: dictionary %v, plain %v, want %v", bi, name, k,
						d.Dictionary().GetOneForMarshal(x), p.GetOneForMarshal(i), want.GetOneForMarshal(k))
				}
			}
		}
		row += int(dict[bi].NumRows())
	}
	// Batches 0 and 1 (rows 0-1399) are dictionary-encoded in every column
	// (the fallback comes after row 2000): one dictionary object. Batch 9
	// starts the second row group (6000 / 700 rounds to 9 batches).
	for c, name := range names {
		d0 := dict[0].Column(c).(*array.Dictionary).Dictionary().Data()
		d1 := dict[1].Column(c).(*array.Dictionary).Dictionary().Data()
		if d0 != d1 {
			t.Errorf("column %s: the second batch of a chunk has a new dictionary", name)
		}
		if dict[9].Column(c).(*array.Dictionary).Dictionary().Data() == d0 {
			t.Errorf("column %s: the second row group reuses the first one's dictionary", name)
		}
	}
	for _, rec := range append(plain, dict...) {
		rec.Release()
	}
}

// readRecords reads every batch of path, retained.
func readRecords(t *testing.T, path string, opts *arrowpq.ReadOptions) []arrow.RecordBatch {
	t.Helper()
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
