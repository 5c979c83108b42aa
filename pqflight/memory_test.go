package pqflight_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/pqflight"
)

// peakAllocator counts the bytes it holds and remembers the most it held.
type peakAllocator struct {
	mem  memory.Allocator
	cur  atomic.Int64
	peak atomic.Int64
}

func (a *peakAllocator) add(n int) {
	c := a.cur.Add(int64(n))
	for p := a.peak.Load(); c > p && !a.peak.CompareAndSwap(p, c); p = a.peak.Load() {
	}
}

func (a *peakAllocator) Allocate(n int) []byte { a.add(n); return a.mem.Allocate(n) }
func (a *peakAllocator) Reallocate(n int, b []byte) []byte {
	a.add(n - len(b))
	return a.mem.Reallocate(n, b)
}
func (a *peakAllocator) Free(b []byte) { a.add(-len(b)); a.mem.Free(b) }

// TestStreamMemory checks that the server neither leaks Arrow buffers
// nor holds more than about one batch per stream: a DoGet of a file with a
// single 200,000-row row group in batches of 1,000 rows, and DoPuts that
// complete or are cut short.
func TestStreamMemory(t *testing.T) {
	root := t.TempDir()
	writeGen(t, filepath.Join(root, "one.parquet"), 200_000, 200_000)
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	alloc := &peakAllocator{mem: checked}
	ts := startServer(t, root, &pqflight.Options{BatchSize: 1000, Parallelism: 1, Allocator: alloc})
	ctx := context.Background()

	tbl, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"one.parquet"}`)})
	must(t, err)
	var total int64
	for i := 0; i < int(tbl.NumCols()); i++ {
		for _, c := range tbl.Column(i).Data().Chunks() {
			total += arrowSize(c.Data())
		}
	}
	tbl.Release()
	waitFor(t, "the handler to end", func() bool { return ts.srv.Active() == 0 })
	if peak := alloc.peak.Load(); peak > total/20 {
		t.Errorf("server held up to %d bytes of Arrow buffers for a stream of %d bytes in 200 batches", peak, total)
	}
	t.Logf("peak %d bytes for %d bytes streamed", alloc.peak.Load(), total)

	// DoPut: complete, then cut short, then a bad batch.
	rec := genRecord(0, 1000)
	defer rec.Release()
	_, err = upload(ctx, ts.client, "up.parquet", rec, rec)
	must(t, err)
	cctx, cancel := context.WithCancel(ctx)
	stream, err := ts.client.DoPut(cctx)
	must(t, err)
	w := flight.NewRecordWriter(stream, ipc.WithSchema(genSchema))
	w.SetFlightDescriptor(pqflight.PathDescriptor("cut.parquet"))
	must(t, w.Write(rec))
	waitFor(t, "the handler to start", func() bool { return ts.srv.Active() == 1 })
	cancel()
	bad := &flight.FlightData{DataHeader: []byte("garbage")}
	_ = rawPut(ctx, ts.client, pqflight.PathDescriptor("bad.parquet"), rec, bad)
	waitFor(t, "the handlers to end", func() bool { return ts.srv.Active() == 0 })
	checked.AssertSize(t, 0)
}
