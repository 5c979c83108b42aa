package bitpack

import (
	"errors"
	"fmt"
	"io"
)

// The RLE/bit-packing hybrid (Encodings.md, "Run Length Encoding /
// Bit-Packing Hybrid"), without the 4-byte length prefix that data page v1
// levels carry:
//
//	encoded-data   = run*
//	run            = bit-packed-run | rle-run
//	bit-packed-run = uleb128(groups<<1 | 1) then groups*width bytes,
//	                 8 values per group, packed LSB-first (see Unpack32)
//	rle-run        = uleb128(count<<1) then the value in ceil(width/8)
//	                 little-endian bytes
//
// Run lengths are in [1, 2^31-1]. Writers that cut the last bit-packed group
// short (only the bytes holding real values) exist, so a reader clamps a
// truncated final run to the whole values present instead of failing.

// ErrCorrupt is wrapped by every error caused by malformed encoded input.
var ErrCorrupt = errors.New("corrupt input")

// MaxRunLen is the longest run the hybrid allows (note 3 of the spec).
const MaxRunLen = 1<<31 - 1

// ByteWidth returns the number of bytes an RLE run stores its value in.
func ByteWidth(width uint) int { return int(width+7) / 8 }

// Run is one run of the hybrid encoding.
type Run struct {
	// Packed holds the bit-packed values of a bit-packed run; nil for an RLE
	// run. It aliases the source. When Count is not a multiple of 8 (a
	// truncated final run) its last group may be short of bytes.
	Packed []byte
	// Value is the repeated value of an RLE run.
	Value uint64
	// Count is the number of values in the run.
	Count int
}

// HybridReader reads the RLE/bit-packing hybrid run by run. The zero value is
// ready after [HybridReader.Reset]; it is not safe for concurrent use.
type HybridReader struct {
	src   []byte
	pos   int
	width uint

	// The run being consumed by Decode32 and how many of its values were
	// already returned.
	cur     Run
	curUsed int
	group   [8]uint32 // unpacked group holding cur value curUsed when curUsed%8 != 0
}

// Reset starts reading src (the hybrid data without length prefix) with the
// given bit width (0..64; values of runs read with Decode32 must fit 32 bits).
func (r *HybridReader) Reset(src []byte, width uint) {
	if width > 64 {
		panic("bitpack: HybridReader width > 64")
	}
	*r = HybridReader{src: src, width: width}
}

// Offset returns the number of bytes of src consumed by the runs read so far.
func (r *HybridReader) Offset() int { return r.pos }

// NextRun returns the next run. It returns io.EOF when src is exhausted
// exactly, and errors wrapping [ErrCorrupt] (and io.ErrUnexpectedEOF for
// truncation) otherwise. A run partly consumed by Decode32 is returned first,
// reduced to its rest; that rest must start on a group boundary (a programmer
// error, which panics, otherwise). Zero-length runs are skipped.
func (r *HybridReader) NextRun() (Run, error) {
	var run Run
	err := r.NextRunInto(&run)
	return run, err
}

// NextRunInto is [HybridReader.NextRun] storing the run in *run (left
// unchanged on error), for callers that keep the run in a struct of their
// own and so avoid copying it.
func (r *HybridReader) NextRunInto(run *Run) error {
	if rem := r.cur.Count - r.curUsed; rem > 0 {
		rest := r.cur
		rest.Count = rem
		if rest.Packed != nil {
			if r.curUsed%8 != 0 {
				panic("bitpack: NextRun after Decode32 stopped inside a bit-packed group")
			}
			rest.Packed = rest.Packed[min(len(rest.Packed), r.curUsed/8*int(r.width)):]
		}
		r.cur, r.curUsed = Run{}, 0
		*run = rest
		return nil
	}
	if r.cur.Count != 0 {
		r.cur, r.curUsed = Run{}, 0
	}
	for {
		if r.pos >= len(r.src) {
			return io.EOF
		}
		start := r.pos
		var h uint64
		if b := r.src[r.pos]; b < 0x80 {
			h = uint64(b) // the common one-byte header
			r.pos++
		} else {
			var err error
			if h, err = r.header(); err != nil {
				return err
			}
		}
		if h&1 == 0 {
			count := h >> 1
			if count > MaxRunLen {
				return fmt.Errorf("bitpack: RLE run length %d > 2^31-1 at offset %d: %w", count, start, ErrCorrupt)
			}
			nb := ByteWidth(r.width)
			if len(r.src)-r.pos < nb {
				return fmt.Errorf("bitpack: RLE run value truncated at offset %d: %w: %w", r.pos, ErrCorrupt, io.ErrUnexpectedEOF)
			}
			var v uint64
			for i, b := range r.src[r.pos : r.pos+nb] {
				v |= uint64(b) << (8 * i)
			}
			r.pos += nb
			if r.width < 64 && v>>r.width != 0 {
				return fmt.Errorf("bitpack: RLE run value %d wider than %d bits at offset %d: %w", v, r.width, start, ErrCorrupt)
			}
			if count == 0 {
				continue
			}
			run.Packed, run.Value, run.Count = nil, v, int(count)
			return nil
		}
		groups := h >> 1
		if groups > MaxRunLen/8 {
			return fmt.Errorf("bitpack: bit-packed run of %d groups > 2^31-1 values at offset %d: %w", groups, start, ErrCorrupt)
		}
		if groups == 0 {
			continue
		}
		count := int(groups) * 8
		nb := int(groups) * int(r.width)
		avail := len(r.src) - r.pos
		if avail < nb {
			// Clamp a truncated final run to the values wholly present.
			count = avail * 8 / int(r.width)
			if count == 0 {
				return fmt.Errorf("bitpack: bit-packed run truncated at offset %d: %w: %w", start, ErrCorrupt, io.ErrUnexpectedEOF)
			}
			nb = avail
		}
		run.Packed, run.Value, run.Count = r.src[r.pos:r.pos+nb:r.pos+nb], 0, count
		r.pos += nb
		return nil
	}
}

// header reads a run header: a ULEB128 value below 2^32 (2^31 runs shifted
// left by one plus the flag bit), at most 5 bytes.
func (r *HybridReader) header() (uint64, error) {
	var h uint64
	start := r.pos
	for i := 0; i < 5; i++ {
		if r.pos >= len(r.src) {
			return 0, fmt.Errorf("bitpack: run header truncated at offset %d: %w: %w", start, ErrCorrupt, io.ErrUnexpectedEOF)
		}
		b := r.src[r.pos]
		r.pos++
		h |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if h>>32 != 0 {
				break
			}
			return h, nil
		}
	}
	return 0, fmt.Errorf("bitpack: run header at offset %d overflows 32 bits: %w", start, ErrCorrupt)
}

// Decode32 fills dst with the next values (the width must be at most 32).
// It returns n < len(dst) only at the end of the data, with a nil error; a
// malformed run gives an error wrapping [ErrCorrupt] after the n values that
// preceded it.
func (r *HybridReader) Decode32(dst []uint32) (n int, err error) {
	if r.width > 32 {
		panic("bitpack: Decode32 with width > 32")
	}
	for n < len(dst) {
		if r.curUsed == r.cur.Count {
			run, err := r.NextRun()
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
			r.cur, r.curUsed = run, 0
		}
		k := min(len(dst)-n, r.cur.Count-r.curUsed)
		out := dst[n : n+k]
		if r.cur.Packed == nil {
			v := uint32(r.cur.Value)
			for i := range out {
				out[i] = v
			}
		} else {
			r.unpackInto(out)
		}
		r.curUsed += k
		n += k
	}
	return n, nil
}

// Next32 returns the next values of one run, at most len(dst) of them
// (the width must be at most 32): for an RLE run, n repeats of value with
// rle set and dst untouched, so that a caller fills its output with one
// value instead of storing n copies first; for a bit-packed run, n values
// unpacked into dst[:n]. n is 0 only at the end of the data (nil error) or
// with an error wrapping [ErrCorrupt]. It mixes freely with
// [HybridReader.Decode32].
func (r *HybridReader) Next32(dst []uint32) (n int, value uint32, rle bool, err error) {
	if r.width > 32 {
		panic("bitpack: Next32 with width > 32")
	}
	if r.curUsed == r.cur.Count {
		run, err := r.NextRun()
		if err == io.EOF {
			return 0, 0, false, nil
		}
		if err != nil {
			return 0, 0, false, err
		}
		r.cur, r.curUsed = run, 0
	}
	k := min(len(dst), r.cur.Count-r.curUsed)
	if r.cur.Packed == nil {
		r.curUsed += k
		return k, uint32(r.cur.Value), true, nil
	}
	r.unpackInto(dst[:k])
	r.curUsed += k
	return k, 0, false, nil
}

// PackedGroups hands out whole groups of a bit-packed run for the caller
// to unpack itself (with [UnpackGather32]): when the reader stands on a
// group boundary of a bit-packed run, after loading the next run if the
// current one is used up, it returns the bytes of up to max/8 of the
// run's whole groups and their count of values n, consumed. Otherwise (an
// RLE run, a partial group, the end of the data) n is 0 and the caller
// goes on with [HybridReader.Next32]. Errors are those of NextRun.
func (r *HybridReader) PackedGroups(max int) (src []byte, n int, err error) {
	if r.curUsed == r.cur.Count {
		run, err := r.NextRun()
		if err == io.EOF {
			return nil, 0, nil
		}
		if err != nil {
			return nil, 0, err
		}
		r.cur, r.curUsed = run, 0
	}
	if r.cur.Packed == nil || r.curUsed%8 != 0 {
		return nil, 0, nil
	}
	w := int(r.width)
	groups := min(max/8, (r.cur.Count-r.curUsed)/8)
	off := r.curUsed / 8 * w
	r.curUsed += groups * 8
	return r.cur.Packed[off : off+groups*w], groups * 8, nil
}

// unpackInto copies the next len(out) values of the current bit-packed run,
// starting at value r.curUsed (which the caller advances).
func (r *HybridReader) unpackInto(out []uint32) {
	w := int(r.width)
	if w == 0 {
		clear(out)
		return
	}
	used := r.curUsed
	for len(out) > 0 {
		if i := used % 8; i != 0 {
			c := copy(out, r.group[i:])
			out = out[c:]
			used += c
			continue
		}
		off := used / 8 * w
		if groups := min(len(out)/8, (len(r.cur.Packed)-off)/w); groups > 0 {
			Unpack32(out[:groups*8], r.cur.Packed[off:], r.width)
			out = out[groups*8:]
			used += groups * 8
			continue
		}
		// A partial group: through r.group, zero-padded if its bytes are short.
		var pad [32]byte
		copy(pad[:w], r.cur.Packed[off:])
		Unpack32(r.group[:], pad[:w], r.width)
		c := copy(out, r.group[:])
		out = out[c:]
		used += c
	}
}
