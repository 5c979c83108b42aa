package arrowpq

import (
	"runtime"
	"sync"

	"github.com/arrowpq/arrowpq/internal/lifo"
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
// They wait in retiredSets, at most one set per CPU (GOMAXPROCS when the
// Reader closes), until a new Reader takes one whole, or until two
// garbage collections pass, when they are dropped, so a process that
// stops reading soon keeps nothing. Readers that run at once each take a
// different Reader's buffers, or none. Only bytes a reader writes before
// it reads them live in these buffers (a decompressed page, a dictionary,
// a window filled from the file, values and levels decoded from a page),
// so what another file left in them is never read; an encrypted file's
// buffers, which held plaintext, are not handed on.
//
// A sync.Pool held them before: its Get sees only the current P's private
// item, and a Reader decoding on several goroutines is closed and opened
// on whichever P its caller runs on, so with Parallelism > 1 reads after
// reads took the buffers or missed them at random (numeric, all threads:
// 1.23 of the Arrow size where one thread took 1.01).
var retiredSets = struct {
	sync.Mutex
	cur, old []*retired // closed Readers' sets: new, and one collection old
	ticking  bool       // a collection tick is armed (everyCollection)
}{}

// retiring turns the hand-over off when false: tests that count a read's
// bytes measure cold reads.
var retiring = true

// putRetired keeps v for the next Reader, unless as many sets as CPUs
// wait already.
func putRetired(v *retired) {
	retiredSets.Lock()
	defer retiredSets.Unlock()
	if len(retiredSets.cur)+len(retiredSets.old) >= max(runtime.GOMAXPROCS(0), 2) {
		return
	}
	retiredSets.cur = append(retiredSets.cur, v)
	if !retiredSets.ticking {
		retiredSets.ticking = true
		everyCollection(ageRetired)
	}
}

// takeRetired returns a closed Reader's set, the newest first, or nil.
func takeRetired() *retired {
	retiredSets.Lock()
	defer retiredSets.Unlock()
	for _, list := range []*[]*retired{&retiredSets.cur, &retiredSets.old} {
		if n := len(*list); n > 0 {
			v := (*list)[n-1]
			(*list)[n-1] = nil
			*list = (*list)[:n-1]
			return v
		}
	}
	return nil
}

// ageRetired runs once per collection while sets wait: it drops those
// already old and makes the rest old. It reports whether any are left.
func ageRetired() bool {
	retiredSets.Lock()
	defer retiredSets.Unlock()
	clear(retiredSets.old)
	retiredSets.old, retiredSets.cur = retiredSets.cur, retiredSets.old[:0]
	retiredSets.ticking = len(retiredSets.old) > 0
	return retiredSets.ticking
}

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
	v := takeRetired()
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
	for _, a := range v.assemblers {
		o.assemblers.give(a)
	}
}

// retireBuffers hands r's buffers on (Close, once nothing uses them).
func (r *Reader) retireBuffers() {
	o := &r.opts
	if !retiring || r.dec != nil || o.pageBuffers == nil || o.windows == nil || o.dictionaries == nil || o.scratch == nil || o.assemblers == nil {
		return
	}
	v := &retired{pages: o.pageBuffers.Drain(), windows: o.windows.Drain(), dictionaries: o.dictionaries.Drain(),
		scratch: o.scratch.Drain(), assemblers: o.assemblers.Drain()}
	if len(v.pages)+len(v.windows)+len(v.dictionaries)+len(v.scratch)+len(v.assemblers) > 0 {
		putRetired(v)
	}
}

// assemblerStack holds the levels.Assemblers of closed leaves, for leaves
// to build theirs on (levels.NewAssemblerFrom): their offsets, validity
// and level scratch, a batch's worth per nested leaf (nested dataset: 2.6
// MB a read of 38 MB of Arrow data). An Assembler's outputs are copied
// into the batch's arrays before its next batch, so none of its buffers
// is reachable from a batch. Safe for concurrent use.
type assemblerStack struct{ lifo.Stack[*levels.Assembler] }

// take returns an Assembler given back, or nil.
func (s *assemblerStack) take() *levels.Assembler {
	if s == nil {
		return nil
	}
	a, _ := s.Pop()
	return a
}

// give puts a, which its leaf no longer uses, on the stack.
func (s *assemblerStack) give(a *levels.Assembler) {
	if s != nil {
		s.Push(a)
	}
}
