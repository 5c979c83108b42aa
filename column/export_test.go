package column

// PagesRead returns how many page bodies r has read (checksummed and
// decompressed) since it was made.
func PagesRead(r *Reader) int { return r.pagesRead }

// CachedBuffers returns how many page buffers c holds.
func CachedBuffers(c *BufferCache) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.free)
}
