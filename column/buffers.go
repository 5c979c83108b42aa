package column

import "sync"

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
// (values are copied out of pages), and a page buffer is overwritten by the
// decompressor before it is read. The zero value is an empty cache; it is
// safe for concurrent use (readers of one file decode in parallel).
type BufferCache struct {
	mu   sync.Mutex
	free [][]byte
	held int // bytes in free
}

// bufferCacheLimit bounds the bytes a BufferCache holds; what does not fit
// is left to the garbage collector.
const bufferCacheLimit = 16 << 20

// take returns a buffer from the cache, the largest, or nil.
func (c *BufferCache) take() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := -1
	for i, b := range c.free {
		if best < 0 || cap(b) > cap(c.free[best]) {
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
	c.held -= cap(b)
	return b
}

// give puts b into the cache if it has room.
func (c *BufferCache) give(b []byte) {
	if cap(b) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held+cap(b) > bufferCacheLimit {
		return
	}
	c.free = append(c.free, b[:0])
	c.held += cap(b)
}
