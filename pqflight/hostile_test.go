package pqflight_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// TestDoGetHostile serves the files of testdata/hostile (size fields
// forged so that they once made the reader allocate without bound or
// panic) and fetches each with DoGet: a clean error status in under a
// second with under 64 MiB allocated by client and server together, and
// the server keeps serving (a good DoGet after each).
func TestDoGetHostile(t *testing.T) {
	src := filepath.Join("..", "..", "shared", "testdata", "hostile")
	testshared.Need(t, src)
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "root")
	must(t, os.MkdirAll(root, 0o755))
	sample, err := os.ReadFile(samplePath)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "good.parquet"), sample, 0o644))
	var names []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(root, e.Name()), b, 0o644))
		names = append(names, e.Name())
	}
	if len(names) < 4 {
		t.Fatalf("%d hostile files, want 4", len(names))
	}
	ts := startServer(t, root, nil)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			tbl, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"` + name + `"}`)})
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v in %v, %d bytes allocated", err, elapsed, alloc)
			if err == nil {
				tbl.Release()
				t.Fatal("DoGet succeeded, want an error")
			}
			st, _ := status.FromError(err)
			// A forged size is corrupt data or over a limit (DataLoss or
			// ResourceExhausted, never Internal: that is kept for bugs),
			// with the reader's located error as the message.
			if (st.Code() != codes.DataLoss && st.Code() != codes.ResourceExhausted) ||
				!strings.Contains(st.Message(), "arrowpq: read row group 0, column ") ||
				strings.Contains(st.Message(), "panic:") || strings.Contains(st.Message(), "internal error") {
				t.Errorf("status %v %q, want a clean read error", st.Code(), st.Message())
			}
			if elapsed > time.Second {
				t.Errorf("took %v, want under a second", elapsed)
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d bytes, want under 64 MiB", alloc)
			}
			good, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"good.parquet"}`)})
			if err != nil {
				t.Fatalf("the server stopped serving: %v", err)
			}
			if good.NumRows() != 100 {
				t.Errorf("good.parquet: %d rows, want 100", good.NumRows())
			}
			good.Release()
		})
	}
}
