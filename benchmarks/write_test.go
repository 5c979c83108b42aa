package benchmarks

import (
	"fmt"
	"io"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// countingWriter discards what it is given and counts it: the benchmarks
// measure encoding, not the disk.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

var arrowpqCodecs = map[compress.Compression]arrowpq.Compression{
	compress.Codecs.Snappy: arrowpq.Snappy,
	compress.Codecs.Zstd:   arrowpq.Zstd,
}

// BenchmarkWrite writes each dataset record as one Parquet file, with the
// same codec, dictionary encoding on (both defaults), ARROW:schema stored
// and row groups of rowGroupRows rows. b.SetBytes is the size of the Arrow
// data, so MB/s is Arrow bytes encoded per second. Extra metrics: rows/s,
// peak-MB (largest live heap above the start while one write runs) and
// file-MB (output size). impl=parquet-go writes row structs built from the
// record before timing, PLAIN (see parquetgo_test.go).
func BenchmarkWrite(b *testing.B) {
	for _, d := range Datasets {
		for _, codec := range benchCodecs {
			for _, impl := range []string{"arrowpq", "pqarrow", "parquet-go"} {
				b.Run(fmt.Sprintf("data=%s/codec=%s/impl=%s", d.Name, codec, impl), func(b *testing.B) {
					rec := datasetRecord(b, d.Name)
					var pgRows parquetGoRows
					if impl == "parquet-go" {
						pgRows = parquetGoInput(b, d.Name, rec)
					}
					b.SetBytes(arrowBytes(rec))
					b.ReportAllocs()
					var peak uint64
					var size int64
					cpu0 := processCPU()
					for b.Loop() {
						cw := &countingWriter{}
						p := peakHeap(func() {
							switch impl {
							case "arrowpq":
								writeArrowpq(b, cw, rec, codec)
							case "parquet-go":
								writeParquetGo(b, cw, pgRows, codec)
							default:
								writePqarrow(b, cw, rec, codec)
							}
						})
						peak = max(peak, p)
						size = cw.n
					}
					b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
					reportCPU(b, arrowBytes(rec), cpu0)
					b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
					b.ReportMetric(float64(size)/(1<<20), "file-MB")
					if pgRows.write != nil {
						// Drop the row structs before the next benchmark.
						pgRows = parquetGoRows{}
						runtime.GC()
					}
				})
			}
		}
	}
}

func writeArrowpq(b testing.TB, w io.Writer, rec arrow.RecordBatch, codec compress.Compression) {
	pw, err := arrowpq.NewWriter(w, rec.Schema(), &arrowpq.WriteOptions{Compression: arrowpqCodecs[codec], RowGroupRows: rowGroupRows})
	if err != nil {
		b.Fatal(err)
	}
	if err := pw.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
}

func writePqarrow(b testing.TB, w io.Writer, rec arrow.RecordBatch, codec compress.Compression) {
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithMaxRowGroupLength(rowGroupRows))
	pw, err := pqarrow.NewFileWriter(rec.Schema(), w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		b.Fatal(err)
	}
	if err := pw.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		b.Fatal(err)
	}
}
