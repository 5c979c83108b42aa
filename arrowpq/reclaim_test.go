package arrowpq

import (
	"bytes"
	"runtime"
	"testing"
	"time"
)

// TestReclaimKeepsReachable reads with ReuseCollected and runs a
// collection after every batch, so that the arrays of released batches
// are found unreachable, reclaimed and built into later batches while the
// read goes on: the Go strings taken from the first batch must keep their
// bytes, and the read must have reused arrays (else it tests nothing).
// Handing out an array while anything still points into it fails here.
func TestReclaimKeepsReachable(t *testing.T) {
	const rows, rowGroup, batch = 40_000, 10_000, 2_500
	data := safeMemFile(t, rows, rowGroup)
	for _, c := range []struct {
		name string
		opts ReadOptions
	}{
		{"serial", ReadOptions{BatchSize: batch, Parallelism: 1, ReuseCollected: true}},
		{"parallel", ReadOptions{BatchSize: batch, Parallelism: 2, ReuseCollected: true}},
		{"dictionary", ReadOptions{BatchSize: batch, Parallelism: 1, ReuseCollected: true, Dictionary: []string{"dict", "plain"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			reused := reclaimedReuses.Load()
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got, want []string
			batches := 0
			for r.Next() {
				if batches == 0 {
					got, want = keptStrings(t, r.RecordBatch(), 200)
				}
				batches++
				runtime.GC() // queues the finalizers of unreachable arrays
				waitFinalizers()
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if batches != rows/batch {
				t.Fatalf("%d batches, want %d", batches, rows/batch)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("string %d of the first batch is %q after the read, want %q", i, got[i], want[i])
				}
			}
			if reclaimedReuses.Load() == reused {
				t.Fatal("no array was reclaimed and reused: the test covers nothing")
			}
		})
	}
}

// waitFinalizers lets the finalizer goroutine run the finalizers the last
// collection queued: it waits for one of its own, queued after them.
func waitFinalizers() {
	done := make(chan struct{})
	runtime.SetFinalizer(new(tick), func(*tick) { close(done) })
	runtime.GC()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// TestReuseCollectedExclusive: ReuseCollected chooses the allocator, so it
// cannot be combined with one, nor with the recycling pool.
func TestReuseCollectedExclusive(t *testing.T) {
	for _, o := range []ReadOptions{
		{ReuseCollected: true, RecycleBuffers: true},
		{ReuseCollected: true, Allocator: freshAllocator{}},
	} {
		if _, err := o.normalized(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	n, err := (&ReadOptions{ReuseCollected: true}).normalized()
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := n.Allocator.(freshAllocator); !ok || !a.reclaim {
		t.Fatalf("allocator %#v, want the reclaiming fresh allocator", n.Allocator)
	}
	if n, _ := (&ReadOptions{}).normalized(); n.Allocator.(freshAllocator).reclaim {
		t.Fatal("the default reclaims")
	}
}
