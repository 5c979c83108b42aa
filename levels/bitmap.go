package levels

import (
	"encoding/binary"
	"math/bits"
)

// Validity bitmaps are Arrow's: bit i of the bitmap is bit i%8 of byte i/8
// (LSB first), 1 meaning valid. Functions writing a bitmap at a bit offset
// keep the bits before the offset, write every bit of the range (the buffer
// need not be zeroed) and clear the bits after the range in its last byte.

// bitWriter appends bits to a bitmap 64 at a time: acc holds the nacc (< 64)
// pending bits that go to bm starting at byte at.
type bitWriter struct {
	bm   []byte
	at   int
	acc  uint64
	nacc uint
}

func newBitWriter(bm []byte, offset int) bitWriter {
	w := bitWriter{bm: bm, at: offset / 8, nacc: uint(offset % 8)}
	if w.nacc != 0 {
		w.acc = uint64(bm[w.at]) & (1<<w.nacc - 1)
	}
	return w
}

// put appends the n (1..64) low bits of v; higher bits of v must be zero.
func (w *bitWriter) put(v uint64, n uint) {
	w.acc |= v << w.nacc
	if w.nacc+n < 64 {
		w.nacc += n
		return
	}
	binary.LittleEndian.PutUint64(w.bm[w.at:], w.acc)
	w.at += 8
	// Go shifts of 64 or more give 0, which is right for nacc == 0.
	w.acc = v >> (64 - w.nacc)
	w.nacc = w.nacc + n - 64
}

// fill appends n copies of bit, whole words at a time.
func (w *bitWriter) fill(bit bool, n int) {
	var word uint64
	if bit {
		word = ^uint64(0)
	}
	if n < 64 {
		if n > 0 {
			w.put(word>>(64-uint(n)), uint(n))
		}
		return
	}
	head := 64 - w.nacc
	w.put(word>>w.nacc, head) // nacc is 0 afterwards
	n -= int(head)
	bm := w.bm[w.at : w.at+n/64*8]
	for i := 0; i+8 <= len(bm); i += 8 {
		binary.LittleEndian.PutUint64(bm[i:], word)
	}
	w.at += len(bm)
	if r := uint(n % 64); r > 0 {
		w.put(word>>(64-r), r)
	}
}

// copyBits appends n bits of src starting at bit from (LSB-first, as
// bit-packed width-1 runs and bitmaps both are) and returns how many are set.
func (w *bitWriter) copyBits(src []byte, from, n int) (ones int) {
	// Align the source to a byte, then move 64 bits a step.
	if r := from % 8; r != 0 && n > 0 {
		k := min(8-r, n)
		v := uint64(src[from/8]>>r) & (1<<k - 1)
		ones += bits.OnesCount64(v)
		w.put(v, uint(k))
		from += k
		n -= k
	}
	s := src[from/8:]
	for n >= 64 {
		v := binary.LittleEndian.Uint64(s)
		ones += bits.OnesCount64(v)
		w.put(v, 64)
		s = s[8:]
		n -= 64
	}
	if n > 0 {
		// The last n < 64 bits in one step: bit-packed runs of levels are
		// often a few groups of 8 between RLE runs (10% random nulls:
		// 3,663 runs per 64Ki levels), where a put per byte cost more
		// than the header of the run.
		var v uint64
		if len(s) >= 8 {
			v = binary.LittleEndian.Uint64(s)
		} else {
			for j, b := range s[:(n+7)/8] {
				v |= uint64(b) << (8 * j)
			}
		}
		v &= 1<<uint(n) - 1
		ones += bits.OnesCount64(v)
		w.put(v, uint(n))
	}
	return ones
}

// flush stores the pending bits; the rest of the last byte is cleared.
func (w *bitWriter) flush() {
	for i := uint(0); i < w.nacc; i += 8 {
		w.bm[w.at] = byte(w.acc >> i)
		w.at++
	}
	w.acc, w.nacc = 0, 0
}

// geq returns 1 if l >= threshold else 0, without a branch.
func geq(l, threshold int16) uint64 {
	return uint64(uint32(int32(threshold)-int32(l)-1) >> 31)
}

// ValidityFromLevels writes one validity bit per level into bitmap starting
// at bit offset: 1 where the level is >= threshold. With threshold = the
// definition level of an optional node this is that node's validity over the
// slots the levels stand for; for a flat column with max definition level 1
// it is the column's validity. It returns the number of 0 bits (nullCount).
// threshold must be >= 0. bitmap must hold
// (offset+len(levels)+7)/8 bytes.
//
// Branch-free: four levels are compared per 64-bit word (SWAR) and 64 bits
// are stored at once.
func ValidityFromLevels(bitmap []byte, offset int, levels []int16, threshold int16) (nullCount int) {
	w := newBitWriter(bitmap, offset)
	total, set := len(levels), 0
	if threshold <= 0 {
		// Every non-negative level passes; handle this rare case plainly.
		for _, l := range levels {
			b := uint64(uint16(l)>>15) ^ 1
			set += int(b)
			w.put(b, 1)
		}
		w.flush()
		return total - set
	}
	bias := swarBias(threshold)
	for len(levels) >= 64 {
		// Unrolled: constant indexes and shifts, no bounds checks.
		l := (*[64]int16)(levels)
		word := geq8(lanes(l[0:4]), lanes(l[4:8]), bias) |
			geq8(lanes(l[8:12]), lanes(l[12:16]), bias)<<8 |
			geq8(lanes(l[16:20]), lanes(l[20:24]), bias)<<16 |
			geq8(lanes(l[24:28]), lanes(l[28:32]), bias)<<24 |
			geq8(lanes(l[32:36]), lanes(l[36:40]), bias)<<32 |
			geq8(lanes(l[40:44]), lanes(l[44:48]), bias)<<40 |
			geq8(lanes(l[48:52]), lanes(l[52:56]), bias)<<48 |
			geq8(lanes(l[56:60]), lanes(l[60:64]), bias)<<56
		set += bits.OnesCount64(word)
		w.put(word, 64)
		levels = levels[64:]
	}
	for len(levels) >= 4 {
		b := geq4(lanes(levels[:4]), bias)
		set += bits.OnesCount64(b)
		w.put(b, 4)
		levels = levels[4:]
	}
	for _, l := range levels {
		b := geq(l, threshold)
		set += int(b)
		w.put(b, 1)
	}
	w.flush()
	return total - set
}

const (
	lanesHigh = 0x8000_8000_8000_8000
	lanesLow  = 0x7fff_7fff_7fff_7fff
	// gather4 moves bit 15 of each 16-bit lane, once shifted to bit 0, to
	// bits 48..51 (the shifts 48, 33, 18, 3 make no carries; see
	// ValidityFromLevels).
	gather4 = 1<<48 | 1<<33 | 1<<18 | 1<<3
)

// lanes packs four levels into the 16-bit lanes of a word, level 0 lowest.
func lanes(l []int16) uint64 {
	q := (*[4]int16)(l)
	return uint64(uint16(q[0])) | uint64(uint16(q[1]))<<16 | uint64(uint16(q[2]))<<32 | uint64(uint16(q[3]))<<48
}

// swarBias is 0x8000-threshold in every lane (threshold in 1..0x7fff).
func swarBias(threshold int16) uint64 {
	return uint64(0x8000-uint16(threshold)) * 0x0001_0001_0001_0001
}

// geq4 compares four little-endian int16 lanes of x with the threshold
// folded into bias, returning 4 bits. For a lane l: its low 15 bits plus
// 0x8000-t reach bit 15 exactly when they are >= t, and cannot carry out of
// the lane; a negative l (bit 15 set) fails.
func geq4(x, bias uint64) uint64 {
	s := (x&lanesLow + bias) &^ x & lanesHigh
	return (s >> 15) * gather4 >> 48 & 0xf
}

// geq8 is geq4 for the eight lanes of x (levels 0..3) and y (4..7): the
// flags of y, shifted to bits 4, 20, 36, 52, ride the same multiply, whose
// products for both sets land on distinct bits (no carries) and put the
// eight flags in order at bits 48..55. One multiply per 8 levels instead
// of 4; with the 64-level step unrolled, BenchmarkDefToBitmap/src=int16
// took 16.2 us per 64Ki levels where geq4 in a loop took 27.
func geq8(x, y, bias uint64) uint64 {
	s := (x&lanesLow+bias)&^x&lanesHigh>>15 | (y&lanesLow+bias)&^y&lanesHigh>>11
	return s * gather4 >> 48 & 0xff
}

// CountNulls returns the number of 0 bits among n bits of bitmap from bit
// offset.
func CountNulls(bitmap []byte, offset, n int) int {
	total, set := n, 0
	for n > 0 && offset%8 != 0 {
		set += int(bitmap[offset/8] >> (offset % 8) & 1)
		offset++
		n--
	}
	b := bitmap[offset/8:]
	for n >= 64 {
		set += bits.OnesCount64(binary.LittleEndian.Uint64(b))
		b = b[8:]
		n -= 64
	}
	for i := 0; n > 0; i++ {
		k := min(n, 8)
		set += bits.OnesCount8(b[i] & byte(1<<k-1))
		n -= k
	}
	return total - set
}

// loadBits returns the n (1..64) bits of bitmap from bit pos, LSB first.
func loadBits(bitmap []byte, pos, n int) uint64 {
	b, s := pos/8, uint(pos%8)
	var v uint64
	if b+9 <= len(bitmap) {
		v = binary.LittleEndian.Uint64(bitmap[b:]) >> s
		if s != 0 {
			v |= uint64(bitmap[b+8]) << (64 - s)
		}
	} else {
		need := (int(s) + n + 7) / 8
		for i, x := range bitmap[b : b+need] {
			v |= uint64(x) << (8 * i)
		}
		v >>= s
		if need == 9 {
			v |= uint64(bitmap[b+8]) << (64 - s)
		}
	}
	if n < 64 {
		v &= 1<<uint(n) - 1
	}
	return v
}

// Spread copies dense values, in order, into the slots of dst whose bit in
// valid (from bit offset) is set, and returns how many it used. Slots whose
// bit is clear are left untouched. It moves whole runs of set bits with copy,
// so mostly-valid data costs little more than one copy. dense must hold at
// least as many values as there are set bits (the caller knows numValues).
func Spread[T any](dst, dense []T, valid []byte, offset int) int {
	k := 0
	for i := 0; i < len(dst); i += 64 {
		n := min(64, len(dst)-i)
		w := loadBits(valid, offset+i, n)
		if n == 64 && w == ^uint64(0) {
			copy(dst[i:i+64], dense[k:k+64])
			k += 64
			continue
		}
		for w != 0 {
			t := bits.TrailingZeros64(w)
			r := bits.TrailingZeros64(^(w >> uint(t)))
			copy(dst[i+t:i+t+r], dense[k:k+r])
			k += r
			w &^= (1<<uint(r) - 1) << uint(t)
		}
	}
	return k
}

// GrowBitmap makes the bitmap b hold at least nbits bits, keeping its
// content; bits it adds are clear. It reallocates with room to spare, so
// that a bitmap grown page after page is copied a logarithmic number of
// times.
func GrowBitmap(b []byte, nbits int) []byte {
	need := (nbits + 7) / 8
	if len(b) >= need {
		return b
	}
	if cap(b) >= need {
		old := len(b)
		b = b[:need]
		clear(b[old:])
		return b
	}
	nb := make([]byte, need, 2*need)
	copy(nb, b)
	return nb
}
