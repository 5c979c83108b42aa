package arrowpq

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Reclaiming the memory of unreachable batches (ReadOptions.ReuseCollected).
//
// With the default allocator every batch is new memory, and a read of the
// benchmark datasets spent 4–25% of its CPU time in the kernel mapping in
// the pages that the Go runtime had handed back between collections
// (docs/performance.md, round 5: a new page costs ~9 µs on the VMs we
// measure on). RecycleBuffers avoids that by reusing what the caller
// releases, at the price of its contract: a string taken from a released
// batch changes.
//
// ReuseCollected reuses only memory nothing points at any more. A large
// uninitialized buffer (allocateUninit) carries a finalizer on its array.
// The collector runs it only once no slice, string or pointer anywhere
// reaches any byte of the array (an interior pointer keeps the whole array
// alive), and then the array goes to reclaimed instead of back to the
// runtime, for a later allocateUninit of its size class. A Go string taken
// from a batch therefore keeps its bytes for as long as it lives, as with
// new memory. A finalizer runs once: a reused array gets a new one. The
// price is memory, and why it is not the default: an array with a
// finalizer lives one collection past its last use, and the waiting
// arrays are live heap, so the peak heap of a streaming read about
// doubled (lineitem 71–78 → 147–154 MB, above pqarrow's 117–128; the
// default stays the lean choice).
//
// reclaimed holds the arrays by size class, at most reclaimLimit bytes
// (past it, arrays are left to the collector). It ages them by garbage
// collection: an array still waiting after two collections is dropped, so
// a process that stops reading soon keeps nothing, while a streaming read,
// which allocates many times between two collections, takes them back.
// It is process-wide, as the arrays' unreachability is: a finalizer cannot
// know which Reader made the array, and every Reader may use any
// unreachable array.
var reclaimed = struct {
	sync.Mutex
	cur, old map[int][]*byte // by size class: arrays' first bytes, new and one collection old
	held     int             // bytes in cur and old
	ticking  bool            // a collection tick is armed (everyCollection)
}{cur: make(map[int][]*byte), old: make(map[int][]*byte)}

// reclaimLimit is the most bytes reclaimed holds.
const reclaimLimit = 64 << 20

// reclaimedReuses counts the arrays handed out again (for tests).
var reclaimedReuses atomic.Int64

// takeReclaimed returns an unreachable array of size class c, or nil: the
// oldest first.
func takeReclaimed(c int) []byte {
	reclaimed.Lock()
	defer reclaimed.Unlock()
	for _, m := range []map[int][]*byte{reclaimed.old, reclaimed.cur} {
		if list := m[c]; len(list) > 0 {
			p := list[len(list)-1]
			list[len(list)-1] = nil
			m[c] = list[:len(list)-1]
			reclaimed.held -= c
			reclaimedReuses.Add(1)
			return unsafe.Slice(p, c)
		}
	}
	return nil
}

// watchArray sets the finalizer that reclaims b's array (cap(b) bytes, a
// size class, b[0] its first byte) once nothing reaches it.
func watchArray(b []byte) {
	c := cap(b)
	runtime.SetFinalizer(&b[:1][0], func(p *byte) {
		reclaimed.Lock()
		defer reclaimed.Unlock()
		if reclaimed.held+c > reclaimLimit {
			return
		}
		reclaimed.cur[c] = append(reclaimed.cur[c], p)
		reclaimed.held += c
		if !reclaimed.ticking {
			reclaimed.ticking = true
			everyCollection(ageReclaimed)
		}
	})
}

// tick is an object whose only use is its finalizer, which the collector
// runs once per cycle after it finds the tick unreachable.
type tick struct{ _ *byte }

// everyCollection runs fn, from a finalizer, once per garbage collection
// cycle for as long as fn reports true.
func everyCollection(fn func() bool) {
	runtime.SetFinalizer(new(tick), func(*tick) {
		if fn() {
			everyCollection(fn)
		}
	})
}

// ageReclaimed runs once per collection while arrays wait: it drops those
// already old and makes the rest old. It reports whether any are left.
func ageReclaimed() bool {
	reclaimed.Lock()
	defer reclaimed.Unlock()
	for c, list := range reclaimed.old {
		reclaimed.held -= c * len(list)
	}
	clear(reclaimed.old)
	reclaimed.old, reclaimed.cur = reclaimed.cur, reclaimed.old
	reclaimed.ticking = reclaimed.held > 0
	return reclaimed.ticking
}

// reclaimingBytes returns size bytes (len = cap = size) whose content is
// garbage: an unreachable array of size's class if one waits, else a new
// one; either way watched by a finalizer. The array's capacity beyond
// size is not reachable through the result.
func reclaimingBytes(size int) []byte {
	c := sizeClass(size)
	b := takeReclaimed(c)
	if b == nil {
		b = uninitBytes(c)
	}
	watchArray(b)
	return b[:size:size]
}
