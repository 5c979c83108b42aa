package arrowpq

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/pagecodec"
)

// buildPageViews builds a StringView or BinaryView array from views the
// column reader decoded (column.Values.ViewMode; strings were checked as
// they were decoded, leafReader.decodeValues): the dense views spread
// over the slots as fixed-width values (a null slot's view is zero), and
// the pages and dictionaries the long values point into as the array's
// data buffers, without a copy of any value. The column reader never
// reads into those buffers again, so they are the batch's as much as new
// memory would be.
func buildPageViews(mem memory.Allocator, dt arrow.DataType, d *denseValues, s slots, validBuf *memory.Buffer) (arrow.Array, error) {
	nv := len(d.Views) / 2
	views := newUninitBuffer(mem, s.n*arrow.ViewHeaderSizeBytes)
	out := arrow.Uint64Traits.CastFromBytes(views.Bytes())[:2*s.n]
	nv = min(nv, s.n)
	copy(out, d.Views[:2*nv])
	if s.bitmap() == nil {
		clear(out[2*nv:]) // no slot past the values, unless a page lied
	}
	s.spreadInPlace(views.Bytes(), nv, arrow.ViewHeaderSizeBytes)
	buffers := make([]*memory.Buffer, 2, 2+len(d.ViewBuffers))
	buffers[0], buffers[1] = validBuf, views
	for _, b := range d.ViewBuffers {
		buffers = append(buffers, memory.NewBufferBytes(b))
	}
	return makeArray(dt, s, buffers...), nil
}

// checkViewsUTF8 checks that the values of views are UTF-8, as Arrow
// requires of strings: inline values in the view, long ones where they
// point. first is the batch's index of the first value, for the error.
func checkViewsUTF8(views []uint64, bufs [][]byte, first int) error {
	var v [16]byte
	for i := 0; i+1 < len(views); i += 2 {
		n := uint32(views[i])
		if n > pagecodec.ViewInlineSize {
			buf, off := uint32(views[i+1]), uint32(views[i+1]>>32)
			b := bufs[buf][off : off+n]
			if !asciiLong(b) && !utf8.Valid(b) {
				return fmt.Errorf("string value %d is not valid UTF-8 (%q): %w", first+i/2, b[:min(n, 16)], pagecodec.ErrCorrupt)
			}
			continue
		}
		if (views[i]>>32|views[i+1])&0x8080808080808080 == 0 {
			continue // ASCII (the padding is zero)
		}
		binary.LittleEndian.PutUint64(v[:], views[i])
		binary.LittleEndian.PutUint64(v[8:], views[i+1])
		if b := v[4 : 4+n]; !utf8.Valid(b) {
			return fmt.Errorf("string value %d is not valid UTF-8 (%q): %w", first+i/2, b, pagecodec.ErrCorrupt)
		}
	}
	return nil
}

// asciiLong reports whether no byte of b, a value of at least 8 bytes,
// has its high bit set: whole words, 32 bytes a step, and for the tail the
// last word of b (overlapping the ones before) instead of a loop over
// bytes. For values of tens to hundreds of bytes utf8.Valid's per-call
// setup and per-word branch cost more (13% of a strings read as views),
// and a loop over the tail bytes half as much again.
func asciiLong(b []byte) bool {
	a0 := binary.LittleEndian.Uint64(b[len(b)-8:])
	var a1, a2, a3 uint64
	for len(b) >= 32 {
		a0 |= binary.LittleEndian.Uint64(b)
		a1 |= binary.LittleEndian.Uint64(b[8:])
		a2 |= binary.LittleEndian.Uint64(b[16:])
		a3 |= binary.LittleEndian.Uint64(b[24:])
		b = b[32:]
	}
	for len(b) >= 8 {
		a0 |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	return (a0|a1|a2|a3)&0x8080808080808080 == 0
}
