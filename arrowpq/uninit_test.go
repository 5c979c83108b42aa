package arrowpq_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
	"github.com/arrowpq/arrowpq/internal/racedetect"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// uninitFile is a named Parquet file for the unzeroed-memory tests.
type uninitFile struct {
	name string
	data []byte
}

// allTypesRecord holds one column of every Arrow type the reader builds
// with its own buffers, every 7th row null (the list's elements too), in
// rows rows.
func allTypesRecord(rows int) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	dec256 := &arrow.Decimal256Type{Precision: 40, Scale: 3}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i32req", Type: arrow.PrimitiveTypes.Int32},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "dec", Type: dec, Nullable: true},
		{Name: "decreq", Type: dec},
		{Name: "dec256", Type: dec256, Nullable: true},
		{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "date64", Type: arrow.FixedWidthTypes.Date64},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "time32", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
		{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "strreq", Type: arrow.BinaryTypes.String},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "lstr", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 5}, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "lists", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "llist", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		{Name: "rec", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "map", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	str := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), i%37) + fmt.Sprint(i) }
	for i := 0; i < rows; i++ {
		null := i%7 == 3
		for k, f := range schema.Fields() {
			fb := b.Field(k)
			if null && f.Nullable {
				fb.AppendNull()
				continue
			}
			switch fb := fb.(type) {
			case *array.Int8Builder:
				fb.Append(int8(i))
			case *array.Uint16Builder:
				fb.Append(uint16(i * 3))
			case *array.Int32Builder:
				fb.Append(int32(i*1_000_003 + k))
			case *array.Uint32Builder:
				fb.Append(uint32(i) * 2_654_435_761)
			case *array.Int64Builder:
				fb.Append(int64(i) * -1_000_000_007)
			case *array.Uint64Builder:
				fb.Append(uint64(i) << 40)
			case *array.Float16Builder:
				fb.Append(float16.New(float32(i) / 8))
			case *array.Float32Builder:
				fb.Append(float32(i) / 4)
			case *array.Float64Builder:
				fb.Append(float64(i%100) * 1.5)
			case *array.Decimal128Builder:
				fb.Append(decimal128.FromI64(int64(i%997) * 101))
			case *array.Decimal256Builder:
				fb.Append(decimal256.FromI64(int64(i) * -7))
			case *array.BooleanBuilder:
				fb.Append(i%3 == 0)
			case *array.Date32Builder:
				fb.Append(arrow.Date32(i))
			case *array.Date64Builder:
				fb.Append(arrow.Date64(int64(i) * 86_400_000))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(int64(i) * 1_000_001))
			case *array.Time32Builder:
				fb.Append(arrow.Time32(i * 1000))
			case *array.StringBuilder:
				fb.Append(str(i + k))
			case *array.BinaryBuilder:
				fb.Append([]byte(str(i * 3)))
			case *array.LargeStringBuilder:
				fb.Append(str(i * 5))
			case *array.FixedSizeBinaryBuilder:
				fb.Append([]byte{byte(i), byte(i >> 8), 1, 2, byte(k)})
			case *array.MapBuilder:
				fb.Append(true)
				for j := 0; j < i%3; j++ {
					fb.KeyBuilder().(*array.StringBuilder).Append(str(j))
					if j == 1 && null {
						fb.ItemBuilder().AppendNull()
					} else {
						fb.ItemBuilder().(*array.Float64Builder).Append(float64(i + j))
					}
				}
			case *array.ListBuilder:
				fb.Append(true)
				for j := 0; j < i%4; j++ {
					switch vb := fb.ValueBuilder().(type) {
					case *array.Int64Builder:
						if j == 2 {
							vb.AppendNull()
						} else {
							vb.Append(int64(i * j))
						}
					case *array.StringBuilder:
						vb.Append(str(i + j))
					}
				}
			case *array.LargeListBuilder:
				fb.Append(true)
				for j := 0; j < i%5; j++ {
					fb.ValueBuilder().(*array.Int16Builder).Append(int16(i - j))
				}
			case *array.StructBuilder:
				fb.Append(true)
				fb.FieldBuilder(0).(*array.Int32Builder).Append(int32(-i))
				fb.FieldBuilder(1).(*array.StringBuilder).Append(str(i))
			default:
				// LargeBinary: arrow-go's builder for it is a BinaryBuilder.
				fb.(*array.BinaryBuilder).Append([]byte(str(i)))
			}
		}
	}
	return b.NewRecordBatch()
}

// writePqarrow writes rec with arrow-go's writer (its schema stored, so
// that large types read back as such).
func writePqarrow(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeArrowpq writes rec with our writer.
func writeArrowpq(t *testing.T, rec arrow.RecordBatch, opts *arrowpq.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, rec.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// uninitFiles returns the files of the unzeroed-memory tests: the
// benchmark datasets (small), the all-types record with and without
// dictionaries and v2 pages, and with shared, every non-encrypted file of
// parquet-testing's data directory.
func uninitFiles(t *testing.T) []uninitFile {
	var files []uninitFile
	for _, d := range benchmarks.Datasets {
		rec := d.Build(memory.DefaultAllocator, 5000)
		files = append(files,
			uninitFile{d.Name + "/arrowpq", writeArrowpq(t, rec, &arrowpq.WriteOptions{RowGroupRows: 3000, DataPageSize: 16 << 10})},
			uninitFile{d.Name + "/pqarrow", writePqarrow(t, rec, parquet.NewWriterProperties(
				parquet.WithMaxRowGroupLength(4000), parquet.WithDataPageSize(8<<10), parquet.WithCompression(0)))})
		rec.Release()
	}
	rec := allTypesRecord(6000)
	defer rec.Release()
	files = append(files,
		uninitFile{"alltypes/dict", writePqarrow(t, rec, parquet.NewWriterProperties(
			parquet.WithMaxRowGroupLength(2500), parquet.WithDataPageSize(4<<10)))},
		uninitFile{"alltypes/plain-v2", writePqarrow(t, rec, parquet.NewWriterProperties(
			parquet.WithMaxRowGroupLength(4000), parquet.WithDictionaryDefault(false),
			parquet.WithDataPageVersion(parquet.DataPageV2)))},
		uninitFile{"alltypes/arrowpq", writeArrowpq(t, rec, &arrowpq.WriteOptions{RowGroupRows: 3500, DataPageSize: 8 << 10})})
	dir := filepath.Join(testshared.Root(), "testdata", "parquet-testing", "data")
	if !testshared.Has(t, dir) {
		return files
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, uninitFile{"parquet-testing/" + filepath.Base(name), data})
	}
	return files
}

// readAllBatches reads every batch of data with opts, each cloned deeply
// right after Next (so that a later batch changing it would show), and
// the batches themselves, retained.
func readAllBatches(data []byte, opts arrowpq.ReadOptions) (got []arrow.RecordBatch, err error) {
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		got = append(got, rec)
	}
	return got, r.Err()
}

// bufferBytes is the content of every buffer of d and its children and
// dictionary, depth first: within each buffer's length, and (reach) all
// a caller can reach, up to the capacity of Buf.
func bufferBytes(d arrow.ArrayData, reach bool, out [][]byte) [][]byte {
	for _, b := range d.Buffers() {
		switch {
		case b == nil:
			out = append(out, nil)
		case reach:
			out = append(out, bytes.Clone(b.Buf()[:cap(b.Buf())]))
		default:
			out = append(out, bytes.Clone(b.Bytes()))
		}
	}
	for _, c := range d.Children() {
		out = bufferBytes(c, reach, out)
	}
	if dd, ok := d.(*array.Data); ok && dd.Dictionary() != nil {
		if dict := dd.Dictionary().(*array.Data); dict != nil {
			out = bufferBytes(dict, reach, out)
		}
	}
	return out
}

// batchBytes is bufferBytes of every column of every batch.
func batchBytes(recs []arrow.RecordBatch, reach bool) [][]byte {
	var out [][]byte
	for _, rec := range recs {
		for _, c := range rec.Columns() {
			out = bufferBytes(c.Data(), reach, out)
		}
	}
	return out
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, rec := range recs {
		rec.Release()
	}
}

// TestUninitBuffersWritten: the default allocator hands the reader memory
// that the runtime did not zero for the buffers it overwrites entirely,
// so no byte of such a buffer may reach a caller unwritten. Every such
// buffer is filled with a poison byte first (twice: 0xA5 and 0x5A), and
// each batch of each file and option set must be byte-identical, within
// each buffer's length, to the batch read with those buffers zeroed, and
// everything a caller can reach through a buffer (Buf up to its capacity)
// must be the same under both poisons. The files: the benchmark datasets,
// every Arrow type with nulls (lists, structs, maps, decimals, booleans,
// large and fixed-size binary, views and dictionaries by option) and
// parquet-testing's files (INT96, FLBA, delta encodings, nested, v2).
func TestUninitBuffersWritten(t *testing.T) {
	files := uninitFiles(t)
	optSets := []struct {
		name string
		opts arrowpq.ReadOptions
	}{
		{"serial", arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1}},
		{"parallel", arrowpq.ReadOptions{BatchSize: 1500, Parallelism: 2}},
		{"views", arrowpq.ReadOptions{BatchSize: 700, Parallelism: 1, Views: true}},
		{"default-batch", arrowpq.ReadOptions{Parallelism: 1}},
		{"reuse-collected", arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 2, ReuseCollected: true}},
	}
	var filled atomic.Int64
	read := func(t *testing.T, data []byte, opts arrowpq.ReadOptions, fill byte) ([]arrow.RecordBatch, error) {
		restore := arrowpq.SetUninitFill(func(b []byte) {
			for i := range b {
				b[i] = fill
			}
		}, 64, &filled)
		defer restore()
		return readAllBatches(data, opts)
	}
	for _, f := range files {
		sets := optSets
		if strings.HasPrefix(f.name, "alltypes") || strings.HasPrefix(f.name, "strings") {
			sets = append(sets, struct {
				name string
				opts arrowpq.ReadOptions
			}{"dictionary", arrowpq.ReadOptions{BatchSize: 900, Parallelism: 1,
				Dictionary: []string{"str", "strreq", "bin", "category", "description", "unique_id"}}})
		}
		for _, o := range sets {
			t.Run(f.name+"/"+o.name, func(t *testing.T) {
				if o.opts.Parallelism == 1 {
					racedetect.SkipSequential(t, "reads on one goroutine")
				}
				zero, zerr := read(t, f.data, o.opts, 0)
				defer releaseAll(zero)
				p1, err1 := read(t, f.data, o.opts, 0xA5)
				defer releaseAll(p1)
				p2, err2 := read(t, f.data, o.opts, 0x5A)
				defer releaseAll(p2)
				if fmt.Sprint(zerr) != fmt.Sprint(err1) || fmt.Sprint(zerr) != fmt.Sprint(err2) {
					t.Fatalf("errors differ: zeroed %v, poisoned %v and %v", zerr, err1, err2)
				}
				if len(zero) != len(p1) || len(zero) != len(p2) {
					t.Fatalf("%d, %d and %d batches", len(zero), len(p1), len(p2))
				}
				want, got := batchBytes(zero, false), batchBytes(p1, false)
				if len(want) != len(got) {
					t.Fatalf("%d buffers zeroed, %d poisoned", len(want), len(got))
				}
				for i := range want {
					if !bytes.Equal(want[i], got[i]) {
						k := firstDiff(want[i], got[i])
						t.Fatalf("buffer %d: byte %d of %d is %#x poisoned, %#x zeroed", i, k, len(want[i]), at(got[i], k), at(want[i], k))
					}
				}
				r1, r2 := batchBytes(p1, true), batchBytes(p2, true)
				for i := range r1 {
					if !bytes.Equal(r1[i], r2[i]) {
						k := firstDiff(r1[i], r2[i])
						t.Fatalf("buffer %d: byte %d of the %d reachable (length %d) differs between poisons (%#x, %#x)", i, k, len(r1[i]), len(want[i]), at(r1[i], k), at(r2[i], k))
					}
				}
			})
		}
	}
	if filled.Load() == 0 {
		t.Fatal("no buffer was allocated unzeroed: the test covers nothing")
	}
	t.Logf("%d unzeroed buffers poisoned", filled.Load())
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func at(b []byte, i int) int {
	if i < len(b) {
		return int(b[i])
	}
	return -1
}

// TestBatchesUnchangedByLaterReads: with the default options, no batch
// changes while the reader goes on: the bytes of every buffer of every
// batch, copied when Next returned it, are the same after the whole file
// was read, with the unzeroed buffers poisoned. Strings PLAIN and
// dictionary-encoded, read as strings and as dictionaries, serial and
// parallel, with batches that split pages and row groups.
func TestBatchesUnchangedByLaterReads(t *testing.T) {
	d, _ := benchmarks.DatasetByName("strings")
	rec := d.Build(memory.DefaultAllocator, 20_000)
	defer rec.Release()
	files := []uninitFile{
		{"pqarrow", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(7000),
			parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("category", true)))},
		{"arrowpq", writeArrowpq(t, rec, &arrowpq.WriteOptions{RowGroupRows: 9000})},
	}
	var filled atomic.Int64
	restore := arrowpq.SetUninitFill(func(b []byte) {
		for i := range b {
			b[i] = 0xA5
		}
	}, 64, &filled)
	defer restore()
	for _, f := range files {
		for _, o := range []struct {
			name string
			opts arrowpq.ReadOptions
		}{
			{"serial", arrowpq.ReadOptions{BatchSize: 1500, Parallelism: 1}},
			{"parallel", arrowpq.ReadOptions{BatchSize: 2500, Parallelism: 2}},
			{"dictionary", arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1, Dictionary: []string{"category", "description"}}},
		} {
			t.Run(f.name+"/"+o.name, func(t *testing.T) {
				r, err := arrowpq.NewReader(bytes.NewReader(f.data), int64(len(f.data)), &o.opts)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var kept []arrow.RecordBatch
				defer func() { releaseAll(kept) }()
				var snap [][][]byte
				for r.Next() {
					rec := r.RecordBatch()
					rec.Retain()
					kept = append(kept, rec)
					snap = append(snap, batchBytes([]arrow.RecordBatch{rec}, true))
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				if len(kept) < 8 {
					t.Fatalf("%d batches", len(kept))
				}
				for i, rec := range kept {
					now := batchBytes([]arrow.RecordBatch{rec}, true)
					for j := range now {
						if !bytes.Equal(now[j], snap[i][j]) {
							t.Fatalf("batch %d buffer %d changed after later batches were read", i, j)
						}
					}
					if err := rec.Column(0).(*array.String).ValidateFull(); err != nil {
						t.Fatalf("batch %d: %v", i, err)
					}
				}
			})
		}
	}
	if filled.Load() == 0 {
		t.Fatal("no buffer was allocated unzeroed")
	}
}

// TestInPlaceSpreadDifferential: buildLeaf's in-place spread of values
// with nulls (converted into the start of an unzeroed Arrow buffer, moved
// to their slots, null slots zeroed) builds the same buffers as the
// spread from scratch over a zeroed buffer, on nested leaves with null
// elements and flat leaves of every type; batch sizes that split pages,
// and one batch that is all nulls.
func TestInPlaceSpreadDifferential(t *testing.T) {
	rec := allTypesRecord(4000)
	defer rec.Release()
	d, _ := benchmarks.DatasetByName("nested")
	nested := d.Build(memory.DefaultAllocator, 6000)
	defer nested.Release()
	nulls := allNullsRecord(t, 300)
	defer nulls.Release()
	files := []uninitFile{
		{"alltypes", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1500), parquet.WithDataPageSize(2<<10)))},
		{"alltypes-plain", writeArrowpq(t, rec, &arrowpq.WriteOptions{RowGroupRows: 2500, Dictionary: arrowpq.Off})},
		{"nested", writeArrowpq(t, nested, &arrowpq.WriteOptions{RowGroupRows: 2500, DataPageSize: 4 << 10})},
		{"allnulls", writePqarrow(t, nulls, parquet.NewWriterProperties())},
	}
	var filled atomic.Int64
	restore := arrowpq.SetUninitFill(func(b []byte) {
		for i := range b {
			b[i] = 0xA5
		}
	}, 64, &filled)
	defer restore()
	for _, f := range files {
		for _, batch := range []int{97, 1000, 0} {
			t.Run(fmt.Sprintf("%s/batch=%d", f.name, batch), func(t *testing.T) {
				opts := arrowpq.ReadOptions{BatchSize: batch, Parallelism: 1}
				want, err := readAllBatches(f.data, opts)
				defer releaseAll(want)
				if err != nil {
					t.Fatal(err)
				}
				off := arrowpq.SetInPlaceSpread(false)
				ref, err := readAllBatches(f.data, opts)
				off()
				defer releaseAll(ref)
				if err != nil {
					t.Fatal(err)
				}
				if len(want) != len(ref) {
					t.Fatalf("%d batches in place, %d from scratch", len(want), len(ref))
				}
				for i := range want {
					if !array.RecordEqual(want[i], ref[i]) {
						t.Fatalf("batch %d differs", i)
					}
				}
				a, b := batchBytes(want, false), batchBytes(ref, false)
				for i := range a {
					if !bytes.Equal(a[i], b[i]) {
						t.Fatalf("buffer %d differs at byte %d", i, firstDiff(a[i], b[i]))
					}
				}
			})
		}
	}
}

// allNullsRecord is n rows of a nullable int64, a list of nullable
// float32 and a struct of a nullable decimal, all null (the lists hold
// null elements).
func allNullsRecord(t *testing.T, n int) arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 1}, Nullable: true})},
	}, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for range n {
		b.Field(0).AppendNull()
		lb := b.Field(1).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().AppendNull()
		lb.ValueBuilder().AppendNull()
		sb := b.Field(2).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).AppendNull()
	}
	return b.NewRecordBatch()
}
