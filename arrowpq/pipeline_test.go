package arrowpq_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/racedetect"
)

// flatRecord is a lineitem-like table: integers, decimals, dates and
// strings (short dictionary ones and long plain ones), every column with
// nulls but the first.
func flatRecord(seed uint64, rows int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 2))
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "key", Type: arrow.PrimitiveTypes.Int64},
		{Name: "qty", Type: dec, Nullable: true},
		{Name: "flag", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 7)
		null := func() bool { return rng.IntN(10) == 0 }
		if null() {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(5000))))
		}
		if null() {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append([]string{"A", "N", "R"}[rng.IntN(3)])
		}
		if null() {
			b.Field(3).AppendNull()
		} else {
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(8000 + rng.IntN(2500)))
		}
		if null() {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Float32Builder).Append(rng.Float32())
		}
		if null() {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("comment %d %x", i, rng.Uint64()))
		}
	}
	return b.NewRecordBatch()
}

// oneColumnRecord is a single nullable int64 column.
func oneColumnRecord(rows int) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range rows {
		if i%5 == 2 {
			b.AppendNull()
		} else {
			b.Append(int64(i) * 3)
		}
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(rows))
}

// pqarrowBytes writes rec with arrow-go's writer: rowGroupRows rows per
// row group, pages of about pageBytes.
func pqarrowBytes(t *testing.T, rec arrow.RecordBatch, rowGroupRows int, pageBytes int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithDataPageSize(pageBytes), parquet.WithCompression(compress.Codecs.Snappy))
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.DefaultWriterProps())
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

// readBatches reads data and returns every batch rendered, and the error
// that ended the read.
func readBatches(t *testing.T, src io.ReaderAt, size int64, opts arrowpq.ReadOptions) ([][]byte, error) {
	t.Helper()
	r, err := arrowpq.NewReader(src, size, &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out [][]byte
	for r.Next() {
		out = append(out, renderRec(t, r.RecordBatch()))
	}
	return out, r.Err()
}

// TestParallelMatchesSerial: a read on several goroutines returns exactly
// the batches of the read on one, and both the rows written (by arrow-go's
// writer, or ours for the nested table), on every shape of file: flat with
// strings and nulls, nested (lists, maps, structs), many small row groups,
// one column; with batch sizes that end batches inside pages, at row group
// ends and past them.
func TestParallelMatchesSerial(t *testing.T) {
	type file struct {
		name string
		rec  arrow.RecordBatch
		data []byte
	}
	flat := flatRecord(1, 5000)
	defer flat.Release()
	nested := bigBatchRecord(t, 3, 2000)
	defer nested.Release()
	one := oneColumnRecord(3000)
	defer one.Release()
	files := []file{
		{"flat", flat, pqarrowBytes(t, flat, 1200, 4096)},
		{"nested", nested, writeBytes(t, nested, &arrowpq.WriteOptions{RowGroupRows: 700, MaxRowsPerPage: 90})},
		{"many row groups", flat, pqarrowBytes(t, flat, 37, 1024)},
		{"one column", one, pqarrowBytes(t, one, 800, 512)},
		{"one row group", flat, pqarrowBytes(t, flat, 1<<20, 1<<20)},
	}
	for _, f := range files {
		want := renderRec(t, f.rec)
		for _, bs := range []int{1, 13, 400, 1200, 1 << 16} {
			if bs == 1 && f.name != "many row groups" {
				continue // slow, and the small row groups cover it
			}
			serial, err := readBatches(t, bytes.NewReader(f.data), int64(len(f.data)), arrowpq.ReadOptions{BatchSize: bs, Parallelism: 1})
			if err != nil {
				t.Fatalf("%s: batch size %d: %v", f.name, bs, err)
			}
			if got := bytes.Join(serial, nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: batch size %d: the serial read differs from the rows written", f.name, bs)
			}
			// Under the race detector 2 and 8 (fewer and more goroutines
			// than cores); the plain run reads with 3 too.
			for _, par := range racedetect.Sample([]int{2, 3, 8}, 2) {
				got, err := readBatches(t, bytes.NewReader(f.data), int64(len(f.data)), arrowpq.ReadOptions{BatchSize: bs, Parallelism: par})
				if err != nil {
					t.Fatalf("%s: batch size %d, parallelism %d: %v", f.name, bs, par, err)
				}
				if len(got) != len(serial) {
					t.Fatalf("%s: batch size %d, parallelism %d: %d batches, serially %d", f.name, bs, par, len(got), len(serial))
				}
				for i := range got {
					if !bytes.Equal(got[i], serial[i]) {
						t.Fatalf("%s: batch size %d, parallelism %d: batch %d differs from the serial read", f.name, bs, par, i)
					}
				}
			}
		}
	}
}

// TestParallelRowGroupSelection: RowGroups in any order, repeated, and
// with projection, read in parallel as serially.
func TestParallelRowGroupSelection(t *testing.T) {
	rec := flatRecord(2, 3000)
	defer rec.Release()
	data := pqarrowBytes(t, rec, 400, 2048)
	for _, opts := range []arrowpq.ReadOptions{
		{RowGroups: []int{5, 1, 1, 7, 0}},
		{RowGroups: []int{}},
		{Columns: []string{"comment", "key"}, RowGroups: []int{3, 2}},
		{Columns: []string{"f"}, BatchSize: 150},
	} {
		opts.Parallelism = 1
		want, err := readBatches(t, bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Parallelism = 4
		got, err := readBatches(t, bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.Join(got, []byte("--\n")), bytes.Join(want, []byte("--\n"))) {
			t.Errorf("row groups %v, columns %v: the parallel read differs from the serial one", opts.RowGroups, opts.Columns)
		}
	}
}

// corruptChunk returns a copy of data with a byte in the middle of the
// column chunk of leaf in row group rg flipped (the page CRC catches it).
func corruptChunk(t *testing.T, data []byte, rg, leaf int) []byte {
	t.Helper()
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	off, n, err := r.Metadata().ChunkRange(rg, leaf)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[off+n-n/3] ^= 0x5a
	return bad
}

// TestParallelErrorNamesColumn: a corrupt page in one column of a later
// row group ends the parallel read after the same batches as the serial
// one, with the same error, naming the column and the row group.
func TestParallelErrorNamesColumn(t *testing.T) {
	rec := flatRecord(4, 4000)
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: 1000, MaxRowsPerPage: 100})
	for _, leaf := range []int{1, 5} {
		bad := corruptChunk(t, data, 2, leaf)
		want, werr := readBatches(t, bytes.NewReader(bad), int64(len(bad)), arrowpq.ReadOptions{BatchSize: 300, Parallelism: 1})
		if werr == nil {
			t.Fatalf("leaf %d: the serial read of a corrupt chunk succeeded", leaf)
		}
		for _, par := range []int{2, 5} {
			got, err := readBatches(t, bytes.NewReader(bad), int64(len(bad)), arrowpq.ReadOptions{BatchSize: 300, Parallelism: par})
			var e *arrowpq.Error
			if !errors.As(err, &e) {
				t.Fatalf("leaf %d, parallelism %d: error %v, want an *Error", leaf, par, err)
			}
			if name := rec.Schema().Field(leaf).Name; e.Column != name || e.RowGroup != 2 {
				t.Errorf("leaf %d, parallelism %d: error at column %q, row group %d, want %q, 2: %v", leaf, par, e.Column, e.RowGroup, name, err)
			}
			if err.Error() != werr.Error() {
				t.Errorf("leaf %d, parallelism %d: error\n%v\nserially\n%v", leaf, par, err, werr)
			}
			if len(got) != len(want) {
				t.Errorf("leaf %d, parallelism %d: %d batches before the error, serially %d", leaf, par, len(got), len(want))
			}
		}
	}
}

// failingReaderAt fails every ReadAt that touches [from, to).
type failingReaderAt struct {
	r        io.ReaderAt
	from, to int64
}

func (f *failingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < f.to && off+int64(len(p)) > f.from {
		return 0, errInjected
	}
	return f.r.ReadAt(p, off)
}

var errInjected = errors.New("injected read failure")

// TestParallelReadErrorLaterRowGroup: a failed read of a later row
// group's chunks (read ahead in parallel) surfaces when the read reaches
// that row group, after every batch before it.
func TestParallelReadErrorLaterRowGroup(t *testing.T) {
	rec := flatRecord(5, 3000)
	defer rec.Release()
	data := pqarrowBytes(t, rec, 500, 4096)
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	off, _, err := r.Metadata().ChunkRange(3, 2)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	src := &failingReaderAt{r: bytes.NewReader(data), from: off, to: off + 1}
	for _, par := range []int{1, 2, 4} {
		got, err := readBatches(t, src, int64(len(data)), arrowpq.ReadOptions{BatchSize: 250, Parallelism: par})
		var e *arrowpq.Error
		if !errors.Is(err, errInjected) || !errors.As(err, &e) || e.RowGroup != 3 {
			t.Fatalf("parallelism %d: error %v, want the injected one in row group 3", par, err)
		}
		if len(got) != 6 {
			t.Errorf("parallelism %d: %d batches before the error, want 6", par, len(got))
		}
	}
}

// waitGoroutines waits up to 5 s for the goroutine count to fall to n.
func waitGoroutines(t *testing.T, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%s: %d goroutines, %d before the read:\n%s", what, runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestParallelNoGoroutineLeft: a parallel read stopped mid-way by Close,
// by a cancelled context or by an error, or simply dropped without Close,
// leaves no goroutine behind; Close returns only when they are gone.
func TestParallelNoGoroutineLeft(t *testing.T) {
	rec := flatRecord(6, 6000)
	defer rec.Release()
	data := pqarrowBytes(t, rec, 700, 4096)
	open := func(ctx context.Context, src io.ReaderAt) *arrowpq.Reader {
		r, err := arrowpq.NewReader(src, int64(len(data)), &arrowpq.ReadOptions{BatchSize: 300, Parallelism: 4, Context: ctx})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := runtime.NumGoroutine()

	r := open(context.Background(), bytes.NewReader(data))
	for range 5 {
		if !r.Next() {
			t.Fatal(r.Err())
		}
	}
	r.Close()
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("closed mid-way: %d goroutines right after Close, %d before the read", n, base)
	}
	waitGoroutines(t, base, "closed mid-way")

	ctx, cancel := context.WithCancel(context.Background())
	r = open(ctx, bytes.NewReader(data))
	r.Next()
	r.Next()
	cancel()
	if r.Next() || !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("cancelled: Next after cancel: error %v", r.Err())
	}
	waitGoroutines(t, base, "cancelled")
	r.Close()

	off, _, _ := r.Metadata().ChunkRange(4, 0)
	r = open(context.Background(), &failingReaderAt{r: bytes.NewReader(data), from: off, to: off + 1})
	for r.Next() {
	}
	if !errors.Is(r.Err(), errInjected) {
		t.Errorf("read error: %v", r.Err())
	}
	waitGoroutines(t, base, "failed read")
	r.Close()

	r = open(context.Background(), bytes.NewReader(data))
	r.Next()
	r.Next()
	// Dropped: the workers finish the batch ahead and exit.
	waitGoroutines(t, base, "dropped without Close")
	for r.Next() {
	}
	if r.Err() != nil {
		t.Error(r.Err())
	}
	r.Close()
}

// TestParallelReadErrorFirstPiece: a row group of many MiB is read in
// many pieces; when the first fails, the pieces not yet handed out are
// dropped and the read ends with the error rather than waiting for them.
func TestParallelReadErrorFirstPiece(t *testing.T) {
	const rows = 1 << 20
	rng := rand.New(rand.NewPCG(9, 9))
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for range 2 * rows {
		b.Append(int64(rng.Uint64()))
	}
	col := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2*rows)
	col.Release()
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: rows, Compression: arrowpq.Uncompressed})
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	off, n, err := r.Metadata().ChunkRange(1, 0)
	r.Close()
	if err != nil || n < 8<<20 {
		t.Fatalf("chunk of %d bytes (%v), want several MiB", n, err)
	}
	src := &failingReaderAt{r: bytes.NewReader(data), from: off, to: off + 1}
	for _, par := range racedetect.Sample([]int{2, 3}, 2) { // 2 under the race detector
		done := make(chan error, 1)
		go func() {
			_, err := readBatches(t, src, int64(len(data)), arrowpq.ReadOptions{Parallelism: par})
			done <- err
		}()
		select {
		case err := <-done:
			var e *arrowpq.Error
			if !errors.Is(err, errInjected) || !errors.As(err, &e) || e.RowGroup != 1 {
				t.Errorf("parallelism %d: error %v, want the injected one in row group 1", par, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("parallelism %d: the read did not end", par)
		}
	}
}

// TestParallelNoLeaks: with a checked allocator, every buffer of the
// batches decoded ahead is released when a parallel read fails, is closed
// mid-way or ends.
func TestParallelNoLeaks(t *testing.T) {
	rec := flatRecord(7, 4000)
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: 1000, MaxRowsPerPage: 100})
	bad := corruptChunk(t, data, 2, 5)
	for _, tc := range []struct {
		name    string
		data    []byte
		batches int // read at most this many, then Close
	}{
		{"to the end", data, 1 << 30},
		{"closed mid-way", data, 3},
		{"failed", bad, 1 << 30},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := arrowpq.NewReader(bytes.NewReader(tc.data), int64(len(tc.data)),
			&arrowpq.ReadOptions{BatchSize: 300, Parallelism: 3, Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < tc.batches && r.Next(); n++ {
		}
		r.Close()
		mem.AssertSize(t, 0)
	}
}
