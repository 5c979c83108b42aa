package arrowpq_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
	"github.com/arrowpq/arrowpq/internal/faultproxy"
	"github.com/arrowpq/arrowpq/internal/miniotest"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/racedetect"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/objstore"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// renderReader reads every batch of r in the oracle's canonical form.
func renderReader(r *arrowpq.Reader) ([]byte, error) {
	var out []byte
	for r.Next() {
		var err error
		if out, err = oracle.RenderRecord(out, r.RecordBatch()); err != nil {
			return nil, err
		}
	}
	return out, r.Err()
}

// renderLocal and renderURL read a file in full, locally with OpenFile
// and through OpenURL.
func renderLocal(path string, opts *arrowpq.ReadOptions) ([]byte, error) {
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return renderReader(r)
}

func renderURL(url string, opts *arrowpq.ReadOptions, sopts *objstore.Options) ([]byte, error) {
	r, err := arrowpq.OpenURL(context.Background(), url, opts, sopts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return renderReader(r)
}

// errorClass names the sentinels err wraps, so that a local and a remote
// failure can be compared although their messages name different paths.
func errorClass(err error) string {
	var names []string
	for _, s := range []struct {
		name string
		err  error
	}{
		{"pagecodec.ErrCorrupt", pagecodec.ErrCorrupt}, {"pagecodec.ErrUnsupported", pagecodec.ErrUnsupported},
		{"pagecodec.ErrLimit", pagecodec.ErrLimit}, {"pagecodec.ErrChecksum", pagecodec.ErrChecksum},
		{"metadata.ErrNotParquet", metadata.ErrNotParquet}, {"metadata.ErrCorrupt", metadata.ErrCorrupt},
		{"metadata.ErrEncrypted", metadata.ErrEncrypted}, {"metadata.ErrLimit", metadata.ErrLimit},
		{"metadata.ErrUnsupported", metadata.ErrUnsupported}, {"arrowpq.ErrInternal", arrowpq.ErrInternal},
		{"io.ErrUnexpectedEOF", io.ErrUnexpectedEOF},
	} {
		if errors.Is(err, s.err) {
			names = append(names, s.name)
		}
	}
	return strings.Join(names, "+")
}

// corpusFile is one file of the shared corpora with the options the local
// corpus tests read it with.
type corpusFile struct {
	rel, path string
	opts      *arrowpq.ReadOptions
}

func corpusFiles(t *testing.T) []corpusFile {
	var files []corpusFile
	for _, tree := range []string{"parquet-testing", "arrow-testing"} {
		root := filepath.Join(sharedTestdata, tree)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sharedTestdata, p)
			rel = filepath.ToSlash(rel)
			opts := conformanceCases[rel].opts
			if strings.Contains(rel, "/bad_data/") || strings.Contains(rel, "/fuzzing/") {
				opts = &arrowpq.ReadOptions{MaxPageSize: 64 << 20} // as TestHostileFiles
			}
			files = append(files, corpusFile{rel, p, opts})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestOpenURLCorpus reads every file of the conformance corpora (data/,
// bad_data/ and the rest, Parquet or not) from a MinIO bucket through
// OpenURL and checks that it reads as the local file does: the same rows,
// or the same error with the path swapped for the URL.
func TestOpenURLCorpus(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	// A quarter of the corpus under the race detector: each file is read
	// the same way, and the plain run reads them all.
	all := corpusFiles(t)
	files := racedetect.Sample(all, 4)
	uploadAll(t, bucket, files)
	var ok, failed int
	for _, f := range files {
		url := "s3://" + bucket + "/" + f.rel
		local, lerr := renderLocal(f.path, f.opts)
		remote, rerr := renderURL(url, f.opts, nil)
		switch {
		case lerr == nil && rerr == nil:
			if !bytes.Equal(local, remote) {
				t.Errorf("%s: rows differ from the local read", f.rel)
			}
			ok++
		case lerr != nil && rerr != nil:
			if errorClass(lerr) != errorClass(rerr) {
				t.Errorf("%s: error %q (%s) through S3, %q (%s) locally", f.rel, rerr, errorClass(rerr), lerr, errorClass(lerr))
			} else if want := strings.ReplaceAll(lerr.Error(), f.path, url); rerr.Error() != want {
				t.Errorf("%s: error through S3\n%s\nlocally (path replaced)\n%s", f.rel, rerr, want)
			}
			failed++
		default:
			t.Errorf("%s: local read error %v, S3 read error %v", f.rel, lerr, rerr)
		}
	}
	if want := 200 * len(files) / len(all); ok < want {
		t.Errorf("only %d files read, want at least %d", ok, want)
	}
	t.Logf("%d files read alike through S3, %d failed alike", ok, failed)
}

// uploadAll puts the files into bucket under their corpus-relative names,
// a few at a time.
func uploadAll(t *testing.T, bucket string, files []corpusFile) {
	t.Helper()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	errs := make(chan error, len(files))
	for _, f := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			data, err := os.ReadFile(f.path)
			if err == nil {
				err = putObject("s3://"+bucket+"/"+f.rel, data)
			}
			if err != nil {
				errs <- fmt.Errorf("%s: %w", f.rel, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func putObject(url string, data []byte) error {
	up, err := objstore.Create(context.Background(), url, nil)
	if err != nil {
		return err
	}
	if _, err := up.Write(data); err != nil {
		return err
	}
	return up.Commit()
}

// sampleFile writes a file of numRG row groups of rowsPerRG rows each
// (three int64/float64/string columns of seeded random values) and
// returns its bytes.
func sampleFile(t testing.TB, numRG, rowsPerRG int) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, schema, &arrowpq.WriteOptions{RowGroupRows: rowsPerRG})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := 0; i < numRG*rowsPerRG; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Float64Builder).Append(rng.Float64())
		}
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("row-%d-%x", i, rng.Uint64()))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOpenURLHTTPFaults reads a file from a net/http server (Range
// support by http.ServeContent) through the fault proxy: with resets,
// 503s and cut bodies on some requests the read retries and returns the
// local read's rows; when every data request fails it fails with an error
// naming the URL and the byte range, never with wrong data.
func TestOpenURLHTTPFaults(t *testing.T) {
	data := sampleFile(t, 4, 20000)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := renderLocal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/f.parquet" {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "f.parquet", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	proxy, err := faultproxy.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	url := proxy.URL + "/f.parquet"
	sopts := &objstore.Options{MaxRequest: 64 << 10, RetryBase: time.Millisecond, MaxAttempts: 4}
	for _, fault := range []faultproxy.Fault{faultproxy.None, faultproxy.Reset, faultproxy.SlowDown, faultproxy.Truncate, faultproxy.TruncateClean} {
		t.Run("first-attempt-"+fault.String(), func(t *testing.T) {
			// The first request for each range fails, its retry succeeds.
			var mu sync.Mutex
			seen := map[string]bool{}
			proxy.SetFault(func(n int64, r *http.Request) faultproxy.Fault {
				mu.Lock()
				defer mu.Unlock()
				if rg := r.Header.Get("Range"); !seen[rg] {
					seen[rg] = true
					return fault
				}
				return faultproxy.None
			})
			proxy.ResetStats()
			got, err := renderURL(url, nil, sopts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("rows differ from the local read")
			}
			st := proxy.Stats()
			if fault != faultproxy.None && st.Faults == 0 {
				t.Fatal("no fault was injected")
			}
			t.Logf("%d requests, %d faults", st.Requests, st.Faults)
		})
	}
	for _, fault := range []faultproxy.Fault{faultproxy.Reset, faultproxy.SlowDown, faultproxy.Truncate, faultproxy.TruncateClean} {
		t.Run("every-data-request-"+fault.String(), func(t *testing.T) {
			// Opening (the tail and the magic at offset 0) goes through;
			// every column chunk request fails.
			proxy.SetFault(func(n int64, r *http.Request) faultproxy.Fault {
				if rg := r.Header.Get("Range"); strings.HasPrefix(rg, "bytes=-") || rg == "bytes=0-3" {
					return faultproxy.None
				}
				return fault
			})
			_, err := renderURL(url, nil, sopts)
			var ae *arrowpq.Error
			var oe *objstore.Error
			if !errors.As(err, &ae) || !errors.As(err, &oe) {
				t.Fatalf("error %v: want an *arrowpq.Error wrapping an *objstore.Error", err)
			}
			if ae.RowGroup != 0 || oe.URL != url || oe.Len <= 0 || oe.Attempts != 4 ||
				!strings.Contains(err.Error(), fmt.Sprintf("bytes %d-%d", oe.Off, oe.Off+oe.Len-1)) {
				t.Errorf("error %v: want row group 0, the URL, the byte range and 4 attempts", err)
			}
			t.Log(err)
		})
	}
	proxy.SetFault(nil)
	t.Run("not-found", func(t *testing.T) {
		_, err := renderURL(srv.URL+"/missing.parquet", nil, sopts)
		if !errors.Is(err, objstore.ErrNotFound) || !strings.Contains(err.Error(), srv.URL+"/missing.parquet") {
			t.Fatalf("error %v: want ErrNotFound naming the URL", err)
		}
		t.Log(err)
	})
}

// TestOpenURLS3Faults reads from MinIO through the fault proxy, with the
// first GET of every range failing (reset, 503 SlowDown, a body cut with
// or without its Content-Length fixed): the read retries and returns the
// rows of the local read.
func TestOpenURLS3Faults(t *testing.T) {
	srv := miniotest.Start(t)
	proxy, err := faultproxy.New(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	miniotest.Env(t, proxy.URL)
	bucket := srv.Bucket(t)
	data := sampleFile(t, 3, 20000)
	url := "s3://" + bucket + "/faults.parquet"
	if err := putObject(url, data); err != nil {
		t.Fatal(err)
	}
	want, err := renderReaderBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	sopts := &objstore.Options{MaxRequest: 128 << 10, RetryBase: time.Millisecond}
	for _, fault := range []faultproxy.Fault{faultproxy.Reset, faultproxy.SlowDown, faultproxy.Truncate, faultproxy.TruncateClean} {
		t.Run(fault.String(), func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]bool{}
			proxy.SetFault(func(n int64, r *http.Request) faultproxy.Fault {
				mu.Lock()
				defer mu.Unlock()
				if rg := r.Header.Get("Range"); r.Method == http.MethodGet && !seen[rg] {
					seen[rg] = true
					return fault
				}
				return faultproxy.None
			})
			defer proxy.SetFault(nil)
			proxy.ResetStats()
			got, err := renderURL(url, nil, sopts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("rows differ from the local read")
			}
			if st := proxy.Stats(); st.Faults == 0 || st.Requests < 2*st.Faults {
				t.Fatalf("%+v: want every range faulted once, then served", st)
			}
		})
	}
}

// TestURLRequestEconomy counts, in the proxy in front of MinIO, the
// requests of a full read (at most 2 + Σ ⌈row-group bytes / MaxRequest⌉:
// the tail, the magic at offset 0, then the pieces of each row group) and
// the bytes of a one-column projection (at most 1.1× that column's bytes
// after opening), with pqarrow through the same io.ReaderAt beside it.
func TestURLRequestEconomy(t *testing.T) {
	srv := miniotest.Start(t)
	proxy, err := faultproxy.New(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	miniotest.Env(t, proxy.URL)
	bucket := srv.Bucket(t)
	const numRG = 6
	data := sampleFile(t, numRG, 50000)
	url := "s3://" + bucket + "/economy.parquet"
	if err := putObject(url, data); err != nil {
		t.Fatal(err)
	}
	md, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	const maxReq = 256 << 10
	sopts := &objstore.Options{MaxRequest: maxReq}
	bound := int64(2)
	var colBytes int64 // column "s"
	for rg := range md.Meta.RowGroups {
		var lo, hi int64 = 1 << 62, 0
		for leaf := range md.Schema.Columns {
			off, n, err := md.ChunkRange(rg, leaf)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi = min(lo, off), max(hi, off+n)
			if leaf == 2 {
				colBytes += n
			}
		}
		bound += (hi - lo + maxReq - 1) / maxReq
	}
	ctx := context.Background()

	proxy.ResetStats()
	got, err := renderURL(url, nil, sopts)
	if err != nil {
		t.Fatal(err)
	}
	full := proxy.Stats()
	want, _ := renderReaderBytes(data, nil)
	if !bytes.Equal(got, want) {
		t.Fatal("rows differ from the in-memory read")
	}
	if full.Requests > bound {
		t.Errorf("full read: %d requests, bound 2 + Σ⌈rg bytes/max⌉ = %d", full.Requests, bound)
	}

	r, err := arrowpq.OpenURL(ctx, url, &arrowpq.ReadOptions{Columns: []string{"s"}}, sopts)
	if err != nil {
		t.Fatal(err)
	}
	proxy.ResetStats()
	if _, err := renderReader(r); err != nil {
		t.Fatal(err)
	}
	r.Close()
	proj := proxy.Stats()
	if float64(proj.BytesOut) > 1.1*float64(colBytes) {
		t.Errorf("projection fetched %d bytes for a column of %d (> 1.1×)", proj.BytesOut, colBytes)
	}

	// pqarrow through the same kind of source: an objstore.Source as a
	// plain io.ReaderAt.
	proxy.ResetStats()
	src, err := objstore.Open(ctx, url, sopts)
	if err != nil {
		t.Fatal(err)
	}
	pqRows := readPqarrowAt(t, src)
	src.Close()
	pq := proxy.Stats()
	if pqRows != numRG*50000 {
		t.Fatalf("pqarrow read %d rows", pqRows)
	}
	t.Logf("file %d bytes, %d row groups, MaxRequest %d: arrowpq full read %d requests (bound %d), %d bytes; "+
		"projection of s: %d requests, %d bytes for %d column bytes (%.3f×); pqarrow full read: %d requests, %d bytes",
		len(data), numRG, maxReq, full.Requests, bound, full.BytesOut, proj.Requests, proj.BytesOut, colBytes,
		float64(proj.BytesOut)/float64(colBytes), pq.Requests, pq.BytesOut)
}

func renderReaderBytes(data []byte, opts *arrowpq.ReadOptions) ([]byte, error) {
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return renderReader(r)
}

// readPqarrowAt reads every row with arrow-go's pqarrow from src.
func readPqarrowAt(t testing.TB, src objstore.RangeSource) int64 {
	t.Helper()
	pf, err := file.NewParquetReader(io.NewSectionReader(src, 0, src.Size()))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil && err != io.EOF {
		t.Fatal(err)
	}
	return n
}

// TestCreateURLDatasets writes the four benchmark datasets (at a small
// row count) to MinIO with CreateURL, downloads each object to a local
// file and reads it with DuckDB, which must show the rows written.
func TestCreateURLDatasets(t *testing.T) {
	oracle.Need(t)
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	dir := t.TempDir()
	var files []string
	var wants [][]byte
	for _, d := range benchmarks.Datasets {
		rec := d.Build(memory.DefaultAllocator, 3000)
		want, err := oracle.RenderRecord(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		url := "s3://" + bucket + "/datasets/" + d.Name + ".parquet"
		w, err := arrowpq.CreateURL(ctx, url, rec.Schema(), &arrowpq.WriteOptions{RowGroupRows: 1000}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		src, err := objstore.Open(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, src.Size())
		if _, err := src.ReadAt(data, 0); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		src.Close()
		local := filepath.Join(dir, d.Name+".parquet")
		if err := os.WriteFile(local, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, local)
		wants = append(wants, want)
	}
	results, err := oracle.DumpMany("duckdb", files)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if r.Err != "" {
			t.Errorf("%s: DuckDB: %s", files[i], r.Err)
			continue
		}
		if err := oracle.Compare(wants[i], r.Rows, oracle.AllowancesFor("duckdb")); err != nil {
			t.Errorf("%s: DuckDB reads other rows than were written: %v", files[i], err)
		}
	}
}

// TestCreateURLAbort: a Writer to S3 that is aborted, or whose Close
// fails, leaves no object and no multipart upload.
func TestCreateURLAbort(t *testing.T) {
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	client := srv.Client(t)
	ctx := context.Background()
	d, _ := benchmarks.DatasetByName("strings")
	rec := d.Build(memory.DefaultAllocator, 200000)
	defer rec.Release()
	w, err := arrowpq.CreateURL(ctx, "s3://"+bucket+"/aborted.parquet", rec.Schema(), &arrowpq.WriteOptions{RowGroupRows: 50000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	uploads, err := client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	if len(uploads.Uploads) == 0 {
		t.Fatal("no multipart upload in progress: the test writes too little")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	objs, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	uploads, err = client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Contents) != 0 || len(uploads.Uploads) != 0 {
		t.Errorf("after Abort: %d objects, %d multipart uploads", len(objs.Contents), len(uploads.Uploads))
	}
}
