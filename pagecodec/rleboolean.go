package pagecodec

// RLE for BOOLEAN values (Encodings.md, "Run Length Encoding / Bit-Packing
// Hybrid (RLE = 3)"): in a data page the values section is
//
//	page = uint32-le(length) RLE/bit-packing-hybrid(bit width 1){length bytes}
//
// A bit-packed run of width 1 is already an LSB-first bitmap, so it is copied
// bit-block-wise; an RLE run is a fill.

import (
	"encoding/binary"
	"io"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// RLEBooleanDecoder decodes RLE-encoded BOOLEAN values into a bitmap. The
// zero value is ready after [RLEBooleanDecoder.Reset].
type RLEBooleanDecoder struct {
	hr   bitpack.HybridReader
	run  bitpack.Run
	used int
}

// Reset starts decoding src, the values section with its 4-byte length.
func (d *RLEBooleanDecoder) Reset(src []byte) error {
	*d = RLEBooleanDecoder{}
	if len(src) < 4 {
		return errTruncated("RLE BOOLEAN length prefix")
	}
	n := binary.LittleEndian.Uint32(src)
	if uint64(n) > uint64(len(src)-4) {
		return errTruncated("RLE BOOLEAN data of %d bytes, %d in the page", n, len(src)-4)
	}
	d.hr.Reset(src[4:4+n], 1)
	return nil
}

// DecodeBoolean decodes n values into bitmap starting at bit bitOffset.
func (d *RLEBooleanDecoder) DecodeBoolean(bitmap []byte, bitOffset, n int) (int, error) {
	done := 0
	for done < n {
		if d.used == d.run.Count {
			run, err := d.hr.NextRun()
			if err == io.EOF {
				return done, errTruncated("RLE BOOLEAN: %d values asked, %d left", n, done)
			}
			if err != nil {
				return done, errCorrupt("RLE BOOLEAN: %v", err)
			}
			if run.Packed != nil && len(run.Packed)*8 < run.Count {
				run.Count = len(run.Packed) * 8
			}
			if run.Packed == nil && run.Value > 1 {
				return done, errCorrupt("RLE BOOLEAN run value %d", run.Value)
			}
			d.run, d.used = run, 0
		}
		k := min(n-done, d.run.Count-d.used)
		if d.run.Packed != nil {
			copyBits(bitmap, bitOffset+done, d.run.Packed, d.used, k)
		} else {
			fillBits(bitmap, bitOffset+done, k, d.run.Value != 0)
		}
		d.used += k
		done += k
	}
	return done, nil
}

// fillBits sets or clears n bits of bitmap from bit off.
func fillBits(bitmap []byte, off, n int, v bool) {
	var fill byte
	if v {
		fill = 0xff
	}
	for n > 0 && off&7 != 0 {
		m := byte(1) << (off & 7)
		bitmap[off>>3] = bitmap[off>>3]&^m | fill&m
		off++
		n--
	}
	full := n >> 3
	b := bitmap[off>>3 : off>>3+full]
	for i := range b {
		b[i] = fill
	}
	off += full * 8
	n -= full * 8
	for ; n > 0; n-- {
		m := byte(1) << (off & 7)
		bitmap[off>>3] = bitmap[off>>3]&^m | fill&m
		off++
	}
}

// RLEBooleanEncoder encodes BOOLEAN values as RLE with the 4-byte length
// prefix of a data page. The zero value is ready after
// [RLEBooleanEncoder.Reset].
type RLEBooleanEncoder struct {
	he  bitpack.HybridEncoder
	buf [lengthChunk]uint32
}

// Reset empties the encoder.
func (e *RLEBooleanEncoder) Reset() { e.he.Reset(1) }

// Append adds the n values of bitmap starting at bit bitOffset.
func (e *RLEBooleanEncoder) Append(bitmap []byte, bitOffset, n int) {
	for n > 0 {
		// Whole bytes of equal bits extend a run in O(1).
		if bitOffset&7 == 0 && n >= 8 {
			if b := bitmap[bitOffset>>3]; b == 0 || b == 0xff {
				e.he.AppendRepeat(uint32(b&1), 8)
				bitOffset += 8
				n -= 8
				continue
			}
		}
		k := min(n, 8-bitOffset&7)
		for i := range e.buf[:k] {
			p := bitOffset + i
			e.buf[i] = uint32(bitmap[p>>3]>>(p&7)) & 1
		}
		e.he.Append32(e.buf[:k])
		bitOffset += k
		n -= k
	}
}

// Len returns the encoded size so far in bytes (within a few bytes).
func (e *RLEBooleanEncoder) Len() int { return 4 + e.he.Len() }

// AppendTo appends the encoded values to dst and empties the encoder.
func (e *RLEBooleanEncoder) AppendTo(dst []byte) []byte {
	b := e.he.Finish()
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	dst = append(dst, b...)
	e.Reset()
	return dst
}
