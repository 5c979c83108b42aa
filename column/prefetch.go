package column

import (
	"io"

	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Reading ahead (ReaderOptions.Prefetch).
//
// A chunk read ahead has a second pagecodec.PageReader, run by a task on
// a goroutine of the caller's (ReaderOptions.Spawn): it parses each page
// header and reads the page (CRC, decompression, level split) into a
// slot of its own, and sends the slot to the decoder, which takes the
// pages in order and gives each slot back when it moves to the next page.
// There are Prefetch+1 slots: the decoder holds one, and the task is at
// most Prefetch pages ahead. Memory: Prefetch+1 uncompressed pages (page
// buffers of the reader's own, kept across chunks; ReaderOptions.Buffers
// is not used for chunks read ahead).
//
// The decoder sees the same pages and the same errors, at the same point,
// as a serial read: a slot carries the header's error and the body's
// apart, and the decoder checks the offset index between the two as the
// serial read does. The task stops at the first error or at the end of
// the chunk.
//
// Not read ahead: encrypted chunks (decrypted bodies share one buffer),
// UNCOMPRESSED chunks (nothing to do ahead), sparse chunks, chunks under
// PrefetchMinBytes (a wide file must not start a task per column chunk),
// and the rest of a chunk once SkipRecords is called: the serial page
// reader then goes on from the page the decoder holds.
//
// No task outlives the chunk: Reset, the end of the chunk, FinishChunk,
// SkipRecords and Close stop it and wait for it.

// DefaultPrefetchMinBytes is the smallest chunk read ahead when
// ReaderOptions.PrefetchMinBytes is 0: 4 pages of parquet-cpp's 1 MiB
// default page size after a 4× compression.
const DefaultPrefetchMinBytes = 1 << 20

// slot is a page read ahead.
type slot struct {
	start   int // chunk offset of its header
	hdr     *format.PageHeader
	hdrErr  error // of NextHeader: io.EOF at the end of the chunk
	readErr error // of Read
	page    pagecodec.Page
	pos     pagecodec.Position // after the page
	buf     []byte             // the buffer the page was decompressed into
}

// prefetcher is the read-ahead state of a Reader.
type prefetcher struct {
	prefetching bool // the current chunk is read ahead
	running     bool // a task was spawned and not yet waited for
	ahead       pagecodec.PageReader
	slots       []*slot
	free, out   chan *slot
	stop, done  chan struct{}
	held        *slot // the slot of the current page
	// started: pages of the chunk were read ahead; taken is the position
	// after the last page the decoder took.
	started bool
	taken   pagecodec.Position
}

// canPrefetch reports whether chunk c is read ahead.
func (r *Reader) canPrefetch(c Chunk) bool {
	minBytes := r.opts.PrefetchMinBytes
	if minBytes <= 0 {
		minBytes = DefaultPrefetchMinBytes
	}
	return r.opts.Prefetch > 0 && r.opts.Spawn != nil && c.Decryptor == nil && !c.Sparse &&
		c.Codec != format.CompressionCodec_UNCOMPRESSED && len(c.Data) >= minBytes
}

// startPrefetch spawns the task that reads the chunk's pages ahead; false
// when the caller has no goroutine free.
func (r *Reader) startPrefetch() bool {
	if r.slots == nil {
		n := r.opts.Prefetch + 1
		r.slots = make([]*slot, n)
		for i := range r.slots {
			r.slots[i] = new(slot)
		}
		r.free = make(chan *slot, n)
		r.out = make(chan *slot, n)
	}
	for _, s := range r.slots {
		r.free <- s
	}
	r.stop, r.done = make(chan struct{}), make(chan struct{})
	r.ahead.Reset(r.pages.Chunk(), r.pages.Codec(), r.popts)
	stop, done := r.stop, r.done
	if !r.opts.Spawn(func() { r.readAhead(stop, done) }) {
		r.drain()
		return false
	}
	r.running, r.started, r.taken = true, true, pagecodec.Position{}
	return true
}

// readAhead is the task: it reads pages into free slots until the end of
// the chunk, an error, or stop.
func (r *Reader) readAhead(stop, done chan struct{}) {
	defer close(done)
	pr := &r.ahead
	for {
		var s *slot
		select {
		case s = <-r.free:
		case <-stop:
			return
		}
		for {
			s.start = pr.Offset()
			s.hdr, s.hdrErr = pr.NextHeader()
			s.readErr = nil
			if s.hdrErr != nil {
				r.out <- s
				return
			}
			switch s.hdr.Type {
			case format.PageType_DICTIONARY_PAGE, format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2:
			default:
				pr.Skip() // index pages and unknown types carry no rows
				continue
			}
			break
		}
		pr.SwapBuffer(s.buf)
		p, err := pr.Read()
		s.buf = pr.SwapBuffer(nil)
		if err != nil {
			s.readErr = err
			r.out <- s
			return
		}
		s.page = *p
		s.pos = pr.Position()
		r.out <- s // never blocks: out holds every slot
	}
}

// stopPrefetch stops the task, waits for it and takes every slot back.
func (r *Reader) stopPrefetch() {
	if !r.running {
		return
	}
	close(r.stop)
	<-r.done
	r.running = false
	r.drain()
}

// drain empties the slot channels; the task is not running.
func (r *Reader) drain() {
	for {
		select {
		case <-r.free:
		case <-r.out:
		default:
			return
		}
	}
}

// handOff ends reading ahead in the current chunk: the serial page reader
// goes on after the page the decoder holds, which stays valid (its slot is
// not reused before the next Reset).
func (r *Reader) handOff() {
	if !r.prefetching {
		return
	}
	r.stopPrefetch()
	r.prefetching = false
	if r.started {
		r.pages.Seek(r.taken)
	}
}

// nextPrefetched is nextDataPage for a chunk read ahead. The slot of the
// page left stays the decoder's until the next is taken: an error between
// the two is located at the page left, as in a serial read.
func (r *Reader) nextPrefetched() error {
	if !r.started {
		if !r.startPrefetch() {
			r.prefetching = false
			return r.nextDataPage()
		}
	}
	prev := r.held
	r.held = nil
	// end gives prev back and stops reading ahead: after the chunk's
	// last page, or an error (sticky: the serial reader returns it).
	end := func(err error) error {
		if prev != nil {
			r.free <- prev
		}
		r.handOff()
		return err
	}
	for {
		s := <-r.out
		if s.hdrErr != nil {
			r.page = nil
			r.free <- s
			if s.hdrErr != io.EOF {
				r.err = s.hdrErr
			}
			return end(s.hdrErr)
		}
		r.nextSize = int(s.hdr.UncompressedPageSize)
		if s.hdr.Type == format.PageType_DICTIONARY_PAGE {
			err := r.takeSlot(s)
			if err == nil {
				err = r.useDictionaryPage(&s.page)
			}
			r.free <- s
			if err != nil {
				return end(err)
			}
			continue
		}
		if err := r.checkLocation(s.start); err != nil {
			err = r.fail(err)
			r.free <- s
			return end(err)
		}
		r.dataPage++
		if err := r.takeSlot(s); err != nil {
			r.free <- s
			return end(err)
		}
		if prev != nil {
			r.free <- prev
		}
		r.held = s
		return r.startDataPage(&s.page)
	}
}

// takeSlot makes the page of s current, as readPage does.
func (r *Reader) takeSlot(s *slot) error {
	if s.readErr != nil {
		r.page = nil
		r.err = s.readErr
		return s.readErr
	}
	r.pagesRead++
	r.page = &s.page
	r.taken = s.pos
	return nil
}

// Close stops reading ahead and waits for the task; the Reader stays
// usable after a Reset.
func (r *Reader) Close() {
	r.handOff()
}
