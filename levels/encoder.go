package levels

import (
	"encoding/binary"
	"fmt"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// Encoder writes levels in the RLE/bit-packing hybrid, through
// [bitpack.HybridEncoder] (RLE for runs of 8 or more, bit-packing between
// them). The zero value is ready after
// [Encoder.Reset]; it is reusable and not safe for concurrent use.
type Encoder struct {
	hybrid   bitpack.HybridEncoder
	maxLevel int16
	scratch  [256]uint32
}

// Reset discards the encoded data and starts over for levels up to maxLevel.
func (e *Encoder) Reset(maxLevel int16) {
	if maxLevel < 0 {
		panic("levels: Encoder max level < 0")
	}
	e.maxLevel = maxLevel
	e.hybrid.Reset(Width(maxLevel))
}

// Append encodes levels. A level outside [0, maxLevel] is an error wrapping
// [ErrInvalid]; the levels before its chunk of 256 are kept.
func (e *Encoder) Append(levels []int16) error {
	for base := 0; base < len(levels); base += len(e.scratch) {
		chunk := levels[base:min(len(levels), base+len(e.scratch))]
		var bad uint16
		s := e.scratch[:len(chunk)]
		for i, l := range chunk {
			bad = max(bad, uint16(l))
			s[i] = uint32(uint16(l))
		}
		if bad > uint16(e.maxLevel) {
			for i, l := range chunk {
				if uint16(l) > uint16(e.maxLevel) {
					return fmt.Errorf("levels: level %d at %d outside [0, %d]: %w", l, base+i, e.maxLevel, ErrInvalid)
				}
			}
		}
		e.hybrid.Append32(s)
	}
	return nil
}

// Len returns the encoded size so far, within a few bytes before Finish.
func (e *Encoder) Len() int { return e.hybrid.Len() }

// Finish flushes the encoder and returns the hybrid data without length
// prefix (data page v2). The bytes are owned by the Encoder until Reset.
func (e *Encoder) Finish() []byte { return e.hybrid.Finish() }

// AppendWithLength finishes the encoder and appends the data page v1 form
// (4-byte little-endian length, then the hybrid data) to dst.
func (e *Encoder) AppendWithLength(dst []byte) []byte {
	b := e.hybrid.Finish()
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	return append(dst, b...)
}

// AppendBitPacked appends levels in the deprecated BIT_PACKED encoding (MSB
// first, zero-padded to a byte) to dst. Levels must be in [0, maxLevel].
func AppendBitPacked(dst []byte, levels []int16, maxLevel int16) []byte {
	w := Width(maxLevel)
	if w == 0 {
		return dst
	}
	var acc uint32 // pending bits, most significant first, fewer than 8
	var n uint
	for _, l := range levels {
		acc = acc<<w | uint32(uint16(l))&(1<<w-1)
		n += w
		for n >= 8 {
			dst = append(dst, byte(acc>>(n-8)))
			n -= 8
		}
		acc &= 1<<n - 1
	}
	if n > 0 {
		dst = append(dst, byte(acc<<(8-n)))
	}
	return dst
}
