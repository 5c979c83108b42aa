package arrowpq_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// TestRetiredBuffersOverwritten reads each file of the unzeroed-memory
// tests (the benchmark datasets, all types with and without dictionaries
// and v2 pages, every file of parquet-testing's data directory) into
// buffers a closed Reader left behind, every byte of them poisoned first,
// twice with different poisons: the batches must be those of a read into
// new buffers, up to every byte a caller can reach. A reader that read a
// byte of a page buffer, window or dictionary it had not written would
// show another file's bytes there, or the poison.
func TestRetiredBuffersOverwritten(t *testing.T) {
	files := uninitFiles(t)
	opts := []struct {
		name string
		opts arrowpq.ReadOptions
	}{
		{"serial", arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1}},
		{"parallel", arrowpq.ReadOptions{BatchSize: 1500, Parallelism: 2}},
	}
	adopted := 0
	for _, f := range files {
		for _, o := range opts {
			t.Run(f.name+"/"+o.name, func(t *testing.T) {
				arrowpq.DrainRetired()
				fresh, ferr := readAllBatches(f.data, o.opts)
				defer releaseAll(fresh)
				if ferr != nil && !strings.HasPrefix(f.name, "parquet-testing/") {
					t.Fatal(ferr) // the files written here are valid
				}
				var poisoned [2][]arrow.RecordBatch
				for i, fill := range []byte{0xA5, 0x5A} {
					if arrowpq.PoisonRetired(fill) > 0 {
						adopted++
					}
					got, err := readAllBatches(f.data, o.opts)
					defer releaseAll(got)
					if fmt.Sprint(err) != fmt.Sprint(ferr) {
						t.Fatalf("poison %#x: error %v, new buffers %v", fill, err, ferr)
					}
					poisoned[i] = got
				}
				want := batchBytes(fresh, false)
				for i, got := range poisoned {
					g := batchBytes(got, false)
					if len(g) != len(want) {
						t.Fatalf("poison %d: %d buffers, new buffers %d", i, len(g), len(want))
					}
					for k := range want {
						if !bytes.Equal(want[k], g[k]) {
							j := firstDiff(want[k], g[k])
							t.Fatalf("poison %d, buffer %d: byte %d of %d is %#x, %#x read into new buffers", i, k, j, len(want[k]), at(g[k], j), at(want[k], j))
						}
					}
				}
				r1, r2 := batchBytes(poisoned[0], true), batchBytes(poisoned[1], true)
				for k := range r1 {
					if !bytes.Equal(r1[k], r2[k]) {
						j := firstDiff(r1[k], r2[k])
						t.Fatalf("buffer %d: reachable byte %d of %d differs between poisons (%#x, %#x)", k, j, len(r1[k]), at(r1[k], j), at(r2[k], j))
					}
				}
			})
		}
	}
	if adopted == 0 {
		t.Fatal("no read took a closed Reader's buffers: the test covers nothing")
	}
	t.Logf("%d reads into poisoned retired buffers", adopted)
}

// TestRetiredBuffersConcurrent has readers of different files open, read
// and close at once, over and over, taking each other's retired buffers;
// every read must give the bytes of the first (run it with -race).
func TestRetiredBuffersConcurrent(t *testing.T) {
	files := uninitFiles(t)
	if len(files) > 8 {
		files = files[:8]
	}
	want := make([][][]byte, len(files))
	for i, f := range files {
		recs, err := readAllBatches(f.data, arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1})
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		want[i] = batchBytes(recs, false)
		releaseAll(recs)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(files))
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 6 {
				recs, err := readAllBatches(f.data, arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1 + round%2})
				if err != nil {
					errs <- fmt.Errorf("%s round %d: %v", f.name, round, err)
					return
				}
				got := batchBytes(recs, false)
				releaseAll(recs)
				if len(got) != len(want[i]) {
					errs <- fmt.Errorf("%s round %d: %d buffers, want %d", f.name, round, len(got), len(want[i]))
					return
				}
				for k := range got {
					if !bytes.Equal(got[k], want[i][k]) {
						errs <- fmt.Errorf("%s round %d: buffer %d differs at byte %d", f.name, round, k, firstDiff(got[k], want[i][k]))
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRetiredSetsAge: a closed Reader's buffers wait through one garbage
// collection and are dropped at the second, so a process that stops
// reading keeps nothing; at most one set per CPU waits.
func TestRetiredSetsAge(t *testing.T) {
	files := uninitFiles(t)
	read := func() {
		recs, err := readAllBatches(files[0].data, arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		releaseAll(recs)
	}
	arrowpq.DrainRetired()
	read()
	if n := arrowpq.RetiredWaiting(); n != 1 {
		t.Fatalf("%d sets wait after a read, want 1", n)
	}
	// Finalizers run after the collection that found their object, on a
	// goroutine of their own: wait for the tick's.
	collect := func() {
		runtime.GC()
		for range 100 {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
	}
	collect()
	if n := arrowpq.RetiredWaiting(); n != 1 {
		t.Fatalf("%d sets wait after one collection, want 1", n)
	}
	collect()
	if n := arrowpq.RetiredWaiting(); n != 0 {
		t.Fatalf("%d sets wait after two collections, want 0", n)
	}
	// Sets closed at once, more than CPUs: only GOMAXPROCS of them wait.
	limit := max(runtime.GOMAXPROCS(0), 2)
	var readers []*arrowpq.Reader
	for range limit + 3 {
		r, err := arrowpq.NewReader(bytes.NewReader(files[0].data), int64(len(files[0].data)), &arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		readers = append(readers, r)
	}
	for _, r := range readers {
		r.Close()
	}
	if n := arrowpq.RetiredWaiting(); n != limit {
		t.Fatalf("%d sets wait after %d Readers closed, want %d", n, limit+3, limit)
	}
	arrowpq.DrainRetired()
}
