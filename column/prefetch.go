package column

import (
	"io"
	"sync"

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
//
// A task lives only while a slot is free: one that finds none exits, and
// the decoder spawns one again when it gives a slot back. So a Reader
// dropped without Close keeps no goroutine once its slots are full, and a
// pool slot of the caller's is held only while pages are being read. When
// Spawn finds no goroutine then, the decoder reads the next page itself.
type prefetcher struct {
	prefetching bool  // the current chunk is read ahead
	started     bool  // pages of the chunk were read ahead
	held        *slot // the slot of the current page
	// aheadState is made when the reader first reads a chunk ahead: a
	// reader of a chunk read serially (each of the 2,000 leaves of a wide
	// file) does not carry its 780 bytes.
	*aheadState
}

// aheadState is the state of reading ahead that only a chunk read ahead
// uses.
type aheadState struct {
	ahead     pagecodec.PageReader
	slots     []*slot
	free, out chan *slot
	taken     pagecodec.Position // after the last page the decoder took
	aheadWin  window             // ahead's window, for a chunk read from its Source

	mu      sync.Mutex
	running bool // a task runs (under mu)
	ended   bool // the end of the chunk or an error was read (under mu)
	stopped bool // no task may start or go on (under mu)
	tasks   sync.WaitGroup
}

// canPrefetch reports whether chunk c is read ahead.
func (r *Reader) canPrefetch(c Chunk) bool {
	minBytes := r.opts.PrefetchMinBytes
	if minBytes <= 0 {
		minBytes = DefaultPrefetchMinBytes
	}
	return r.opts.Prefetch > 0 && r.opts.Spawn != nil && c.Decryptor == nil && !c.Sparse &&
		c.Codec != format.CompressionCodec_UNCOMPRESSED && chunkSize(&c) >= minBytes
}

// SetPrefetch sets ReaderOptions.Prefetch for the chunks that Reset
// starts from now on; the current chunk keeps its mode. 0 reads them
// serially. Once a chunk was read ahead, a positive value means the number
// of pages it was read ahead by (the slots are made then).
func (r *Reader) SetPrefetch(pages int) {
	if pages > 0 && r.aheadState != nil {
		pages = len(r.slots) - 1
	}
	r.opts.Prefetch = max(pages, 0)
}

// startPrefetch spawns the first task of the chunk; false when the caller
// has no goroutine free (the chunk is then read serially).
func (r *Reader) startPrefetch() bool {
	if r.aheadState == nil {
		r.aheadState = new(aheadState)
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
	if r.win.src != nil {
		// The task's own window; its pages copy what they would take
		// from it, since it is refilled while the decoder holds them.
		buf := r.aheadWin.buf
		r.aheadWin = r.win
		r.aheadWin.buf, r.aheadWin.held = buf, 0
		opts := r.popts
		opts.CopyStored = true
		r.ahead.ResetSource(&r.aheadWin, r.chunkLen, r.pages.Codec(), opts)
	} else {
		r.ahead.Reset(r.pages.Chunk(), r.pages.Codec(), r.popts)
	}
	r.mu.Lock()
	r.running, r.ended, r.stopped = true, false, false
	r.mu.Unlock()
	r.tasks.Add(1)
	if !r.opts.Spawn(r.readAhead) {
		r.tasks.Done()
		r.running = false
		r.drain()
		return false
	}
	r.started, r.taken = true, pagecodec.Position{}
	return true
}

// readAhead is the task: it reads pages into free slots until none is
// free, the end of the chunk, an error, or a stop.
func (r *Reader) readAhead() {
	defer r.tasks.Done()
	for {
		r.mu.Lock()
		if r.stopped || len(r.free) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		s := <-r.free
		r.mu.Unlock()
		if r.readSlot(s) {
			r.mu.Lock()
			r.running, r.ended = false, true
			r.mu.Unlock()
			return
		}
	}
}

// readSlot reads the next page into s and sends it to the decoder; true
// after the last: the end of the chunk or an error.
func (r *Reader) readSlot(s *slot) (last bool) {
	pr := &r.ahead
	for {
		s.start = pr.Offset()
		s.hdr, s.hdrErr = pr.NextHeader()
		s.readErr = nil
		if s.hdrErr != nil {
			r.out <- s
			return true
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
	if err == nil && r.aheadWin.src != nil {
		r.aheadWin.park(pr.Offset()) // CopyStored: nothing aliases it
	}
	if err != nil {
		s.readErr = err
		r.out <- s
		return true
	}
	s.page = *p
	s.pos = pr.Position()
	r.out <- s // never blocks: out holds every slot
	return false
}

// release gives slot s back and spawns a task when none runs.
func (r *Reader) release(s *slot) {
	r.mu.Lock()
	r.free <- s
	kick := !r.running && !r.ended && !r.stopped
	if kick {
		r.running = true
		r.tasks.Add(1)
	}
	r.mu.Unlock()
	if kick && !r.opts.Spawn(r.readAhead) {
		r.tasks.Done()
		r.mu.Lock()
		r.running = false
		r.mu.Unlock()
	}
}

// receive returns the next page read ahead; when none is ready and no
// task runs, it reads it on the decoder's goroutine. A slot is then free:
// the decoder holds at most one, and the others are in out or free (a
// task exits only when none is free, after sending what it read).
func (r *Reader) receive() *slot {
	select {
	case s := <-r.out:
		return s
	default:
	}
	// Under mu, a task that is not running sent all it read: it clears
	// running under mu after its last send.
	r.mu.Lock()
	select {
	case s := <-r.out:
		r.mu.Unlock()
		return s
	default:
	}
	if !r.running && !r.ended {
		r.ended = r.readSlot(<-r.free)
	}
	r.mu.Unlock()
	return <-r.out
}

// stopPrefetch stops the task, waits for it and takes every slot back.
func (r *Reader) stopPrefetch() {
	if !r.started {
		return
	}
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.tasks.Wait()
	r.drain()
	r.aheadWin.release()
}

// drain empties the slot channels; no task runs.
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
		r.started = false
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
	// end stops reading ahead: after the chunk's last page, or an error
	// (sticky: the serial reader returns it). The slots of prev and s are
	// not given back: the page an error is located at (r.page) may be in
	// either, and the task must not reuse them.
	end := func(err error) error {
		r.handOff()
		return err
	}
	for {
		s := r.receive()
		if s.hdrErr != nil {
			r.page = nil
			if s.hdrErr != io.EOF {
				r.err = s.hdrErr
			}
			return end(s.hdrErr)
		}
		r.nextSize = int(s.hdr.UncompressedPageSize)
		if s.hdr.Type == format.PageType_DICTIONARY_PAGE {
			err := r.takeSlot(s)
			viewed := false
			if err == nil {
				viewed, err = r.useDictionaryPage(&s.page, s.buf)
			}
			if err != nil {
				return end(err)
			}
			if viewed {
				// The slot's buffer is the dictionary now (readDictionaryPage).
				r.takeDictBuffer()
				s.buf, r.dictBuf = r.dictBuf, s.buf
			}
			r.release(s)
			continue
		}
		if err := r.checkLocation(s.start); err != nil {
			err = r.fail(err)
			return end(err)
		}
		r.dataPage++
		if err := r.takeSlot(s); err != nil {
			return end(err)
		}
		if prev != nil {
			r.release(prev)
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
	r.win.release()
}

// ReleaseBuffers closes r (Close) and gives its page buffer and page
// decoders to ReaderOptions.Buffers and its dictionary buffer to
// ReaderOptions.Dictionaries, whatever the chunk's state: the current page
// and dictionary are gone, and r reads again only after a Reset. Without
// those caches r keeps what they would take.
func (r *Reader) ReleaseBuffers() {
	r.Close()
	if r.opts.Buffers != nil {
		if r.hasBuf {
			r.opts.Buffers.Give(r.pages.SwapBuffer(nil))
			r.hasBuf = false
		}
		if r.pd != nil {
			r.dec.dict, r.dec.dictIdx = nil, nil
			r.opts.Buffers.giveDecoders(r.pd)
			r.pd = nil
		}
	}
	if r.opts.Dictionaries != nil && r.dictBuf != nil {
		r.opts.Dictionaries.Give(r.dictBuf)
		r.dictBuf = nil
	}
	d := &r.dict
	d.Int32, d.Int64, d.Float32, d.Float64, d.Fixed = nil, nil, nil, nil, nil
	r.dictViewed, r.hasDict, r.dict.N = false, false, 0
	r.page, r.pageLen, r.pagePos = nil, 0, 0
}
