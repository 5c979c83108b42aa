package pqflight_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/file"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// upload sends recs to path with pqflight.Upload.
func upload(ctx context.Context, c flight.Client, path string, recs ...arrow.RecordBatch) (*pqflight.PutResult, error) {
	rr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	return pqflight.Upload(ctx, c, path, rr, nil)
}

func TestDoPutRoundTrip(t *testing.T) {
	root := t.TempDir()
	ts := startServer(t, root, nil)
	ctx := context.Background()
	tbl := genTable(5000, 700)
	defer tbl.Release()
	rr := array.NewTableReader(tbl, 700)
	defer rr.Release()
	res, err := pqflight.Upload(ctx, ts.client, "up.parquet", rr, nil)
	must(t, err)
	if res.Path != "up.parquet" || res.Rows != 5000 {
		t.Errorf("PutResult %+v, want up.parquet with 5000 rows", res)
	}
	// arrow-go reads what our writer wrote: the data sent, nothing else.
	got := pqarrowRead(t, filepath.Join(root, "up.parquet"), nil, nil)
	checkTablesEqual(t, got, tbl)
	got.Release()
	if names := listDir(t, root); !slices.Equal(names, []string{"up.parquet"}) {
		t.Errorf("root holds %q, want only up.parquet", names)
	}
	// And it comes back over Flight.
	back, err := pqflight.Download(ctx, ts.client, "up.parquet", nil)
	must(t, err)
	checkTablesEqual(t, back, tbl)
	back.Release()

	t.Run("exists", func(t *testing.T) {
		rec := genRecord(0, 3)
		defer rec.Release()
		_, err := upload(ctx, ts.client, "up.parquet", rec)
		wantCode(t, err, codes.AlreadyExists)
		got := pqarrowRead(t, filepath.Join(root, "up.parquet"), nil, nil)
		defer got.Release()
		if got.NumRows() != 5000 {
			t.Fatalf("the existing file changed: %d rows", got.NumRows())
		}
	})
	t.Run("overwrite allowed", func(t *testing.T) {
		ts2 := startServer(t, root, &pqflight.Options{AllowOverwrite: true})
		rec := genRecord(0, 3)
		defer rec.Release()
		_, err := upload(ctx, ts2.client, "up.parquet", rec)
		must(t, err)
		got := pqarrowRead(t, filepath.Join(root, "up.parquet"), nil, nil)
		defer got.Release()
		if got.NumRows() != 3 {
			t.Fatalf("overwritten file has %d rows, want 3", got.NumRows())
		}
	})
	t.Run("read-only", func(t *testing.T) {
		ts2 := startServer(t, root, &pqflight.Options{ReadOnly: true})
		rec := genRecord(0, 3)
		defer rec.Release()
		_, err := upload(ctx, ts2.client, "ro.parquet", rec)
		wantCode(t, err, codes.PermissionDenied)
	})
	t.Run("subdirectory", func(t *testing.T) {
		must(t, os.Mkdir(filepath.Join(root, "d"), 0o755))
		rec := genRecord(0, 3)
		defer rec.Release()
		res, err := upload(ctx, ts.client, "d/x.parquet", rec)
		must(t, err)
		if res.Path != "d/x.parquet" {
			t.Errorf("path %q", res.Path)
		}
	})
	for _, tc := range []struct {
		path string
		code codes.Code
	}{
		{"missing/x.parquet", codes.NotFound},
		{"../x.parquet", codes.InvalidArgument},
		{"/tmp/x.parquet", codes.InvalidArgument},
		{"x.csv", codes.InvalidArgument},
		{"up.parquet/x.parquet", codes.NotFound},
	} {
		t.Run("refused "+tc.path, func(t *testing.T) {
			rec := genRecord(0, 3)
			defer rec.Release()
			_, err := upload(ctx, ts.client, tc.path, rec)
			wantCode(t, err, tc.code)
		})
	}
	t.Run("escaping directory symlink", func(t *testing.T) {
		out := t.TempDir()
		must(t, os.Symlink(out, filepath.Join(root, "out")))
		defer os.Remove(filepath.Join(root, "out"))
		rec := genRecord(0, 3)
		defer rec.Release()
		_, err := upload(ctx, ts.client, "out/x.parquet", rec)
		wantCode(t, err, codes.PermissionDenied)
		if names := listDir(t, out); len(names) != 0 {
			t.Fatalf("wrote outside the root: %q", names)
		}
	})
}

func TestDoPutWriteOptions(t *testing.T) {
	root := t.TempDir()
	ts := startServer(t, root, nil)
	ctx := context.Background()
	rec := genRecord(0, 100)
	defer rec.Release()
	rr, err := array.NewRecordReader(genSchema, []arrow.RecordBatch{rec})
	must(t, err)
	defer rr.Release()
	_, err = pqflight.Upload(ctx, ts.client, "z.parquet", rr, &pqflight.ClientOptions{WriteOptions: &arrowpq.WriteOptions{Compression: arrowpq.Zstd}})
	must(t, err)
	pf, err := file.OpenParquetFile(filepath.Join(root, "z.parquet"), false)
	must(t, err)
	defer pf.Close()
	cc, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	must(t, err)
	if got := cc.Compression().String(); got != "ZSTD" {
		t.Errorf("codec %s, want ZSTD", got)
	}

	for _, c := range []struct {
		name, options, codec, encoding string
		col                            int // the leaf column checked
	}{
		// The documented form: field names of arrowpq.WriteOptions, enums
		// by name as parquet.thrift spells them, any case.
		{"raw JSON options", `{"Compression":"uncompressed","RowGroupRows":30,"Dictionary":"off","Columns":{"id":{"Encoding":"delta_binary_packed"}}}`, "UNCOMPRESSED", "DELTA_BINARY_PACKED", 0},
		// tags.list.element repeats its values (the unique ids of column 0
		// are written PLAIN even with the dictionary on).
		{"raw JSON options by name", `{"Compression":"GZIP","RowGroupRows":30,"Dictionary":"on"}`, "GZIP", "RLE_DICTIONARY", 3},
		// Numbers, as earlier versions documented: 1 is Uncompressed, 2 Off.
		{"raw JSON options by number", `{"Compression":1,"RowGroupRows":30,"Dictionary":2}`, "UNCOMPRESSED", "PLAIN", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"path":"raw.parquet","options":` + c.options + `}`)}
			err := rawPut(ctx, ts.client, desc, rec, nil)
			if err != io.EOF {
				t.Fatal(err)
			}
			pf, err := file.OpenParquetFile(filepath.Join(root, "raw.parquet"), false)
			must(t, err)
			defer pf.Close()
			// Column 0 is an INT64 id column.
			cc, err := pf.MetaData().RowGroup(0).ColumnChunk(c.col)
			must(t, err)
			var encs []string
			for _, e := range cc.Encodings() {
				encs = append(encs, e.String())
			}
			if got := cc.Compression().String(); got != c.codec || pf.NumRowGroups() != 4 || !slices.Contains(encs, c.encoding) {
				t.Errorf("codec %s, %d row groups, encodings %v; want %s, 4 row groups of at most 30 rows, %s", got, pf.NumRowGroups(), encs, c.codec, c.encoding)
			}
			os.Remove(filepath.Join(root, "raw.parquet"))
		})
	}
	t.Run("unknown option", func(t *testing.T) {
		desc := &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(`{"path":"o.parquet","options":{"Compresion":4}}`)}
		err := rawPut(ctx, ts.client, desc, rec, nil)
		wantCode(t, err, codes.InvalidArgument)
		if names := listDir(t, root); !slices.Equal(names, []string{"z.parquet"}) {
			t.Errorf("root holds %q", names)
		}
	})
}

// rawPut sends rec under desc with flight's writer, then, when extra is
// not nil, a raw message as is; it returns the status of the call.
func rawPut(ctx context.Context, c flight.Client, desc *flight.FlightDescriptor, rec arrow.RecordBatch, extra *flight.FlightData) error {
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(rec.Schema()))
	w.SetFlightDescriptor(desc)
	if err := w.Write(rec); err == nil && extra != nil {
		stream.Send(extra)
	}
	if extra == nil {
		w.Close()
	}
	stream.CloseSend()
	for {
		if _, err := stream.Recv(); err != nil {
			return err
		}
	}
}

// TestDoPutInterrupted checks that a stream that does not complete leaves
// nothing on disk: a client that disconnects mid-stream, a batch that
// cannot be decoded, a stream without descriptor.
func TestDoPutInterrupted(t *testing.T) {
	root := t.TempDir()
	ts := startServer(t, root, nil)
	rec := genRecord(0, 1000)
	defer rec.Release()
	_, err := pqflight.List(context.Background(), ts.client, "")
	must(t, err)
	base := runtimeGoroutines()
	defer waitGoroutines(t, base)

	t.Run("client cancels", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		stream, err := ts.client.DoPut(ctx)
		must(t, err)
		w := flight.NewRecordWriter(stream, ipc.WithSchema(genSchema))
		w.SetFlightDescriptor(pqflight.PathDescriptor("cut.parquet"))
		for i := 0; i < 5; i++ {
			must(t, w.Write(rec))
		}
		waitFor(t, "the temporary file", func() bool { return len(listDir(t, root)) == 1 })
		cancel()
		waitFor(t, "the handler to end", func() bool { return ts.srv.Active() == 0 })
		if names := listDir(t, root); len(names) != 0 {
			t.Fatalf("interrupted DoPut left %q", names)
		}
	})
	t.Run("bad batch", func(t *testing.T) {
		bad := &flight.FlightData{DataHeader: []byte("not a flatbuffer message"), DataBody: []byte{1, 2, 3}}
		err := rawPut(context.Background(), ts.client, pqflight.PathDescriptor("bad.parquet"), rec, bad)
		wantCode(t, err, codes.InvalidArgument)
		waitFor(t, "the handler to end", func() bool { return ts.srv.Active() == 0 })
		if names := listDir(t, root); len(names) != 0 {
			t.Fatalf("bad DoPut left %q", names)
		}
	})
	t.Run("no descriptor", func(t *testing.T) {
		err := rawPut(context.Background(), ts.client, nil, rec, nil)
		wantCode(t, err, codes.InvalidArgument)
	})
	t.Run("source fails", func(t *testing.T) {
		// The client's own reader fails after some batches: Upload cancels
		// the call and the server drops the file.
		rr := &failingReader{rec: rec, n: 3, beforeFail: func() {
			// Fail only once the server is writing, so that there is
			// something to clean up.
			waitFor(t, "the temporary file", func() bool { return len(listDir(t, root)) == 1 })
		}}
		_, err := pqflight.Upload(context.Background(), ts.client, "src.parquet", rr, nil)
		if err == nil {
			t.Fatal("Upload of a failing source succeeded")
		}
		waitFor(t, "the handler to end", func() bool { return ts.srv.Active() == 0 })
		if names := listDir(t, root); len(names) != 0 {
			t.Fatalf("failed upload left %q", names)
		}
	})
}

// failingReader yields rec n times and then, after calling beforeFail,
// fails.
type failingReader struct {
	rec        arrow.RecordBatch
	n          int
	err        error
	beforeFail func()
}

func (r *failingReader) Schema() *arrow.Schema { return r.rec.Schema() }
func (r *failingReader) Next() bool {
	if r.n--; r.n >= 0 {
		return true
	}
	r.beforeFail()
	r.err = os.ErrClosed
	return false
}
func (r *failingReader) RecordBatch() arrow.RecordBatch { return r.rec }
func (r *failingReader) Record() arrow.RecordBatch      { return r.rec }
func (r *failingReader) Err() error                     { return r.err }
func (r *failingReader) Retain()                        {}
func (r *failingReader) Release()                       {}

// TestConcurrentClients runs 8 downloads and 8 uploads at once, each on its
// own connection.
func TestConcurrentClients(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, &pqflight.Options{BatchSize: 128})
	ctx := context.Background()
	want := genTable(1000, 1000)
	defer want.Release()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		c := dial(t, ts.addr, "")
		wg.Add(2)
		go func() {
			defer wg.Done()
			tbl, err := pqflight.Download(ctx, c, "gen.parquet", &pqflight.ClientOptions{Parallelism: 3})
			if err != nil {
				errs <- err
				return
			}
			defer tbl.Release()
			if tbl.NumRows() != 1000 || !array.ChunkedEqual(tbl.Column(1).Data(), want.Column(1).Data()) {
				errs <- &mismatch{}
			}
		}()
		go func() {
			defer wg.Done()
			rec := genRecord(i*100, 100)
			defer rec.Release()
			_, err := upload(ctx, c, "c"+string(rune('0'+i))+".parquet", rec)
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := 0; i < 8; i++ {
		got := pqarrowRead(t, filepath.Join(root, "c"+string(rune('0'+i))+".parquet"), nil, nil)
		rec := genRecord(i*100, 100)
		wantT := array.NewTableFromRecords(genSchema, []arrow.RecordBatch{rec})
		checkTablesEqual(t, got, wantT)
		got.Release()
		wantT.Release()
		rec.Release()
	}
}

type mismatch struct{}

func (*mismatch) Error() string { return "downloaded table differs" }

// TestDownloadLocations serves the same directory twice and points every
// endpoint of the first server at the second: with a Dial function the
// client fetches from the second.
func TestDownloadLocations(t *testing.T) {
	root := newRoot(t)
	second := startServer(t, root, nil)
	var dials atomic.Int64
	first := startServer(t, root, &pqflight.Options{Locations: []string{"grpc+tcp://" + second.addr}})
	ctx := context.Background()
	opts := &pqflight.ClientOptions{
		Dial: func(loc string) (flight.Client, error) {
			dials.Add(1)
			return pqflight.Dial(loc, nil)
		},
	}
	r, err := pqflight.NewReader(ctx, first.client, "gen.parquet", opts)
	must(t, err)
	n := 0
	for r.Next() {
		n += int(r.RecordBatch().NumRows())
		if n == 1 || second.srv.Active() > 0 {
			continue
		}
	}
	must(t, r.Err())
	r.Close()
	if n != 1000 || dials.Load() != 1 {
		t.Fatalf("%d rows, %d dials; want 1000 rows over one dial", n, dials.Load())
	}
	t.Run("unreachable location falls back", func(t *testing.T) {
		dead, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		deadAddr := dead.Addr().String()
		dead.Close()
		third := startServer(t, root, &pqflight.Options{Locations: []string{"grpc+tcp://" + deadAddr, "grpc+tcp://" + second.addr}})
		tbl, err := pqflight.Download(ctx, third.client, "gen.parquet", &pqflight.ClientOptions{
			Dial: func(loc string) (flight.Client, error) { return pqflight.Dial(loc, nil) },
		})
		must(t, err)
		want := genTable(1000, 1000)
		checkTablesEqual(t, tbl, want)
		want.Release()
		tbl.Release()
	})
}

func TestTLS(t *testing.T) {
	root := newRoot(t)
	cert, pool := selfSigned(t)
	ts := startServer(t, root, &pqflight.Options{Token: "tok"}, grpc.Creds(credentials.NewServerTLSFromCert(&cert)))
	ctx := context.Background()
	c, err := pqflight.Dial("grpc+tls://"+ts.addr, &pqflight.DialOptions{Token: "tok", TLS: &tls.Config{RootCAs: pool}})
	must(t, err)
	defer c.Close()
	infos, err := pqflight.List(ctx, c, "")
	must(t, err)
	if len(infos) != 3 {
		t.Fatalf("listed %d files over TLS", len(infos))
	}
	plain := dial(t, ts.addr, "tok")
	if _, err := pqflight.List(ctx, plain, ""); err == nil {
		t.Fatal("plain-text client talked to the TLS server")
	}
}

// selfSigned returns a certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "pqflight test"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	leaf, err := x509.ParseCertificate(der)
	must(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

var _ = json.Marshal
