package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// compareSpreadDecode reads data with values decoded straight into their
// slots (column.Reader.DecodeSpread) and with dense decoding spread
// afterwards, and fails t unless both give the same batches, byte for
// byte in every buffer, or the same error.
func compareSpreadDecode(t *testing.T, data []byte, opts arrowpq.ReadOptions) {
	t.Helper()
	// Unzeroed buffers show garbage, not zeros, in slots left unwritten.
	var filled atomic.Int64
	restore := arrowpq.SetUninitFill(func(b []byte) {
		for i := range b {
			b[i] = 0xA5
		}
	}, 64, &filled)
	defer restore()
	on := arrowpq.SetSpreadDecode(true)
	got, gotErr := readAllBatches(data, opts)
	on()
	defer releaseAll(got)
	off := arrowpq.SetSpreadDecode(false)
	want, wantErr := readAllBatches(data, opts)
	off()
	defer releaseAll(want)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("spread decode: %v; dense then spread: %v", gotErr, wantErr)
	}
	if len(got) != len(want) {
		t.Fatalf("%d batches spread as decoded, %d dense then spread", len(got), len(want))
	}
	for i := range got {
		// NaNs equal: the buffers are compared byte for byte below.
		if !array.RecordApproxEqual(got[i], want[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			t.Fatalf("batch %d differs", i)
		}
	}
	a, b := batchBytes(got, false), batchBytes(want, false)
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("buffer %d differs at byte %d", i, firstDiff(a[i], b[i]))
		}
	}
}

// TestSpreadDecodeCorpus: every file of parquet-testing (data/ and
// bad_data/) reads to the same arrays, or the same error, with values
// decoded into their slots and decoded densely then spread, with the
// default batch size and with batches that split pages.
func TestSpreadDecodeCorpus(t *testing.T) {
	root := "../../shared/testdata/parquet-testing"
	testshared.Need(t, root)
	var files []string
	for _, dir := range []string{"data", "bad_data"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.Contains(e.Name(), ".parquet") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("%d corpus files", len(files))
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, p)
		for _, batch := range []int{0, 77} {
			t.Run(fmt.Sprintf("%s/batch=%d", name, batch), func(t *testing.T) {
				compareSpreadDecode(t, data, arrowpq.ReadOptions{BatchSize: batch, Parallelism: 1})
			})
		}
	}
}

// spreadRecord is n rows of nullable int32, int64, float32, float64,
// date32 and timestamp columns whose nulls come in the shapes the slot
// kernels treat apart (no nulls, all null, single nulls, single values,
// runs, random densities), a shape per stretch of rows, with values from
// few (RLE runs of one index) or many distinct ones.
func spreadRecord(rng *rand.Rand, n int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: arrow.FixedWidthTypes.Timestamp_us, Nullable: true},
		{Name: "few", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for c := range schema.NumFields() {
		shape, p := 0, 0.0
		run := false
		for i := 0; i < n; i++ {
			if i%500 == 0 {
				shape, p = rng.IntN(6), rng.Float64()
			}
			var valid bool
			switch shape {
			case 0:
				valid = true
			case 1:
				valid = false
			case 2:
				valid = rng.IntN(64) != 0
			case 3:
				valid = rng.IntN(64) == 0
			case 4:
				if rng.IntN(40) == 0 {
					run = !run
				}
				valid = run
			default:
				valid = rng.Float64() < p
			}
			fb := b.Field(c)
			if !valid {
				fb.AppendNull()
				continue
			}
			x := rng.Int64()
			if c == 6 || rng.IntN(4) == 0 {
				x = int64(rng.IntN(3)) // repeats: RLE runs of one index
			}
			switch fb := fb.(type) {
			case *array.Int32Builder:
				fb.Append(int32(x))
			case *array.Int64Builder:
				fb.Append(x)
			case *array.Float32Builder:
				fb.Append(float32(x))
			case *array.Float64Builder:
				fb.Append(float64(x))
			case *array.Date32Builder:
				fb.Append(arrow.Date32(x))
			case *array.TimestampBuilder:
				fb.Append(arrow.Timestamp(x))
			}
		}
	}
	return b.NewRecordBatch()
}

// TestSpreadDecodeWritten: files written by pqarrow and by arrowpq with
// dictionary pages (falling back to PLAIN), PLAIN only, small pages
// (batches span pages, a page's validity starts mid-byte) and the other
// encodings of the four types, read with values decoded into their slots
// and decoded densely then spread, give the same arrays.
func TestSpreadDecodeWritten(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 25))
	rec := spreadRecord(rng, 9000)
	defer rec.Release()
	files := []uninitFile{
		{"pqarrow-small-pages", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(4000), parquet.WithDataPageSize(1<<10), parquet.WithDictionaryPageSizeLimit(8<<10)))},
		{"pqarrow-plain-snappy", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageSize(3<<10), parquet.WithCompression(compress.Codecs.Snappy)))},
		{"pqarrow-bss", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithEncoding(parquet.Encodings.ByteStreamSplit), parquet.WithDataPageSize(2<<10)))},
		{"pqarrow-delta-v2", writePqarrow(t, rec, parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2),
			parquet.WithEncodingFor("few", parquet.Encodings.DeltaBinaryPacked), parquet.WithDataPageSize(2<<10)))},
		{"arrowpq", writeArrowpq(t, rec, &arrowpq.WriteOptions{RowGroupRows: 5000, DataPageSize: 2 << 10})},
		{"arrowpq-plain", writeArrowpq(t, rec, &arrowpq.WriteOptions{Dictionary: arrowpq.Off})},
	}
	for _, f := range files {
		for _, batch := range []int{1, 63, 64, 65, 1000, 0} {
			t.Run(fmt.Sprintf("%s/batch=%d", f.name, batch), func(t *testing.T) {
				compareSpreadDecode(t, f.data, arrowpq.ReadOptions{BatchSize: batch, Parallelism: 1})
			})
		}
	}
}

// BenchmarkSpreadDecode reads 1M rows of nullable int32, int64, float32
// and float64 columns with 10% random nulls (the benchmarks' numeric
// dataset's shape) from memory, uncompressed, dictionary encoded (12-bit
// indices) or PLAIN, with values decoded into their slots
// (mode=spread) or decoded densely and spread afterwards (mode=dense).
// Bytes are the Arrow values.
func BenchmarkSpreadDecode(b *testing.B) {
	const rows = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	for c := range 4 {
		for range rows {
			if rng.IntN(10) == 0 {
				bld.Field(c).AppendNull()
				continue
			}
			x := rng.IntN(1 << 12)
			switch fb := bld.Field(c).(type) {
			case *array.Int32Builder:
				fb.Append(int32(x))
			case *array.Int64Builder:
				fb.Append(int64(x))
			case *array.Float32Builder:
				fb.Append(float32(x))
			case *array.Float64Builder:
				fb.Append(float64(x))
			}
		}
	}
	rec := bld.NewRecordBatch()
	bld.Release()
	defer rec.Release()
	files := map[string][]byte{
		"dict":  writeArrowpq(&testing.T{}, rec, &arrowpq.WriteOptions{RowGroupRows: rows, Compression: arrowpq.Uncompressed}),
		"plain": writeArrowpq(&testing.T{}, rec, &arrowpq.WriteOptions{RowGroupRows: rows, Compression: arrowpq.Uncompressed, Dictionary: arrowpq.Off}),
	}
	for _, enc := range []string{"dict", "plain"} {
		for _, mode := range []string{"spread", "dense"} {
			b.Run("enc="+enc+"/mode="+mode, func(b *testing.B) {
				defer arrowpq.SetSpreadDecode(mode == "spread")()
				data := files[enc]
				b.SetBytes(rows * 24)
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					recs, err := readAllBatches(data, arrowpq.ReadOptions{Parallelism: 1})
					if err != nil {
						b.Fatal(err)
					}
					releaseAll(recs)
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
