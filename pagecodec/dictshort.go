package pagecodec

import "math"

// ShortDict is a BYTE_ARRAY dictionary of short values laid out for
// [DecodeDictShort], the gather of dictionary pages of flags, codes and
// short names (lineitem's l_returnflag, l_shipmode, l_shipinstruct):
//
//   - values all of one length L ≥ 1: the values back to back, gathered
//     as L-byte values by [DecodeDictFixed] (bit-packed runs eight indices
//     at a time from registers), the offsets a multiple of L;
//   - values of at most 31 bytes: each value in an entry of 8, 16, 24 or
//     32 bytes with its length in the entry's last byte, so that a value
//     costs one compare, one entry load and one block store, where
//     [GatherByteArrayShort] loads two offsets and checks the length.
//
// The zero value holds no dictionary; [ShortDict.Reset] lays one out.
// A ShortDict refers to the dictionary given to Reset and must not
// outlive it.
type ShortDict struct {
	dictOffsets []int32
	dictData    []byte
	n           int // values
	// fixedLen is the length of every value, or -1.
	fixedLen int
	fixed    []byte // the values back to back when fixedLen ≥ 1
	// block is the entry size (8, 16, 24 or 32) when fixedLen < 1, and
	// the entries are in the slice of that size.
	block int
	e8    [][8]byte
	e16   [][16]byte
	e24   [][24]byte
	e32   [][32]byte
}

// shortDictMaxBytes bounds a ShortDict's entries: a dictionary with more
// (8 Ki values of 1 to 7 bytes, 2 Ki of 24 to 31) keeps its offsets and
// data. Laying out an entry costs about as much as gathering a value
// once, and a large dictionary of short values is one of unique keys
// (the strings dataset's unique_id: a 22-byte key per row, each gathered
// once before the writer fell back to PLAIN), whose entries would cost
// more than they save and leave L2 besides.
const shortDictMaxBytes = 64 << 10

// Reset lays out the dictionary of len(dictOffsets)-1 values given by
// dictOffsets and dictData (as [PlainDecoder.DecodeByteArray] returns
// them) and reports whether DecodeDictShort can use it: false when a
// value is longer than 31 bytes, the offsets are not those of dictData,
// or the entries would take more than 64 KiB.
func (s *ShortDict) Reset(dictOffsets []int32, dictData []byte) bool {
	*s = ShortDict{e8: s.e8[:0], e16: s.e16[:0], e24: s.e24[:0], e32: s.e32[:0], fixedLen: -1}
	n := len(dictOffsets) - 1
	if n < 0 {
		return false
	}
	minLen, maxLen := math.MaxInt, 0
	prev := dictOffsets[0]
	if prev < 0 {
		return false
	}
	for _, o := range dictOffsets[1:] {
		l := int(o) - int(prev)
		if l < 0 || int(o) > len(dictData) {
			return false
		}
		minLen, maxLen = min(minLen, l), max(maxLen, l)
		if minLen != maxLen && n*8 > shortDictMaxBytes {
			return false // entries, and too many of them: stop scanning
		}
		prev = o
	}
	if maxLen > 31 {
		return false
	}
	s.dictOffsets, s.dictData, s.n = dictOffsets, dictData, n
	if n > 0 && minLen == maxLen && maxLen > 0 {
		s.fixedLen = maxLen
		s.fixed = dictData[dictOffsets[0]:dictOffsets[n]]
		return true
	}
	b := shortEntry(maxLen)
	if n*b > shortDictMaxBytes {
		*s = ShortDict{e8: s.e8, e16: s.e16, e24: s.e24, e32: s.e32, fixedLen: -1}
		return false
	}
	s.block = b
	switch b {
	case 8:
		s.e8 = fillEntries(s.e8, dictOffsets, dictData)
	case 16:
		s.e16 = fillEntries(s.e16, dictOffsets, dictData)
	case 24:
		s.e24 = fillEntries(s.e24, dictOffsets, dictData)
	default:
		s.e32 = fillEntries(s.e32, dictOffsets, dictData)
	}
	return true
}

// shortEntry is the entry size for values of at most maxLen ≤ 31 bytes
// and their length byte.
func shortEntry(maxLen int) int {
	return (maxLen + 1 + 7) / 8 * 8
}

// fillEntries sets e to one entry per value: the value, zeros, and its
// length in the last byte.
func fillEntries[E [8]byte | [16]byte | [24]byte | [32]byte](e []E, dictOffsets []int32, dictData []byte) []E {
	n := len(dictOffsets) - 1
	e = growLen(e[:0], n)
	for i := range e {
		v := dictData[dictOffsets[i]:dictOffsets[i+1]]
		var b []byte
		switch p := any(&e[i]).(type) {
		case *[8]byte:
			b = p[:]
		case *[16]byte:
			b = p[:]
		case *[24]byte:
			b = p[:]
		case *[32]byte:
			b = p[:]
		}
		clear(b[copy(b, v):])
		b[len(b)-1] = byte(len(v))
	}
	return e
}

// DecodeDictShort is [DecodeDictByteArray] for a dictionary laid out by
// [ShortDict.Reset] (which returned true; the decoder was Reset with the
// same number of values): it decodes n indices and appends the values they
// name to data and their end offsets to offsets. On an error it returns
// offsets and data with the values before the failing run appended.
func DecodeDictShort(d *DictIndexDecoder, offsets []int32, data []byte, s *ShortDict, n int) ([]int32, []byte, error) {
	if s.n < d.dictLen {
		return offsets, data, errCorrupt("dictionary of %d values, decoder set up for %d", s.n, d.dictLen)
	}
	if s.fixedLen > 0 {
		return decodeDictEqual(d, offsets, data, s, n)
	}
	if int64(len(data))+int64(n)*int64(s.block) > math.MaxInt32 {
		// Near the limit: the general path counts the bytes exactly.
		return DecodeDictByteArray(d, offsets, data, s.dictOffsets, s.dictData, 32, n)
	}
	dictOffsets := s.dictOffsets[:d.dictLen+1]
	for got := 0; got < n; {
		k, v, rle, err := d.block(min(n-got, lengthChunk))
		if err != nil {
			return offsets, data, err
		}
		if rle {
			offsets, data, err = repeatByteArray(offsets, data, dictOffsets, s.dictData, v, k)
			if err != nil {
				return offsets, data, err
			}
			got += k
			continue
		}
		base := len(data)
		data = growLen(data, k*s.block) // a block past the last value's start
		offsets = growLen(offsets, k)
		outOff := offsets[len(offsets)-k:]
		idx := d.buf[:k]
		var w, i int
		switch s.block {
		case 8:
			w, i = gatherEntries8(data[base:], outOff, base, s.e8[:d.dictLen], idx)
		case 16:
			w, i = gatherEntries16(data[base:], outOff, base, s.e16[:d.dictLen], idx)
		case 24:
			w, i = gatherEntries24(data[base:], outOff, base, s.e24[:d.dictLen], idx)
		default:
			w, i = gatherEntries32(data[base:], outOff, base, s.e32[:d.dictLen], idx)
		}
		data = data[:base+w]
		if i < k {
			return offsets[:len(offsets)-k+i], data, d.outOfRange(idx[i])
		}
		got += k
	}
	return offsets, data, nil
}

// decodeDictEqual is DecodeDictShort for values all s.fixedLen long.
func decodeDictEqual(d *DictIndexDecoder, offsets []int32, data []byte, s *ShortDict, n int) ([]int32, []byte, error) {
	l := s.fixedLen
	if int64(len(data))+int64(n)*int64(l) > math.MaxInt32 {
		return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(n)*int64(l))
	}
	base := len(data)
	data = growLen(data, n*l)
	got, err := DecodeDictFixed(d, data[base:], s.fixed, l)
	data = data[:base+got*l]
	offsets = growLen(offsets, got)
	out := offsets[len(offsets)-got:]
	end := int32(base)
	for i := range out {
		end += int32(l)
		out[i] = end
	}
	return offsets, data, err
}

// gatherEntries8 stores the values of the 8-byte entries named by idx
// back to back in out (which has 8 bytes of room past the last value) and
// their end offsets from base in outOff. It returns the bytes written and
// len(idx), or the position of the first index out of range.
func gatherEntries8(out []byte, outOff []int32, base int, entries [][8]byte, idx []uint32) (int, int) {
	outOff = outOff[:len(idx)]
	w := 0
	for i, v := range idx {
		if uint(v) >= uint(len(entries)) {
			return w, i
		}
		e := entries[v]
		*(*[8]byte)(out[w : w+8]) = e
		w += int(e[7])
		outOff[i] = int32(base + w)
	}
	return w, len(idx)
}

// gatherEntries16 is gatherEntries8 for 16-byte entries.
func gatherEntries16(out []byte, outOff []int32, base int, entries [][16]byte, idx []uint32) (int, int) {
	outOff = outOff[:len(idx)]
	w := 0
	for i, v := range idx {
		if uint(v) >= uint(len(entries)) {
			return w, i
		}
		e := &entries[v]
		*(*[16]byte)(out[w : w+16]) = *e
		w += int(e[15])
		outOff[i] = int32(base + w)
	}
	return w, len(idx)
}

// gatherEntries24 is gatherEntries8 for 24-byte entries.
func gatherEntries24(out []byte, outOff []int32, base int, entries [][24]byte, idx []uint32) (int, int) {
	outOff = outOff[:len(idx)]
	w := 0
	for i, v := range idx {
		if uint(v) >= uint(len(entries)) {
			return w, i
		}
		e := &entries[v]
		// Moves of at most 16 bytes go through registers; a 24- or
		// 32-byte one between two pointers is a call to memmove (it
		// must allow for overlap): 25% of the instructions here.
		o := out[w : w+24]
		*(*[16]byte)(o) = *(*[16]byte)(e[:16])
		*(*[8]byte)(o[16:]) = *(*[8]byte)(e[16:])
		w += int(e[23])
		outOff[i] = int32(base + w)
	}
	return w, len(idx)
}

// gatherEntries32 is gatherEntries8 for 32-byte entries.
func gatherEntries32(out []byte, outOff []int32, base int, entries [][32]byte, idx []uint32) (int, int) {
	outOff = outOff[:len(idx)]
	w := 0
	for i, v := range idx {
		if uint(v) >= uint(len(entries)) {
			return w, i
		}
		e := &entries[v]
		o := out[w : w+32] // two 16-byte moves, as in gatherEntries24
		*(*[16]byte)(o) = *(*[16]byte)(e[:16])
		*(*[16]byte)(o[16:]) = *(*[16]byte)(e[16:])
		w += int(e[31])
		outOff[i] = int32(base + w)
	}
	return w, len(idx)
}
