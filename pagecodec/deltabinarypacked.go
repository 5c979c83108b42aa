package pagecodec

// DELTA_BINARY_PACKED (Encodings.md, "Delta Encoding (DELTA_BINARY_PACKED =
// 5)"):
//
//	page      = header block*
//	header    = uvarint(block size in values, a multiple of 128)
//	            uvarint(miniblocks per block; values per miniblock is a
//	                    multiple of 32)
//	            uvarint(total value count)
//	            zigzag-varint(first value)
//	block     = zigzag-varint(min delta) bit-width-byte{miniblocks}
//	            miniblock*
//	miniblock = values-per-miniblock deltas minus min delta, bit-packed
//	            LSB first at the miniblock's bit width
//
// Value i+1 = value i + min delta + packed delta. The arithmetic wraps in 64
// bits for INT64 and INT32 alike, so INT32 files whose deltas overflow 32
// bits decode. Miniblocks after the last value are absent, but the width
// bytes of the whole block are there; their values, like the padding bits of
// the last miniblock, are ignored.

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// chunkValues is the most values of a miniblock unpacked at a time; any
// multiple of 8 values of any width ends on a byte.
const chunkValues = 32

// DeltaBinaryPackedDecoder decodes DELTA_BINARY_PACKED INT32 or INT64 values.
// The zero value is ready after [DeltaBinaryPackedDecoder.Reset]; decoding
// allocates nothing, whatever the counts in the header say.
type DeltaBinaryPackedDecoder struct {
	src []byte
	pos int

	blockSize    int
	miniblocks   int
	perMiniblock int
	total        int // values in the page
	done         int // values returned

	last     uint64
	minDelta uint64
	widths   []byte // bit widths of the current block
	mb       int    // current miniblock in the block
	mbLeft   int    // values of the current miniblock not yet unpacked

	buf      [chunkValues]uint64 // unpacked deltas (min delta not yet added)
	bufPos   int
	bufLen   int
	unpacked int  // deltas unpacked so far
	started  bool // first value returned
}

// Reset starts decoding src, which may extend past the encoded values (as in
// DELTA_LENGTH_BYTE_ARRAY).
func (d *DeltaBinaryPackedDecoder) Reset(src []byte) error {
	*d = DeltaBinaryPackedDecoder{src: src}
	blockSize, err := d.uvarint("block size")
	if err != nil {
		return err
	}
	miniblocks, err := d.uvarint("miniblock count")
	if err != nil {
		return err
	}
	total, err := d.uvarint("total value count")
	if err != nil {
		return err
	}
	// The spec asks for multiples of 128 and 32; multiples of 8 (whole
	// bytes per group) are accepted so that the spec's own examples, with
	// blocks of 8, decode.
	if blockSize == 0 || blockSize%8 != 0 || blockSize > math.MaxInt32 {
		return errCorrupt("DELTA_BINARY_PACKED block size %d", blockSize)
	}
	if miniblocks == 0 || blockSize%miniblocks != 0 || (blockSize/miniblocks)%8 != 0 {
		return errCorrupt("DELTA_BINARY_PACKED %d miniblocks in a block of %d", miniblocks, blockSize)
	}
	if total > math.MaxInt32 {
		return errLimit("DELTA_BINARY_PACKED total value count %d", total)
	}
	first, n := binary.Varint(d.src[d.pos:])
	if n <= 0 {
		return d.varintErr(n, "first value")
	}
	d.pos += n
	d.blockSize, d.miniblocks = int(blockSize), int(miniblocks)
	d.perMiniblock = int(blockSize / miniblocks)
	d.total = int(total)
	d.last = uint64(first)
	return nil
}

func (d *DeltaBinaryPackedDecoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.src[d.pos:])
	if n <= 0 {
		return 0, d.varintErr(n, what)
	}
	d.pos += n
	return v, nil
}

func (d *DeltaBinaryPackedDecoder) varintErr(n int, what string) error {
	if n == 0 {
		return errTruncated("DELTA_BINARY_PACKED %s at byte %d", what, d.pos)
	}
	return errCorrupt("DELTA_BINARY_PACKED %s at byte %d overflows 64 bits", what, d.pos)
}

// Len returns the number of values not yet decoded.
func (d *DeltaBinaryPackedDecoder) Len() int { return d.total - d.done }

// DecodeInt64 decodes len(dst) values. Asking for more than [Len] values is
// an error wrapping [ErrCorrupt] and io.ErrUnexpectedEOF.
func (d *DeltaBinaryPackedDecoder) DecodeInt64(dst []int64) (int, error) {
	return decodeDelta(d, dst)
}

// DecodeInt32 decodes len(dst) values, keeping the low 32 bits of each.
func (d *DeltaBinaryPackedDecoder) DecodeInt32(dst []int32) (int, error) {
	return decodeDelta(d, dst)
}

func decodeDelta[T int32 | int64](d *DeltaBinaryPackedDecoder, dst []T) (int, error) {
	want := len(dst)
	if want > d.total-d.done {
		dst = dst[:d.total-d.done]
	}
	n := 0
	if len(dst) > 0 && !d.started {
		dst[0] = T(d.last)
		d.started = true
		n = 1
	}
	last := d.last
	for n < len(dst) {
		if d.bufPos == d.bufLen {
			d.last = last
			if err := d.refill(); err != nil {
				d.done += n
				return n, err
			}
		}
		k := min(d.bufLen-d.bufPos, len(dst)-n)
		src := d.buf[d.bufPos : d.bufPos+k]
		out := dst[n:][:len(src)]
		minDelta := d.minDelta
		for i, v := range src {
			last += minDelta + v
			out[i] = T(last)
		}
		d.bufPos += k
		n += k
	}
	d.last = last
	d.done += n
	if n < want {
		return n, errTruncated("DELTA_BINARY_PACKED: %d values asked, %d left", want, n)
	}
	return n, nil
}

// refill unpacks the next 32 deltas, reading a block header when the block
// is exhausted.
func (d *DeltaBinaryPackedDecoder) refill() error {
	for d.mbLeft == 0 {
		d.mb++
		if d.mb >= len(d.widths) {
			if err := d.readBlockHeader(); err != nil {
				return err
			}
		}
		d.mbLeft = d.perMiniblock
	}
	w := uint(d.widths[d.mb])
	if w > 64 {
		return errCorrupt("DELTA_BINARY_PACKED miniblock bit width %d > 64", w)
	}
	k := min(chunkValues, d.mbLeft) // a multiple of 8
	nbytes := int(w) * k / 8
	src := d.src[d.pos:]
	if len(src) >= nbytes {
		bitpack.Unpack64(d.buf[:k], src, w)
		d.pos += nbytes
	} else {
		// The last miniblock may stop after its last value; padding bits
		// that are not there are zeros.
		need := min(d.total-1-d.unpacked, k)
		if len(src)*8 < need*int(w) {
			return errTruncated("DELTA_BINARY_PACKED miniblock of width %d: %d bytes left", w, len(src))
		}
		var pad [chunkValues * 8]byte
		copy(pad[:], src)
		bitpack.Unpack64(d.buf[:k], pad[:], w)
		d.pos = len(d.src)
	}
	d.mbLeft -= k
	d.unpacked += k
	d.bufPos, d.bufLen = 0, k
	return nil
}

func (d *DeltaBinaryPackedDecoder) readBlockHeader() error {
	md, n := binary.Varint(d.src[d.pos:])
	if n <= 0 {
		return d.varintErr(n, "min delta")
	}
	d.pos += n
	if len(d.src)-d.pos < d.miniblocks {
		return errTruncated("DELTA_BINARY_PACKED bit widths at byte %d", d.pos)
	}
	d.minDelta = uint64(md)
	d.widths = d.src[d.pos : d.pos+d.miniblocks]
	d.pos += d.miniblocks
	d.mb = 0
	return nil
}

// deltaBinaryPackedEnd returns the number of bytes the DELTA_BINARY_PACKED
// data at the start of src takes, walking the block headers without
// unpacking, and the number of values it holds.
func deltaBinaryPackedEnd(src []byte) (end, total int, err error) {
	var d DeltaBinaryPackedDecoder
	if err := d.Reset(src); err != nil {
		return 0, 0, err
	}
	left := d.total - 1 // the first value is in the header
	for left > 0 {
		if err := d.readBlockHeader(); err != nil {
			return 0, 0, err
		}
		for _, w := range d.widths {
			if left <= 0 {
				break
			}
			if w > 64 {
				return 0, 0, errCorrupt("DELTA_BINARY_PACKED miniblock bit width %d > 64", w)
			}
			nbytes := int(w) * d.perMiniblock / 8
			if nbytes > len(src)-d.pos {
				need := min(left, d.perMiniblock)
				if (len(src)-d.pos)*8 < need*int(w) {
					return 0, 0, errTruncated("DELTA_BINARY_PACKED miniblock of width %d: %d bytes left", w, len(src)-d.pos)
				}
				nbytes = len(src) - d.pos
			}
			d.pos += nbytes
			left -= d.perMiniblock
		}
	}
	return d.pos, d.total, nil
}

// DeltaBinaryPackedEncoder encodes INT32 or INT64 values with blocks of 128
// values in 4 miniblocks of 32, the layout every reader handles. The zero
// value is ready; [DeltaBinaryPackedEncoder.Reset] reuses its buffers. Values
// are buffered until [DeltaBinaryPackedEncoder.AppendTo] because the header
// starts with the value count.
type DeltaBinaryPackedEncoder struct {
	blocks []byte
	count  int
	first  int64
	prev   int64
	deltas [deltaBlockSize]int64
	nd     int
}

const (
	deltaBlockSize  = 128
	deltaMiniblocks = 4
	deltaPerMini    = deltaBlockSize / deltaMiniblocks
)

// Reset empties the encoder.
func (e *DeltaBinaryPackedEncoder) Reset() {
	e.blocks = e.blocks[:0]
	e.count, e.nd = 0, 0
}

// AppendInt64 adds values.
func (e *DeltaBinaryPackedEncoder) AppendInt64(values []int64) { appendDelta(e, values) }

// AppendInt32 adds values.
func (e *DeltaBinaryPackedEncoder) AppendInt32(values []int32) { appendDelta(e, values) }

func appendDelta[T int32 | int64](e *DeltaBinaryPackedEncoder, values []T) {
	if len(values) == 0 {
		return
	}
	if e.count == 0 {
		e.first, e.prev = int64(values[0]), int64(values[0])
		values = values[1:]
		e.count = 1
	}
	prev := e.prev
	for len(values) > 0 {
		k := min(len(values), deltaBlockSize-e.nd)
		out := e.deltas[e.nd : e.nd+k]
		for i, v := range values[:k] {
			out[i] = int64(v) - prev // wraps for INT64; exact for INT32
			prev = int64(v)
		}
		e.nd += k
		e.count += k
		values = values[k:]
		if e.nd == deltaBlockSize {
			e.flushBlock()
		}
	}
	e.prev = prev
}

func (e *DeltaBinaryPackedEncoder) flushBlock() {
	if e.nd == 0 {
		return
	}
	deltas := e.deltas[:e.nd]
	minDelta := deltas[0]
	for _, v := range deltas[1:] {
		minDelta = min(minDelta, v)
	}
	e.blocks = binary.AppendVarint(e.blocks, minDelta)
	wpos := len(e.blocks)
	e.blocks = append(e.blocks, 0, 0, 0, 0)
	var packed [deltaPerMini]uint64
	for m := 0; m*deltaPerMini < e.nd; m++ {
		part := deltas[m*deltaPerMini : min(e.nd, (m+1)*deltaPerMini)]
		var or uint64
		for i, v := range part {
			packed[i] = uint64(v) - uint64(minDelta)
			or |= packed[i]
		}
		clear(packed[len(part):])
		w := uint(bits.Len64(or))
		e.blocks[wpos+m] = byte(w)
		e.blocks = bitpack.AppendPacked64(e.blocks, packed[:], w)
	}
	e.nd = 0
}

// Len returns the encoded size so far in bytes; pending values of the
// current block are counted at their worst case.
func (e *DeltaBinaryPackedEncoder) Len() int {
	return 2 + 2 + binary.MaxVarintLen32 + binary.MaxVarintLen64 + len(e.blocks) + e.nd*9
}

// Count returns the number of values appended.
func (e *DeltaBinaryPackedEncoder) Count() int { return e.count }

// AppendTo appends the encoded page to dst and empties the encoder.
func (e *DeltaBinaryPackedEncoder) AppendTo(dst []byte) []byte {
	e.flushBlock()
	dst = binary.AppendUvarint(dst, deltaBlockSize)
	dst = binary.AppendUvarint(dst, deltaMiniblocks)
	dst = binary.AppendUvarint(dst, uint64(e.count))
	dst = binary.AppendVarint(dst, e.first)
	dst = append(dst, e.blocks...)
	e.Reset()
	return dst
}
