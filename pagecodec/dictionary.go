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

// DecodeDict decodes len(dst) indices and stores the dictionary values they
// name in dst, without materializing the indices. dict must hold the
// dictLen values given to Reset.
func DecodeDict[T any](d *DictIndexDecoder, dst []T, dict []T) (int, error) {
	if len(dict) < d.dictLen {
		return 0, errCorrupt("dictionary of %d values, decoder set up for %d", len(dict), d.dictLen)
	}
	dict = dict[:d.dictLen]
	n := 0
	for n < len(dst) {
		idx, err := d.next(min(len(dst)-n, lengthChunk))
		out := dst[n:][:len(idx)]
		for i, v := range idx {
			// One compare: it is also the bounds check of dict[v].
			if uint(v) >= uint(len(dict)) {
				return n + i, d.outOfRange(v)
			}
			out[i] = dict[v]
		}
		n += len(idx)
		if err != nil {
			return n, err
		}
	}
	return n, nil
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
// are at most maxLen ≤ 16 bytes long (flags, codes, short names): each
// value moves as one 8- or 16-byte block, in a single pass. On a 3-value
// dictionary of 1-byte strings this is 1.7 ns a value where the 32-byte
// blocks of GatherByteArray take 4-6 (their overlapping stores are slow on
// AMD Zen). dictData must hold 16 bytes after the last value's end (the
// reader pads its dictionaries); without them, or with longer values, it
// is GatherByteArray.
func GatherByteArrayShort(offsets []int32, data []byte, dictOffsets []int32, dictData []byte, indices []int32, maxLen int) ([]int32, []byte, error) {
	n := len(dictOffsets) - 1
	if maxLen > 16 || maxLen < 0 || n < 0 || len(dictData) < int(dictOffsets[n])+16 {
		return gatherByteArray(offsets, data, dictOffsets, dictData, indices, math.MaxInt32)
	}
	if int64(len(data))+int64(len(indices))*int64(maxLen) > math.MaxInt32 {
		return gatherByteArray(offsets, data, dictOffsets, dictData, indices, math.MaxInt32)
	}
	base := len(data)
	data = growLen(data, len(indices)*maxLen+16)
	out := data[base:]
	offsets = growLen(offsets, len(indices))
	outOff := offsets[len(offsets)-len(indices):]
	w := 0
	if maxLen <= 8 {
		for i, v := range indices {
			if uint(v) >= uint(n) {
				return offsets[:len(offsets)-len(indices)+i], data[:base+w], errCorrupt("dictionary index %d out of range for %d values", v, n)
			}
			start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
			if end-start > maxLen {
				return offsets[:len(offsets)-len(indices)+i], data[:base+w], errCorrupt("dictionary value %d of %d bytes, longer than the %d declared", v, end-start, maxLen)
			}
			*(*[8]byte)(out[w : w+8]) = [8]byte(dictData[start : start+8])
			w += end - start
			outOff[i] = int32(base + w)
		}
	} else {
		for i, v := range indices {
			if uint(v) >= uint(n) {
				return offsets[:len(offsets)-len(indices)+i], data[:base+w], errCorrupt("dictionary index %d out of range for %d values", v, n)
			}
			start, end := int(dictOffsets[v]), int(dictOffsets[v+1])
			if end-start > maxLen {
				return offsets[:len(offsets)-len(indices)+i], data[:base+w], errCorrupt("dictionary value %d of %d bytes, longer than the %d declared", v, end-start, maxLen)
			}
			*(*[16]byte)(out[w : w+16]) = [16]byte(dictData[start : start+16])
			w += end - start
			outOff[i] = int32(base + w)
		}
	}
	return offsets, data[:base+w], nil
}

func gatherByteArray[O int32 | int64](offsets []O, data []byte, dictOffsets []int32, dictData []byte, indices []int32, maxOffset int64) ([]O, []byte, error) {
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
