package column

import (
	"errors"
	"fmt"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// DecodeSpread appends the next n slots of a flat column to dst, whose
// validity [Reader.DecodeValidity] just wrote to bits offset..offset+n-1
// of valid: a slot whose bit is set takes the page's next value, the
// others are zeroed. dst's typed slice (INT32, INT64, FLOAT or DOUBLE, not
// IndexMode) then holds slots rather than values, and dst.N counts them.
//
// It replaces decoding the batch's values densely and moving them to their
// slots afterwards (levels.SpreadInPlace over the whole batch, a second
// pass over memory the batch had long left): the values go through a
// small buffer, in L1, into their slots (levels.SpreadZero); a call
// without nulls decodes straight into its slots. Every encoding of the
// four types goes this way, so a batch may span pages of different
// encodings.
func (r *Reader) DecodeSpread(dst *Values, valid []byte, offset, n int) error {
	if dst.IndexMode {
		return errors.New("column: DecodeSpread in IndexMode")
	}
	if n == 0 {
		return nil
	}
	v := &r.dec
	numValues := n - levels.CountNulls(valid, offset, n)
	if err := v.checkOut(dst.heldBytes(), numValues); err != nil {
		return r.locate(err)
	}
	var err error
	var dict *Values
	if v.dict != nil {
		dict = &v.dict.Values
	} else {
		dict = new(Values) // never escapes: only its empty slices are read
	}
	b := &v.block
	switch dst.Physical {
	case format.Type_INT32:
		b.Int32 = blockBuf(b.Int32)
		dst.Int32, err = spreadSlots(v, dst.Int32, dict.Int32, b.Int32, valid, offset, n, numValues)
	case format.Type_INT64:
		b.Int64 = blockBuf(b.Int64)
		dst.Int64, err = spreadSlots(v, dst.Int64, dict.Int64, b.Int64, valid, offset, n, numValues)
	case format.Type_FLOAT:
		b.Float32 = blockBuf(b.Float32)
		dst.Float32, err = spreadSlots(v, dst.Float32, dict.Float32, b.Float32, valid, offset, n, numValues)
	case format.Type_DOUBLE:
		b.Float64 = blockBuf(b.Float64)
		dst.Float64, err = spreadSlots(v, dst.Float64, dict.Float64, b.Float64, valid, offset, n, numValues)
	default:
		err = fmt.Errorf("column: DecodeSpread of %v values", dst.Physical)
	}
	if err != nil {
		return r.locate(err)
	}
	dst.N += n
	return nil
}

// spreadSlotsStep is how many slots DecodeSpread spreads at a time from
// its block of values (levels.SpreadZero; 8 KiB of 8-byte values, in L1
// between the decode and the spread): the block is topped up before a
// step that might find it short, in multiples of 8 values so that the
// dictionary's bit-packed groups are unpacked whole
// (pagecodec.DecodeDict).
const spreadSlotsStep = 256

// spreadBuffers are DecodeSpread's blocks of values, one per type,
// allocated on first use (a block on the stack escaped through the
// decoders' interfaces). Element 0 of each stays zero (null slots copy
// it).
type spreadBuffers struct {
	Int32   *[levels.SpreadBlockCap]int32
	Int64   *[levels.SpreadBlockCap]int64
	Float32 *[levels.SpreadBlockCap]float32
	Float64 *[levels.SpreadBlockCap]float64
}

// blockBuf returns b, or a new block if it is nil.
func blockBuf[T any](b *[levels.SpreadBlockCap]T) *[levels.SpreadBlockCap]T {
	if b == nil {
		b = new([levels.SpreadBlockCap]T)
	}
	return b
}

// spreadSlots appends n slots to s, taking the numValues values of the set
// bits of valid (from bit offset) from the page, through block.
func spreadSlots[T int32 | int64 | float32 | float64](v *valueDecoder, s, dict []T, block *[levels.SpreadBlockCap]T, valid []byte, offset, n, numValues int) ([]T, error) {
	s, out := extend(s, n)
	if numValues == n {
		return s, v.decodeDense(out, dict)
	}
	if numValues == 0 {
		clear(out)
		return s, nil
	}
	left := numValues // values not yet decoded
	p, have := 1, 1   // block[p:have] are decoded, not yet spread
	for i := 0; i < n; i += spreadSlotsStep {
		slots := out[i:min(n, i+spreadSlotsStep)]
		if have-p < len(slots) && left > 0 {
			have = 1 + copy(block[1:], block[p:have])
			p = 1
			k := min((levels.SpreadBlockLen-have)&^7, left)
			if err := v.decodeDense(block[have:have+k], dict); err != nil {
				return s, err
			}
			have += k
			left -= k
		}
		p = levels.SpreadZero(slots, block, p, valid, offset+i)
	}
	return s, nil
}

// decodeDense decodes exactly len(dst) values of the page into dst: from
// dict when the page is dictionary encoded, else in the page's encoding
// (the arms of decodeInt32, decodeInt64, decodeFloat and decodeDouble).
func (v *valueDecoder) decodeDense(dst any, dict any) error {
	var got, want int
	var err error
	switch d := dst.(type) {
	case []int32:
		want = len(d)
		switch {
		case v.dict != nil:
			got, err = pagecodec.DecodeDict(&v.dictIdx, d, dict.([]int32))
		case v.enc == format.Encoding_PLAIN:
			got, err = v.plain.DecodeInt32(d)
		case v.enc == format.Encoding_DELTA_BINARY_PACKED:
			got, err = v.delta.DecodeInt32(d)
		case v.enc == format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeInt32(d)
		}
	case []int64:
		want = len(d)
		switch {
		case v.dict != nil:
			got, err = pagecodec.DecodeDict(&v.dictIdx, d, dict.([]int64))
		case v.enc == format.Encoding_PLAIN:
			got, err = v.plain.DecodeInt64(d)
		case v.enc == format.Encoding_DELTA_BINARY_PACKED:
			got, err = v.delta.DecodeInt64(d)
		case v.enc == format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeInt64(d)
		}
	case []float32:
		want = len(d)
		switch {
		case v.dict != nil:
			got, err = pagecodec.DecodeDict(&v.dictIdx, d, dict.([]float32))
		case v.enc == format.Encoding_PLAIN:
			got, err = v.plain.DecodeFloat(d)
		case v.enc == format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeFloat(d)
		case v.enc == format.Encoding_ALP:
			got, err = v.alp.DecodeFloat(d)
		}
	case []float64:
		want = len(d)
		switch {
		case v.dict != nil:
			got, err = pagecodec.DecodeDict(&v.dictIdx, d, dict.([]float64))
		case v.enc == format.Encoding_PLAIN:
			got, err = v.plain.DecodeDouble(d)
		case v.enc == format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeDouble(d)
		case v.enc == format.Encoding_ALP:
			got, err = v.alp.DecodeDouble(d)
		}
	}
	if err != nil {
		return err
	}
	if got != want {
		if got == 0 && !v.encodingFits() {
			return fmt.Errorf("encoding %v for type %v: %w", v.enc, v.physical, errUnsupported)
		}
		return short(got, want)
	}
	return nil
}
