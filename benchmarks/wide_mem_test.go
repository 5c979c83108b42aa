package benchmarks

import (
	"os"
	"testing"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// BenchmarkReadWideFile streams the file named by $ARROWPQ_WIDE_FILE (the
// issue's DuckDB-written 2,000 int64 columns × 20,000 rows, one row group,
// dictionary pages), skipped when unset. b.SetBytes is the decoded Arrow
// size; peak-MB as in BenchmarkRead.
func BenchmarkReadWideFile(b *testing.B) {
	path := os.Getenv("ARROWPQ_WIDE_FILE")
	if path == "" {
		b.Skip("ARROWPQ_WIDE_FILE not set")
	}
	for _, impl := range []string{"arrowpq", "arrowpq-pool", "pqarrow"} {
		b.Run("impl="+impl, func(b *testing.B) {
			var bytes int64
			{
				r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1})
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
					for _, c := range r.RecordBatch().Columns() {
						bytes += dataBytes(c.Data())
					}
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			b.SetBytes(bytes)
			b.ReportAllocs()
			var peak uint64
			cpu0 := processCPU()
			for b.Loop() {
				p := peakHeap(func() {
					switch impl {
					case "pqarrow":
						readPqarrow(b, path, false)
					default:
						readArrowpq(b, path, false, impl == "arrowpq-pool")
					}
				})
				peak = max(peak, p)
			}
			reportCPU(b, bytes, cpu0)
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}
