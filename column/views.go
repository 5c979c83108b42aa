package column

import (
	"fmt"
	"unsafe"

	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Byte arrays as views (Values.ViewMode).
//
// A view of a value longer than 12 bytes points at its bytes where they
// were decoded from, with no copy: a PLAIN page's value section, or the
// data of the chunk's dictionary. That memory is then the batch's, so the
// reader never reads into it again:
//   - a PLAIN page's buffer, the one it was decompressed into, is given up
//     by the page reader (or the read-ahead slot) at the first view into
//     it, and the next page is read into another;
//   - a page whose values lie where the reader does not own them (stored
//     uncompressed in the chunk, its window, a decryption buffer) is
//     copied once, into new memory;
//   - a dictionary's data, once viewed, is not decoded into again: the
//     next dictionary page gets new memory (dictShared);
//   - DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY values, which are not
//     stored whole, are decoded into scratch and copied into new memory a
//     call at a time.

// viewBytes is what a view takes in memory.
const viewBytes = 16

// viewBuffer returns the index of b among v's view buffers, adding it
// (its capacity cut at its length: what lies beyond is not the caller's)
// when it is not one yet.
func (v *Values) viewBuffer(b []byte) uint32 {
	if len(b) == 0 {
		return 0 // no view points into it
	}
	for i := len(v.ViewBuffers) - 1; i >= 0; i-- {
		if c := v.ViewBuffers[i]; len(c) == len(b) && unsafe.SliceData(c) == unsafe.SliceData(b) {
			return uint32(i)
		}
	}
	v.ViewBuffers = append(v.ViewBuffers, b[:len(b):len(b)])
	return uint32(len(v.ViewBuffers) - 1)
}

// decodeViews appends the views of the page's next n BYTE_ARRAY values to
// d and returns how many it appended.
func (v *valueDecoder) decodeViews(r *Reader, d *Values, n int) (got int, err error) {
	before := len(d.Views)
	switch {
	case v.dict != nil:
		err = v.decodeDictViews(r, d, n)
	case v.enc == format.Encoding_PLAIN:
		src := r.viewSource()
		d.Views, err = v.plain.DecodeByteArrayViews(d.Views, n, d.viewBuffer(src))
	default:
		if v.viewScratch == nil {
			v.viewScratch = new(Values)
		}
		tmp := v.viewScratch
		tmp.Physical = format.Type_BYTE_ARRAY
		tmp.Offsets = append(tmp.Offsets[:0], 0)
		tmp.Data = tmp.Data[:0]
		var k int
		k, err = v.decodeByteArray(tmp, n)
		if k > 0 {
			data := append([]byte(nil), tmp.Data...)
			d.Views = pagecodec.AppendViews(d.Views, tmp.Offsets[:k+1], data, d.viewBuffer(data))
		}
	}
	return (len(d.Views) - before) / 2, err
}

// decodeDictViews appends the views of the dictionary values of the page's
// next n indices to d: the dictionary's views (built once for the buffer
// index its data has in d) copied by index.
func (v *valueDecoder) decodeDictViews(r *Reader, d *Values, n int) error {
	dict := v.dict
	buf := uint32(0)
	if dict.maxLen > pagecodec.ViewInlineSize {
		// Only a dictionary with long values is pointed into (and kept
		// by the batch); short ones are all inline.
		buf = d.viewBuffer(dict.Data)
		r.dictShared = true
	}
	dv := dict.viewsFor(buf)
	nd := uint32(dict.N)
	var block [dictBlock]int32
	for n > 0 {
		idx := block[:min(n, dictBlock)]
		if err := v.decodeIndices(idx); err != nil {
			return err
		}
		var tail []uint64
		d.Views, tail = extend(d.Views, 2*len(idx))
		for i, x := range idx {
			if uint32(x) >= nd {
				d.Views = d.Views[:len(d.Views)-len(tail)+2*i]
				return fmt.Errorf("dictionary index %d out of range for %d values: %w", x, nd, errCorrupt)
			}
			tail[2*i], tail[2*i+1] = dv[2*x], dv[2*x+1]
		}
		n -= len(idx)
	}
	return nil
}

// viewsFor returns the views of the dictionary's values, long ones
// pointing into its data as buffer buf.
func (d *dictionary) viewsFor(buf uint32) []uint64 {
	if len(d.views) != 2*d.N || d.viewsBuf != buf {
		d.views = pagecodec.AppendViews(d.views[:0], d.Offsets[:d.N+1], d.Data, buf)
		d.viewsBuf = buf
	}
	return d.views
}

// viewSource returns the current PLAIN page's value section in memory
// the reader never reads a page into again (see the top of this file).
func (r *Reader) viewSource() []byte {
	v := &r.dec
	if v.viewSrc != nil {
		return v.viewSrc
	}
	src := r.page.Values
	switch {
	case len(src) == 0:
		return src
	case r.prefetching && r.held != nil && holds(r.held.buf, src):
		r.held.buf = nil // the slot reads its next page into a new buffer
	case !r.prefetching && holds(r.pages.Buffer(), src):
		r.pages.SwapBuffer(nil)
		r.hasBuf = false // the next page borrows again (borrowBuffer)
	default:
		src = append([]byte(nil), src...)
		v.plain.Rebase(src)
	}
	v.viewSrc = src
	return src
}
