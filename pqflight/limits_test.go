package pqflight_test

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// handshake runs a Flight handshake on c and returns its status.
func handshake(ctx context.Context, c flight.Client) error {
	stream, err := c.Handshake(ctx)
	if err != nil {
		return err
	}
	stream.CloseSend()
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TestHandshakeBearer: Handshake takes the bearer token every other call
// takes (arrow-go's middleware refused it with "only Basic Auth
// implemented"), and refuses a wrong or missing one, with and without the
// middleware.
func TestHandshakeBearer(t *testing.T) {
	root := newRoot(t)
	const token = "s3cret"
	ts := startServer(t, root, &pqflight.Options{Token: token})
	ctx := context.Background()
	must(t, handshake(ctx, ts.client))
	for _, bad := range []string{"", "guess"} {
		wantCode(t, handshake(ctx, dial(t, ts.addr, bad)), codes.Unauthenticated)
	}
	// Basic auth with the token as password still works and hands out the
	// bearer token.
	_, err := dial(t, ts.addr, "").AuthenticateBasicToken(ctx, "anyone", token)
	must(t, err)

	srv, err := pqflight.NewServer(root, &pqflight.Options{Token: token})
	must(t, err)
	defer srv.Close()
	fs := flight.NewServerWithMiddleware(nil)
	must(t, fs.Init("127.0.0.1:0"))
	fs.RegisterFlightService(srv)
	go fs.Serve()
	defer fs.Shutdown()
	must(t, handshake(ctx, dial(t, fs.Addr().String(), token)))
	wantCode(t, handshake(ctx, dial(t, fs.Addr().String(), "guess")), codes.Unauthenticated)
}

// TestTicketLimits: a ticket above MaxTicketBytes and one naming a row
// group twice get InvalidArgument.
func TestTicketLimits(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, &pqflight.Options{MaxTicketBytes: 200})
	ctx := context.Background()
	long := `{"path":"gen.parquet","columns":["` + strings.Repeat("x", 300) + `"]}`
	_, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(long)})
	wantCode(t, err, codes.InvalidArgument)
	_, err = ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(long)})
	wantCode(t, err, codes.InvalidArgument)
	_, err = doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet","row_groups":[1,0,1]}`)})
	wantCode(t, err, codes.InvalidArgument)
	// Within the limits the ticket works.
	tbl, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet","row_groups":[1,0]}`)})
	must(t, err)
	if tbl.NumRows() != 400 {
		t.Fatalf("%d rows, want 400", tbl.NumRows())
	}
	tbl.Release()
}

// TestBadPathsNotEchoed: over-long paths, names, control characters and
// escapes get InvalidArgument, and the message does not quote them.
func TestBadPathsNotEchoed(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, nil)
	ctx := context.Background()
	rec := genRecord(0, 10)
	defer rec.Release()
	for _, p := range []string{
		strings.Repeat("abc/", 400) + "x.parquet",
		strings.Repeat("n", 300) + ".parquet",
		"esc\x1b[2Jhidden.parquet",
		"new\nline.parquet",
		"../up.parquet",
		"/etc/up.parquet",
	} {
		_, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":` + jsonString(p) + `}`)})
		wantCode(t, err, codes.InvalidArgument)
		for _, e := range []error{err, rawPut(ctx, ts.client, pqflight.PathDescriptor(p), rec, nil)} {
			wantCode(t, e, codes.InvalidArgument)
			if msg := e.Error(); strings.Contains(msg, p) || strings.Contains(msg, "\x1b") || len(msg) > 200 {
				t.Errorf("error quotes the path: %.300q", msg)
			}
		}
	}
	if got := listDir(t, root); len(got) != 7 {
		t.Errorf("directory now holds %q", got)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestPutLimits: DoPut refuses a schema of more fields than MaxPutColumns,
// write options asking for row groups above MaxPutRowGroupRows or
// MaxPutRowGroupBytes (and caps the defaults to them), and a stream whose
// batches need more than MaxPutMemory; each leaves no file.
func TestPutLimits(t *testing.T) {
	root := t.TempDir()
	ts := startServer(t, root, &pqflight.Options{
		MaxPutColumns:       4, // genSchema has 5 fields: id, name, score, tags, tags.item
		MaxPutRowGroupRows:  100,
		MaxPutRowGroupBytes: 1 << 20,
	})
	ctx := context.Background()
	rec := genRecord(0, 250)
	defer rec.Release()
	_, err := upload(ctx, ts.client, "wide.parquet", rec)
	wantCode(t, err, codes.InvalidArgument)
	if !strings.Contains(err.Error(), "more than 4 fields") {
		t.Errorf("error does not count the fields: %v", err)
	}

	one := arrow.NewSchema([]arrow.Field{rec.Schema().Field(0)}, nil)
	small := array.NewRecordBatch(one, []arrow.Array{rec.Column(0)}, rec.NumRows())
	defer small.Release()
	for _, o := range []*arrowpq.WriteOptions{
		{RowGroupRows: 101},
		{RowGroupBytes: 2 << 20},
		// One bloom filter of 2 MiB (1M values at 1%) is above the 1 MiB
		// of row group bytes the server allows.
		{Columns: map[string]arrowpq.ColumnOptions{"id": {BloomFilterNDV: 1 << 20}}},
	} {
		desc, err := pqflight.CommandDescriptor(&pqflight.PutCommand{Path: "big.parquet", Options: o})
		must(t, err)
		wantCode(t, rawPut(ctx, ts.client, desc, small, nil), codes.InvalidArgument)
	}
	// Defaults are capped: 250 rows make row groups of 100, 100, 50.
	_, err = upload(ctx, ts.client, "capped.parquet", small)
	must(t, err)
	r, err := arrowpq.OpenFile(filepath.Join(root, "capped.parquet"), nil)
	must(t, err)
	if n := len(r.Metadata().Meta.RowGroups); n != 3 {
		t.Errorf("%d row groups, want 3 of at most 100 rows", n)
	}
	r.Close()

	mem := startServer(t, t.TempDir(), &pqflight.Options{MaxPutMemory: 1 << 10})
	big := genRecord(0, 2000)
	defer big.Release()
	// Uncompressed IPC buffers are views of the received message; a
	// compressed one is decompressed into memory from the allocator.
	stream, err := mem.client.DoPut(ctx)
	must(t, err)
	w := flight.NewRecordWriter(stream, ipc.WithSchema(big.Schema()), ipc.WithZstd())
	w.SetFlightDescriptor(pqflight.PathDescriptor("mem.parquet"))
	w.Write(big)
	w.Close()
	stream.CloseSend()
	for err == nil {
		_, err = stream.Recv()
	}
	wantCode(t, err, codes.ResourceExhausted)
	if got := listDir(t, root); len(got) != 1 || got[0] != "capped.parquet" {
		t.Errorf("directory holds %q", got)
	}
}
