package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// filterFile writes dataset name with arrowpq the way issue 14's
// benchmarks want it (1 MiB pages, page index, bloom filters on the given
// columns) once per process, and returns its path and row count.
func filterFile(b *testing.B, name string, bloom ...string) (string, int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "arrowpq-bench-filter")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	d, _ := DatasetByName(name)
	rows := d.ScaledRows()
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.parquet", name, rows))
	if _, err := os.Stat(path); err == nil {
		return path, int64(rows)
	}
	rec := d.Build(memory.DefaultAllocator, rows)
	defer rec.Release()
	opts := &arrowpq.WriteOptions{DataPageSize: 1 << 20, Columns: map[string]arrowpq.ColumnOptions{}}
	for _, c := range bloom {
		opts.Columns[c] = arrowpq.ColumnOptions{BloomFilterNDV: int64(rows)}
	}
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w, err := arrowpq.NewWriter(out, rec.Schema(), opts)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	out.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path, int64(rows)
}

// BenchmarkFilterBaseline is the "read everything, then filter" baseline
// of issue 14, the only option pqarrow offers: read every row of every
// column (one thread), evaluate the predicate on each batch
// (BoundPredicate.Evaluate) and keep the matching rows
// (arrowpq.FilterBatch, which uses arrow-go's compute.FilterRecordBatch).
// impl=pqarrow reads with pqarrow instead. Filtered reads must beat these
// once the Reader prunes. The metric rows/s counts rows of the file;
// matched is the rows returned. Lineitem's l_orderkey is sorted.
func BenchmarkFilterBaseline(b *testing.B) {
	for _, tc := range []struct {
		data, name, bloom string
		// filter is the predicate for a file of rows rows: lineitem's
		// order keys grow by about 0.83 a row.
		filter func(rows int64) string
	}{
		{"lineitem", "between", "l_orderkey", func(n int64) string {
			return fmt.Sprintf("l_orderkey BETWEEN %d AND %d", n/8, n/8+1000)
		}},
		{"lineitem", "half", "l_orderkey", func(n int64) string { return fmt.Sprintf("l_orderkey < %d", n*83/200) }},
		{"strings", "point", "unique_id", func(int64) string { return "unique_id = 'no-such-id'" }},
	} {
		for _, impl := range []string{"arrowpq", "pqarrow"} {
			b.Run(fmt.Sprintf("data=%s/filter=%s/impl=%s", tc.data, tc.name, impl), func(b *testing.B) {
				path, rows := filterFile(b, tc.data, tc.bloom)
				pred, err := arrowpq.ParseFilter(tc.filter(rows))
				if err != nil {
					b.Fatal(err)
				}
				var matched int64
				b.ReportAllocs()
				for b.Loop() {
					matched = 0
					each := func(batch arrow.RecordBatch) {
						bp, err := pred.Bind(batch.Schema(), nil)
						if err != nil {
							b.Fatal(err)
						}
						sel, err := bp.Evaluate(batch)
						if err != nil {
							b.Fatal(err)
						}
						out, err := arrowpq.FilterBatch(context.Background(), nil, batch, sel)
						if err != nil {
							b.Fatal(err)
						}
						matched += out.NumRows()
						out.Release()
					}
					if impl == "arrowpq" {
						readEachArrowpq(b, path, each)
					} else {
						readEachPqarrow(b, path, each)
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(matched), "matched")
			})
		}
	}
}

func readEachArrowpq(b *testing.B, path string, fn func(arrow.RecordBatch)) {
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		fn(r.RecordBatch())
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
}

func readEachPqarrow(b *testing.B, path string, fn func(arrow.RecordBatch)) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		b.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		fn(rr.RecordBatch())
	}
	if err := rr.Err(); err != nil && err.Error() != "EOF" {
		b.Fatal(err)
	}
}
