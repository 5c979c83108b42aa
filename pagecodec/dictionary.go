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
	"encoding/binary"
	"math"
	"math/bits"

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

// GatherByteArray64 is [GatherByteArray] with 64-bit output offsets.
func GatherByteArray64(offsets []int64, data []byte, dictOffsets []int32, dictData []byte, indices []int32) ([]int64, []byte, error) {
	return gatherByteArray(offsets, data, dictOffsets, dictData, indices, math.MaxInt64)
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

// dictEncoder is the part of every dictionary encoder that does not depend
// on the value type: the hash of keys to indices and the pending indices.
type dictEncoder[K comparable] struct {
	index    map[K]int32
	keys     []K
	indices  []uint32
	dictSize int // PLAIN size of the dictionary in bytes
	maxSize  int
	hybrid   bitpack.HybridEncoder
}

func (e *dictEncoder[K]) reset(maxDictBytes int) {
	if e.index == nil {
		e.index = make(map[K]int32)
	} else {
		clear(e.index)
	}
	e.keys, e.indices, e.dictSize, e.maxSize = e.keys[:0], e.indices[:0], 0, maxDictBytes
}

// add returns false when k is new and does not fit the size limit.
func (e *dictEncoder[K]) add(k K, size int) bool {
	i, ok := e.index[k]
	if !ok {
		if e.maxSize > 0 && e.dictSize+size > e.maxSize || len(e.keys) == math.MaxInt32 {
			return false
		}
		i = int32(len(e.keys))
		e.index[k] = i
		e.keys = append(e.keys, k)
		e.dictSize += size
	}
	e.indices = append(e.indices, uint32(i))
	return true
}

// DictLen returns the number of dictionary values.
func (e *dictEncoder[K]) DictLen() int { return len(e.keys) }

// DictSize returns the size in bytes of the PLAIN dictionary page body.
func (e *dictEncoder[K]) DictSize() int { return e.dictSize }

// NumIndices returns the number of indices not yet written by AppendIndices.
func (e *dictEncoder[K]) NumIndices() int { return len(e.indices) }

// IndicesLen returns an upper bound of the size of the pending indices as a
// data page body.
func (e *dictEncoder[K]) IndicesLen() int {
	w := e.width()
	return 1 + (len(e.indices)*int(w)+7)/8 + (len(e.indices)/504+1)*2
}

func (e *dictEncoder[K]) width() uint {
	// Width at least 1: some readers mishandle a bit width of 0.
	return max(1, uint(bits.Len32(uint32(max(len(e.keys)-1, 0)))))
}

// AppendIndices appends the pending indices as an RLE_DICTIONARY data page
// body (bit width byte and hybrid runs) and clears them; the dictionary is
// kept for the next page of the column chunk.
func (e *dictEncoder[K]) AppendIndices(dst []byte) []byte {
	w := e.width()
	dst = append(dst, byte(w))
	e.hybrid.Reset(w)
	e.hybrid.Append32(e.indices)
	dst = append(dst, e.hybrid.Finish()...)
	e.indices = e.indices[:0]
	return dst
}

// DictEncoder32 builds the dictionary of an INT32 or FLOAT column (values
// are keyed by their bits, so every NaN pattern is one entry). The zero value
// is ready after Reset; it is not safe for concurrent use.
type DictEncoder32 struct{ dictEncoder[uint32] }

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoder32) Reset(maxDictBytes int) { e.reset(maxDictBytes) }

// AppendInt32 adds values and returns how many it took; fewer than
// len(values) means the dictionary is full and the column must fall back to
// PLAIN from values[n] on.
func (e *DictEncoder32) AppendInt32(values []int32) int {
	for i, v := range values {
		if !e.add(uint32(v), 4) {
			return i
		}
	}
	return len(values)
}

// AppendFloat is [DictEncoder32.AppendInt32] for FLOAT.
func (e *DictEncoder32) AppendFloat(values []float32) int {
	for i, v := range values {
		if !e.add(math.Float32bits(v), 4) {
			return i
		}
	}
	return len(values)
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoder32) AppendDictPage(dst []byte) []byte { return appendLE(dst, e.keys) }

// DictEncoder64 is [DictEncoder32] for INT64 and DOUBLE.
type DictEncoder64 struct{ dictEncoder[uint64] }

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoder64) Reset(maxDictBytes int) { e.reset(maxDictBytes) }

// AppendInt64 adds values and returns how many it took (see
// [DictEncoder32.AppendInt32]).
func (e *DictEncoder64) AppendInt64(values []int64) int {
	for i, v := range values {
		if !e.add(uint64(v), 8) {
			return i
		}
	}
	return len(values)
}

// AppendDouble is [DictEncoder64.AppendInt64] for DOUBLE.
func (e *DictEncoder64) AppendDouble(values []float64) int {
	for i, v := range values {
		if !e.add(math.Float64bits(v), 8) {
			return i
		}
	}
	return len(values)
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoder64) AppendDictPage(dst []byte) []byte { return appendLE(dst, e.keys) }

// DictEncoderInt96 is [DictEncoder32] for INT96.
type DictEncoderInt96 struct{ dictEncoder[[12]byte] }

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoderInt96) Reset(maxDictBytes int) { e.reset(maxDictBytes) }

// AppendInt96 adds values and returns how many it took.
func (e *DictEncoderInt96) AppendInt96(values [][12]byte) int {
	for i, v := range values {
		if !e.add(v, 12) {
			return i
		}
	}
	return len(values)
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoderInt96) AppendDictPage(dst []byte) []byte { return AppendPlainInt96(dst, e.keys) }

// DictEncoderByteArray is [DictEncoder32] for BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY; it copies each new value once.
type DictEncoderByteArray struct {
	dictEncoder[string]
	fixed int // FIXED_LEN_BYTE_ARRAY type length, 0 for BYTE_ARRAY
}

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none) and the FIXED_LEN_BYTE_ARRAY type length (0 for
// BYTE_ARRAY).
func (e *DictEncoderByteArray) Reset(maxDictBytes, typeLength int) {
	e.reset(maxDictBytes)
	e.fixed = typeLength
}

func (e *DictEncoderByteArray) addBytes(v []byte, size int) bool {
	// The map lookup with string(v) does not allocate; only new keys do.
	if i, ok := e.index[string(v)]; ok {
		e.indices = append(e.indices, uint32(i))
		return true
	}
	return e.add(string(v), size)
}

// AppendByteArray adds the len(offsets)-1 values
// data[offsets[i]:offsets[i+1]] and returns how many it took.
func (e *DictEncoderByteArray) AppendByteArray(offsets []int32, data []byte) int {
	for i := 0; i+1 < len(offsets); i++ {
		v := data[offsets[i]:offsets[i+1]]
		if !e.addBytes(v, 4+len(v)) {
			return i
		}
	}
	return max(len(offsets)-1, 0)
}

// AppendFixedLenByteArray adds len(values)/typeLength values stored back
// to back and returns how many it took.
func (e *DictEncoderByteArray) AppendFixedLenByteArray(values []byte) int {
	w := e.fixed
	if w <= 0 {
		return 0
	}
	n := len(values) / w
	for i := 0; i < n; i++ {
		if !e.addBytes(values[i*w:(i+1)*w], w) {
			return i
		}
	}
	return n
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoderByteArray) AppendDictPage(dst []byte) []byte {
	for _, k := range e.keys {
		if e.fixed == 0 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(k)))
		}
		dst = append(dst, k...)
	}
	return dst
}
