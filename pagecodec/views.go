package pagecodec

import (
	"encoding/binary"
	"math"
)

// Byte arrays as Arrow views: the columnar format's BinaryView layout,
// 16 bytes a value, held here as two little-endian words. A value of up to
// ViewInlineSize bytes is inline: its length in the low 4 bytes of the
// first word, then its bytes, zero-padded. A longer value keeps its length
// and first 4 bytes in the first word and points at its bytes with the
// second: buffer index (low 4 bytes) and offset in that buffer.

// ViewInlineSize is the longest value a view holds inline.
const ViewInlineSize = 12

// View returns the view of value b, stored at offset off of buffer buf
// when it is not inline. b is at most math.MaxInt32 bytes.
func View(b []byte, buf, off uint32) (lo, hi uint64) {
	n := len(b)
	if n > ViewInlineSize {
		return uint64(n) | uint64(binary.LittleEndian.Uint32(b))<<32, uint64(buf) | uint64(off)<<32
	}
	var v [16]byte
	binary.LittleEndian.PutUint32(v[:], uint32(n))
	copy(v[4:], b)
	return binary.LittleEndian.Uint64(v[:8]), binary.LittleEndian.Uint64(v[8:])
}

// inlineMask keeps the first n of a word's 8 bytes (n in 0..8).
func inlineMask(n int) uint64 {
	if n >= 8 {
		return math.MaxUint64
	}
	return 1<<(8*uint(n)) - 1
}

// DecodeByteArrayViews decodes n BYTE_ARRAY values as views appended to
// dst (two words a value, see [View]): a value longer than ViewInlineSize
// points into the page's value section (the src given to Reset) as buffer
// buf, so the views stay valid only while that memory is neither freed nor
// reused. Truncation is reported as by [PlainDecoder.DecodeByteArray], with
// the views of the values before it appended; a value section beyond
// math.MaxInt32 bytes is [ErrLimit] (a view's offset has 32 bits).
func (d *PlainDecoder) DecodeByteArrayViews(dst []uint64, n int, buf uint32) ([]uint64, error) {
	src := d.src
	if len(src) > math.MaxInt32 {
		return dst, errLimit("PLAIN BYTE_ARRAY value section of %d bytes is beyond a view's 32-bit offsets", len(src))
	}
	base := len(dst)
	dst = growLen(dst, 2*n)
	out := dst[base:]
	pos := d.pos
	m := 0
	for ; m < n; m++ {
		if len(src)-pos < 4 {
			break
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		if uint64(l) > uint64(len(src)-pos-4) {
			break
		}
		pos += 4
		w := out[2*m : 2*m+2 : 2*m+2]
		switch {
		case l > ViewInlineSize:
			w[0] = uint64(l) | uint64(binary.LittleEndian.Uint32(src[pos:]))<<32
			w[1] = uint64(buf) | uint64(pos)<<32
		case pos+ViewInlineSize <= len(src):
			// Whole words read past the value and masked: no copy call.
			a := binary.LittleEndian.Uint64(src[pos:]) & inlineMask(int(l))
			var b uint64
			if l > 8 {
				b = uint64(binary.LittleEndian.Uint32(src[pos+8:])) & inlineMask(int(l)-8)
			}
			w[0] = uint64(l) | a<<32
			w[1] = a>>32 | b<<32
		default:
			w[0], w[1] = View(src[pos:pos+int(l)], buf, 0)
		}
		pos += int(l)
	}
	d.pos = pos
	dst = dst[:base+2*m]
	if m < n {
		return dst, errTruncated("PLAIN BYTE_ARRAY: value %d of %d runs past the page", m, n)
	}
	return dst, nil
}

// Rebase goes on decoding from src, which must hold the same bytes as the
// value section given to Reset (a copy of it), at the same position.
func (d *PlainDecoder) Rebase(src []byte) {
	if len(src) == len(d.src) {
		d.src = src
	}
}

// AppendViews appends the views of the byte arrays that offsets and data
// describe (Offsets[i] to Offsets[i+1] in data; offsets as
// [PlainDecoder.DecodeByteArray] returns them, a leading 0 included) to
// dst, the long ones pointing into data as buffer buf. data is at most
// math.MaxInt32 bytes.
func AppendViews(dst []uint64, offsets []int32, data []byte, buf uint32) []uint64 {
	for i := 0; i+1 < len(offsets); i++ {
		lo, hi := offsets[i], offsets[i+1]
		a, b := View(data[lo:hi], buf, uint32(lo))
		dst = append(dst, a, b)
	}
	return dst
}
