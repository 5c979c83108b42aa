package benchmarks

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// BenchmarkCreateFile writes the lineitem record to a file in
// $TMPDIR/arrowpq-bench (a real disk here, ext4) the way CreateFile does,
// Parallelism 1, and splits the time: write-ms is encoding and writing up
// to the footer (the data in the page cache), sync-ms the sync of the
// temporary file before the rename (OutputFile.SyncTime), total-ms both
// plus the rename. sync=on is CreateFile's default, through
// CreateOutputFile, NewWriter and Commit so that SyncTime can be read;
// sync=off is CreateFile with WriteOptions.NoSync. b.SetBytes is the Arrow
// size of the record.
func BenchmarkCreateFile(b *testing.B) {
	const name = "lineitem"
	for _, codec := range benchCodecs {
		for _, sync := range []string{"on", "off"} {
			b.Run(fmt.Sprintf("data=%s/codec=%s/sync=%s", name, codec, sync), func(b *testing.B) {
				rec := datasetRecord(b, name)
				dir := filepath.Join(os.TempDir(), "arrowpq-bench")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				path := filepath.Join(dir, fmt.Sprintf("createfile-%d.parquet", os.Getpid()))
				defer os.Remove(path)
				opts := &arrowpq.WriteOptions{Compression: arrowpqCodecs[codec], Parallelism: 1, NoSync: sync == "off"}
				b.SetBytes(arrowBytes(rec))
				b.ReportAllocs()
				var write, syncT, total time.Duration
				for b.Loop() {
					t0 := time.Now()
					var out *arrowpq.OutputFile
					var w *arrowpq.Writer
					var err error
					if sync == "on" {
						if out, err = arrowpq.CreateOutputFile(path); err == nil {
							w, err = arrowpq.NewWriter(out, rec.Schema(), opts)
						}
					} else {
						w, err = arrowpq.CreateFile(path, rec.Schema(), opts)
					}
					if err != nil {
						b.Fatal(err)
					}
					if err := w.Write(rec); err != nil {
						b.Fatal(err)
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if out != nil {
						if err := out.Commit(); err != nil {
							b.Fatal(err)
						}
						syncT += out.SyncTime()
					}
					// With sync=off Close renamed already: its rename is in
					// write-ms, a few microseconds.
					write += t1.Sub(t0)
					total += time.Since(t0)
				}
				n := float64(b.N)
				b.ReportMetric(float64(write)/n/1e6, "write-ms")
				b.ReportMetric(float64(syncT)/n/1e6, "sync-ms")
				b.ReportMetric(float64(total)/n/1e6, "total-ms")
			})
		}
	}
}
