package arrowpq

import (
	"sync"

	"github.com/arrowpq/arrowpq/levels"
)

// Buffers that outlive their Reader.
//
// A Reader's page buffers, chunk windows, dictionary buffers, values
// scratch and levels assemblers are its own scratch, lent between its
// leaves (column.BufferCache) and never handed to a caller: values are
// copied out of them into the batches. A
// process that reads file after file (a Flight server, a job over a
// directory) made them anew for every file: about a page, a dictionary and
// a window per column, 20 MB a read of the numeric dataset on top of its
// 98 MB of Arrow data, every byte of it fresh pages for the kernel to map
// (docs/performance.md, round 5). Close now hands them to the next Reader
// the process opens.
//
// They go through a sync.Pool: a closed Reader's buffers wait there until
// a new Reader takes them all, or until two collections pass, when the
// runtime drops them, so a process that stops reading keeps nothing.
// Readers that run at once each take a different Reader's buffers, or
// none. Only bytes a reader writes before it reads them live in these
// buffers (a decompressed page, a dictionary, a window filled from the
// file, values and levels decoded from a page), so what another file left
// in them is never read; an encrypted file's buffers, which held
// plaintext, are not handed on.
var retiredBuffers sync.Pool // of *retired

// retiring turns the hand-over off when false: tests that count a read's
// bytes measure cold reads (a sync.Pool cannot be emptied reliably: Get
// does not see other Ps' private items).
var retiring = true

// retired is what one Reader left: its caches' buffers, by cache, and its
// leaves' assemblers.
type retired struct {
	pages, windows, dictionaries, scratch [][]byte
	assemblers                            []*levels.Assembler
}

// adoptRetired gives the caches of o (after normalized) the buffers of a
// closed Reader, if one left any.
func (o *ReadOptions) adoptRetired() {
	if !retiring {
		return
	}
	v, _ := retiredBuffers.Get().(*retired)
	if v == nil {
		return
	}
	for _, b := range v.pages {
		o.pageBuffers.Give(b)
	}
	for _, b := range v.windows {
		o.windows.Give(b)
	}
	for _, b := range v.dictionaries {
		o.dictionaries.Give(b)
	}
	for _, b := range v.scratch {
		o.scratch.Give(b)
	}
	o.assemblers.list = v.assemblers
}

// retireBuffers hands r's buffers on (Close, once nothing uses them).
func (r *Reader) retireBuffers() {
	o := &r.opts
	if !retiring || r.dec != nil || o.pageBuffers == nil || o.windows == nil || o.dictionaries == nil || o.scratch == nil || o.assemblers == nil {
		return
	}
	v := &retired{pages: o.pageBuffers.Drain(), windows: o.windows.Drain(), dictionaries: o.dictionaries.Drain(),
		scratch: o.scratch.Drain(), assemblers: o.assemblers.drain()}
	if len(v.pages)+len(v.windows)+len(v.dictionaries)+len(v.scratch)+len(v.assemblers) > 0 {
		retiredBuffers.Put(v)
	}
}

// assemblerStack holds the levels.Assemblers of closed leaves, for leaves
// to build theirs on (levels.NewAssemblerFrom): their offsets, validity
// and level scratch, a batch's worth per nested leaf (nested dataset: 2.6
// MB a read of 38 MB of Arrow data). An Assembler's outputs are copied
// into the batch's arrays before its next batch, so none of its buffers
// is reachable from a batch. Safe for concurrent use.
type assemblerStack struct {
	mu   sync.Mutex
	list []*levels.Assembler
}

// take returns an Assembler given back, or nil.
func (s *assemblerStack) take() *levels.Assembler {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.list)
	if n == 0 {
		return nil
	}
	a := s.list[n-1]
	s.list[n-1] = nil
	s.list = s.list[:n-1]
	return a
}

// give puts a, which its leaf no longer uses, on the stack.
func (s *assemblerStack) give(a *levels.Assembler) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.list = append(s.list, a)
	s.mu.Unlock()
}

// drain empties the stack and returns what it held.
func (s *assemblerStack) drain() []*levels.Assembler {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.list
	s.list = nil
	return l
}
