package benchmarks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/arrowpq"
)

var benchCodecs = []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd}

// BenchmarkRead streams each dataset file to Arrow record batches. The
// files are written by arrow-go's pqarrow (dictionary on, 256Ki-row row
// groups) before timing, and the source record is dropped so that the heap
// holds only what the reader holds.
// b.SetBytes is the size of the decoded Arrow data, so MB/s is decoded
// Arrow bytes per second. Extra metrics: rows/s and peak-MB, the largest
// live heap above the starting heap while one read runs.
//
// Run single-threaded comparisons with -cpu=1 (GOMAXPROCS=1 for all
// readers); impl=pqarrow-parallel sets pqarrow's Parallel option.
// impl=arrowpq is the default read (fresh memory for every batch);
// impl=arrowpq-pool sets ReadOptions.RecycleBuffers, impl=arrowpq-reuse
// ReadOptions.ReuseCollected, impl=arrowpq-views ReadOptions.Views.
// impl=parquet-go decodes every value of the same files into reused
// parquet.Value buffers, without building Arrow arrays (see
// parquetgo_test.go).
func BenchmarkRead(b *testing.B) {
	for _, d := range Datasets {
		for _, codec := range benchCodecs {
			for _, impl := range []string{"arrowpq", "arrowpq-views", "arrowpq-pool", "arrowpq-reuse", "arrowpq-parallel", "arrowpq-parallel-pool", "pqarrow", "pqarrow-parallel", "parquet-go"} {
				b.Run(fmt.Sprintf("data=%s/codec=%s/impl=%s", d.Name, codec, impl), func(b *testing.B) {
					fact := readInputs(b, d.Name)
					path := pqarrowFile(b, d.Name, codec)
					b.SetBytes(fact.bytes)
					b.ReportAllocs()
					var peak uint64
					var rows int64
					cpu0 := processCPU()
					for b.Loop() {
						p := peakHeap(func() {
							switch impl {
							case "arrowpq", "arrowpq-parallel", "arrowpq-pool", "arrowpq-parallel-pool":
								rows = readArrowpq(b, path, strings.HasPrefix(impl, "arrowpq-parallel"), strings.HasSuffix(impl, "-pool"))
							case "arrowpq-views":
								rows = readArrowpqOpts(b, path, &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, Views: true})
							case "arrowpq-reuse":
								rows = readArrowpqOpts(b, path, &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1, ReuseCollected: true})
							case "parquet-go":
								rows = readParquetGo(b, path)
							default:
								rows = readPqarrow(b, path, impl == "pqarrow-parallel")
							}
						})
						peak = max(peak, p)
					}
					if rows != fact.rows {
						b.Fatalf("read %d rows, want %d", rows, fact.rows)
					}
					b.ReportMetric(float64(fact.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
					reportCPU(b, fact.bytes, cpu0)
					b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				})
			}
		}
	}
}
