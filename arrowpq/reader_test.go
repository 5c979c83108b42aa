package arrowpq_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func dataFile(name string) string { return filepath.Join(sharedTestdata, "parquet-testing/data", name) }

// readAll streams path with opts and renders every batch canonically.
func readAll(t *testing.T, path string, opts *arrowpq.ReadOptions) ([]byte, *arrow.Schema, int) {
	t.Helper()
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []byte
	batches := 0
	for r.Next() {
		batches++
		if out, err = oracle.RenderRecord(out, r.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out, r.Schema(), batches
}

// TestBatchSizesAgree reads files in random batch sizes, serially and in
// parallel: the data must equal a one-batch read, with records never split
// (nested files have records that span pages).
func TestBatchSizesAgree(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, name := range []string{"nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "alltypes_tiny_pages.parquet",
		"nonnullable.impala.parquet", "nullable.impala.parquet", "repeated_no_annotation.parquet", "delta_encoding_optional_column.parquet"} {
		want, _, _ := readAll(t, dataFile(name), &arrowpq.ReadOptions{BatchSize: 1 << 20})
		for i := 0; i < 3; i++ {
			bs := 1 + rng.IntN(50)
			par := 1 + rng.IntN(3)
			got, _, batches := readAll(t, dataFile(name), &arrowpq.ReadOptions{BatchSize: bs, Parallelism: par})
			if !bytes.Equal(got, want) {
				t.Errorf("%s: batch size %d, parallelism %d: data differs from a one-batch read", name, bs, par)
			}
			if batches < 2 && len(want) > 0 && bytes.Count(want, []byte{'\n'}) > bs {
				t.Errorf("%s: %d batches for batch size %d", name, batches, bs)
			}
		}
	}
}

// TestNoLeaks reads with a checked allocator: every buffer the reader
// allocates must be released once the batches are.
func TestNoLeaks(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	for _, name := range []string{"alltypes_plain.parquet", "nested_maps.snappy.parquet", "nullable.impala.parquet", "byte_array_decimal.parquet"} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		readAll(t, dataFile(name), &arrowpq.ReadOptions{Allocator: mem, BatchSize: 3, Dictionary: []string{"string_col"}})
		mem.AssertSize(t, 0)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	readAll(t, dataFile("alltypes_dictionary.parquet"), &arrowpq.ReadOptions{Allocator: mem, Dictionary: []string{"string_col", "date_string_col"}})
	mem.AssertSize(t, 0)
}

// writeWithPqarrow writes rec with arrow-go's writer to a temp file.
func writeWithPqarrow(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDictionaryOutput reads string columns as Arrow dictionaries: the
// values must equal the plain read, the Parquet dictionary must be shared
// by the batches of a chunk, and a chunk that falls back from dictionary
// to PLAIN pages must still read.
func TestDictionaryOutput(t *testing.T) {
	mem := memory.NewGoAllocator()
	sb := array.NewStringBuilder(mem)
	for i := 0; i < 5000; i++ {
		if i%13 == 0 {
			sb.AppendNull()
			continue
		}
		// The first values repeat; later ones are unique, which makes the
		// writer's dictionary overflow its 2 KiB limit and fall back.
		if i < 1000 {
			sb.Append([]string{"red", "green", "blue"}[i%3])
		} else {
			sb.Append(strings.Repeat("x", i%50) + string(rune('a'+i%26)))
		}
	}
	col := sb.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	path := writeWithPqarrow(t, rec, parquet.NewWriterProperties(parquet.WithDictionaryPageSizeLimit(2048), parquet.WithDataPageSize(1024)))

	plain, _, _ := readAll(t, path, nil)
	dict, schemaOut, _ := readAll(t, path, &arrowpq.ReadOptions{Dictionary: []string{"s"}, BatchSize: 300})
	if schemaOut.Field(0).Type.ID() != arrow.DICTIONARY {
		t.Fatalf("type %s, want a dictionary", schemaOut.Field(0).Type)
	}
	if !bytes.Equal(plain, dict) {
		t.Error("dictionary read differs from the plain read")
	}

	// Two batches inside the dictionary-encoded part share one dictionary.
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Dictionary: []string{"s"}, BatchSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var first arrow.ArrayData
	for i := 0; i < 2 && r.Next(); i++ {
		d := r.RecordBatch().Column(0).(*array.Dictionary)
		if i == 0 {
			first = d.Dictionary().Data()
			first.Retain()
			defer first.Release()
		} else if d.Dictionary().Data() != first {
			t.Error("the second batch has a new dictionary")
		}
	}
}

func TestInt96Overflow(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	f, err := os.Open(dataFile("int96_from_spark.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	_, err = arrowpq.ReadTable(context.Background(), f, st.Size(), nil)
	var ae *arrowpq.Error
	if !errors.As(err, &ae) || ae.Column != "a" || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("error %v, want an out-of-range error naming column a", err)
	}
}

// TestProjection selects leaves by Parquet and Arrow paths.
func TestProjection(t *testing.T) {
	cases := []struct {
		cols []string
		want string // the projected schema's top-level types
	}{
		{[]string{"id"}, "id: int64"},
		{[]string{"tags.list.element"}, "tags: list<element: utf8, nullable>"},
		{[]string{"readings.value"}, "readings: map<utf8, int32, items_nullable>"},
		{[]string{"city", "id"}, "id: int64, city: utf8"},
	}
	for _, tc := range cases {
		r, err := arrowpq.OpenFile("../testdata/sample.parquet", &arrowpq.ReadOptions{Columns: tc.cols})
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, f := range r.Schema().Fields() {
			parts = append(parts, f.Name+": "+f.Type.String())
		}
		if got := strings.Join(parts, ", "); got != tc.want {
			t.Errorf("%v: schema %q, want %q", tc.cols, got, tc.want)
		}
		rows := 0
		for r.Next() {
			rows += int(r.RecordBatch().NumRows())
		}
		if r.Err() != nil || rows != 100 {
			t.Errorf("%v: %d rows, %v", tc.cols, rows, r.Err())
		}
		r.Close()
	}
	if _, err := arrowpq.OpenFile("../testdata/sample.parquet", &arrowpq.ReadOptions{Columns: []string{"nope"}}); err == nil {
		t.Error("an unknown column was accepted")
	}
	if _, err := arrowpq.OpenFile("../testdata/sample.parquet", &arrowpq.ReadOptions{RowGroups: []int{2}}); err == nil {
		t.Error("row group 2 of 2 was accepted")
	}
	r, err := arrowpq.OpenFile("../testdata/sample.parquet", &arrowpq.ReadOptions{RowGroups: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() || r.RecordBatch().Column(0).(*array.Int64).Value(0) != 50 {
		t.Error("row group 1 does not start at id 50")
	}
}

// TestNullFixedSizeList reads null fixed-size lists:
// Parquet stores nothing under a null list, and the reader pads the Arrow
// child with null slots. The data must equal the source rows.
func TestNullFixedSizeList(t *testing.T) {
	mem := memory.NewGoAllocator()
	elem := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "fsl", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "fsl_struct", Type: arrow.FixedSizeListOf(3, elem), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	fb := b.Field(0).(*array.FixedSizeListBuilder)
	sb := b.Field(1).(*array.FixedSizeListBuilder)
	for i := range 40 {
		if i%3 == 1 || i >= 30 && i < 36 {
			fb.AppendNull()
		} else {
			fb.Append(true)
			fb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
			fb.ValueBuilder().(*array.Int32Builder).AppendNull()
		}
		if i%4 == 0 {
			sb.AppendNull()
			continue
		}
		sb.Append(true)
		st := sb.ValueBuilder().(*array.StructBuilder)
		for j := range 3 {
			st.Append(true)
			st.FieldBuilder(0).(*array.Int32Builder).Append(int32(i*10 + j))
			st.FieldBuilder(1).(*array.StringBuilder).Append(strings.Repeat("ab", j))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	// pqarrow cannot write null fixed-size lists; our writer's files of
	// them are checked against pqarrow and DuckDB by
	// TestWriteNullFixedSizeList.
	file := writeBytes(t, rec, &arrowpq.WriteOptions{MaxRowsPerPage: 5})
	want, err := oracle.RenderRecord(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, bs := range []int{7, 1000} {
		tbl, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(file), int64(len(file)), &arrowpq.ReadOptions{BatchSize: bs})
		if err != nil {
			t.Fatalf("batch size %d: %v", bs, err)
		}
		if !arrow.TypeEqual(tbl.Schema().Field(0).Type, schema.Field(0).Type) || !arrow.TypeEqual(tbl.Schema().Field(1).Type, schema.Field(1).Type) {
			t.Fatalf("schema %s", tbl.Schema())
		}
		tr := array.NewTableReader(tbl, -1)
		var got []byte
		for tr.Next() {
			r := tr.RecordBatch()
			if err := array.ValidateRecordFull(r); err != nil {
				t.Fatal(err)
			}
			if got, err = oracle.RenderRecord(got, r); err != nil {
				t.Fatal(err)
			}
		}
		tr.Release()
		tbl.Release()
		if err := oracle.Compare(got, want, oracle.Allowances{}); err != nil {
			t.Errorf("batch size %d: %v", bs, err)
		}
	}
}

// TestConvertedDictionaryFallback reads columns whose values need a
// conversion (decimals in FIXED_LEN_BYTE_ARRAY, INT96 timestamps, narrow
// and unsigned integers, second timestamps) from chunks that start
// dictionary-encoded and fall back to PLAIN mid-chunk, with nulls, in
// batches that straddle the switch. pqarrow writes the file; the data must
// equal the source.
func TestConvertedDictionaryFallback(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "dec38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 4}, Nullable: true},
		{Name: "ts96", Type: arrow.FixedWidthTypes.Timestamp_ns, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "ts_s", Type: arrow.FixedWidthTypes.Timestamp_s, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(9, 9))
	const rows = 30_000
	for i := range rows {
		// The first rows repeat few values (dictionary), later ones are
		// mostly distinct, so the dictionary fills up and pages fall back.
		v := int64(i % 50)
		if i > rows/3 {
			v = rng.Int64N(1 << 40)
		}
		if i%11 == 5 {
			for c := range 6 {
				if c != 4 {
					b.Field(c).AppendNull()
				}
			}
			b.Field(4).(*array.Uint16Builder).Append(uint16(v))
			continue
		}
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v - 1<<39))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v).Mul(decimal128.FromI64(-1_000_000_007)))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(v * 1_000_003))
		b.Field(3).(*array.Int8Builder).Append(int8(v))
		b.Field(4).(*array.Uint16Builder).Append(uint16(v))
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDictionaryPageSizeLimit(4<<10), parquet.WithDataPageSize(8<<10))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true), pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The premise: every chunk has dictionary pages and PLAIN ones (but
	// INT96, which arrow-go never dictionary-encodes).
	footer, err := metadata.ReadFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for c, cc := range footer.Meta.RowGroups[0].Columns {
		var dict, plain bool
		for _, e := range cc.MetaData.Encodings {
			dict = dict || e == format.Encoding_RLE_DICTIONARY || e == format.Encoding_PLAIN_DICTIONARY
			plain = plain || e == format.Encoding_PLAIN
		}
		if (!dict || !plain) && c != 2 {
			t.Fatalf("column %d has encodings %v: the file does not test a fallback", c, cc.MetaData.Encodings)
		}
	}
	for _, bs := range []int{997, 1 << 20} {
		tbl, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), &arrowpq.ReadOptions{BatchSize: bs})
		if err != nil {
			t.Fatal(err)
		}
		for c := range schema.NumFields() {
			got, err := array.Concatenate(tbl.Column(c).Data().Chunks(), mem)
			if err != nil {
				t.Fatal(err)
			}
			if want := rec.Column(c); !array.Equal(got, want) {
				t.Errorf("batch size %d: column %s (%s) differs from the source (%s)", bs, schema.Field(c).Name, got.DataType(), want.DataType())
			}
			got.Release()
		}
		tbl.Release()
	}
}
