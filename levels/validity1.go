package levels

import (
	"encoding/binary"
	"math/bits"
)

// Definition levels of a flat optional column (max level 1, bit width 1)
// are the validity bitmap already: a bit-packed run's bytes are its
// validity bits, an RLE run of 1 or 0 is a fill. decodeValidity1 is the
// loop of DecodeValidity for them, one run per iteration with every piece
// of state in locals: the bitmap word being built, the position in the
// hybrid data, a one-byte run header parsed in place (nextRun1 is called
// only for longer headers, truncated runs and errors) and a bit-packed
// run of up to 57 bits moved with one load. At 10% random nulls the runs
// average 18 levels (3,663 runs per 64Ki levels) and the calls to
// nextRun1, bitWriter.copyBits and bitWriter.fill per run were most of the
// time (BenchmarkDefToBitmap/src=rle/nulls=10).

// validity1Fast selects decodeValidity1; the differential test turns it
// off to compare with the general loop.
var validity1Fast = true

// decodeValidity1 is DecodeValidity for d.width == 1 on hybrid data.
// n <= d.remaining (checked by the caller).
func (d *Decoder) decodeValidity1(bm []byte, offset, n int) (nullCount int, err error) {
	at, nacc := offset/8, uint(offset%8)
	var acc uint64
	if nacc != 0 {
		acc = uint64(bm[at]) & (1<<nacc - 1)
	}
	src := d.src
	pos := d.pos
	// The current run: count levels, used of them consumed; a bit-packed
	// run's bits start at byte pstart of src, an RLE run has packed false.
	count, used := d.run.Count, d.runUsed
	packed := d.run.Packed != nil
	pstart := 0
	if packed {
		// nextRun1 (and this loop) leave a bit-packed run's bytes just
		// before pos.
		pstart = pos - len(d.run.Packed)
	}
	value := d.run.Value
	ones, left := 0, n
	for left > 0 {
		if used == count {
			// The next run; the one-byte headers of runs under 64
			// levels (RLE) or 64 groups (bit-packed) in place.
			if pos < len(src) && src[pos] < 0x80 {
				h := int(src[pos])
				if h&1 == 0 {
					if pos+1 < len(src) && src[pos+1] <= 1 {
						value = uint64(src[pos+1])
						pos += 2
						count, used, packed = h>>1, 0, false
						continue // count may be 0: read the next header
					}
				} else if g := h >> 1; pos+1+g <= len(src) {
					pstart = pos + 1
					pos = pstart + g
					count, used, packed = 8*g, 0, true
					continue
				}
			}
			d.pos = pos
			d.run.Count, d.runUsed = 0, 0
			err = d.nextRun1()
			pos = d.pos
			if err != nil {
				count, used = 0, 0
				break
			}
			count, used, value = d.run.Count, 0, d.run.Value
			packed = d.run.Packed != nil
			if packed {
				pstart = pos - len(d.run.Packed)
			}
			continue
		}
		k := min(left, count-used)
		if !packed {
			var word uint64
			if value != 0 {
				word = ^uint64(0)
				ones += k
			}
			r := k
			if int(nacc)+r >= 64 {
				// Complete the pending word, then whole words.
				acc |= word << nacc
				binary.LittleEndian.PutUint64(bm[at:], acc)
				at += 8
				r -= 64 - int(nacc)
				nacc, acc = 0, 0
				for ; r >= 64; r -= 64 {
					binary.LittleEndian.PutUint64(bm[at:], word)
					at += 8
				}
			}
			if r > 0 {
				acc |= (word >> (64 - uint(r))) << nacc
				nacc += uint(r)
			}
		} else {
			bit := 8*pstart + used // bit position in src
			r := k
			// Long runs (many nulls) 64 bits a step; nacc stays.
			if s := uint(bit & 7); s == 0 {
				for b := bit >> 3; r >= 64 && b+8 <= len(src); b += 8 {
					v := binary.LittleEndian.Uint64(src[b:])
					ones += bits.OnesCount64(v)
					binary.LittleEndian.PutUint64(bm[at:], acc|v<<nacc)
					at += 8
					acc = v >> (64 - nacc)
					bit += 64
					r -= 64
				}
			} else {
				for b := bit >> 3; r >= 64 && b+9 <= len(src); b += 8 {
					v := binary.LittleEndian.Uint64(src[b:])>>s | uint64(src[b+8])<<(64-s)
					ones += bits.OnesCount64(v)
					binary.LittleEndian.PutUint64(bm[at:], acc|v<<nacc)
					at += 8
					acc = v >> (64 - nacc)
					bit += 64
					r -= 64
				}
			}
			for r > 0 {
				c := min(r, 57)
				var v uint64
				if b := bit >> 3; b+8 <= len(src) {
					v = binary.LittleEndian.Uint64(src[b:]) >> (bit & 7)
				} else {
					for j, x := range src[b:] {
						v |= uint64(x) << (8 * j)
					}
					v >>= bit & 7
				}
				v &= 1<<uint(c) - 1
				ones += bits.OnesCount64(v)
				acc |= v << nacc
				if nacc+uint(c) >= 64 {
					binary.LittleEndian.PutUint64(bm[at:], acc)
					at += 8
					acc = v >> (64 - nacc)
					nacc = nacc + uint(c) - 64
				} else {
					nacc += uint(c)
				}
				bit += c
				r -= c
			}
		}
		used += k
		left -= k
	}
	// Flush the pending bits; the rest of the last byte is cleared.
	for i := uint(0); i < nacc; i += 8 {
		bm[at] = byte(acc >> i)
		at++
	}
	consumed := n - left
	d.remaining -= consumed
	d.pos = pos
	d.run.Count, d.runUsed, d.run.Value = count, used, value
	if packed {
		d.run.Packed = src[pstart:pos:pos]
	} else {
		d.run.Packed = nil
	}
	return consumed - ones, err
}
