package arrowpq_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/racedetect"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// withSplit runs fn with every field that can be split decoded by n
// decoders (arrowpq.ForceSplit), whatever its size.
func withSplit(t *testing.T, n int, fn func(t *testing.T)) {
	t.Helper()
	arrowpq.ForceSplit(n)
	defer arrowpq.ForceSplit(0)
	fn(t)
}

// TestParallelSplit runs the pipeline's tests with split fields: two or
// three decoders per flat field, each stepping over the others' batches
// (pages skipped whole by their headers, batch ends inside pages, row
// groups of fewer batches than decoders, batches of one row). Every read
// must return the serial read's batches and errors.
func TestParallelSplit(t *testing.T) {
	// Under the race detector two decoders only: three take turns over a
	// row group's batches the same way, and the plain run reads with both.
	for _, n := range racedetect.Sample([]int{2, 3}, 2) {
		for _, tc := range []struct {
			name string
			fn   func(t *testing.T)
		}{
			{"MatchesSerial", TestParallelMatchesSerial},
			{"RowGroupSelection", TestParallelRowGroupSelection},
			{"ErrorNamesColumn", TestParallelErrorNamesColumn},
			{"ReadErrorLaterRowGroup", TestParallelReadErrorLaterRowGroup},
			{"ReadErrorFirstPiece", TestParallelReadErrorFirstPiece},
			{"NoGoroutineLeft", TestParallelNoGoroutineLeft},
			{"NoLeaks", TestParallelNoLeaks},
			{"PrefetchRead", TestPrefetchRead},
			{"BatchEndsBeforeOffsetOverflow", TestBatchEndsBeforeOffsetOverflow},
			{"BatchOverflowOneRow", TestBatchOverflowOneRow},
		} {
			t.Run(tc.name+"/decoders="+string(rune('0'+n)), func(t *testing.T) { withSplit(t, n, tc.fn) })
		}
	}
}

// TestParallelSplitDecoders: which fields are split. Flat fields are, by
// ForceSplit here; nested fields and dictionary output never are.
func TestParallelSplitDecoders(t *testing.T) {
	arrowpq.ForceSplit(2)
	defer arrowpq.ForceSplit(0)
	flat := flatRecord(9, 3000)
	defer flat.Release()
	data := pqarrowBytes(t, flat, 1000, 2048)
	for _, tc := range []struct {
		opts arrowpq.ReadOptions
		want []int
	}{
		{arrowpq.ReadOptions{BatchSize: 300, Parallelism: 2}, []int{2, 2, 2, 2, 2, 2}},
		{arrowpq.ReadOptions{BatchSize: 300, Parallelism: 2, Dictionary: []string{"flag"}}, []int{2, 2, 1, 2, 2, 2}},
		{arrowpq.ReadOptions{BatchSize: 300, Parallelism: 1}, nil},
		{arrowpq.ReadOptions{BatchSize: 5000, Parallelism: 2}, []int{1, 1, 1, 1, 1, 1}}, // one batch per row group: nothing to split
	} {
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		if got := arrowpq.SplitDecoders(r); !slices.Equal(got, tc.want) {
			t.Errorf("batch size %d, parallelism %d, dictionary %v: decoders %v, want %v", tc.opts.BatchSize, tc.opts.Parallelism, tc.opts.Dictionary, got, tc.want)
		}
		r.Close()
	}
	nested := bigBatchRecord(t, 3, 2000)
	defer nested.Release()
	data = writeBytes(t, nested, &arrowpq.WriteOptions{RowGroupRows: 700, MaxRowsPerPage: 90})
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 100, Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	got := arrowpq.SplitDecoders(r)
	for i, f := range r.Schema().Fields() {
		repeated := strings.Contains(f.Type.String(), "list<") || strings.Contains(f.Type.String(), "map<")
		if repeated && got[i] != 1 {
			t.Errorf("field %s (%s) has %d decoders, want 1", f.Name, f.Type, got[i])
		}
	}
}

// TestParallelSplitCorpus reads every file of parquet-testing's data
// directory in small batches with split fields, and serially: the same
// batches, or the same error after the same batches.
func TestParallelSplitCorpus(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	dir := filepath.Join(sharedTestdata, "parquet-testing/data")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string, opts arrowpq.ReadOptions) ([][]byte, string) {
		r, err := arrowpq.OpenFile(path, &opts)
		if err != nil {
			return nil, "open: " + err.Error()
		}
		defer r.Close()
		var out [][]byte
		for r.Next() {
			out = append(out, renderRec(t, r.RecordBatch()))
		}
		if err := r.Err(); err != nil {
			return out, err.Error()
		}
		return out, ""
	}
	files := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".parquet") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		for _, bs := range []int{7, 100} {
			want, werr := read(path, arrowpq.ReadOptions{BatchSize: bs, Parallelism: 1})
			for _, n := range []int{2, 3} {
				// Which of two failing fields a read names depends on the
				// schedule (the serial read stops at the first it tries):
				// errors are compared with the unsplit parallel read's.
				_, perr := read(path, arrowpq.ReadOptions{BatchSize: bs, Parallelism: n})
				if (perr == "") != (werr == "") {
					t.Errorf("%s: batch size %d, parallelism %d: error %q, serially %q", e.Name(), bs, n, perr, werr)
				}
				arrowpq.ForceSplit(n)
				got, gerr := read(path, arrowpq.ReadOptions{BatchSize: bs, Parallelism: n})
				arrowpq.ForceSplit(0)
				if gerr != perr {
					t.Errorf("%s: batch size %d, %d decoders: error %q, unsplit %q", e.Name(), bs, n, gerr, perr)
				}
				if len(got) != len(want) {
					t.Errorf("%s: batch size %d, %d decoders: %d batches, serially %d", e.Name(), bs, n, len(got), len(want))
					continue
				}
				for i := range got {
					if !bytes.Equal(got[i], want[i]) {
						t.Errorf("%s: batch size %d, %d decoders: batch %d differs from the serial read", e.Name(), bs, n, i)
						break
					}
				}
			}
		}
		files++
	}
	if files < 50 {
		t.Fatalf("%d files read, the corpus has more", files)
	}
}

// TestParallelSplitEncrypted: split fields of encrypted files (page
// ordinals in the AADs: a decoder that skips pages by their headers must
// still decrypt the next page it reads) read as serially.
func TestParallelSplitEncrypted(t *testing.T) {
	testshared.Need(t, encCorpus)
	arrowpq.ForceSplit(2)
	defer arrowpq.ForceSplit(0)
	for _, c := range encFiles {
		path := filepath.Join(encCorpus, c.name)
		opts := c.options()
		opts.Int96Unit = arrow.Microsecond
		opts.BatchSize = 7
		opts.Parallelism = 1
		want, n, err := readEncrypted(path, opts, nil)
		if err != nil {
			t.Fatalf("%s: serially: %v", c.name, err)
		}
		opts.Parallelism = 2
		got, m, err := readEncrypted(path, opts, nil)
		if err != nil || m != n || !bytes.Equal(got, want) {
			t.Errorf("%s: split: %d rows (serially %d), error %v, same data %v", c.name, m, n, err, bytes.Equal(got, want))
		}
	}
}

// blockingReaderAt holds every ReadAt that touches [from, to) until
// release is closed, and closes entered at the first.
type blockingReaderAt struct {
	r        io.ReaderAt
	from, to int64
	once     sync.Once
	entered  chan struct{}
	release  chan struct{}
}

func (b *blockingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < b.to && off+int64(len(p)) > b.from {
		b.once.Do(func() { close(b.entered) })
		<-b.release
	}
	return b.r.ReadAt(p, off)
}

// TestParallelFieldStartsBeforeRowGroupRead: a field's batch is decoded as
// soon as its own column chunk is read, while the read of the end of
// another column's chunk in the same row group is held back; the batches
// are then the serial read's.
func TestParallelFieldStartsBeforeRowGroupRead(t *testing.T) {
	const rows = 400_000
	rng := rand.New(rand.NewPCG(3, 3))
	a, b := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	for range rows {
		a.Append(int64(rng.Uint64()))
		b.Append(int64(rng.Uint64()))
	}
	cols := []arrow.Array{a.NewArray(), b.NewArray()}
	a.Release()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: rows})
	// Whole-chunk reads (ChunkWindow -1): with windows each leaf reads its
	// own chunk as it decodes, so no field waits for another's bytes.
	opts := arrowpq.ReadOptions{BatchSize: 50_000, Parallelism: 2, ChunkWindow: -1}
	want, err := readBatches(t, bytes.NewReader(data), int64(len(data)), arrowpq.ReadOptions{BatchSize: 50_000, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	off, n, err := r.Metadata().ChunkRange(0, 1)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	// Hold the read of b's last byte: the piece that holds it holds none
	// of a (b's chunk is larger than a piece, 1 MiB).
	src := &blockingReaderAt{r: bytes.NewReader(data), from: off + n - 1, to: off + n, entered: make(chan struct{}), release: make(chan struct{})}
	r, err = arrowpq.NewReader(src, int64(len(data)), &opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	next := make(chan bool)
	go func() { next <- r.Next() }()
	<-src.entered
	deadline := time.Now().Add(10 * time.Second)
	for arrowpq.BatchFieldsDone(r, 0) == 0 {
		if time.Now().After(deadline) {
			close(src.release)
			<-next
			t.Fatal("column a's first batch was not decoded while column b's chunk was being read")
		}
		time.Sleep(time.Millisecond)
	}
	close(src.release)
	var got [][]byte
	for ok := <-next; ok; ok = r.Next() {
		got = append(got, renderRec(t, r.RecordBatch()))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.Join(got, []byte("--\n")), bytes.Join(want, []byte("--\n"))) {
		t.Fatal("the batches differ from the serial read's")
	}
}

// TestParallelSplitRule: without ForceSplit, a field is split when it is
// more than 1/Parallelism of the read and its batches span many pages
// (encoding_stats); not when a row group's column is one page (as DuckDB
// writes it), which every decoder would decompress whole.
func TestParallelSplitRule(t *testing.T) {
	defer arrowpq.SetSplitMinBatchBytes(arrowpq.SetSplitMinBatchBytes(1))
	const rows = 20_000
	kb, sb := array.NewInt64Builder(memory.DefaultAllocator), array.NewStringBuilder(memory.DefaultAllocator)
	for i := range rows {
		kb.Append(int64(i))
		sb.Append(fmt.Sprintf("a longer text value, number %d of the column", i))
	}
	cols := []arrow.Array{kb.NewArray(), sb.NewArray()}
	kb.Release()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	for _, tc := range []struct {
		name      string
		pageBytes int64
		par       int
		want      []int
	}{
		{"small pages", 1024, 2, []int{1, 2}},
		{"small pages, 4 workers", 1024, 4, []int{1, 4}},
		{"one page per row group", 64 << 20, 2, []int{1, 1}},
	} {
		var buf bytes.Buffer
		props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(10_000), parquet.WithDataPageSize(tc.pageBytes),
			parquet.WithDictionaryDefault(false), parquet.WithBatchSize(64), parquet.WithCompression(compress.Codecs.Snappy))
		w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 1000, Parallelism: tc.par})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		if got := arrowpq.SplitDecoders(r); !slices.Equal(got, tc.want) {
			t.Errorf("%s, parallelism %d: decoders %v, want %v", tc.name, tc.par, got, tc.want)
		}
		r.Close()
	}
}

// TestParallelSplitSizes: the other decoders of a split field start after
// decoder 0's first batch and size their first batch's byte array data by
// it, instead of decoding it into scratch and copying it; the batches are
// the serial read's, and no more are decoded ahead than before.
func TestParallelSplitSizes(t *testing.T) {
	const rows = 60_000
	kb, sb := array.NewInt64Builder(memory.DefaultAllocator), array.NewStringBuilder(memory.DefaultAllocator)
	rng := rand.New(rand.NewPCG(17, 26))
	for i := range rows {
		kb.Append(int64(i))
		if i%11 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprintf("text %d: %x %x", i, rng.Uint64(), rng.Uint64()))
		}
	}
	cols := []arrow.Array{kb.NewArray(), sb.NewArray()}
	kb.Release()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: rows / 2, Compression: arrowpq.Snappy})
	for _, n := range []int{2, 3} {
		withSplit(t, n, func(t *testing.T) {
			serial, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 5000, Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer serial.Close()
			par, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 5000, Parallelism: n})
			if err != nil {
				t.Fatal(err)
			}
			defer par.Close()
			for b := 0; serial.Next(); b++ {
				if !par.Next() {
					t.Fatalf("decoders %d: ends early: %v", n, par.Err())
				}
				if !array.RecordEqual(serial.RecordBatch(), par.RecordBatch()) {
					t.Fatalf("decoders %d: batch %d differs from the serial read's", n, b)
				}
				// In flight: while the caller holds batch b, a split field
				// has decoded at most up to batch b+n-1 (the others: b+1).
				for c := b + n; c < rows/5000; c++ {
					if done := arrowpq.BatchFieldsDone(par, c); done != 0 {
						t.Fatalf("decoders %d: holding batch %d, batch %d has %d fields decoded", n, b, c, done)
					}
				}
				if b == n {
					if got := arrowpq.SplitDecoders(par); !slices.Equal(got, []int{n, n}) {
						t.Fatalf("decoders %v, want %d each", got, n)
					}
					if got := arrowpq.SplitSized(par); !slices.Equal(got, []bool{true, true}) {
						t.Errorf("decoders %d: sized %v, want every decoder sized by decoder 0's first batch", n, got)
					}
				}
			}
			if serial.Err() != nil || par.Next() || par.Err() != nil {
				t.Fatalf("end: %v, %v", serial.Err(), par.Err())
			}
		})
	}
}
