package benchmarks

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/faultproxy"
	"github.com/arrowpq/arrowpq/internal/miniotest"
	"github.com/arrowpq/arrowpq/objstore"
)

// BenchmarkRemoteRead reads the lineitem file (Snappy, written by
// pqarrow as in BenchmarkRead) from a local MinIO server through the fault
// proxy, which adds the given latency to every request, and beside it the
// same file from the local disk (impl=arrowpq-local, no proxy, no
// latency):
//
//   - impl=arrowpq-s3: arrowpq.OpenURL, default objstore.Options (8 MiB
//     requests, 16 concurrent, 2 row groups prefetched), all cores.
//   - impl=pqarrow-s3 and pqarrow-parallel-s3: arrow-go's pqarrow over
//     the same objstore.Source used as a plain io.ReaderAt.
//
// b.SetBytes is the decoded Arrow size, as in BenchmarkRead. Extra
// metrics: requests/op and MB-fetched/op as counted by the proxy.
// ARROWPQ_BENCH_DATA picks another dataset.
func BenchmarkRemoteRead(b *testing.B) {
	name := "lineitem"
	if s := os.Getenv("ARROWPQ_BENCH_DATA"); s != "" {
		name = s
	}
	fact := readInputs(b, name)
	path := pqarrowFile(b, name, compress.Codecs.Snappy)
	srv := miniotest.Start(b)
	proxy, err := faultproxy.New(srv.Endpoint)
	if err != nil {
		b.Fatal(err)
	}
	defer proxy.Close()
	miniotest.Env(b, proxy.URL)
	bucket := srv.Bucket(b)
	url := "s3://" + bucket + "/" + name + ".parquet"
	upload(b, url, path)
	for _, latency := range []time.Duration{20 * time.Millisecond, 0} {
		for _, impl := range []string{"arrowpq-local", "arrowpq-s3", "pqarrow-s3", "pqarrow-parallel-s3"} {
			b.Run(fmt.Sprintf("data=%s/latency=%v/impl=%s", name, latency, impl), func(b *testing.B) {
				proxy.SetLatency(latency)
				b.SetBytes(fact.bytes)
				b.ReportAllocs()
				proxy.ResetStats()
				var rows int64
				for b.Loop() {
					switch impl {
					case "arrowpq-local":
						rows = readArrowpq(b, path, true, false)
					case "arrowpq-s3":
						rows = readArrowpqURL(b, url)
					default:
						rows = readPqarrowURL(b, url, impl == "pqarrow-parallel-s3")
					}
				}
				if rows != fact.rows {
					b.Fatalf("read %d rows, want %d", rows, fact.rows)
				}
				st := proxy.Stats()
				b.ReportMetric(float64(st.Requests)/float64(b.N), "requests/op")
				b.ReportMetric(float64(st.BytesOut)/float64(b.N)/(1<<20), "MB-fetched/op")
				b.ReportMetric(float64(fact.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// BenchmarkRemoteReadPaired runs, in each iteration, the local read, the
// read from MinIO through the proxy and pqarrow's read through the same
// source, one after the other, so that the three see the same load on a
// shared machine, and reports the medians of the per-iteration ratios
// (s3/local: the target is ≤ 1.5; pqarrow/s3: ≥ 5) beside the
// median times. ns/op is the time of the three reads together.
func BenchmarkRemoteReadPaired(b *testing.B) {
	name := "lineitem"
	fact := readInputs(b, name)
	path := pqarrowFile(b, name, compress.Codecs.Snappy)
	srv := miniotest.Start(b)
	proxy, err := faultproxy.New(srv.Endpoint)
	if err != nil {
		b.Fatal(err)
	}
	defer proxy.Close()
	miniotest.Env(b, proxy.URL)
	bucket := srv.Bucket(b)
	url := "s3://" + bucket + "/" + name + ".parquet"
	upload(b, url, path)
	for _, latency := range []time.Duration{20 * time.Millisecond, 0} {
		b.Run(fmt.Sprintf("data=%s/latency=%v", name, latency), func(b *testing.B) {
			proxy.SetLatency(latency)
			var local, remote, pq []float64
			for b.Loop() {
				for i, read := range []func() int64{
					func() int64 { return readArrowpq(b, path, true, false) },
					func() int64 { return readArrowpqURL(b, url) },
					func() int64 { return readPqarrowURL(b, url, false) },
				} {
					start := time.Now()
					if rows := read(); rows != fact.rows {
						b.Fatalf("read %d rows, want %d", rows, fact.rows)
					}
					d := time.Since(start).Seconds()
					switch i {
					case 0:
						local = append(local, d)
					case 1:
						remote = append(remote, d)
					default:
						pq = append(pq, d)
					}
				}
			}
			ratio := func(a, b []float64) float64 {
				r := make([]float64, len(a))
				for i := range a {
					r[i] = a[i] / b[i]
				}
				return median(r)
			}
			b.ReportMetric(median(local)*1e3, "local-ms")
			b.ReportMetric(median(remote)*1e3, "s3-ms")
			b.ReportMetric(median(pq)*1e3, "pqarrow-s3-ms")
			b.ReportMetric(ratio(remote, local), "s3/local")
			b.ReportMetric(ratio(pq, remote), "pqarrow/s3")
		})
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func upload(b testing.TB, url, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	up, err := objstore.Create(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(up, f); err != nil {
		b.Fatal(err)
	}
	if err := up.Commit(); err != nil {
		b.Fatal(err)
	}
}

func readArrowpqURL(b testing.TB, url string) int64 {
	r, err := arrowpq.OpenURL(context.Background(), url, &arrowpq.ReadOptions{BatchSize: batchRows}, nil)
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

func readPqarrowURL(b testing.TB, url string, parallel bool) int64 {
	src, err := objstore.Open(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	pf, err := file.NewParquetReader(io.NewSectionReader(src, 0, src.Size()))
	if err != nil {
		b.Fatal(err)
	}
	defer pf.Close()
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
	if err := rr.Err(); err != nil && err != io.EOF {
		b.Fatal(err)
	}
	return rows
}
