package levels

import (
	"encoding/binary"
	"math/bits"
)

// The bit scans SpreadWidth, SpreadInPlaceWidth and SpreadOffsets used
// before they went 64 slots at a time in a register; kept for
// TestNextPrevBit and the references of the tests.

// validWord returns the 64 validity bits of word k of bm, zero past its
// end.
func validWord(bm []byte, k int) uint64 {
	if i := k * 8; i+8 <= len(bm) {
		return binary.LittleEndian.Uint64(bm[i:])
	}
	var w uint64
	for j, b := range bm[k*8:] {
		w |= uint64(b) << (8 * j)
	}
	return w
}

// nextBit returns the first index in [i, n) whose bit is set (or unset,
// when set is false), or n.
func nextBit(bm []byte, i, n int, set bool) int {
	for i < n {
		w := validWord(bm, i>>6)
		if !set {
			w = ^w
		}
		if w >>= uint(i & 63); w != 0 {
			return min(i+bits.TrailingZeros64(w), n)
		}
		i = (i | 63) + 1
	}
	return n
}

// prevBit returns the last index below i whose bit is set (or unset), or
// -1.
func prevBit(bm []byte, i int, set bool) int {
	for i > 0 {
		k := (i - 1) >> 6
		w := validWord(bm, k)
		if !set {
			w = ^w
		}
		if r := uint(i - k*64); r < 64 {
			w &= 1<<r - 1
		}
		if w != 0 {
			return k*64 + 63 - bits.LeadingZeros64(w)
		}
		i = k * 64
	}
	return -1
}
