package levels

import (
	"encoding/binary"
	"math/bits"
)

// Spreading moves densely decoded values (only the non-null ones) into the
// slots of an Arrow array, where null slots sit between them. 4- and 8-byte
// values go 64 slots at a time, branch-free inside mixed words; other
// widths and offsets go run by run, runs of set and unset validity bits
// found 64 bits at a time, each run one copy or one fill. On 64Ki 8-byte
// slots (BenchmarkSpreadInPlace) the word loop takes 80 µs at 10% random
// nulls and 105 µs at 50%, where a bit test per slot and a copy per run
// took 105 µs and 400 µs.

// bitmapSlots are n slots and their validity bitmap.
type bitmapSlots struct {
	n     int
	valid []byte
}

func isSet(bm []byte, i int) bool { return bm[i>>3]>>(i&7)&1 != 0 }

// SpreadWidth copies dense values of width bytes each into the n slots of
// dst whose bit in valid is set (all n slots when valid is nil), in order,
// leaving the other slots as they are (zero in a new buffer). It is
// [Spread] for values whose width is known only at run time (decimals,
// fixed-size binary). Runs of set bits are found 64 slots at a time in a
// register, each run (joined across words) one copy.
func SpreadWidth(dst, dense []byte, width int, valid []byte, n int) {
	if valid == nil {
		copy(dst, dense[:n*width])
		return
	}
	// The pending run: slots [ps, ps+pl) take dense values [pk, pk+pl);
	// a run that continues it across a word boundary extends it.
	ps, pl, pk := 0, 0, 0
	for i := 0; i < n; i += 64 {
		w := loadBits(valid, i, min(64, n-i))
		for w != 0 {
			t := bits.TrailingZeros64(w)
			r := bits.TrailingZeros64(^(w >> uint(t)))
			if i+t != ps+pl {
				copy(dst[ps*width:(ps+pl)*width], dense[pk*width:(pk+pl)*width])
				ps, pk, pl = i+t, pk+pl, 0
			}
			pl += r
			w &^= (1<<uint(r) - 1) << uint(t)
		}
	}
	copy(dst[ps*width:(ps+pl)*width], dense[pk*width:(pk+pl)*width])
}

// SpreadInPlaceWidth moves the nv dense values at the start of buf (width
// bytes each) to the n slots of buf whose bit in valid is set, back to
// front so that no value is overwritten before it moves (a slot never
// precedes its value); the other slots are zeroed. A nil valid means every
// slot holds a value: nothing moves. 4- and 8-byte values go faster
// through [SpreadInPlace]. Runs of set and clear bits are found 64 slots
// at a time in a register, each run (joined across words) one copy or one
// clear. BenchmarkSpreadWidth, process CPU per 64Ki 16-byte slots, where
// runs were found by scanning the bitmap in memory per run: 1% / 10% / 50%
// random nulls 30 / 120 / 445 us -> 31 / 88 / 344 (SpreadWidth 29 / 90 /
// 260 -> 30 / 50 / 103).
func SpreadInPlaceWidth(buf []byte, nv, width int, valid []byte, n int) {
	if valid == nil {
		return
	}
	// The pending run: slots [lo, hi), set (taking the dense values that
	// end at k) or clear; a run of its kind just below extends it. Runs
	// go top down, so a set run's values are below every slot it and the
	// runs above it touch.
	lo, hi, set := n, n, false
	k := nv
	flush := func() {
		if set {
			r := hi - lo
			copy(buf[lo*width:hi*width], buf[(k-r)*width:k*width])
			k -= r
		} else {
			clear(buf[lo*width : hi*width])
		}
	}
	for top := n; top > 0; {
		base := (top - 1) &^ 63
		// The slots [base, top) with their bits at 0..top-base-1.
		w := loadBits(valid, base, top-base)
		j := top - base
		for j > 0 {
			// Slots [base+l, base+j) of one kind, the kind of slot j-1.
			s := w>>uint(j-1)&1 != 0
			z := w & (1<<uint(j) - 1)
			if s {
				z = ^w & (1<<uint(j) - 1)
			}
			l := 64 - bits.LeadingZeros64(z)
			if s != set || base+j != lo {
				flush()
				hi, set = base+j, s
			}
			lo = base + l
			j = l
		}
		top = base
	}
	flush()
}

// SpreadInPlace is [SpreadInPlaceWidth] for 4- and 8-byte values (as
// uint32 or uint64 bits): with AVX-512, whole words through VPEXPAND
// (spreadExpand, 3.5 times as fast); else 64 slots at a time, a full word
// of valid slots is one copy and an empty one a clear; mixed words with
// at most three nulls go run by run (spreadWordRuns), other mixed words
// slot by slot without branches (a slot takes the value below it, masked
// to zero when null).
func SpreadInPlace[T uint32 | uint64](vals []T, nv int, valid []byte, n int) {
	if valid == nil {
		return
	}
	s := bitmapSlots{n: n, valid: valid}
	vals = vals[:n]
	k := nv
	i := s.n
	// The partial word at the end, slot by slot.
	for ; i > 0 && i&63 != 0; i-- {
		v := int(s.valid[(i-1)>>3]>>((i-1)&7)) & 1
		k -= v
		vals[i-1] = vals[k] & -T(v)
	}
	if spreadExpand(vals, s.valid, i, k) {
		return
	}
	for ; i > 0; i -= 64 {
		w := binary.LittleEndian.Uint64(s.valid[(i-64)>>3:])
		switch w {
		case ^uint64(0):
			copy(vals[i-64:i], vals[k-64:k])
			k -= 64
		case 0:
			clear(vals[i-64 : i])
		default:
			if spreadRuns && bits.OnesCount64(^w) <= 3 {
				k = spreadWordRuns(vals, w, i-64, k)
				continue
			}
			if spreadFixed && k >= 64 {
				k = spreadWord64(vals, w, i-64, k)
				continue
			}
			for j := i - 1; j >= i-64; j-- {
				v := int(w>>uint(j&63)) & 1
				k -= v
				vals[j] = vals[k] & -T(v)
			}
		}
	}
}

// spreadFixed selects spreadWord64 for mixed words with at least 64
// values below them; BenchmarkSpreadInPlaceMode turns it off to compare.
// Process CPU per 64Ki 8-byte slots: 10% random nulls 51.5 us where the
// loop on the slice took 59-60 (same run), 50% 52 where it took 54.6.
// Also tried: each slot's source by a population count of the bits below
// it (no running count): 77 and 80 us.
var spreadFixed = true

// spreadWord64 is the per-slot loop over one mixed word on fixed-size
// views of the slots and of the 64 values below k, which the values of the
// word lie in (k >= 64): indexes masked to 0..63 need no bounds checks.
// The word goes a byte at a time, its eight slots unrolled with constant
// shifts (a shift by a variable count costs x86 a move to CL per slot):
// BenchmarkSpreadInPlaceMode/mode=2, process CPU per 64Ki 8-byte slots,
// alternated 6x on a loaded machine: 10% nulls 52.3 -> 45.5 us, 50% 53.5
// -> 43.5 us. Also tried: each slot's source from a table of ranks per
// byte value (no running count): 54 us.
func spreadWord64[T uint32 | uint64](vals []T, w uint64, base, k int) int {
	dst := (*[64]T)(vals[base : base+64])
	src := (*[64]T)(vals[k-64 : k])
	c := 64
	for g := 56; g >= 0; g -= 8 {
		b := uint(w >> uint(g))
		d := (*[8]T)(dst[g&63:])
		v := int(b>>7) & 1
		c -= v
		d[7] = src[c&63] & -T(v)
		v = int(b>>6) & 1
		c -= v
		d[6] = src[c&63] & -T(v)
		v = int(b>>5) & 1
		c -= v
		d[5] = src[c&63] & -T(v)
		v = int(b>>4) & 1
		c -= v
		d[4] = src[c&63] & -T(v)
		v = int(b>>3) & 1
		c -= v
		d[3] = src[c&63] & -T(v)
		v = int(b>>2) & 1
		c -= v
		d[2] = src[c&63] & -T(v)
		v = int(b>>1) & 1
		c -= v
		d[1] = src[c&63] & -T(v)
		v = int(b) & 1
		c -= v
		d[0] = src[c&63] & -T(v)
	}
	return k - (64 - c)
}

// SpreadOffsets writes the n+1 slot offsets of a binary array from the
// dense offsets of its values (one more than the set bits of valid): a
// slot whose bit is clear repeats the offset before it. A nil valid copies.
// Slot i takes dense[rank(i)], rank(i) the set bits below i: 64 slots a
// step, a full word one copy, an empty one a fill, a mixed one slot by
// slot without branches (spreadOffsetsWord).
func SpreadOffsets(out []int32, dense []int32, valid []byte, n int) {
	if valid == nil {
		copy(out, dense[:n+1])
		return
	}
	out = out[:n+1]
	k := 0
	i := 0
	for ; i+64 <= n; i += 64 {
		w := binary.LittleEndian.Uint64(valid[i>>3:])
		switch {
		case w == ^uint64(0):
			copy(out[i:i+64], dense[k:k+64])
			k += 64
		case w == 0:
			fill(out[i:i+64], dense[k])
		case bits.OnesCount64(^w) <= offsetRunNulls:
			// Few nulls: copy the runs between them.
			j := i
			for z := ^w; z != 0; z &= z - 1 {
				p := i + bits.TrailingZeros64(z)
				k += copy(out[j:p], dense[k:k+p-j])
				out[p] = dense[k]
				j = p + 1
			}
			k += copy(out[j:i+64], dense[k:k+i+64-j])
		case k+64 <= len(dense):
			k = spreadOffsetsWord(out, dense, w, i, k)
		default:
			for j := i; j < i+64; j++ {
				out[j] = dense[k]
				k += int(w>>uint(j&63)) & 1
			}
		}
	}
	for ; i < n; i++ {
		out[i] = dense[k]
		k += int(valid[i>>3]>>(i&7)) & 1
	}
	out[n] = dense[k]
}

// offsetRunNulls is the most nulls a mixed word of SpreadOffsets and
// SpreadOffsetsInPlace may have to go run by run (a copy per run) rather
// than slot by slot; tests set it to 0 or 64 to cover both ways.
var offsetRunNulls = 2

// spreadOffsetsWord is SpreadOffsets' per-slot loop over one mixed word
// (slots base..base+63, validity w) on a fixed-size view of the 64 dense
// offsets from k, which the word's slots read (a mixed word has at most
// 63 set bits): a slot takes the offset at the running count, which its
// bit then advances. It returns the new k.
func spreadOffsetsWord(out, dense []int32, w uint64, base, k int) int {
	dst := (*[64]int32)(out[base : base+64])
	src := (*[64]int32)(dense[k : k+64])
	c := 0
	for g := 0; g < 64; g += 8 {
		b := uint(w >> uint(g))
		d := (*[8]int32)(dst[g&63:])
		d[0] = src[c&63]
		c += int(b) & 1
		d[1] = src[c&63]
		c += int(b>>1) & 1
		d[2] = src[c&63]
		c += int(b>>2) & 1
		d[3] = src[c&63]
		c += int(b>>3) & 1
		d[4] = src[c&63]
		c += int(b>>4) & 1
		d[5] = src[c&63]
		c += int(b>>5) & 1
		d[6] = src[c&63]
		c += int(b>>6) & 1
		d[7] = src[c&63]
		c += int(b>>7) & 1
	}
	return k + c
}

// SpreadOffsetsInPlace is [SpreadOffsets] with the nv+1 dense offsets at
// the start of out, back to front: slot i takes the offset after the valid
// slots before it, a count that never exceeds i, so every dense offset is
// read before it is overwritten. Words go as in SpreadOffsets
// (spreadOffsetsWordDown). BenchmarkSpreadOffsets, process CPU per 64Ki
// slots, where a copy or fill per run took 19 / 99 / 420 us at 1% / 10% /
// 50% random nulls: 17 / 37.5 / 36.5 us (SpreadOffsets: 12.8 / 83 / 389
// -> 11.6 / 33 / 35).
func SpreadOffsetsInPlace(out []int32, nv int, valid []byte, n int) {
	if valid == nil {
		return
	}
	out = out[:n+1]
	k := nv
	out[n] = out[k]
	i := n
	// The partial word at the end, slot by slot.
	for ; i > 0 && i&63 != 0; i-- {
		k -= int(valid[(i-1)>>3]>>((i-1)&7)) & 1
		out[i-1] = out[k]
	}
	for ; i > 0; i -= 64 {
		w := binary.LittleEndian.Uint64(valid[(i-64)>>3:])
		switch {
		case w == ^uint64(0):
			copy(out[i-64:i], out[k-64:k])
			k -= 64
		case w == 0:
			fill(out[i-64:i], out[k])
		case bits.OnesCount64(^w) <= offsetRunNulls:
			// Few nulls: move the runs between them, from the top.
			j := i
			for z := ^w; z != 0; {
				p := i - 64 + 63 - bits.LeadingZeros64(z)
				r := j - p - 1
				copy(out[p+1:j], out[k-r:k])
				k -= r
				out[p] = out[k]
				j = p
				z &^= 1 << uint(p&63)
			}
			r := j - (i - 64)
			copy(out[i-64:j], out[k-r:k])
			k -= r
		case k >= 63:
			k = spreadOffsetsWordDown(out, w, i-64, k)
		default:
			for j := i - 1; j >= i-64; j-- {
				k -= int(w>>uint(j&63)) & 1
				out[j] = out[k]
			}
		}
	}
}

// spreadOffsetsWordDown is spreadOffsetsWord back to front and in place,
// on a view of the 64 offsets up to out[k] (k >= 63): a slot's bit first
// lowers the count, then the slot takes the offset there. A mixed word
// has at most 63 set bits, so the count stays in the view.
func spreadOffsetsWordDown(out []int32, w uint64, base, k int) int {
	dst := (*[64]int32)(out[base : base+64])
	src := (*[64]int32)(out[k-63 : k+1])
	c := 63
	for g := 56; g >= 0; g -= 8 {
		b := uint(w >> uint(g))
		d := (*[8]int32)(dst[g&63:])
		c -= int(b>>7) & 1
		d[7] = src[c&63]
		c -= int(b>>6) & 1
		d[6] = src[c&63]
		c -= int(b>>5) & 1
		d[5] = src[c&63]
		c -= int(b>>4) & 1
		d[4] = src[c&63]
		c -= int(b>>3) & 1
		d[3] = src[c&63]
		c -= int(b>>2) & 1
		d[2] = src[c&63]
		c -= int(b>>1) & 1
		d[1] = src[c&63]
		c -= int(b) & 1
		d[0] = src[c&63]
	}
	return k - (63 - c)
}

func fill(s []int32, v int32) {
	for i := range s {
		s[i] = v
	}
}

// SpreadBits is [SpreadWidth] for bit-packed values (BOOLEAN, LSB first):
// dense bit k goes to the k-th slot of dst whose bit in valid is set (all
// n slots when valid is nil). Set bits are or-ed into dst, which must be
// zero in the slots that receive values. Whole bytes without a validity
// bitmap; with one, 64 slots a step: the word's dense bits in one load,
// deposited at the set bits of its validity word. BenchmarkSpreadBits,
// process CPU per 64Ki slots, where a test per slot took 279 / 334 / 411 us
// (no bitmap / 10% / 50% random nulls): 3.1 / 55 / 37 us.
func SpreadBits(dst, dense []byte, valid []byte, n int) {
	if valid == nil {
		full := n / 8
		for i, b := range dense[:full] {
			dst[i] |= b
		}
		if r := n % 8; r != 0 {
			dst[full] |= dense[full] & (1<<r - 1)
		}
		return
	}
	k := 0
	for i := 0; i < n; i += 64 {
		m := min(64, n-i)
		w := loadBits(valid, i, m)
		c := bits.OnesCount64(w)
		if c == 0 {
			continue
		}
		d := loadBits(dense, k, c)
		k += c
		var out uint64
		if c == 64 {
			out = d
		} else {
			for ; w != 0; w &= w - 1 {
				out |= (d & 1) << uint(bits.TrailingZeros64(w))
				d >>= 1
			}
		}
		o := dst[i/8 : i/8+(m+7)/8]
		for j := range o {
			o[j] |= byte(out >> (8 * j))
		}
	}
}

// spreadRuns selects spreadWordRuns for mixed words with at most three
// null slots; BenchmarkSpreadInPlaceMode turns it off to compare. In
// process CPU per 64Ki 8-byte slots: 1% random nulls 23.8 us where the
// per-slot loop took 35; at 10% and 50% the per-slot loop (54 us) stays,
// as runs are short there (runs everywhere: 61 and 224 us).
var spreadRuns = true

// spreadWordRuns spreads the 64 slots from base whose validity word is w
// (neither all set nor all clear), the dense values ending at k, run by
// run from the top: a run of set bits is moved four values a step (loaded
// before they are stored, so the overlap of an in-place move is safe, as
// the slots never precede their values), null slots are zeroed. It returns
// the new k.
func spreadWordRuns[T uint32 | uint64](vals []T, w uint64, base, k int) int {
	top := 64 // slots [top, 64) are done
	for w != 0 {
		hi := 63 - bits.LeadingZeros64(w) // highest set bit
		lo := 0
		if z := ^w & (1<<uint(hi) - 1); z != 0 {
			lo = 64 - bits.LeadingZeros64(z) // above the highest clear bit below hi
		}
		// Null slots (hi, top).
		clear(vals[base+hi+1 : base+top])
		// Values [k-n, k) to slots [lo, hi].
		n := hi - lo + 1
		dst := vals[base+lo : base+hi+1]
		src := vals[k-n : k]
		for len(dst) >= 4 {
			e := len(dst)
			a, b, c, d := src[e-4], src[e-3], src[e-2], src[e-1]
			dst[e-4], dst[e-3], dst[e-2], dst[e-1] = a, b, c, d
			dst, src = dst[:e-4], src[:e-4]
		}
		for j := len(dst) - 1; j >= 0; j-- {
			dst[j] = src[j]
		}
		k -= n
		top = lo
		w &= 1<<uint(lo) - 1
	}
	clear(vals[base : base+top])
	return k
}
