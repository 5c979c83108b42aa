package levels

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// Level encodings of data pages (parquet.thrift Encoding; Encodings.md):
//
//   - RLE: the RLE/bit-packing hybrid (see package bitpack) at bit width
//     bits.Len(maxLevel). Data page v1 prefixes it with its byte length as a
//     4-byte little-endian integer; data page v2 does not (the page header
//     carries the lengths).
//   - BIT_PACKED (deprecated): numLevels values of that width back to back,
//     packed from the most significant bit of each byte, zero-padded to a
//     byte. Unlike the hybrid's bit-packed runs, value 0's first bit is bit 7
//     of byte 0.

// Width returns the bit width of levels up to maxLevel.
func Width(maxLevel int16) uint { return uint(bits.Len16(uint16(maxLevel))) }

// Decoder decodes one page's repetition or definition levels. The zero value
// is ready for one of the Reset methods; it is reusable and not safe for
// concurrent use. It produces exactly the numLevels given to Reset and
// reports an error if the data holds fewer, or a level above maxLevel.
type Decoder struct {
	maxLevel  int16
	width     uint
	remaining int

	hybrid  bitpack.HybridReader
	run     bitpack.Run
	runUsed int
	// src and pos: the hybrid data and the next run's offset when the
	// width is 1, read by nextRun1 instead of hybrid.
	src []byte
	pos int

	bitPacked bool
	bp        []byte
	bpPos     uint // next bit of bp

	scratch [256]uint32
	levels  [256]int16
}

func (d *Decoder) reset(maxLevel int16, numLevels int) error {
	if maxLevel < 0 {
		return fmt.Errorf("levels: max level %d < 0: %w", maxLevel, ErrInvalid)
	}
	if numLevels < 0 || numLevels > bitpack.MaxRunLen {
		return fmt.Errorf("levels: %d levels out of range: %w", numLevels, ErrCorrupt)
	}
	d.maxLevel, d.width, d.remaining = maxLevel, Width(maxLevel), numLevels
	d.run, d.runUsed = bitpack.Run{}, 0
	d.bitPacked, d.bp, d.bpPos = false, nil, 0
	return nil
}

// ResetRLE starts decoding numLevels levels up to maxLevel from src, the
// RLE/bit-packing hybrid without length prefix (data page v2, where src is
// exactly the levels section).
func (d *Decoder) ResetRLE(src []byte, maxLevel int16, numLevels int) error {
	if err := d.reset(maxLevel, numLevels); err != nil {
		return err
	}
	d.hybrid.Reset(src, d.width)
	d.src, d.pos = src, 0
	return nil
}

// ResetRLEWithLength is ResetRLE for data page v1 levels: src starts with the
// 4-byte little-endian length of the hybrid data. It returns the number of
// bytes of src the levels occupy (4 + length), where the next section starts.
func (d *Decoder) ResetRLEWithLength(src []byte, maxLevel int16, numLevels int) (n int, err error) {
	if len(src) < 4 {
		return 0, fmt.Errorf("levels: %d bytes, want a 4-byte length: %w: %w", len(src), ErrCorrupt, io.ErrUnexpectedEOF)
	}
	length := binary.LittleEndian.Uint32(src)
	if uint64(length) > uint64(len(src)-4) {
		return 0, fmt.Errorf("levels: length %d > %d bytes left: %w: %w", length, len(src)-4, ErrCorrupt, io.ErrUnexpectedEOF)
	}
	if err := d.ResetRLE(src[4:4+length], maxLevel, numLevels); err != nil {
		return 0, err
	}
	return 4 + int(length), nil
}

// ResetBitPacked starts decoding numLevels levels in the deprecated
// BIT_PACKED encoding and returns the number of bytes they occupy.
func (d *Decoder) ResetBitPacked(src []byte, maxLevel int16, numLevels int) (n int, err error) {
	if err := d.reset(maxLevel, numLevels); err != nil {
		return 0, err
	}
	need := (numLevels*int(d.width) + 7) / 8
	if need > len(src) {
		return 0, fmt.Errorf("levels: BIT_PACKED needs %d bytes, have %d: %w: %w", need, len(src), ErrCorrupt, io.ErrUnexpectedEOF)
	}
	d.bitPacked, d.bp = true, src[:need]
	return need, nil
}

// Remaining returns the number of levels not yet decoded.
func (d *Decoder) Remaining() int { return d.remaining }

// next makes d.run hold at least one unused value.
func (d *Decoder) next() error {
	for d.runUsed == d.run.Count {
		d.runUsed = 0
		if d.width == 1 && !d.bitPacked {
			if err := d.nextRun1(); err != nil {
				d.run.Count = 0
				return err
			}
			continue
		}
		if err := d.hybrid.NextRunInto(&d.run); err != nil {
			d.run.Count = 0
			if err == io.EOF {
				return fmt.Errorf("levels: data ends %d levels short: %w: %w", d.remaining, ErrCorrupt, io.ErrUnexpectedEOF)
			}
			return fmt.Errorf("levels: %w", err)
		}
		if d.run.Packed == nil && d.run.Value > uint64(d.maxLevel) {
			return fmt.Errorf("levels: level %d > max %d: %w", d.run.Value, d.maxLevel, ErrCorrupt)
		}
	}
	return nil
}

// unpack unpacks the next k (<= 256) values of the current bit-packed run
// into d.scratch and checks them against maxLevel.
func (d *Decoder) unpack(k int) ([]uint32, error) {
	w := int(d.width)
	first := d.runUsed / 8 // group holding the first value
	last := (d.runUsed + k + 7) / 8
	out := d.scratch[:(last-first)*8]
	if w > 0 {
		src := d.run.Packed[first*w:]
		full := min(last-first, len(src)/w)
		bitpack.Unpack32(out[:full*8], src, d.width)
		if full < last-first {
			// The final group of a truncated run: zero-pad its bytes.
			var pad [16]byte
			copy(pad[:w], src[full*w:])
			bitpack.Unpack32(out[full*8:full*8+8], pad[:w], d.width)
		}
	} else {
		clear(out)
	}
	vals := out[d.runUsed%8 : d.runUsed%8+k]
	var mx uint32
	for _, v := range vals {
		mx = max(mx, v)
	}
	if mx > uint32(d.maxLevel) {
		return nil, fmt.Errorf("levels: level %d > max %d: %w", mx, d.maxLevel, ErrCorrupt)
	}
	d.runUsed += k
	return vals, nil
}

// Decode writes the next min(len(dst), Remaining()) levels to dst.
func (d *Decoder) Decode(dst []int16) (n int, err error) {
	dst = dst[:min(len(dst), d.remaining)]
	if d.bitPacked {
		d.decodeBitPacked(dst)
		if err := d.checkMax(dst); err != nil {
			// Report only the levels before the first bad one as decoded.
			n = 0
			for n < len(dst) && dst[n] <= d.maxLevel {
				n++
			}
			return n, err
		}
		d.remaining -= len(dst)
		return len(dst), nil
	}
	for n < len(dst) {
		if err := d.next(); err != nil {
			return n, err
		}
		k := min(len(dst)-n, d.run.Count-d.runUsed)
		if d.run.Packed == nil {
			fill16(dst[n:n+k], int16(d.run.Value))
			d.runUsed += k
		} else if w := int(d.width); w <= 3 && d.runUsed%8 == 0 && k >= 8 &&
			// Whole groups of the narrow widths of nested columns' levels
			// go straight to int16; a level above max is left to the
			// general code below to report.
			unpackNarrow(dst[n:], d.run.Packed[min(len(d.run.Packed), d.runUsed/8*w):], k/8, d.width, d.maxLevel, &k) {
			d.runUsed += k
		} else {
			k = min(k, 256-d.runUsed%8)
			vals, err := d.unpack(k)
			if err != nil {
				return n, err
			}
			out := dst[n : n+k]
			for i, v := range vals[:len(out)] {
				out[i] = int16(v)
			}
		}
		n += k
		d.remaining -= k
	}
	return n, nil
}

// fill16 sets every level of dst to v, four levels a store.
func fill16(dst []int16, v int16) {
	x := uint64(uint16(v)) * 0x0001_0001_0001_0001
	for len(dst) >= 4 {
		put4((*[4]int16)(dst), x)
		dst = dst[4:]
	}
	for i := range dst {
		dst[i] = v
	}
}

// put4 stores the four 16-bit lanes of x (lowest first), one 64-bit store
// once the compiler merges them.
func put4(dst *[4]int16, x uint64) {
	dst[0] = int16(x)
	dst[1] = int16(x >> 16)
	dst[2] = int16(x >> 32)
	dst[3] = int16(x >> 48)
}

// spread[w] moves four w-bit fields (w = 1..3), packed LSB-first at bits
// 0, w, 2w, 3w, to the low bits of the 16-bit lanes of the product: field
// j lands at 16j when the copy shifted by j*(16-w) is added, and the four
// copies (4w bits each, 16-w apart) do not overlap for w <= 3, so the sum
// has no carries.
var spread = [4]uint64{
	1: 1 | 1<<15 | 1<<30 | 1<<45,
	2: 1 | 1<<14 | 1<<28 | 1<<42,
	3: 1 | 1<<13 | 1<<26 | 1<<39,
}

// unpackNarrow unpacks up to groups whole groups of 8 levels of width w
// (1..3) from the bit-packed src into dst, as many as src and dst hold,
// and sets *n to the number of levels. It reports false, with dst
// undefined, if there is no whole group or a level exceeds maxLevel.
// Levels go 4 at a time from one multiply. BenchmarkDecodeNestedLevels,
// CPU per level, before (unpack to uint32, check, convert) and after:
// list<int64> repetition levels (width 1) 1.35 -> 0.30 ns, definition
// levels (width 2, many short RLE runs: the per-run cost now dominates)
// 2.3 -> 1.2 ns, list<struct> leaf definition levels (width 3) 1.8 -> 0.5 ns.
func unpackNarrow(dst []int16, src []byte, groups int, w uint, maxLevel int16, n *int) bool {
	if w == 0 || w > 3 {
		return false
	}
	groups = min(groups, len(src)/int(w), len(dst)/8)
	if groups == 0 {
		return false
	}
	dst, src = dst[:8*groups], src[:groups*int(w)]
	mul, mask := spread[w], uint64(1<<w-1)*0x0001_0001_0001_0001
	// A lane above maxLevel (< 8 here) sets its bit 15 when added to
	// 0x8000-(maxLevel+1); with maxLevel >= 2^w-1 none can.
	bias := uint64(0x8000-min(int(maxLevel)+1, 0x8000)) * 0x0001_0001_0001_0001
	var over uint64
	switch w {
	case 1:
		for i, b := range src {
			d := (*[8]int16)(dst[8*i:])
			lo := uint64(b&15) * mul & mask
			hi := uint64(b>>4) * mul & mask
			put4((*[4]int16)(d[:4]), lo)
			put4((*[4]int16)(d[4:]), hi)
			over |= (lo + bias) | (hi + bias)
		}
	case 2:
		for i, b := range src {
			x := uint64(b) * mul & mask
			put4((*[4]int16)(dst[4*i:]), x)
			over |= x + bias
		}
	case 3:
		for g := range groups {
			b := (*[3]byte)(src[3*g:])
			v := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16
			d := (*[8]int16)(dst[8*g:])
			lo := v & 0xfff * mul & mask
			hi := v >> 12 * mul & mask
			put4((*[4]int16)(d[:4]), lo)
			put4((*[4]int16)(d[4:]), hi)
			over |= (lo + bias) | (hi + bias)
		}
	}
	if over&lanesHigh != 0 {
		return false
	}
	*n = 8 * groups
	return true
}

func (d *Decoder) checkMax(levels []int16) error {
	var mx int16
	for _, l := range levels {
		mx = max(mx, l)
	}
	if mx > d.maxLevel {
		return fmt.Errorf("levels: level %d > max %d: %w", mx, d.maxLevel, ErrCorrupt)
	}
	return nil
}

// decodeBitPacked reads len(dst) MSB-first values.
func (d *Decoder) decodeBitPacked(dst []int16) {
	w := d.width
	if w == 0 {
		clear(dst)
		return
	}
	pos := d.bpPos
	for i := range dst {
		// A value of at most 16 bits spans at most 3 bytes.
		b := pos / 8
		var v uint32
		for j := uint(0); j < 3; j++ {
			v <<= 8
			if int(b+j) < len(d.bp) {
				v |= uint32(d.bp[b+j])
			}
		}
		dst[i] = int16(v >> (24 - pos%8 - w) & (1<<w - 1))
		pos += w
	}
	d.bpPos = pos
}

// DecodeValidity decodes the next n levels straight into validity bits: bit
// offset+i of bitmap is 1 where level i equals maxLevel (for a flat column
// with max definition level 1: where the value is present). RLE runs become
// one fill; bit-packed runs of width 1 are copied 64 bits a step; wider runs
// are compared 8 at a time. n must not exceed Remaining (an error
// otherwise). bitmap must hold (offset+n+7)/8 bytes.
func (d *Decoder) DecodeValidity(bitmap []byte, offset, n int) (nullCount int, err error) {
	if n > d.remaining || n < 0 {
		return 0, fmt.Errorf("levels: %d levels wanted, %d left: %w", n, d.remaining, ErrCorrupt)
	}
	if d.width == 1 && !d.bitPacked && validity1Fast {
		return d.decodeValidity1(bitmap, offset, n)
	}
	if d.bitPacked {
		for n > 0 {
			k := min(n, len(d.levels))
			lv := d.levels[:k]
			d.decodeBitPacked(lv)
			if err := d.checkMax(lv); err != nil {
				return nullCount, err
			}
			nullCount += ValidityFromLevels(bitmap, offset, lv, d.maxLevel)
			offset += k
			d.remaining -= k
			n -= k
		}
		return nullCount, nil
	}
	w := newBitWriter(bitmap, offset)
	defer w.flush()
	maxLevel := d.maxLevel
	width1 := d.width == 1
	for n > 0 {
		if d.runUsed == d.run.Count {
			// next, without its call for the width-1 runs of flat
			// columns (one call per run; runs average 18 levels at
			// 10% random nulls).
			var err error
			if width1 {
				d.runUsed = 0
				if err = d.nextRun1(); err != nil {
					d.run.Count = 0
				}
			} else {
				err = d.next()
			}
			if err != nil {
				return nullCount, err
			}
		}
		k := min(n, d.run.Count-d.runUsed)
		switch {
		case d.run.Packed == nil:
			valid := d.run.Value == uint64(maxLevel)
			w.fill(valid, k)
			if !valid {
				nullCount += k
			}
			d.runUsed += k
		case d.width == 1 && maxLevel == 1:
			// The packed bits are the validity bits.
			nullCount += k - w.copyBits(d.run.Packed, d.runUsed, k)
			d.runUsed += k
		default:
			k = min(k, 256-d.runUsed%8)
			vals, err := d.unpack(k)
			if err != nil {
				return nullCount, err
			}
			m := uint32(maxLevel)
			for len(vals) >= 8 {
				v := (*[8]uint32)(vals)
				b := eq32(v[0], m) | eq32(v[1], m)<<1 | eq32(v[2], m)<<2 | eq32(v[3], m)<<3 |
					eq32(v[4], m)<<4 | eq32(v[5], m)<<5 | eq32(v[6], m)<<6 | eq32(v[7], m)<<7
				nullCount += 8 - bits.OnesCount8(uint8(b))
				w.put(b, 8)
				vals = vals[8:]
			}
			for _, v := range vals {
				b := eq32(v, m)
				nullCount += 1 - int(b)
				w.put(b, 1)
			}
		}
		n -= k
		d.remaining -= k
	}
	return nullCount, nil
}

// eq32 returns 1 if v == m else 0, without a branch (v, m < 2^31).
func eq32(v, m uint32) uint64 { return uint64((v^m)-1) >> 31 & 1 }

// nextRun1 reads the next run of width-1 levels into d.run (the levels of
// flat optional columns): bitpack.HybridReader.NextRunInto without its
// generality, whose cost per run showed at 10% random nulls, where runs
// average 18 levels (BenchmarkDefToBitmap/src=rle/nulls=10). Errors and
// the clamping of a truncated final run are NextRunInto's.
func (d *Decoder) nextRun1() error {
	src := d.src
	for {
		pos := d.pos
		if pos >= len(src) {
			return fmt.Errorf("levels: data ends %d levels short: %w: %w", d.remaining, ErrCorrupt, io.ErrUnexpectedEOF)
		}
		start := pos
		var h uint64
		if b := src[pos]; b < 0x80 {
			h = uint64(b)
			pos++
		} else {
			for i := 0; ; i++ {
				if i == 5 {
					return fmt.Errorf("levels: run header at offset %d overflows 32 bits: %w", start, ErrCorrupt)
				}
				if pos >= len(src) {
					return fmt.Errorf("levels: run header truncated at offset %d: %w: %w", start, ErrCorrupt, io.ErrUnexpectedEOF)
				}
				b := src[pos]
				pos++
				h |= uint64(b&0x7f) << (7 * i)
				if b < 0x80 {
					if h>>32 != 0 {
						return fmt.Errorf("levels: run header at offset %d overflows 32 bits: %w", start, ErrCorrupt)
					}
					break
				}
			}
		}
		if h&1 == 0 {
			count := h >> 1
			if count > bitpack.MaxRunLen {
				return fmt.Errorf("levels: RLE run length %d > 2^31-1 at offset %d: %w", count, start, ErrCorrupt)
			}
			if pos >= len(src) {
				return fmt.Errorf("levels: RLE run value truncated at offset %d: %w: %w", pos, ErrCorrupt, io.ErrUnexpectedEOF)
			}
			v := src[pos]
			pos++
			d.pos = pos
			if v > 1 {
				return fmt.Errorf("levels: RLE run value %d wider than 1 bit at offset %d: %w", v, start, ErrCorrupt)
			}
			if uint64(v) > uint64(d.maxLevel) {
				return fmt.Errorf("levels: level %d > max %d: %w", v, d.maxLevel, ErrCorrupt)
			}
			if count == 0 {
				continue
			}
			d.run.Packed, d.run.Value, d.run.Count = nil, uint64(v), int(count)
			return nil
		}
		groups := h >> 1
		if groups > bitpack.MaxRunLen/8 {
			return fmt.Errorf("levels: bit-packed run of %d groups > 2^31-1 values at offset %d: %w", groups, start, ErrCorrupt)
		}
		d.pos = pos
		if groups == 0 {
			continue
		}
		nb := int(groups) // one byte per group of 8 at width 1
		if avail := len(src) - pos; avail < nb {
			// Clamp a truncated final run to the values wholly present.
			if avail == 0 {
				return fmt.Errorf("levels: bit-packed run truncated at offset %d: %w: %w", start, ErrCorrupt, io.ErrUnexpectedEOF)
			}
			nb = avail
		}
		d.run.Packed, d.run.Value, d.run.Count = src[pos:pos+nb:pos+nb], 0, nb*8
		d.pos = pos + nb
		return nil
	}
}
