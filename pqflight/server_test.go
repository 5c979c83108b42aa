package pqflight_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"

	"github.com/arrowpq/arrowpq/pqflight"
)

// newRoot returns a directory with:
//
//	gen.parquet         1000 generated rows in 5 row groups of 200
//	sub/sample.parquet  a copy of testdata/sample.parquet (2 row groups)
//	notes.txt           not Parquet
//	broken.parquet      not Parquet either
//	escape.parquet      a symbolic link to a Parquet file outside the root
//	inside.parquet      a symbolic link to gen.parquet
func newRoot(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeGen(t, filepath.Join(root, "gen.parquet"), 1000, 200)
	sample, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(root, "sub", "sample.parquet"), sample, 0o644))
	must(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "broken.parquet"), []byte("PAR1 not really PAR1"), 0o644))
	must(t, os.WriteFile(filepath.Join(base, "secret.parquet"), sample, 0o644))
	must(t, os.Symlink(filepath.Join(base, "secret.parquet"), filepath.Join(root, "escape.parquet")))
	must(t, os.Symlink("gen.parquet", filepath.Join(root, "inside.parquet")))
	return root
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestListFlights(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, nil)
	ctx := context.Background()

	infos, err := pqflight.List(ctx, ts.client, "")
	must(t, err)
	var paths []string
	for _, info := range infos {
		paths = append(paths, info.GetFlightDescriptor().GetPath()[0])
	}
	// broken.parquet cannot be read, escape.parquet leaves the root,
	// notes.txt is not Parquet.
	want := []string{"gen.parquet", "inside.parquet", "sub/sample.parquet"}
	if !slices.Equal(paths, want) {
		t.Fatalf("listed %q, want %q", paths, want)
	}
	for _, info := range infos {
		p := filepath.Join(root, info.GetFlightDescriptor().GetPath()[0])
		sizes, rows := pqarrowRowGroups(t, p)
		var wantRows, wantBytes int64
		for i := range sizes {
			wantRows += rows[i]
			wantBytes += sizes[i]
		}
		if info.GetTotalRecords() != wantRows || info.GetTotalBytes() != wantBytes {
			t.Errorf("%s: %d rows, %d bytes; want %d, %d", p, info.GetTotalRecords(), info.GetTotalBytes(), wantRows, wantBytes)
		}
		if len(info.GetEndpoint()) != len(sizes) {
			t.Errorf("%s: %d endpoints, want one per row group (%d)", p, len(info.GetEndpoint()), len(sizes))
		}
		sc, err := flight.DeserializeSchema(info.GetSchema(), memory.DefaultAllocator)
		must(t, err)
		want := pqarrowRead(t, p, nil, []int{0})
		if !schemaEqual(sc, want.Schema()) {
			t.Errorf("%s: schema\n%v\nwant (pqarrow)\n%v", p, sc, want.Schema())
		}
		want.Release()
	}
	if infos[0].GetTotalRecords() != 1000 {
		t.Errorf("gen.parquet: %d rows, want 1000", infos[0].GetTotalRecords())
	}

	t.Run("pattern", func(t *testing.T) {
		infos, err := pqflight.List(ctx, ts.client, "sub/*")
		must(t, err)
		if len(infos) != 1 || infos[0].GetFlightDescriptor().GetPath()[0] != "sub/sample.parquet" {
			t.Fatalf("pattern sub/* listed %v", infos)
		}
	})
	t.Run("bad pattern", func(t *testing.T) {
		_, err := pqflight.List(ctx, ts.client, "[")
		wantCode(t, err, codes.InvalidArgument)
	})
}

func TestGetFlightInfoEndpoints(t *testing.T) {
	root := newRoot(t)
	sizes, _ := pqarrowRowGroups(t, filepath.Join(root, "gen.parquet"))
	if len(sizes) != 5 {
		t.Fatalf("gen.parquet has %d row groups, want 5", len(sizes))
	}
	ctx := context.Background()
	tests := []struct {
		name   string
		opts   *pqflight.Options
		groups [][]int
		locs   [][]string
	}{
		{"one per row group", nil, [][]int{{0}, {1}, {2}, {3}, {4}}, nil},
		{"grouped by size", &pqflight.Options{EndpointBytes: sizes[0] + sizes[1] + sizes[2]/2}, [][]int{{0, 1}, {2, 3}, {4}}, nil},
		{"smaller than a row group", &pqflight.Options{EndpointBytes: 1}, [][]int{{0}, {1}, {2}, {3}, {4}}, nil},
		{"locations", &pqflight.Options{EndpointBytes: 1 << 40, Locations: []string{"grpc+tcp://a:1", "grpc+tcp://b:2"}},
			[][]int{{0, 1, 2, 3, 4}}, [][]string{{"grpc+tcp://a:1", "grpc+tcp://b:2"}}},
		{"endpoint locations", &pqflight.Options{
			EndpointLocations: func(path string, rgs []int) []string {
				if rgs[0]%2 == 0 {
					return []string{"grpc+tcp://even:1/" + path}
				}
				return []string{"grpc+tcp://odd:1/" + path}
			}},
			[][]int{{0}, {1}, {2}, {3}, {4}},
			[][]string{{"grpc+tcp://even:1/gen.parquet"}, {"grpc+tcp://odd:1/gen.parquet"}, {"grpc+tcp://even:1/gen.parquet"}, {"grpc+tcp://odd:1/gen.parquet"}, {"grpc+tcp://even:1/gen.parquet"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, root, tc.opts)
			info, err := ts.client.GetFlightInfo(ctx, pqflight.PathDescriptor("gen.parquet"))
			must(t, err)
			if !info.GetOrdered() || info.GetTotalRecords() != 1000 {
				t.Errorf("ordered %v, %d rows", info.GetOrdered(), info.GetTotalRecords())
			}
			if len(info.GetEndpoint()) != len(tc.groups) {
				t.Fatalf("%d endpoints, want %d", len(info.GetEndpoint()), len(tc.groups))
			}
			for i, ep := range info.GetEndpoint() {
				var tk pqflight.Ticket
				must(t, json.Unmarshal(ep.GetTicket().GetTicket(), &tk))
				if tk.Path != "gen.parquet" || !slices.Equal(tk.RowGroups, tc.groups[i]) || tk.Columns != nil {
					t.Errorf("endpoint %d: ticket %+v, want row groups %v", i, tk, tc.groups[i])
				}
				var locs []string
				for _, l := range ep.GetLocation() {
					locs = append(locs, l.GetUri())
				}
				var want []string
				if tc.locs != nil {
					want = tc.locs[i]
				}
				if !slices.Equal(locs, want) {
					t.Errorf("endpoint %d: locations %q, want %q", i, locs, want)
				}
			}
		})
	}
}

func TestGetFlightInfoCommand(t *testing.T) {
	root := newRoot(t)
	sizes, _ := pqarrowRowGroups(t, filepath.Join(root, "gen.parquet"))
	ts := startServer(t, root, nil)
	desc, err := pqflight.CommandDescriptor(&pqflight.Ticket{Path: "gen.parquet", RowGroups: []int{3, 1}, Columns: []string{"id"}})
	must(t, err)
	info, err := ts.client.GetFlightInfo(context.Background(), desc)
	must(t, err)
	if info.GetTotalRecords() != 400 || info.GetTotalBytes() != sizes[3]+sizes[1] {
		t.Errorf("%d rows, %d bytes; want 400, %d", info.GetTotalRecords(), info.GetTotalBytes(), sizes[3]+sizes[1])
	}
	if string(info.GetFlightDescriptor().GetCmd()) != string(desc.GetCmd()) {
		t.Errorf("descriptor %v, want the request's", info.GetFlightDescriptor())
	}
	var tickets []string
	for _, ep := range info.GetEndpoint() {
		tickets = append(tickets, string(ep.GetTicket().GetTicket()))
	}
	want := []string{
		`{"path":"gen.parquet","row_groups":[3],"columns":["id"]}`,
		`{"path":"gen.parquet","row_groups":[1],"columns":["id"]}`,
	}
	if !slices.Equal(tickets, want) {
		t.Fatalf("tickets %q, want %q", tickets, want)
	}
	got, err := doGet(t, ts.client, info.GetEndpoint()[0].GetTicket())
	must(t, err)
	defer got.Release()
	wantT := pqarrowRead(t, filepath.Join(root, "gen.parquet"), []int{0}, []int{3})
	defer wantT.Release()
	checkTablesEqual(t, got, wantT)
}

// TestDoGetEndpoints fetches every endpoint of a file on its own and
// compares it with arrow-go's pqarrow reading the same row groups.
func TestDoGetEndpoints(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, &pqflight.Options{BatchSize: 64})
	ctx := context.Background()
	for _, name := range []string{"gen.parquet", "sub/sample.parquet", "inside.parquet"} {
		t.Run(name, func(t *testing.T) {
			info, err := ts.client.GetFlightInfo(ctx, pqflight.PathDescriptor(name))
			must(t, err)
			for i, ep := range info.GetEndpoint() {
				got, err := doGet(t, ts.client, ep.GetTicket())
				must(t, err)
				want := pqarrowRead(t, filepath.Join(root, name), nil, []int{i})
				checkTablesEqual(t, got, want)
				got.Release()
				want.Release()
			}
		})
	}
	t.Run("whole file in one ticket", func(t *testing.T) {
		got, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet"}`)})
		must(t, err)
		want := genTable(1000, 1000)
		checkTablesEqual(t, got, want)
		got.Release()
		want.Release()
	})
	t.Run("row groups out of order", func(t *testing.T) {
		got, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet","row_groups":[4,1]}`)})
		must(t, err)
		want := pqarrowRead(t, filepath.Join(root, "gen.parquet"), nil, []int{4, 1})
		checkTablesEqual(t, got, want)
		if id := got.Column(0).Data().Chunk(0).(interface{ Value(int) int64 }).Value(0); id != 800 {
			t.Errorf("first id %d, want 800", id)
		}
		got.Release()
		want.Release()
	})
}

func TestProjection(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, nil)
	ctx := context.Background()
	tests := []struct {
		name    string
		path    string
		columns []string
		leaves  []int // pqarrow leaf indices of the same projection
		fields  []string
	}{
		{"two columns", "gen.parquet", []string{"score", "id"}, []int{0, 2}, []string{"id", "score"}},
		{"list column", "gen.parquet", []string{"tags"}, []int{3}, []string{"tags"}},
		{"nested sample", "sub/sample.parquet", []string{"city", "tags"}, []int{1, 4}, []string{"city", "tags"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			desc, err := pqflight.CommandDescriptor(&pqflight.Ticket{Path: tc.path, Columns: tc.columns})
			must(t, err)
			sr, err := ts.client.GetSchema(ctx, desc)
			must(t, err)
			sc, err := flight.DeserializeSchema(sr.GetSchema(), memory.DefaultAllocator)
			must(t, err)
			var names []string
			for _, f := range sc.Fields() {
				names = append(names, f.Name)
			}
			// arrowpq keeps file order whatever the order asked.
			if !slices.Equal(names, tc.fields) {
				t.Fatalf("schema fields %q, want %q", names, tc.fields)
			}
			info, err := ts.client.GetFlightInfo(ctx, desc)
			must(t, err)
			infoSchema, err := flight.DeserializeSchema(info.GetSchema(), memory.DefaultAllocator)
			must(t, err)
			if !infoSchema.Equal(sc) {
				t.Errorf("FlightInfo schema %v differs from GetSchema %v", infoSchema, sc)
			}
			got, err := pqflight.Download(ctx, ts.client, tc.path, &pqflight.ClientOptions{Columns: tc.columns})
			must(t, err)
			want := pqarrowRead(t, filepath.Join(root, tc.path), tc.leaves, nil)
			checkTablesEqual(t, got, want)
			got.Release()
			want.Release()
		})
	}
}

// TestBadRequests checks that malformed and hostile requests get the
// right gRPC code from every call that takes a path.
func TestBadRequests(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, nil)
	ctx := context.Background()
	tests := []struct {
		name   string
		ticket string
		code   codes.Code
	}{
		{"not JSON", `gen.parquet`, codes.InvalidArgument},
		{"unknown key", `{"path":"gen.parquet","colums":["id"]}`, codes.InvalidArgument},
		{"trailing data", `{"path":"gen.parquet"} {}`, codes.InvalidArgument},
		{"no path", `{}`, codes.InvalidArgument},
		{"missing file", `{"path":"nope.parquet"}`, codes.NotFound},
		{"row group out of range", `{"path":"gen.parquet","row_groups":[5]}`, codes.NotFound},
		{"negative row group", `{"path":"gen.parquet","row_groups":[-1]}`, codes.InvalidArgument},
		{"unknown column", `{"path":"gen.parquet","columns":["nope"]}`, codes.InvalidArgument},
		{"dot dot", `{"path":"../secret.parquet"}`, codes.InvalidArgument},
		{"dot dot inside", `{"path":"sub/../../secret.parquet"}`, codes.InvalidArgument},
		{"dot dot harmless", `{"path":"sub/../gen.parquet"}`, codes.InvalidArgument},
		{"absolute", `{"path":"/etc/passwd"}`, codes.InvalidArgument},
		{"drive letter", `{"path":"C:/x.parquet"}`, codes.InvalidArgument},
		{"backslash", `{"path":"..\\secret.parquet"}`, codes.InvalidArgument},
		{"root itself", `{"path":"."}`, codes.InvalidArgument},
		{"symlink out of root", `{"path":"escape.parquet"}`, codes.PermissionDenied},
		{"directory", `{"path":"sub"}`, codes.InvalidArgument},
		{"not parquet", `{"path":"notes.txt"}`, codes.DataLoss},
		{"corrupt", `{"path":"broken.parquet"}`, codes.DataLoss},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(tc.ticket)})
			wantCode(t, err, tc.code)
			if tc.code == codes.InvalidArgument && tc.name != "unknown key" && tc.name != "trailing data" && tc.name != "not JSON" {
				// The same ticket as a command descriptor.
				_, err = ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: []byte(tc.ticket)})
				wantCode(t, err, tc.code)
			}
		})
	}
	for _, p := range []string{"../secret.parquet", "/etc/passwd", "escape.parquet"} {
		t.Run("path descriptor "+p, func(t *testing.T) {
			want := codes.InvalidArgument
			if p == "escape.parquet" {
				want = codes.PermissionDenied
			}
			_, err := ts.client.GetFlightInfo(ctx, pqflight.PathDescriptor(p))
			wantCode(t, err, want)
			_, err = ts.client.GetSchema(ctx, pqflight.PathDescriptor(p))
			wantCode(t, err, want)
		})
	}
	t.Run("descriptor type", func(t *testing.T) {
		_, err := ts.client.GetFlightInfo(ctx, &flight.FlightDescriptor{})
		wantCode(t, err, codes.InvalidArgument)
	})
}

// TestCancelMidStream cancels a DoGet after the first batch and checks
// that the server handler and every goroutine it started end.
func TestCancelMidStream(t *testing.T) {
	root := t.TempDir()
	writeGen(t, filepath.Join(root, "big.parquet"), 200_000, 50_000)
	ts := startServer(t, root, &pqflight.Options{BatchSize: 100})
	// Warm the connection so that its goroutines count in the baseline.
	_, err := pqflight.List(context.Background(), ts.client, "")
	must(t, err)
	base := runtimeGoroutines()

	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		stream, err := ts.client.DoGet(ctx, &flight.Ticket{Ticket: []byte(`{"path":"big.parquet"}`)})
		must(t, err)
		rdr, err := flight.NewRecordReader(stream)
		must(t, err)
		if !rdr.Next() {
			t.Fatalf("no first batch: %v", rdr.Err())
		}
		if n := rdr.RecordBatch().NumRows(); n != 100 {
			t.Fatalf("first batch has %d rows, want 100", n)
		}
		waitFor(t, "the handler to start", func() bool { return ts.srv.Active() == 1 })
		cancel()
		// 200,000 rows at 100 per batch would take far longer to send than
		// the wait; the handler must notice the cancellation.
		waitFor(t, "the handler to end", func() bool { return ts.srv.Active() == 0 })
		rdr.Release()
	}
	waitGoroutines(t, base)
}

// TestCancelDownload closes a client Reader early and checks that its
// fetch goroutines and the server handlers end.
func TestCancelDownload(t *testing.T) {
	root := t.TempDir()
	writeGen(t, filepath.Join(root, "big.parquet"), 100_000, 10_000)
	ts := startServer(t, root, &pqflight.Options{BatchSize: 100})
	_, err := pqflight.List(context.Background(), ts.client, "")
	must(t, err)
	base := runtimeGoroutines()
	r, err := pqflight.NewReader(context.Background(), ts.client, "big.parquet", &pqflight.ClientOptions{Parallelism: 4})
	must(t, err)
	if !r.Next() {
		t.Fatalf("no first batch: %v", r.Err())
	}
	r.Close()
	waitFor(t, "the handlers to end", func() bool { return ts.srv.Active() == 0 })
	waitGoroutines(t, base)
}

func TestAuth(t *testing.T) {
	root := newRoot(t)
	const token = "s3cret"
	ts := startServer(t, root, &pqflight.Options{Token: token})
	ctx := context.Background()
	ticket := &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet"}`)}
	for _, tc := range []struct {
		name  string
		token string
	}{{"no token", ""}, {"wrong token", "guess"}} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, ts.addr, tc.token)
			_, err := pqflight.List(ctx, c, "")
			wantCode(t, err, codes.Unauthenticated)
			_, err = c.GetFlightInfo(ctx, pqflight.PathDescriptor("gen.parquet"))
			wantCode(t, err, codes.Unauthenticated)
			_, err = c.GetSchema(ctx, pqflight.PathDescriptor("gen.parquet"))
			wantCode(t, err, codes.Unauthenticated)
			_, err = doGet(t, c, ticket)
			wantCode(t, err, codes.Unauthenticated)
			rec := genRecord(0, 10)
			defer rec.Release()
			_, err = upload(ctx, c, "new.parquet", rec)
			wantCode(t, err, codes.Unauthenticated)
			if _, err := os.Stat(filepath.Join(root, "new.parquet")); !os.IsNotExist(err) {
				t.Fatalf("unauthenticated upload left a file: %v", err)
			}
		})
	}
	t.Run("right token", func(t *testing.T) {
		tbl, err := pqflight.Download(ctx, ts.client, "gen.parquet", nil)
		must(t, err)
		if tbl.NumRows() != 1000 {
			t.Fatalf("%d rows", tbl.NumRows())
		}
		tbl.Release()
	})
	t.Run("basic auth handshake", func(t *testing.T) {
		c := dial(t, ts.addr, "")
		if _, err := c.AuthenticateBasicToken(ctx, "anyone", "guess"); err == nil {
			t.Fatal("handshake with a wrong password succeeded")
		}
		authCtx, err := c.AuthenticateBasicToken(ctx, "anyone", token)
		must(t, err)
		_, err = c.GetFlightInfo(authCtx, pqflight.PathDescriptor("gen.parquet"))
		must(t, err)
	})
	t.Run("without the middleware", func(t *testing.T) {
		// An embedder that forgets Middleware still gets the checks.
		srv, err := pqflight.NewServer(root, &pqflight.Options{Token: token})
		must(t, err)
		defer srv.Close()
		fs := flight.NewServerWithMiddleware(nil)
		must(t, fs.Init("127.0.0.1:0"))
		fs.RegisterFlightService(srv)
		go fs.Serve()
		defer fs.Shutdown()
		c := dial(t, fs.Addr().String(), "")
		_, err = doGet(t, c, ticket)
		wantCode(t, err, codes.Unauthenticated)
		_, err = c.GetFlightInfo(ctx, pqflight.PathDescriptor("gen.parquet"))
		wantCode(t, err, codes.Unauthenticated)
		good := dial(t, fs.Addr().String(), token)
		tbl, err := doGet(t, good, ticket)
		must(t, err)
		tbl.Release()
	})
}

func runtimeGoroutines() int { return runtime.NumGoroutine() }
