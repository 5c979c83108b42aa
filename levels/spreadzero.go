package levels

import "math/bits"

// SpreadBlockLen is the number of values in the block that [SpreadZero]
// takes its values from, SpreadBlockCap the length of the block's array:
// SpreadZero reads up to 7 elements past the last value it takes.
const (
	SpreadBlockLen = 1024
	SpreadBlockCap = SpreadBlockLen + 8
)

// SpreadZero writes the slots of dst, whose validity is the bits of valid
// from bit offset, from a block of values: a slot whose bit is set takes
// block[k] and k moves on, the others take block[0], which must hold T's
// zero value. It returns the new k. The values the set bits take,
// block[k:k+set bits], must lie in block[1:SpreadBlockLen].
//
// It lets a decoder put values straight into their slots of the batch
// (column.Reader.DecodeSpread: a block of values decoded in L1, then
// spread), where decoding the batch densely and spreading it in place
// afterwards ([SpreadInPlace]) made a second pass over every value of the
// batch. 64 slots a step: a full word is one copy, an empty one a clear, a
// mixed one goes slot by slot without branches, each slot reading the
// block at its running count of values, or at 0 when null (the index
// masked to the block, so that no bounds check is left in the loop).
// Also tried: each slot the next value regardless, then the null slots
// zeroed by walking their bits (the zero word must then hold 64 values
// past k, and the walk costs a mispredicted exit a word), and a walk of
// the set bits alone (a value each): slower on BenchmarkSpreadDecode.
func SpreadZero[T any](dst []T, block *[SpreadBlockCap]T, k int, valid []byte, offset int) int {
	i := 0
	for ; i+64 <= len(dst); i += 64 {
		w := loadBits(valid, offset+i, 64)
		o := (*[64]T)(dst[i : i+64])
		switch w {
		case ^uint64(0):
			copy(o[:], block[k:k+64])
			k += 64
		case 0:
			clear(o[:])
		default:
			k = spreadZeroWord(o, block, w, k)
		}
	}
	if m := len(dst) - i; m > 0 {
		w := loadBits(valid, offset+i, m)
		o := dst[i:]
		for j := range o {
			v := int(w>>uint(j)) & 1
			o[j] = block[k&-v&(SpreadBlockLen-1)]
			k += v
		}
	}
	return k
}

// spreadZeroWord is SpreadZero's loop over one mixed word w of slots o,
// a byte (eight slots) at a time: the next eight values of the block are
// copied behind a zero into a small array, and each slot takes the
// element that its byte of byteSlots names (0, the zero, when null; else
// one plus the set bits below it), a shift, a mask, a load and a store a
// slot. It returns the new k.
func spreadZeroWord[T any](o *[64]T, block *[SpreadBlockCap]T, w uint64, k int) int {
	var loc [16]T // loc[0] stays zero
	for g := 0; g < 64; g += 8 {
		b := uint8(w >> uint(g))
		v := (*[8]T)(block[k&(SpreadBlockLen-1):])
		loc[1], loc[2], loc[3], loc[4] = v[0], v[1], v[2], v[3]
		loc[5], loc[6], loc[7], loc[8] = v[4], v[5], v[6], v[7]
		t := byteSlots[b]
		d := (*[8]T)(o[g&63:])
		d[0] = loc[t&15]
		d[1] = loc[t>>8&15]
		d[2] = loc[t>>16&15]
		d[3] = loc[t>>24&15]
		d[4] = loc[t>>32&15]
		d[5] = loc[t>>40&15]
		d[6] = loc[t>>48&15]
		d[7] = loc[t>>56&15]
		k += bits.OnesCount8(b)
	}
	return k
}

// byteSlots[b] holds, in its byte j, for slot j of validity byte b: 0
// when the slot is null, else one plus the number of set bits below j.
var byteSlots = func() (t [256]uint64) {
	for b := range 256 {
		c := uint64(0)
		for j := range 8 {
			if b>>j&1 != 0 {
				c++
				t[b] |= c << (8 * j)
			}
		}
	}
	return t
}()
