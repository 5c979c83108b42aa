package benchmarks

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// BenchmarkWriteFloor is the compressor floor of BenchmarkWrite: it only
// compresses, page by page with the codec's default level, the page bodies
// our writer compresses for the dataset (taken from an UNCOMPRESSED file
// written with the same options). b.SetBytes is the Arrow size of the
// dataset, as in BenchmarkWrite, so its MB/s bound every writer that
// produces these pages with this codec: a writer at twice another's MB/s
// is only possible if that MB/s is below half of this one. Extra metric:
// page-MB, the page bytes compressed per op.
func BenchmarkWriteFloor(b *testing.B) {
	for _, d := range Datasets {
		for _, codec := range benchCodecs {
			b.Run(fmt.Sprintf("data=%s/codec=%s/impl=compress-only", d.Name, codec), func(b *testing.B) {
				rec := datasetRecord(b, d.Name)
				var buf bytes.Buffer
				pw, err := arrowpq.NewWriter(&buf, rec.Schema(), &arrowpq.WriteOptions{Compression: arrowpq.Uncompressed, RowGroupRows: rowGroupRows})
				if err != nil {
					b.Fatal(err)
				}
				if err := pw.Write(rec); err != nil {
					b.Fatal(err)
				}
				if err := pw.Close(); err != nil {
					b.Fatal(err)
				}
				pages := pageBodies(b, buf.Bytes())
				var total int64
				for _, p := range pages {
					total += int64(len(p))
				}
				c, err := pagecodec.NewCompressor(floorCodecs[codec], 0)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(arrowBytes(rec))
				b.ReportAllocs()
				var out []byte
				cpu0 := processCPU()
				for b.Loop() {
					for _, p := range pages {
						if out, err = c.AppendCompressed(out[:0], p); err != nil {
							b.Fatal(err)
						}
					}
				}
				reportCPU(b, arrowBytes(rec), cpu0)
				b.ReportMetric(float64(total)/(1<<20), "page-MB")
			})
		}
	}
}

// pageBodies returns the bodies of every page of the file in b, as arrow-go
// reads them (uncompressed; data page v1 bodies with their levels).
func pageBodies(b testing.TB, data []byte) [][]byte {
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
	var out [][]byte
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		r := pf.RowGroup(rg)
		for c := 0; c < r.NumColumns(); c++ {
			pr, err := r.GetColumnPageReader(c)
			if err != nil {
				b.Fatal(err)
			}
			for pr.Next() {
				out = append(out, bytes.Clone(pr.Page().Data()))
			}
			if err := pr.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	return out
}

var floorCodecs = map[compress.Compression]format.CompressionCodec{
	compress.Codecs.Snappy: format.CompressionCodec_SNAPPY,
	compress.Codecs.Zstd:   format.CompressionCodec_ZSTD,
}
