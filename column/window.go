package column

import (
	"fmt"
	"io"
)

// Reading a chunk in windows ([Chunk.Source]).
//
// A chunk given by its Source rather than its Data is read a window at a
// time: the page reader asks for the bytes of the next page header, and
// for the page body when the window ends before it; a window holds
// ReaderOptions.Window bytes (the rest of the chunk when less, a page's
// header and body when more). The memory a chunk holds is then one window
// (two when read ahead: the read-ahead task has its own) instead of the
// chunk, and the window buffers are lent between the readers of one caller
// through ReaderOptions.Windows as page buffers are (BufferCache): taken at
// the first read of a chunk, given back at its end.
//
// A window is refilled in place, so a page aliasing it (an UNCOMPRESSED
// chunk's values, a DATA_PAGE_V2's level sections) is valid until the next
// page is read, which is what pagecodec.Page promises anyway. Pages read
// ahead stay in their slots while the task reads on: its page reader
// copies what would alias its window (pagecodec.PageReaderOptions.CopyStored).

// DefaultWindow is the window of a chunk read from its Source when
// ReaderOptions.Window is 0.
const DefaultWindow = 1 << 20

// window is a pagecodec.Source over a chunk in a file.
type window struct {
	src    io.ReaderAt
	offset int64 // file offset of the chunk
	size   int
	want   int // bytes read at once
	cache  *BufferCache
	buf    []byte
	// The window holds the chunk's bytes [start, start+held): in buf, or
	// in stash when parked (its buffer given back to the cache).
	start, held int
	parked      bool
	stash       []byte
}

// headerRoom is read past what a page body needs, when the window is not
// larger anyway, so that the next page's header comes with the body.
const headerRoom = 4 << 10

// largePage: a page body of at least a largePage'th of the window is read
// alone (Window).
const largePage = 4

// reset starts chunk c; the buffer is kept (or stays in the cache).
func (w *window) reset(c *Chunk, want int, cache *BufferCache) {
	w.src, w.offset, w.size, w.want, w.cache = c.Source, c.FileOffset, int(c.Size), want, cache
	w.held, w.parked = 0, false
}

// Window returns the chunk from off on: n bytes, or up to the window size
// when that is more, never past the chunk's end. Bytes from off on that
// the window holds already (the start of a page cut by the window's end,
// the next header kept while parked) are moved to the front rather than
// read again.
func (w *window) Window(off, n int) ([]byte, error) {
	if off >= w.start && off+n <= w.start+w.held && n >= 0 {
		if w.parked {
			// The next header, kept aside: parsed there, so that the
			// body of a large page is read alone (below).
			return w.stash[off-w.start : w.held], nil
		}
		return w.buf[off-w.start : w.held], nil
	}
	k := min(max(n+headerRoom, w.want), w.size-off)
	if n >= w.want/largePage {
		// A large page (a quarter of the window or more) is read alone
		// with the next page's header: once it is decompressed the
		// window holds no more than that header and is given back
		// (park), so that the leaves of a long file share a few window
		// buffers instead of holding one each between batches. Filling
		// the window with the start of the next page instead kept it.
		k = min(n+headerRoom, w.size-off)
	}
	if k < n || off < 0 {
		return nil, fmt.Errorf("column: window of %d bytes at %d outside a chunk of %d: %w", n, off, w.size, errCorrupt)
	}
	held := w.buf
	if w.parked {
		held = w.stash
	}
	keep := 0
	if off >= w.start && off < w.start+w.held {
		keep = min(w.start+w.held-off, k)
	}
	if w.parked || cap(w.buf) < k {
		var old []byte
		if keep > 0 {
			old = held[off-w.start : off-w.start+keep]
		}
		var b []byte
		if w.cache != nil {
			b = w.cache.Take(k)
		}
		if cap(b) < k {
			// Bounded: k is at most the chunk's size (checked against the
			// file by the caller) and, beyond the window, a page's
			// header and body (checked against the maximum page size).
			// A new buffer has room for a whole window (or the chunk),
			// so that the windows near a chunk's end make no small ones,
			// and an eighth more for a page larger than the window, so
			// that slightly larger pages do not make new ones.
			if w.cache != nil {
				w.cache.Give(b)
			}
			room := max(k, min(w.want+headerRoom, w.size))
			if k > w.want {
				room = min(k+k/8, max(w.size-off, k))
			}
			b = make([]byte, k, room)
		}
		copy(b[:cap(b)], old)
		if !w.parked && w.cache != nil && w.buf != nil {
			// Too small for this page, not for other readers' windows.
			w.cache.Give(w.buf)
		}
		w.buf, w.parked = b, false
	} else if keep > 0 && off > w.start {
		copy(w.buf[:keep], w.buf[off-w.start:off-w.start+keep])
	}
	b := w.buf[:k]
	w.start, w.held = off, 0
	pos := w.offset + int64(off+keep)
	if m, err := w.src.ReadAt(b[keep:], pos); m < k-keep {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read %d bytes at offset %d: %w", k-keep, pos, err)
	}
	w.held = k
	return b, nil
}

// park gives the buffer back to the cache between two pages when what it
// holds from pos (the next page's header) on is no more than headerRoom:
// that is kept aside, and the next Window takes a buffer again. Readers
// whose pages fill their windows (pages of a window's size or more) then
// share a few buffers instead of holding one each. Only after a page whose
// bytes do not alias the window (decompressed, or copied: CopyStored).
func (w *window) park(pos int) {
	if w.cache == nil || w.parked || w.buf == nil || pos < w.start || w.start+w.held-pos > headerRoom {
		return
	}
	w.stash = append(w.stash[:0], w.buf[pos-w.start:w.held]...)
	w.cache.Give(w.buf)
	w.buf = nil
	w.start, w.held, w.parked = pos, len(w.stash), true
}

// give returns the buffer to the cache, or drops it without one.
func (w *window) give() {
	if w.buf != nil && w.cache != nil {
		w.cache.Give(w.buf)
	}
	w.buf, w.held, w.parked = nil, 0, false
}

// release ends the chunk's use of the buffer: back to the cache, or kept
// for the next chunk without one.
func (w *window) release() {
	if w.cache != nil {
		w.give()
	}
	w.held, w.parked = 0, false
}
