package pqflight_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/pqflight"
)

const samplePath = "../testdata/sample.parquet"

// testServer is a Server on a loopback port with a client connected to it.
type testServer struct {
	srv    *pqflight.Server
	addr   string
	client flight.Client
}

// startServer serves root on 127.0.0.1:0 until the test ends.
func startServer(t testing.TB, root string, opts *pqflight.Options, grpcOpts ...grpc.ServerOption) *testServer {
	t.Helper()
	srv, err := pqflight.NewServer(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	fs := flight.NewServerWithMiddleware(srv.Middleware(), grpcOpts...)
	if err := fs.Init("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	fs.RegisterFlightService(srv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		fs.Serve()
	}()
	ts := &testServer{srv: srv, addr: fs.Addr().String()}
	var token string
	if opts != nil {
		token = opts.Token
	}
	if len(grpcOpts) == 0 {
		ts.client = dial(t, ts.addr, token)
	}
	t.Cleanup(func() {
		fs.Shutdown()
		<-done
		srv.Close()
	})
	return ts
}

func dial(t testing.TB, addr, token string) flight.Client {
	t.Helper()
	c, err := pqflight.Dial(addr, &pqflight.DialOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// genSchema is the schema of the generated test data.
var genSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
}, nil)

// genRecord returns rows [start, start+n) of the generated data: every
// value is a function of the row number, so tests know what to expect.
func genRecord(start, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, genSchema)
	defer b.Release()
	id := b.Field(0).(*array.Int64Builder)
	name := b.Field(1).(*array.StringBuilder)
	score := b.Field(2).(*array.Float64Builder)
	tags := b.Field(3).(*array.ListBuilder)
	tagv := tags.ValueBuilder().(*array.StringBuilder)
	for i := start; i < start+n; i++ {
		id.Append(int64(i))
		if i%7 == 0 {
			name.AppendNull()
		} else {
			name.Append(fmt.Sprintf("name-%d", i))
		}
		if i%11 == 0 {
			score.AppendNull()
		} else {
			score.Append(float64(i) * 0.5)
		}
		if i%13 == 0 {
			tags.AppendNull()
		} else {
			tags.Append(true)
			for k := 0; k < i%3; k++ {
				tagv.Append(fmt.Sprintf("t%d", k))
			}
		}
	}
	return b.NewRecordBatch()
}

// genTable returns rows [0, rows) in batches of batch rows.
func genTable(rows, batch int) arrow.Table {
	var recs []arrow.RecordBatch
	for start := 0; start < rows; start += batch {
		recs = append(recs, genRecord(start, min(batch, rows-start)))
	}
	tbl := array.NewTableFromRecords(genSchema, recs)
	for _, r := range recs {
		r.Release()
	}
	return tbl
}

// writeGen writes rows of generated data to path with pqarrow (not our
// writer, so that reading tests do not depend on it), rowGroup rows per row
// group.
func writeGen(t testing.TB, path string, rows, rowGroup int) {
	t.Helper()
	tbl := genTable(rows, rowGroup)
	defer tbl.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rowGroup)))
	if err := pqarrow.WriteTable(tbl, &buf, int64(rowGroup), props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pqarrowRead reads row groups (nil: all) and columns (leaf indices, nil:
// all) of a file with arrow-go's pqarrow, the independent oracle.
func pqarrowRead(t testing.TB, path string, columns, rowGroups []int) arrow.Table {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if columns == nil {
		for i := 0; i < rdr.MetaData().Schema.NumColumns(); i++ {
			columns = append(columns, i)
		}
	}
	if rowGroups == nil {
		for i := 0; i < rdr.NumRowGroups(); i++ {
			rowGroups = append(rowGroups, i)
		}
	}
	tbl, err := fr.ReadRowGroups(context.Background(), columns, rowGroups)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// pqarrowRowGroups returns the number of row groups and their
// TotalByteSize and row counts, as arrow-go reads the footer.
func pqarrowRowGroups(t testing.TB, path string) (sizes, rows []int64) {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	for i := 0; i < rdr.NumRowGroups(); i++ {
		rg := rdr.MetaData().RowGroup(i)
		sizes = append(sizes, rg.TotalByteSize())
		rows = append(rows, rg.NumRows())
	}
	return sizes, rows
}

// checkTablesEqual fails unless got and want have the same column names,
// types and values, whatever their chunking.
func checkTablesEqual(t testing.TB, got, want arrow.Table) {
	t.Helper()
	if got.NumCols() != want.NumCols() || got.NumRows() != want.NumRows() {
		t.Fatalf("got %d columns x %d rows, want %d x %d\ngot schema %v\nwant schema %v", got.NumCols(), got.NumRows(), want.NumCols(), want.NumRows(), got.Schema(), want.Schema())
	}
	for i := 0; i < int(got.NumCols()); i++ {
		g, w := got.Column(i), want.Column(i)
		if g.Name() != w.Name() {
			t.Fatalf("column %d: name %q, want %q", i, g.Name(), w.Name())
		}
		if !array.ChunkedEqual(g.Data(), w.Data()) {
			t.Fatalf("column %q differs:\ngot  %v\nwant %v", g.Name(), g.Data().Chunks(), w.Data().Chunks())
		}
	}
}

// doGet fetches one ticket into a table.
func doGet(t testing.TB, c flight.Client, ticket *flight.Ticket) (arrow.Table, error) {
	t.Helper()
	stream, err := c.DoGet(context.Background(), ticket)
	if err != nil {
		return nil, err
	}
	rdr, err := flight.NewRecordReader(stream)
	if err != nil {
		return nil, err
	}
	defer rdr.Release()
	var recs []arrow.RecordBatch
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := rdr.Err(); err != nil {
		return nil, err
	}
	tbl := array.NewTableFromRecords(rdr.Schema(), recs)
	for _, r := range recs {
		r.Release()
	}
	return tbl, nil
}

// wantCode fails unless err is a gRPC status with code want.
func wantCode(t testing.TB, err error, want codes.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	if got := status.Code(err); got != want {
		t.Fatalf("error %v has code %v, want %v", err, got, want)
	}
}

// waitFor retries cond for up to 10 s.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGoroutines waits until no more than n goroutines run, and fails
// with a dump of them otherwise.
func waitGoroutines(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), n, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// listDir returns the names of all entries under dir, recursively.
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaEqual compares names, types and nullability, not metadata (pqarrow
// adds PARQUET:field_id to every field).
func schemaEqual(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i, f := range a.Fields() {
		g := b.Field(i)
		if f.Name != g.Name || f.Nullable != g.Nullable || !arrow.TypeEqual(f.Type, g.Type) {
			return false
		}
	}
	return true
}
