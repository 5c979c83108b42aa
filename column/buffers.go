package column

import (
	"sync"

	"github.com/arrowpq/arrowpq/internal/lifo"
)

// BufferCache lends decompression buffers between the [Reader]s of one
// caller: a Reader gives its page buffer back when its column chunk ends
// (the last page read, io.EOF) and takes one from the cache when it starts
// a chunk without a buffer. Readers that do not all hold a chunk at once
// then share a few buffers instead of keeping one each: a wide file of one
// row group (2,000 leaves) read serially allocated 2,000 page buffers, 73 MB
// a read of 320 MB of Arrow data (BenchmarkReadWideFile); with the cache,
// about one. A long file's leaves all hold a chunk together, and keep their
// own buffers as before.
//
// The buffers hold decompressed page bytes only, which never reach a caller
// while they are here: values are copied out of pages, and a page whose
// values are handed out as views (Values.ViewMode) keeps its buffer, which
// never comes back. A page buffer is overwritten by the decompressor
// before it is read. The cache holds only buffers its readers
// gave it, each of which a reader kept before, so it needs no limit of its
// own: a reader that takes a buffer too small for its page grows it and
// drops the small one. The zero value is an empty cache; it is safe for
// concurrent use (readers of one file decode in parallel).
//
// The readers' page decoders (of definition levels and dictionary indices,
// kilobytes of scratch each, never holding a caller's memory) go back and
// forth with the page buffers, given back at the chunk's end and taken at
// its first data page.
type BufferCache struct {
	mu   sync.Mutex
	free [][]byte
	// decoders are the page decoders readers gave back with their page
	// buffers (Reader.endChunk); as many as readers gave.
	decoders lifo.Stack[*pageDecoders]
}

// takeDecoders returns page decoders a reader gave back, or nil.
func (c *BufferCache) takeDecoders() *pageDecoders {
	d, _ := c.decoders.Pop()
	return d
}

// giveDecoders puts page decoders into the cache.
func (c *BufferCache) giveDecoders(d *pageDecoders) { c.decoders.Push(d) }

// Take returns the smallest buffer of capacity at least n (a page's
// uncompressed size, from its header: it only chooses), else the largest,
// else nil; its length is 0. Best fit, so that in a long file each leaf
// finds a buffer of its page size again at the next row group. Take and
// Give let a caller lend its own scratch through a cache of its own the
// same way (arrowpq's string and conversion scratch).
func (c *BufferCache) Take(n int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := -1
	for i, b := range c.free {
		switch {
		case best < 0:
			best = i
		case cap(b) >= n && (cap(c.free[best]) < n || cap(b) < cap(c.free[best])):
			best = i
		case cap(c.free[best]) < n && cap(b) > cap(c.free[best]):
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	b := c.free[best]
	last := len(c.free) - 1
	c.free[best] = c.free[last]
	c.free[last] = nil
	c.free = c.free[:last]
	return b
}

// Give puts b into the cache.
func (c *BufferCache) Give(b []byte) {
	if cap(b) == 0 {
		return
	}
	c.mu.Lock()
	c.free = append(c.free, b[:0])
	c.mu.Unlock()
}

// Drain empties the cache and returns the buffers it held, for a caller
// that hands them on (arrowpq passes a closed Reader's buffers to the next
// Reader of the process).
func (c *BufferCache) Drain() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	free := c.free
	c.free = nil
	return free
}

// Clear drops the buffers the cache holds, to the collector; buffers
// taken stay with their takers, who may give them back later.
func (c *BufferCache) Clear() {
	c.mu.Lock()
	clear(c.free)
	c.free = c.free[:0]
	c.mu.Unlock()
	c.decoders.Drain()
}
