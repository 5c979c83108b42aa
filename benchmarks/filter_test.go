package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// filterFile writes dataset name with arrowpq the way issue 14's
// benchmarks want it (1 MiB pages, page index, bloom filters on the given
// columns) once per process, and returns its path and row count.
func filterFile(b *testing.B, name string, bloom ...string) (string, int64) {
	b.Helper()
	return filterFileGroups(b, name, 0, bloom...)
}

// filterFileGroups is filterFile with row groups of groupRows rows (zero:
// the writer's default).
func filterFileGroups(b *testing.B, name string, groupRows int, bloom ...string) (string, int64) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "arrowpq-bench-filter")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	d, _ := DatasetByName(name)
	rows := d.ScaledRows()
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.parquet", name, rows))
	if groupRows > 0 {
		path = filepath.Join(dir, fmt.Sprintf("%s-%d-rg%d.parquet", name, rows, groupRows))
	}
	if _, err := os.Stat(path); err == nil {
		return path, int64(rows)
	}
	rec := d.Build(memory.DefaultAllocator, rows)
	defer rec.Release()
	opts := &arrowpq.WriteOptions{DataPageSize: 1 << 20, RowGroupRows: groupRows, Columns: map[string]arrowpq.ColumnOptions{}}
	ndv := int64(rows)
	if groupRows > 0 {
		ndv = int64(groupRows) // a filter per row group, sized for its values
	}
	for _, c := range bloom {
		opts.Columns[c] = arrowpq.ColumnOptions{BloomFilterNDV: ndv}
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

// BenchmarkFilteredRead is issue 14's speed test: filtered reads
// (ReadOptions.Filter: statistics, bloom filters, page index, late
// materialization) against the unfiltered read of the same columns, the
// "read everything, then filter" baseline (arrowpq or pqarrow read,
// Evaluate, FilterBatch) and DuckDB (impl=duckdb: one thread, the same
// query on the same file, timed inside DuckDB by EXPLAIN ANALYZE's Total
// Time, after one warm-up run in the same connection; its ns/op is the
// node process around it, duckdb-ns/op the query). One thread
// everywhere. Files as in filterFile (1 MiB pages, page index, bloom
// filter on the filtered column; lineitem is sorted by l_orderkey).
// Metrics: matched (rows returned), read% (bytes fetched / file size, for
// impl=filter), rows/s (rows of the file).
func BenchmarkFilteredRead(b *testing.B) {
	type tcase struct {
		data, name, bloom string
		groupRows         int // rows per row group; zero: the writer's default
		columns           []string
		filter            func(b *testing.B, path string, rows int64) string
	}
	for _, tc := range []tcase{
		{"lineitem", "between", "l_orderkey", 0, nil, func(_ *testing.B, _ string, n int64) string {
			return fmt.Sprintf("l_orderkey BETWEEN %d AND %d", n/8, n/8+1000)
		}},
		{"lineitem", "half", "l_orderkey", 0, nil, func(_ *testing.B, _ string, n int64) string {
			return fmt.Sprintf("l_orderkey < %d", n*83/200)
		}},
		// 32 row groups: a point lookup is about row groups; within one,
		// unsorted strings leave no page to skip.
		{"strings", "point", "unique_id", 1_000_000 / 32, []string{"unique_id"}, func(b *testing.B, path string, n int64) string {
			// An id that is in the file: the one of the middle row.
			r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Columns: []string{"unique_id"},
				Rows: arrowpq.NewRowRanges(arrowpq.RowRange{Start: n / 2, End: n/2 + 1})})
			if err != nil || !r.Next() {
				b.Fatal(err, r.Err())
			}
			defer r.Close()
			return fmt.Sprintf("unique_id = '%s'", r.RecordBatch().Column(0).(*array.String).Value(0))
		}},
	} {
		for _, impl := range []string{"filter", "full", "full+filter", "pqarrow+filter", "duckdb"} {
			if impl == "duckdb" && tc.data != "lineitem" {
				continue
			}
			b.Run(fmt.Sprintf("data=%s/filter=%s/impl=%s", tc.data, tc.name, impl), func(b *testing.B) {
				path, rows := filterFileGroups(b, tc.data, tc.groupRows, tc.bloom)
				st, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				text := tc.filter(b, path, rows)
				pred, err := arrowpq.ParseFilter(text)
				if err != nil {
					b.Fatal(err)
				}
				var matched, bytesRead int64
				var duckNS float64
				b.ReportAllocs()
				for b.Loop() {
					matched = 0
					switch impl {
					case "filter", "full":
						o := &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, Columns: tc.columns}
						if impl == "filter" {
							o.Filter = pred
						}
						r, err := arrowpq.OpenFile(path, o)
						if err != nil {
							b.Fatal(err)
						}
						for r.Next() {
							matched += r.RecordBatch().NumRows()
						}
						if err := r.Err(); err != nil {
							b.Fatal(err)
						}
						bytesRead = r.Stats().BytesRead
						r.Close()
					case "full+filter", "pqarrow+filter":
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
						if impl == "full+filter" {
							readColumnsArrowpq(b, path, tc.columns, each)
						} else {
							readColumnsPqarrow(b, path, tc.columns, each)
						}
					case "duckdb":
						ns, n, err := duckDBQueryTime(path, text)
						if err != nil {
							b.Skip(err)
						}
						duckNS += ns
						matched = n
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(matched), "matched")
				if impl == "filter" {
					b.ReportMetric(100*float64(bytesRead)/float64(st.Size()), "read%")
				}
				if impl == "duckdb" {
					// The time inside DuckDB, not the node process around it.
					b.ReportMetric(duckNS/float64(b.N), "duckdb-ns/op")
				}
			})
		}
	}
}

var duckTotalTime = regexp.MustCompile(`Total Time: ([0-9.]+)s`)

// duckDBQueryTime runs SELECT * … WHERE filter on path in DuckDB (one
// thread) under EXPLAIN ANALYZE twice in one connection (the first warms
// it up) and returns the second's Total Time, and the rows the query
// returns (a count(*) of it).
func duckDBQueryTime(path, filter string) (float64, int64, error) {
	q := fmt.Sprintf("SELECT * FROM read_parquet('%s') WHERE %s", path, filter)
	res, err := oracle.DuckDBSQL("SET threads=1", "EXPLAIN ANALYZE "+q, "EXPLAIN ANALYZE "+q)
	if err != nil || len(res) == 0 {
		return 0, 0, fmt.Errorf("duckdb: %v", err)
	}
	m := duckTotalTime.FindStringSubmatch(fmt.Sprint(res[0]["explain_value"]))
	if m == nil {
		return 0, 0, fmt.Errorf("no Total Time in DuckDB's EXPLAIN ANALYZE")
	}
	sec, _ := strconv.ParseFloat(m[1], 64)
	cnt, err := oracle.DuckDBSQL("SELECT count(*) AS n FROM (" + q + ")")
	if err != nil || len(cnt) == 0 {
		return 0, 0, fmt.Errorf("duckdb count: %v", err)
	}
	n, _ := strconv.ParseInt(fmt.Sprint(cnt[0]["n"]), 10, 64)
	return sec * 1e9, n, nil
}

func readColumnsArrowpq(b *testing.B, path string, cols []string, fn func(arrow.RecordBatch)) {
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, Columns: cols})
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

// readColumnsPqarrow reads top-level columns cols (all when nil) of a
// flat file with pqarrow, one thread.
func readColumnsPqarrow(b *testing.B, path string, cols []string, fn func(arrow.RecordBatch)) {
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
	var idx []int
	if cols != nil {
		sc, err := fr.Schema()
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cols {
			idx = append(idx, sc.FieldIndices(c)...)
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), idx, nil)
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
