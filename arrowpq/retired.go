package arrowpq

import "sync"

// Buffers that outlive their Reader.
//
// A Reader's page buffers, chunk windows and dictionary buffers are its
// own scratch, lent between its leaves (column.BufferCache) and never
// handed to a caller: values are copied out of them into the batches. A
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
// file), so what another file left in them is never read; an encrypted
// file's buffers, which held plaintext, are not handed on.
var retiredBuffers sync.Pool // of *retired

// retiring turns the hand-over off when false: tests that count a read's
// bytes measure cold reads (a sync.Pool cannot be emptied reliably: Get
// does not see other Ps' private items).
var retiring = true

// retired is what one Reader left: its caches' buffers, by cache.
type retired struct {
	pages, windows, dictionaries [][]byte
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
}

// retireBuffers hands r's buffers on (Close, once nothing uses them).
func (r *Reader) retireBuffers() {
	o := &r.opts
	if !retiring || r.dec != nil || o.pageBuffers == nil || o.windows == nil || o.dictionaries == nil {
		return
	}
	v := &retired{pages: o.pageBuffers.Drain(), windows: o.windows.Drain(), dictionaries: o.dictionaries.Drain()}
	if len(v.pages)+len(v.windows)+len(v.dictionaries) > 0 {
		retiredBuffers.Put(v)
	}
}
