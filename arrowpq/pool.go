package arrowpq

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
)

// bufferPool is the Reader's allocator with ReadOptions.RecycleBuffers
// (never the default: it breaks the immutability of Go strings taken from
// a released batch; see that option's contract). It keeps the large
// buffers that released batches give back and hands them to later batches,
// so a streaming read reuses the same memory batch after batch instead of
// leaving each batch to the garbage collector. With arrow-go's Go allocator
// every batch is fresh memory that stays on the heap until a collection,
// which made the peak heap of a streaming read several batches deep; with
// the pool it is about two batches (the one being read and the one being
// built), and the reader spends no time faulting in and zeroing new pages
// (docs/performance.md has the figures).
//
// Buffers below poolMinSize go to the Go allocator: the garbage collector
// handles small objects well and they are not where the memory is. The
// pool holds at most limit bytes; what does not fit is left to the
// collector. Free may come from any goroutine (a batch can be released
// anywhere), so the pool is guarded by a mutex; it is taken a few times
// per column per batch, never per value.
type bufferPool struct {
	mu     sync.Mutex
	free   map[int][][]byte // by capacity (a size class)
	held   int              // bytes in free
	limit  int
	closed bool
	fresh  int // buffers allocated anew, not reused (for tests)
}

const (
	// poolMinSize is the smallest buffer the pool keeps.
	poolMinSize = 32 << 10
	// poolMinLimit is the least the pool may hold, whatever the batches.
	poolMinLimit = 64 << 20
)

func newBufferPool() *bufferPool {
	return &bufferPool{free: make(map[int][][]byte), limit: poolMinLimit}
}

// sizeClass rounds n up to a number with at most four significant bits
// (…, 32k, 36k, 40k, …, 60k, 64k, 72k, …): eight classes per doubling, so a
// buffer wastes at most a ninth of its size and batches of similar sizes
// share classes.
func sizeClass(n int) int {
	if n <= 16 {
		return n
	}
	shift := bits.Len(uint(n-1)) - 4
	return ((n-1)>>shift + 1) << shift
}

// Allocate returns size zeroed bytes.
func (p *bufferPool) Allocate(size int) []byte {
	b := p.allocate(size)
	clear(b)
	return b
}

// allocateUninit returns size bytes whose content is garbage, for buffers
// the caller overwrites entirely.
func (p *bufferPool) allocateUninit(size int) []byte { return p.allocate(size) }

func (p *bufferPool) allocate(size int) []byte {
	if size < poolMinSize {
		return memory.DefaultAllocator.Allocate(size)
	}
	class := sizeClass(size)
	p.mu.Lock()
	// Best fit among the free buffers of up to twice the size: batches
	// vary in size, and a buffer grown for one batch serves the next.
	best := 0
	for c, list := range p.free {
		if len(list) > 0 && c >= class && c <= 2*class && (best == 0 || c < best) {
			best = c
		}
	}
	if best != 0 {
		list := p.free[best]
		b := list[len(list)-1]
		list[len(list)-1] = nil
		p.free[best] = list[:len(list)-1]
		p.held -= best
		p.mu.Unlock()
		return b[:size]
	}
	p.fresh++
	p.mu.Unlock()
	// Large Go allocations are page-aligned, so the 64-byte alignment
	// Arrow recommends holds without padding.
	return make([]byte, size, class)
}

// Reallocate grows or shrinks b to size, keeping its content; new bytes are
// zero.
func (p *bufferPool) Reallocate(size int, b []byte) []byte { return reallocate(p, size, b) }

// reallocate is a Reallocate over a's Allocate and Free: in place within
// b's capacity, else a new buffer with b's content, b freed.
func reallocate(a memory.Allocator, size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free takes b back for reuse when it is one of the pool's buffers and the
// pool has room.
func (p *bufferPool) Free(b []byte) {
	c := cap(b)
	if c < poolMinSize || sizeClass(c) != c {
		return
	}
	p.mu.Lock()
	if !p.closed && p.held+c <= p.limit {
		p.free[c] = append(p.free[c], b[:0])
		p.held += c
	}
	p.mu.Unlock()
}

// grow raises the pool's limit to n bytes when it is below; the reader
// sets it from the size of its batches, so the pool can hold the previous
// batch while the next is built.
func (p *bufferPool) grow(n int) {
	p.mu.Lock()
	p.limit = max(p.limit, n)
	p.mu.Unlock()
}

// close drops the pooled buffers; buffers freed later are left to the
// garbage collector.
func (p *bufferPool) close() {
	p.mu.Lock()
	p.closed = true
	p.free, p.held = nil, 0
	p.mu.Unlock()
}

var _ memory.Allocator = (*bufferPool)(nil)

// freshAllocator is the Reader's default memory.Allocator: every buffer is
// new Go memory that nothing reuses, so whatever points into a batch (a Go
// string from array.String.Value) stays valid and unchanged until the
// garbage collector finds nothing pointing at it. Free does nothing.
//
// It differs from arrow-go's memory.GoAllocator in sizing only: large
// buffers are allocated at their exact size (a large Go allocation is
// page-aligned, so the 64-byte alignment Arrow recommends holds without
// GoAllocator's 64 bytes of padding, which pushed a page-sized buffer onto
// a second page), and Reallocate grows in place when the capacity allows.
// Allocate zeroes (make); buffers the reader overwrites entirely come from
// allocateUninit (newUninitBuffer), which does not.
type freshAllocator struct {
	// reclaim: large uninitialized buffers reuse the memory of collected
	// ones (ReadOptions.ReuseCollected; reclaim.go).
	reclaim bool
}

func (freshAllocator) Allocate(size int) []byte {
	if size < poolMinSize {
		return memory.DefaultAllocator.Allocate(size)
	}
	return make([]byte, size)
}

// allocateUninit returns size bytes (len = cap = size) that the runtime
// did not zero, for buffers the caller overwrites entirely; below
// uninitMinSize it is Allocate (small buffers are cheap to zero, and the
// Go allocator packs them at alignments below Arrow's; larger ones are
// page-aligned).
func (a freshAllocator) allocateUninit(size int) []byte {
	if size < uninitMinSize {
		return a.Allocate(size)
	}
	var b []byte
	if a.reclaim {
		b = reclaimingBytes(size) // reclaim.go
	} else {
		b = uninitBytes(size)
	}
	if uninitFill != nil {
		uninitFill(b)
	}
	return b
}

// uninitMinSize is the smallest buffer freshAllocator.allocateUninit does
// not zero; tests lower it to cover small files.
var uninitMinSize = poolMinSize

// uninitFill, when set (by tests only), fills every buffer of
// allocateUninit: with a poison byte, so that a byte the reader failed to
// write shows in a batch, or with zeros, the reference.
var uninitFill func([]byte)

// Reallocate grows or shrinks b to size, keeping its content; new bytes
// are zero. A new buffer is written once: b's bytes are copied over
// unzeroed memory and only the rest is cleared (a nested leaf's offsets
// grow batch after batch).
func (a freshAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return reallocate(a, size, b)
	}
	nb := a.allocateUninit(size)
	clear(nb[copy(nb, b):])
	return nb
}

func (freshAllocator) Free([]byte) {}

var _ memory.Allocator = freshAllocator{}

// newUninitBuffer returns a buffer of size bytes that the caller
// overwrites entirely, before any of it reaches a caller of the Reader:
// from the pool or the fresh allocator without zeroing (exactly size
// bytes: Buf is Bytes, nothing unwritten past them), or from any other
// allocator as it gives them.
func newUninitBuffer(mem memory.Allocator, size int) *memory.Buffer {
	switch a := mem.(type) {
	case *bufferPool:
		return memory.NewBufferWithAllocator(a.allocateUninit(size), a)
	case freshAllocator:
		return memory.NewBufferWithAllocator(a.allocateUninit(size), a)
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// scratchCache lends the reader's internal byte scratch between its
// leaves: a leaf takes a buffer when it starts using scratch for a batch
// (the byte array data of startBinary, converted values before they are
// spread) and gives it back as soon as the batch's arrays hold their own
// copies. A serial read then keeps about one scratch buffer however many
// leaves the file has, where every leaf kept its own (the strings read
// allocated 17 MB a read growing them, lineitem 9 MB). Scratch never
// reaches a caller: arrays get fresh copies (freshCopy) or spread values.
// Safe for concurrent use (parallel decoding takes one buffer per leaf
// being decoded).
//
// Buffers nobody asked for during a whole batch are dropped (endBatch):
// the first batch of a dictionary-encoded byte array leaf decodes into
// scratch (startBinary) and no later batch does, so the strings read kept
// 13 MB of idle scratch for the whole read, a third of its live heap, and
// the live heap is what the collector's peak heap follows.
type scratchCache struct {
	column.BufferCache
	// taken: a buffer was asked for since the last endBatch.
	taken atomic.Bool
}

// endBatch ends a batch of the reader: the cache drops its buffers when
// none was asked for during the batch.
func (c *scratchCache) endBatch() {
	if c != nil && !c.taken.Swap(false) {
		c.Clear()
	}
}

// minScratch is the smallest buffer a scratchCache keeps.
const minScratch = 256

// take returns the smallest buffer of capacity at least n, else the
// largest, else nil; its length is 0.
func (c *scratchCache) take(n int) []byte {
	if c == nil {
		return nil
	}
	c.taken.Store(true)
	return c.Take(n)
}

// give takes b back. The cache holds no more buffers than the leaves gave
// it, which kept them before. Buffers below minScratch are left to the
// collector: they are not where the memory is, and a Go allocation of
// fewer than 16 bytes may be packed at any alignment, where converted
// values need 8.
func (c *scratchCache) give(b []byte) {
	if c == nil || cap(b) < minScratch {
		return
	}
	c.Give(b)
}
