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

// DictionaryViewed reports whether r's dictionary is used where it was
// decompressed, without a copy.
func DictionaryViewed(r *Reader) bool { return r.dictViewed }

// SetViewDictionaries turns the no-copy dictionary on or off and returns
// the previous setting.
func SetViewDictionaries(on bool) bool {
	old := viewDictionaries
	viewDictionaries = on
	return old
}

// CachedDecoders returns how many readers' page decoders c holds.
func CachedDecoders(c *BufferCache) int { return c.decoders.Len() }

// LevelWindow is the most levels a column that is not flat decodes at once.
const LevelWindow = levelWindow
