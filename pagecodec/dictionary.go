package pagecodec

// Dictionary encoding (Encodings.md, "Dictionary Encoding (PLAIN_DICTIONARY
// = 2 and RLE_DICTIONARY = 8)"):
//
//	dictionary page = PLAIN(values)
//	data page       = bit-width-byte RLE/bit-packing-hybrid(indices)
//
// The bit width is at most 32. An index at or past the dictionary size is
// corrupt input.

import (
	"math"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// DictIndexDecoder decodes the dictionary indices of a PLAIN_DICTIONARY or
// RLE_DICTIONARY data page. The zero value is ready after
// [DictIndexDecoder.Reset].
type DictIndexDecoder struct {
	hr      bitpack.HybridReader
	width   uint
	dictLen int
	buf     [lengthChunk]uint32
	ok      bool
}

// Reset starts decoding src against a dictionary of dictLen values. An
// empty src (a page without non-null values) is accepted; decoding from it
// is then an error.
func (d *DictIndexDecoder) Reset(src []byte, dictLen int) error {
	d.dictLen, d.ok = dictLen, false
	if len(src) == 0 {
		d.hr.Reset(nil, 0)
		return nil
	}
	w := uint(src[0])
	if w > 32 {
		return errCorrupt("dictionary index bit width %d > 32", w)
	}
	d.hr.Reset(src[1:], w)
	d.width = w
	d.ok = true
	return nil
}

// DecodeIndices decodes len(dst) indices, each checked against the
// dictionary size.
func (d *DictIndexDecoder) DecodeIndices(dst []int32) (int, error) {
	limit := uint32(min(d.dictLen, math.MaxInt32))
	n := 0
	for n < len(dst) {
		idx, err := d.next(min(len(dst)-n, lengthChunk))
		out := dst[n:][:len(idx)]
		for i, v := range idx {
			if v >= limit {
				return n + i, d.outOfRange(v)
			}
			out[i] = int32(v)
		}
		n += len(idx)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (d *DictIndexDecoder) outOfRange(v uint32) error {
	return errCorrupt("dictionary index %d out of range for %d values", v, d.dictLen)
}

// next decodes up to k (<= lengthChunk) unchecked indices into d.buf. It
// returns fewer only with an error.
func (d *DictIndexDecoder) next(k int) ([]uint32, error) {
	if !d.ok {
		return nil, errTruncated("dictionary indices: %d values asked from an empty page", k)
	}
	m, err := d.hr.Decode32(d.buf[:k])
	idx := d.buf[:m]
	if err != nil {
		return idx, errCorrupt("dictionary indices: %v", err)
	}
	if m < k {
		return idx, errTruncated("dictionary indices: %d values asked, %d left", k, m)
	}
	return idx, nil
}

// block decodes the next indices of the page, at most k (<= lengthChunk)
// and from one run: k' repeats of value v with rle set, or k' unchecked
// indices in d.buf. It returns k' > 0 or an error.
func (d *DictIndexDecoder) block(k int) (n int, v uint32, rle bool, err error) {
	if !d.ok {
		return 0, 0, false, errTruncated("dictionary indices: %d values asked from an empty page", k)
	}
	n, v, rle, err = d.hr.Next32(d.buf[:k])
	if err != nil {
		return 0, 0, false, errCorrupt("dictionary indices: %v", err)
	}
	if n == 0 {
		return 0, 0, false, errTruncated("dictionary indices: %d values asked, none left", k)
	}
	return n, v, rle, nil
}

// The fused decoders below (DecodeDict, DecodeDictFixed,
// DecodeDictByteArray) never hold a page's indices: they take the hybrid
// run by run, a bit-packed run unpacked lengthChunk indices at a time into
// d.buf (1 KiB, in L1 beside the output) and gathered at once, an RLE run
// as one fill of its value. Each index is checked against the dictionary
// once, by the compare that is also the bounds check of the gather. They
// are DecodeIndices followed by Gather, GatherFixedLenByteArray or
// GatherByteArray(Short), minus the index buffer (a page's worth of int32,
// written and read back): the differential tests hold them equal.

// DecodeDict decodes len(dst) indices and stores the dictionary values they
// name in dst, without materializing the indices. dict must hold the
// dictLen values given to Reset. It returns the values stored; fewer than
// len(dst) only with an error.
func DecodeDict[T any](d *DictIndexDecoder, dst []T, dict []T) (int, error) {
	if len(dict) < d.dictLen {
		return 0, errCorrupt("dictionary of %d values, decoder set up for %d", len(dict), d.dictLen)
	}
	dict = dict[:d.dictLen]
	n := 0
	for n < len(dst) {
		// Whole groups of a bit-packed run: unpacked and gathered eight
		// at a time, the indices never leaving registers.
		if d.ok {
			src, k, err := d.hr.PackedGroups(len(dst) - n)
			if err != nil {
				return n, errCorrupt("dictionary indices: %v", err)
			}
			if k > 0 {
				if i := bitpack.UnpackGather32(dst[n:n+k], src, d.width, dict); i < k {
					return n + i, d.outOfRange(d.packedAt(src, i))
				}
				n += k
				continue
			}
		}
		k, v, rle, err := d.block(min(len(dst)-n, lengthChunk))
		if err != nil {
			return n, err
		}
		out := dst[n : n+k]
		if rle {
			if uint(v) >= uint(len(dict)) {
				return n, d.outOfRange(v)
			}
			x := dict[v]
			for i := range out {
				out[i] = x
			}
		} else {
			for i, v := range d.buf[:k] {
				// One compare: it is also the bounds check of dict[v].
				if uint(v) >= uint(len(dict)) {
					return n + i, d.outOfRange(v)
				}
				out[i] = dict[v]
			}
		}
		n += k
	}
	return n, nil
}

// packedAt returns index i of the bit-packed groups src.
func (d *DictIndexDecoder) packedAt(src []byte, i int) uint32 {
	var g [8]uint32
	w := int(d.width)
	bitpack.Unpack32(g[:], src[i/8*w:i/8*w+w], d.width)
	return g[i%8]
}

// DecodeDictFixed is [DecodeDict] for values of width bytes back to back:
// it decodes len(dst)/width indices and stores the values dict (the
// dictLen values given to Reset, back to back) holds at them in dst. Used
// for FIXED_LEN_BYTE_ARRAY and INT96 values and for dictionaries converted
// to another fixed-width form (Decimal128 from INT64 or
// FIXED_LEN_BYTE_ARRAY decimals).
func DecodeDictFixed(d *DictIndexDecoder, dst []byte, dict []byte, width int) (int, error) {
	if width <= 0 {
		return 0, errCorrupt("fixed-width dictionary values of %d bytes", width)
	}
	if len(dict)/width < d.dictLen {
		return 0, errCorrupt("dictionary of %d values, decoder set up for %d", len(dict)/width, d.dictLen)
	}
	dict = dict[:d.dictLen*width]
	want := len(dst) / width
	if n, ok, err := decodeDictArrays(d, dst[:want*width], dict, width); ok {
		return n, err
	}
	return decodeDictGather(d, dst[:want*width], dict, width)
}

// decodeDictGather is DecodeDictFixed for any width, once its arguments
// are checked: indices a block at a time into d.buf, then gatherFixed.
func decodeDictGather(d *DictIndexDecoder, dst []byte, dict []byte, width int) (int, error) {
	want := len(dst) / width
	n := 0
	for n < want {
		k, v, rle, err := d.block(min(want-n, lengthChunk))
		if err != nil {
			return n, err
		}
		out := dst[n*width : (n+k)*width]
		if rle {
			if uint(v) >= uint(d.dictLen) {
				return n, d.outOfRange(v)
			}
			fillRepeat(out, dict[int(v)*width:int(v)*width+width])
		} else if i := gatherFixed(out, dict, width, d.buf[:k]); i < k {
			return n + i, d.outOfRange(d.buf[i])
		}
		n += k
	}
	return n, nil
}

// fillRepeat fills out (a multiple of len(v) long) with copies of v,
// doubling the filled part with each copy.
func fillRepeat(out, v []byte) {
	if len(out) == 0 {
		return
	}
	w := copy(out, v)
	for w < len(out) {
		w += copy(out[w:], out[:w])
	}
}

// gatherFixed stores the width-byte values of dict named by idx back to
// back in out (len(idx)*width bytes), with whole-array moves for the
// common widths (a copy call per value costs three times as much on
// lineitem's 16-byte decimals). It returns len(idx), or the position of
// the first index out of range.
func gatherFixed(out, dict []byte, width int, idx []uint32) int {
	n := uint(len(dict) / width)
	switch width {
	case 16:
		out = out[:len(idx)*16]
		for i, v := range idx {
			if uint(v) >= n {
				return i
			}
			*(*[16]byte)(out[i*16 : i*16+16]) = [16]byte(dict[v*16 : v*16+16])
		}
	case 12:
		out = out[:len(idx)*12]
		for i, v := range idx {
			if uint(v) >= n {
				return i
			}
			*(*[12]byte)(out[i*12 : i*12+12]) = [12]byte(dict[v*12 : v*12+12])
		}
	case 8:
		out = out[:len(idx)*8]
		for i, v := range idx {
			if uint(v) >= n {
				return i
			}
			*(*[8]byte)(out[i*8 : i*8+8]) = [8]byte(dict[v*8 : v*8+8])
		}
	case 4:
		out = out[:len(idx)*4]
		for i, v := range idx {
			if uint(v) >= n {
				return i
			}
			*(*[4]byte)(out[i*4 : i*4+4]) = [4]byte(dict[v*4 : v*4+4])
		}
	default:
		for i, v := range idx {
			if uint(v) >= n {
				return i
			}
			copy(out[i*width:(i+1)*width], dict[int(v)*width:])
		}
	}
	return len(idx)
}

// DecodeDictByteArray is [DecodeDict] for BYTE_ARRAY values: it decodes n
// indices and appends the values they name to data and their end offsets
// to offsets, as [GatherByteArray] does, with the block moves of
// [GatherByteArrayShort] when maxLen (the dictionary's longest value) is
// at most 32 and dictData has the slack that asks for. The
// dictionary is dictOffsets (at least dictLen+1 of them) and dictData.
func DecodeDictByteArray(d *DictIndexDecoder, offsets []int32, data []byte, dictOffsets []int32, dictData []byte, maxLen, n int) ([]int32, []byte, error) {
	if len(dictOffsets) <= d.dictLen {
		return offsets, data, errCorrupt("dictionary of %d values, decoder set up for %d", len(dictOffsets)-1, d.dictLen)
	}
	dictOffsets = dictOffsets[:d.dictLen+1]
	for got := 0; got < n; {
		k, v, rle, err := d.block(min(n-got, lengthChunk))
		if err != nil {
			return offsets, data, err
		}
		switch {
		case rle:
			offsets, data, err = repeatByteArray(offsets, data, dictOffsets, dictData, v, k)
		case shortFits(data, dictOffsets, dictData, k, maxLen):
			offsets, data, err = gatherByteArrayShort(offsets, data, dictOffsets, dictData, d.buf[:k], maxLen)
		default:
			offsets, data, err = gatherByteArray(offsets, data, dictOffsets, dictData, d.buf[:k], math.MaxInt32)
		}
		if err != nil {
			return offsets, data, err
		}
		got += k
	}
	return offsets, data, nil
}

// repeatByteArray appends k copies of dictionary value v.
func repeatByteArray(offsets []int32, data []byte, dictOffsets []int32, dictData []byte, v uint32, k int) ([]int32, []byte, error) {
	if uint(v) >= uint(len(dictOffsets)-1) {
		return offsets, data, errCorrupt("dictionary index %d out of range for %d values", v, len(dictOffsets)-1)
	}
	start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
	l := end - start
	if int64(len(data))+int64(k)*int64(l) > math.MaxInt32 {
		return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(k)*int64(l))
	}
	base := len(data)
	data = growLen(data, k*l)
	fillRepeat(data[base:], dictData[start:end])
	offsets = growLen(offsets, k)
	out := offsets[len(offsets)-k:]
	for i := range out {
		base += l
		out[i] = int32(base)
	}
	return offsets, data, nil
}

// Gather stores dict[indices[i]] in dst[i] for every index; an index out of
// range is [ErrCorrupt]. len(dst) must be at least len(indices).
func Gather[T any](dst []T, dict []T, indices []int32) error {
	dst = dst[:len(indices)]
	for i, v := range indices {
		if uint(v) >= uint(len(dict)) {
			return errCorrupt("dictionary index %d out of range for %d values", v, len(dict))
		}
		dst[i] = dict[v]
	}
	return nil
}

// GatherFixedLenByteArray stores the FIXED_LEN_BYTE_ARRAY dictionary values
// named by indices back to back in dst; dict holds the values back to back.
func GatherFixedLenByteArray(dst []byte, dict []byte, typeLength int, indices []int32) error {
	if typeLength <= 0 {
		return errCorrupt("FIXED_LEN_BYTE_ARRAY type length %d", typeLength)
	}
	n := len(dict) / typeLength
	dst = dst[:len(indices)*typeLength]
	for i, v := range indices {
		if uint(v) >= uint(n) {
			return errCorrupt("dictionary index %d out of range for %d values", v, n)
		}
		copy(dst[i*typeLength:(i+1)*typeLength], dict[int(v)*typeLength:])
	}
	return nil
}

// GatherByteArray appends the BYTE_ARRAY dictionary values named by indices
// to data and their end offsets to offsets, as
// [PlainDecoder.DecodeByteArray] does. The dictionary is dictOffsets
// (len = values+1) and dictData.
func GatherByteArray(offsets []int32, data []byte, dictOffsets []int32, dictData []byte, indices []int32) ([]int32, []byte, error) {
	return gatherByteArray(offsets, data, dictOffsets, dictData, indices, math.MaxInt32)
}

// GatherByteArrayShort is [GatherByteArray] for dictionaries whose values
// are at most maxLen ≤ 32 bytes long (flags, codes, short names): each
// value moves as one 8-, 16- or 32-byte block, in a single pass. On a
// 3-value dictionary of 1-byte strings this is 1.7 ns a value where the
// 32-byte blocks of GatherByteArray take 4-6 (their overlapping stores are
// slow on AMD Zen), hence the smallest block that holds maxLen. dictData
// must hold that block's size of bytes after the last value's end (the
// reader pads its dictionaries with 32); without them, or with longer
// values, it is GatherByteArray.
func GatherByteArrayShort(offsets []int32, data []byte, dictOffsets []int32, dictData []byte, indices []int32, maxLen int) ([]int32, []byte, error) {
	if !shortFits(data, dictOffsets, dictData, len(indices), maxLen) {
		return gatherByteArray(offsets, data, dictOffsets, dictData, indices, math.MaxInt32)
	}
	return gatherByteArrayShort(offsets, data, dictOffsets, dictData, indices, maxLen)
}

// shortBlock is the block gatherByteArrayShort moves values of at most
// maxLen bytes in, 0 if they are too long.
func shortBlock(maxLen int) int {
	switch {
	case maxLen < 0 || maxLen > 32:
		return 0
	case maxLen <= 8:
		return 8
	case maxLen <= 16:
		return 16
	}
	return 32
}

// shortFits reports whether k values of a dictionary of values at most
// maxLen long can take gatherByteArrayShort: blocks for maxLen, their
// slack after dictData's last value, and room in int32 offsets for
// k*maxLen more bytes after data.
func shortFits(data []byte, dictOffsets []int32, dictData []byte, k, maxLen int) bool {
	n := len(dictOffsets) - 1
	b := shortBlock(maxLen)
	return b > 0 && n >= 0 && len(dictData) >= int(dictOffsets[n])+b &&
		int64(len(data))+int64(k)*int64(maxLen) <= math.MaxInt32
}

// gatherByteArrayShort is GatherByteArrayShort once shortFits holds: one
// loop per block size, so that the block's move is fixed in each.
func gatherByteArrayShort[I int32 | uint32](offsets []int32, data []byte, dictOffsets []int32, dictData []byte, indices []I, maxLen int) ([]int32, []byte, error) {
	base := len(data)
	data = growLen(data, len(indices)*maxLen+32)
	offsets = growLen(offsets, len(indices))
	outOff := offsets[len(offsets)-len(indices):]
	var w, i int
	switch shortBlock(maxLen) {
	case 8:
		w, i = gatherBlocks8(data[base:], outOff, base, dictOffsets, dictData, indices, maxLen)
	case 16:
		w, i = gatherBlocks16(data[base:], outOff, base, dictOffsets, dictData, indices, maxLen)
	default:
		w, i = gatherBlocks32(data[base:], outOff, base, dictOffsets, dictData, indices, maxLen)
	}
	if i < len(indices) {
		offsets = offsets[:len(offsets)-len(indices)+i]
		v, n := indices[i], len(dictOffsets)-1
		if uint(v) >= uint(n) {
			return offsets, data[:base+w], errCorrupt("dictionary index %d out of range for %d values", v, n)
		}
		return offsets, data[:base+w], errCorrupt("dictionary value %d of %d bytes, longer than the %d declared", v, dictOffsets[v+1]-dictOffsets[v], maxLen)
	}
	return offsets, data[:base+w], nil
}

// gatherBlocks8 moves the values named by indices as 8-byte blocks to out
// and their end offsets (from base) to outOff. It returns the bytes
// written and len(indices), or the position of the first index out of
// range or naming a value longer than maxLen.
func gatherBlocks8[I int32 | uint32](out []byte, outOff []int32, base int, dictOffsets []int32, dictData []byte, indices []I, maxLen int) (int, int) {
	n := len(dictOffsets) - 1
	w := 0
	for i, v := range indices {
		if uint(v) >= uint(n) {
			return w, i
		}
		start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
		if end-start > maxLen {
			return w, i
		}
		*(*[8]byte)(out[w : w+8]) = [8]byte(dictData[start : start+8])
		w += end - start
		outOff[i] = int32(base + w)
	}
	return w, len(indices)
}

// gatherBlocks16 is gatherBlocks8 with 16-byte blocks.
func gatherBlocks16[I int32 | uint32](out []byte, outOff []int32, base int, dictOffsets []int32, dictData []byte, indices []I, maxLen int) (int, int) {
	n := len(dictOffsets) - 1
	w := 0
	for i, v := range indices {
		if uint(v) >= uint(n) {
			return w, i
		}
		start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
		if end-start > maxLen {
			return w, i
		}
		*(*[16]byte)(out[w : w+16]) = [16]byte(dictData[start : start+16])
		w += end - start
		outOff[i] = int32(base + w)
	}
	return w, len(indices)
}

// gatherBlocks32 is gatherBlocks8 with 32-byte blocks (values of 17 to 32
// bytes: lineitem's l_shipinstruct, whose longest is 17, took two passes
// through GatherByteArray before).
func gatherBlocks32[I int32 | uint32](out []byte, outOff []int32, base int, dictOffsets []int32, dictData []byte, indices []I, maxLen int) (int, int) {
	n := len(dictOffsets) - 1
	w := 0
	for i, v := range indices {
		if uint(v) >= uint(n) {
			return w, i
		}
		start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
		if end-start > maxLen {
			return w, i
		}
		// Two 16-byte moves: one of 32 bytes between two slices is a
		// call to memmove (it must allow for overlap), 25% of the
		// instructions of lineitem's l_shipinstruct (callgrind).
		o, s := out[w:w+32], dictData[start:start+32]
		*(*[16]byte)(o) = [16]byte(s)
		*(*[16]byte)(o[16:]) = [16]byte(s[16:])
		w += end - start
		outOff[i] = int32(base + w)
	}
	return w, len(indices)
}

func gatherByteArray[O int32 | int64, I int32 | uint32](offsets []O, data []byte, dictOffsets []int32, dictData []byte, indices []I, maxOffset int64) ([]O, []byte, error) {
	n := len(dictOffsets) - 1
	total := 0
	for _, v := range indices {
		if uint(v) >= uint(max(n, 0)) {
			return offsets, data, errCorrupt("dictionary index %d out of range for %d values", v, max(n, 0))
		}
		total += int(dictOffsets[v+1] - dictOffsets[v])
	}
	if int64(len(data))+int64(total) > maxOffset {
		return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(total))
	}
	base := len(data)
	data = growLen(data, total)
	out := data[base:]
	offsets = growLen(offsets, len(indices))
	outOff := offsets[len(offsets)-len(indices):]
	w := 0
	for i, v := range indices {
		start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
		copyShort(out, w, dictData, start, end-start)
		w += end - start
		outOff[i] = O(base + w)
	}
	return offsets, data, nil
}
