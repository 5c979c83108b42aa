package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// rowGroupRows is the row group size of the benchmark files: several row
// groups per file, so that streaming readers show their bounded memory.
const rowGroupRows = 256 << 10

// batchRows is the batch size both readers are asked for.
const batchRows = 64 << 10

var (
	recordCache   = map[string]arrow.RecordBatch{}
	recordCacheMu sync.Mutex
)

// datasetRecord builds (once per process) the record of a dataset.
func datasetRecord(b testing.TB, name string) arrow.RecordBatch {
	recordCacheMu.Lock()
	defer recordCacheMu.Unlock()
	if rec, ok := recordCache[name]; ok {
		return rec
	}
	d, ok := DatasetByName(name)
	if !ok {
		b.Fatalf("no dataset %q", name)
	}
	rec := d.Build(memory.NewGoAllocator(), d.ScaledRows())
	recordCache[name] = rec
	return rec
}

type datasetFact struct{ rows, bytes int64 }

var facts = map[string]datasetFact{}

// readInputs writes the dataset's files for every codec (once), records its
// row count and Arrow size, and then drops the in-memory record, so that a
// read benchmark's heap holds only what the reader holds.
func readInputs(b testing.TB, name string) datasetFact {
	recordCacheMu.Lock()
	f, ok := facts[name]
	recordCacheMu.Unlock()
	if ok {
		return f
	}
	for _, codec := range benchCodecs {
		pqarrowFile(b, name, codec)
	}
	rec := datasetRecord(b, name)
	f = datasetFact{rows: rec.NumRows(), bytes: arrowBytes(rec)}
	recordCacheMu.Lock()
	facts[name] = f
	delete(recordCache, name)
	recordCacheMu.Unlock()
	rec.Release()
	runtime.GC()
	return f
}

// arrowBytes is the size of the Arrow data of rec: the sum of its buffers,
// the figure b.SetBytes reports for reads and writes.
func arrowBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += dataBytes(col.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, buf := range d.Buffers() {
		if buf != nil {
			n += int64(buf.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	if d.DataType().ID() == arrow.DICTIONARY {
		dict := d.Dictionary()
		n += dataBytes(dict)
	}
	return n
}

// pqarrowFile writes (once, into the temp dir) the dataset with arrow-go's
// writer and the given codec, dictionary encoding on (its default), and
// returns the path. Both readers read this same file.
func pqarrowFile(b testing.TB, name string, codec compress.Compression) string {
	d, ok := DatasetByName(name)
	if !ok {
		b.Fatalf("no dataset %q", name)
	}
	dir := filepath.Join(os.TempDir(), "arrowpq-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d-%s.parquet", name, d.ScaledRows(), codec))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	rec := datasetRecord(b, name)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithMaxRowGroupLength(rowGroupRows))
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// readPqarrow streams path with pqarrow and returns the rows read.
func readPqarrow(b testing.TB, path string, parallel bool) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		b.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{Parallel: parallel, BatchSize: batchRows}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil && err.Error() != "EOF" {
		b.Fatal(err)
	}
	return rows
}

// readArrowpq streams path with arrowpq and returns the rows read.
// benchChunkWindow is ReadOptions.ChunkWindow of readArrowpq, from
// $ARROWPQ_BENCH_CHUNK_WINDOW (bytes; -1 reads whole row groups' chunks),
// to compare window sizes in one binary.
var benchChunkWindow, _ = strconv.Atoi(os.Getenv("ARROWPQ_BENCH_CHUNK_WINDOW"))

func readArrowpq(b testing.TB, path string, parallel, recycle bool) int64 {
	opts := &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, RecycleBuffers: recycle, ChunkWindow: benchChunkWindow}
	if parallel {
		opts.Parallelism = 0
	}
	return readArrowpqOpts(b, path, opts)
}

// readArrowpqOpts streams path with arrowpq and opts and returns the rows
// read.
func readArrowpqOpts(b testing.TB, path string, opts *arrowpq.ReadOptions) int64 {
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return rows
}

// peakHeap samples the live heap while fn runs and returns the largest
// value seen above the heap at the start, in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak.Load() {
				peak.Store(v - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak.Load()
}

// reportCPU reports cpu-MB/s: the bytes of b.SetBytes per second of
// process CPU time since cpu0 (GC and the heap sampler included, for every
// implementation alike). Compare ratios of it when wall time is noisy.
func reportCPU(b *testing.B, bytes int64, cpu0 time.Duration) {
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}
