package pagecodec

// Dictionary encoders: a hash of the values seen to their dictionary index,
// the dictionary in first-seen order, and the indices of the current page
// (see dictionary.go for the wire grammar).
//
// The hashes are open-addressing tables with linear probing, at most half
// full. Fixed-width values are keyed by their bits and hashed by a
// Fibonacci multiply; byte arrays by hash/maphash, with the dictionary
// kept as one data buffer and offsets. Go maps were 3-4 times slower here
// (BenchmarkWrite data=lineitem: dictionary hashing was 0.48 s of a 1.1 s
// write with map[uint64]int32 and map[string]int32), and a string-keyed map
// allocated every new value.

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// fib is 2^64 divided by the golden ratio: multiplying by it spreads keys
// that differ in any bit over the top bits of the product.
const fib = 0x9E3779B97F4A7C15

// minSlots is the initial size of a hash table.
const minSlots = 256

// dictCore is the part of every dictionary encoder that does not depend on
// the value type: the pending indices and the size accounting.
type dictCore struct {
	indices  []uint32
	n        int // dictionary values
	dictSize int // PLAIN size of the dictionary in bytes
	maxSize  int
	hybrid   bitpack.HybridEncoder
}

func (e *dictCore) reset(maxDictBytes int) {
	e.indices, e.n, e.dictSize, e.maxSize = e.indices[:0], 0, 0, maxDictBytes
}

// fits reports whether a new value of size bytes may join the dictionary.
func (e *dictCore) fits(size int) bool {
	return !(e.maxSize > 0 && e.dictSize+size > e.maxSize) && e.n < math.MaxInt32
}

// DictLen returns the number of dictionary values.
func (e *dictCore) DictLen() int { return e.n }

// DictSize returns the size in bytes of the PLAIN dictionary page body.
func (e *dictCore) DictSize() int { return e.dictSize }

// PendingRepeats returns how many pending indices equal the one before
// them: the values a run-length or LZ coding of the PLAIN values would get
// for free.
func (e *dictCore) PendingRepeats() int {
	n := 0
	for i := 1; i < len(e.indices); i++ {
		if e.indices[i] == e.indices[i-1] {
			n++
		}
	}
	return n
}

// NumIndices returns the number of indices not yet written by AppendIndices.
func (e *dictCore) NumIndices() int { return len(e.indices) }

// IndicesLen returns an upper bound of the size of the pending indices as a
// data page body.
func (e *dictCore) IndicesLen() int {
	w := e.width()
	return 1 + (len(e.indices)*int(w)+7)/8 + (len(e.indices)/504+1)*2
}

func (e *dictCore) width() uint {
	// Width at least 1: some readers mishandle a bit width of 0.
	return max(1, uint(bits.Len32(uint32(max(e.n-1, 0)))))
}

// AppendIndices appends the pending indices as an RLE_DICTIONARY data page
// body (bit width byte and hybrid runs) and clears them; the dictionary is
// kept for the next page of the column chunk.
func (e *dictCore) AppendIndices(dst []byte) []byte {
	w := e.width()
	dst = append(dst, byte(w))
	e.hybrid.Reset(w)
	e.hybrid.Append32(e.indices)
	dst = append(dst, e.hybrid.Finish()...)
	e.indices = e.indices[:0]
	return dst
}

// AddIndices adds dictionary indices, as the Insert methods return them,
// to the pending indices: the values they name are written again without
// being hashed again. It returns false, adding none, if an index is not
// in the dictionary.
func (e *dictCore) AddIndices(indices []uint32) bool {
	var hi uint32
	for _, v := range indices {
		hi = max(hi, v)
	}
	if len(indices) > 0 && int64(hi) >= int64(e.n) {
		return false
	}
	e.indices = append(e.indices, indices...)
	return true
}

// The AppendPendingPlain methods append the values the pending indices
// stand for, PLAIN encoded, and clear the indices; the dictionary is kept.
// A writer whose first page shows that the dictionary does not pay writes
// that page PLAIN with them instead of as indices, and then no dictionary
// page at all (column.Writer.FlushPage).

// AppendPendingPlain: see above.
func (e *fixedDict[K]) AppendPendingPlain(dst []byte) []byte {
	e.buf = growLen(e.buf[:0], len(e.indices))
	keys := e.keys
	for i, idx := range e.indices {
		e.buf[i] = keys[idx]
	}
	e.indices = e.indices[:0]
	return appendLE(dst, e.buf)
}

// fixedSlot is a hash table entry: idx is the dictionary index plus one, 0
// for an empty slot.
type fixedSlot[K uint32 | uint64] struct {
	key K
	idx int32
}

// fixedDict is the dictionary of fixed-width values keyed by their bits.
type fixedDict[K uint32 | uint64] struct {
	dictCore
	keys  []K
	slots []fixedSlot[K]
	shift uint // 64 - log2(len(slots))
	size  int  // PLAIN bytes per value
	buf   []K  // keys of the values being added
}

func (e *fixedDict[K]) reset(maxDictBytes, size int) {
	e.dictCore.reset(maxDictBytes)
	e.keys, e.size = e.keys[:0], size
	if e.slots == nil {
		e.slots = make([]fixedSlot[K], minSlots)
	} else {
		clear(e.slots)
	}
	e.shift = uint(64 - bits.TrailingZeros(uint(len(e.slots))))
}

// grow doubles the table and re-inserts the keys.
func (e *fixedDict[K]) grow() {
	e.slots = make([]fixedSlot[K], 2*len(e.slots))
	e.shift--
	mask := uint64(len(e.slots) - 1)
	for i, k := range e.keys {
		h := uint64(k) * fib >> e.shift
		for e.slots[h].idx != 0 {
			h = (h + 1) & mask
		}
		e.slots[h] = fixedSlot[K]{k, int32(i + 1)}
	}
}

// add appends to out the dictionary index of every key, adding new keys to
// the dictionary, and returns the extended slice and how many keys it took:
// fewer than len(keys) when the dictionary is full.
func (e *fixedDict[K]) add(out []uint32, keys []K) ([]uint32, int) {
	slots := e.slots
	mask := uint64(len(slots) - 1)
	shift := e.shift
	// Sorted and clustered columns repeat the previous value: one compare
	// instead of a probe.
	var prevKey K
	prevIdx := uint32(math.MaxUint32)
	for i, k := range keys {
		if k == prevKey && prevIdx != math.MaxUint32 {
			out = append(out, prevIdx)
			continue
		}
		h := uint64(k) * fib >> shift
		for {
			s := &slots[h&mask]
			if s.idx == 0 {
				if !e.fits(e.size) {
					return out, i
				}
				idx := int32(e.n)
				*s = fixedSlot[K]{k, idx + 1}
				e.keys = append(e.keys, k)
				e.n++
				e.dictSize += e.size
				out = append(out, uint32(idx))
				prevKey, prevIdx = k, uint32(idx)
				if 2*e.n > len(slots) {
					e.grow()
					slots, shift = e.slots, e.shift
					mask = uint64(len(slots) - 1)
				}
				break
			}
			if s.key == k {
				out = append(out, uint32(s.idx-1))
				prevKey, prevIdx = k, uint32(s.idx-1)
				break
			}
			h++
		}
	}
	return out, len(keys)
}

// insert stores the dictionary index of every key in dst (len(dst) >=
// len(keys)) without making them pending, and returns how many it took.
func (e *fixedDict[K]) insert(dst []uint32, keys []K) int {
	out, n := e.add(dst[:0], keys)
	_ = out
	return n
}

func keysFrom[K uint32 | uint64, V int32 | int64](buf []K, values []V) []K {
	buf = growLen(buf[:0], len(values))
	for i, v := range values {
		buf[i] = K(v)
	}
	return buf
}

func keysFromFloat32(buf []uint32, values []float32) []uint32 {
	buf = growLen(buf[:0], len(values))
	for i, v := range values {
		buf[i] = math.Float32bits(v)
	}
	return buf
}

func keysFromFloat64(buf []uint64, values []float64) []uint64 {
	buf = growLen(buf[:0], len(values))
	for i, v := range values {
		buf[i] = math.Float64bits(v)
	}
	return buf
}

// pend adds the keys to the dictionary and to the pending indices.
func (e *fixedDict[K]) pend(keys []K) int {
	var n int
	e.indices, n = e.add(e.indices, keys)
	return n
}

// DictEncoder32 builds the dictionary of an INT32 or FLOAT column (values
// are keyed by their bits, so every NaN pattern is one entry). The zero value
// is ready after Reset; it is not safe for concurrent use.
type DictEncoder32 struct{ fixedDict[uint32] }

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoder32) Reset(maxDictBytes int) { e.reset(maxDictBytes, 4) }

// AppendInt32 adds values and returns how many it took; fewer than
// len(values) means the dictionary is full and the column must fall back to
// PLAIN from values[n] on.
func (e *DictEncoder32) AppendInt32(values []int32) int {
	e.buf = keysFrom(e.buf, values)
	return e.pend(e.buf)
}

// AppendFloat is [DictEncoder32.AppendInt32] for FLOAT.
func (e *DictEncoder32) AppendFloat(values []float32) int {
	e.buf = keysFromFloat32(e.buf, values)
	return e.pend(e.buf)
}

// InsertInt32 stores in dst[i] the dictionary index of values[i], adding
// new values to the dictionary but not to the pending indices (see
// [DictEncoder32.AddIndices]), and returns how many values it took.
// len(dst) must be at least len(values).
func (e *DictEncoder32) InsertInt32(dst []uint32, values []int32) int {
	e.buf = keysFrom(e.buf, values)
	return e.insert(dst, e.buf)
}

// InsertFloat is [DictEncoder32.InsertInt32] for FLOAT.
func (e *DictEncoder32) InsertFloat(dst []uint32, values []float32) int {
	e.buf = keysFromFloat32(e.buf, values)
	return e.insert(dst, e.buf)
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoder32) AppendDictPage(dst []byte) []byte { return appendLE(dst, e.keys) }

// DictEncoder64 is [DictEncoder32] for INT64 and DOUBLE.
type DictEncoder64 struct{ fixedDict[uint64] }

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoder64) Reset(maxDictBytes int) { e.reset(maxDictBytes, 8) }

// AppendInt64 adds values and returns how many it took (see
// [DictEncoder32.AppendInt32]).
func (e *DictEncoder64) AppendInt64(values []int64) int {
	e.buf = keysFrom(e.buf, values)
	return e.pend(e.buf)
}

// AppendDouble is [DictEncoder64.AppendInt64] for DOUBLE.
func (e *DictEncoder64) AppendDouble(values []float64) int {
	e.buf = keysFromFloat64(e.buf, values)
	return e.pend(e.buf)
}

// InsertInt64 is [DictEncoder32.InsertInt32] for INT64.
func (e *DictEncoder64) InsertInt64(dst []uint32, values []int64) int {
	e.buf = keysFrom(e.buf, values)
	return e.insert(dst, e.buf)
}

// InsertDouble is [DictEncoder32.InsertInt32] for DOUBLE.
func (e *DictEncoder64) InsertDouble(dst []uint32, values []float64) int {
	e.buf = keysFromFloat64(e.buf, values)
	return e.insert(dst, e.buf)
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoder64) AppendDictPage(dst []byte) []byte { return appendLE(dst, e.keys) }

// DictEncoderInt96 is [DictEncoder32] for INT96. INT96 columns are rare
// (legacy timestamps), so a map is good enough.
type DictEncoderInt96 struct {
	dictCore
	index map[[12]byte]int32
	keys  [][12]byte
}

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none).
func (e *DictEncoderInt96) Reset(maxDictBytes int) {
	e.dictCore.reset(maxDictBytes)
	if e.index == nil {
		e.index = make(map[[12]byte]int32)
	} else {
		clear(e.index)
	}
	e.keys = e.keys[:0]
}

func (e *DictEncoderInt96) add(out []uint32, values [][12]byte) ([]uint32, int) {
	for i, v := range values {
		idx, ok := e.index[v]
		if !ok {
			if !e.fits(12) {
				return out, i
			}
			idx = int32(e.n)
			e.index[v] = idx
			e.keys = append(e.keys, v)
			e.n++
			e.dictSize += 12
		}
		out = append(out, uint32(idx))
	}
	return out, len(values)
}

// AppendInt96 adds values and returns how many it took.
func (e *DictEncoderInt96) AppendInt96(values [][12]byte) int {
	var n int
	e.indices, n = e.add(e.indices, values)
	return n
}

// InsertInt96 is [DictEncoder32.InsertInt32] for INT96.
func (e *DictEncoderInt96) InsertInt96(dst []uint32, values [][12]byte) int {
	_, n := e.add(dst[:0], values)
	return n
}

// AppendPendingPlain: see fixedDict.AppendPendingPlain.
func (e *DictEncoderInt96) AppendPendingPlain(dst []byte) []byte {
	for _, idx := range e.indices {
		dst = append(dst, e.keys[idx][:]...)
	}
	e.indices = e.indices[:0]
	return dst
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoderInt96) AppendDictPage(dst []byte) []byte { return AppendPlainInt96(dst, e.keys) }

// byteSlot is a byte array hash table entry: the low 32 bits of the hash
// (the slot comes from the top bits) and the dictionary index plus one (0:
// empty).
type byteSlot struct {
	tag uint32
	idx int32
}

// DictEncoderByteArray is [DictEncoder32] for BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY; it copies each new value once, into one buffer.
type DictEncoderByteArray struct {
	dictCore
	fixed  int   // FIXED_LEN_BYTE_ARRAY type length, 0 for BYTE_ARRAY
	offs   []int // dictionary value i is data[offs[i]:offs[i+1]]
	data   []byte
	slots  []byteSlot
	shift  uint
	seed   maphash.Seed
	seed64 uint64
}

// Reset empties the encoder and sets the size limit in bytes of the
// dictionary page (0: none) and the FIXED_LEN_BYTE_ARRAY type length (0 for
// BYTE_ARRAY).
func (e *DictEncoderByteArray) Reset(maxDictBytes, typeLength int) {
	e.dictCore.reset(maxDictBytes)
	e.fixed = typeLength
	e.offs, e.data = append(e.offs[:0], 0), e.data[:0]
	if e.slots == nil {
		e.slots = make([]byteSlot, minSlots)
		e.seed = maphash.MakeSeed()
		e.seed64 = maphash.Comparable(e.seed, 0)
	} else {
		clear(e.slots)
	}
	e.shift = uint(64 - bits.TrailingZeros(uint(len(e.slots))))
}

// hash returns the hash of v: for up to 32 bytes multiply-xors of
// overlapping word loads (the short-input cases of wyhash), inline; longer
// values go to hash/maphash. Short strings are the common dictionary
// values (BenchmarkWrite data=lineitem; data=strings's categories have 22
// bytes).
func (e *DictEncoderByteArray) hash(v []byte) uint64 {
	n := len(v)
	var a, b uint64
	switch {
	case n > 32:
		return maphash.Bytes(e.seed, v)
	case n > 16:
		h1, l1 := bits.Mul64(binary.LittleEndian.Uint64(v)^e.seed64^0xa0761d6478bd642f, binary.LittleEndian.Uint64(v[8:])^0xe7037ed1a0b428db)
		a, b = h1^l1, binary.LittleEndian.Uint64(v[n-16:])^binary.LittleEndian.Uint64(v[n-8:])*fib
	case n >= 8:
		a, b = binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[n-8:])
	case n >= 4:
		a, b = uint64(binary.LittleEndian.Uint32(v)), uint64(binary.LittleEndian.Uint32(v[n-4:]))
	case n > 0:
		a = uint64(v[0])<<16 | uint64(v[n>>1])<<8 | uint64(v[n-1])
	}
	hi, lo := bits.Mul64(a^e.seed64^0xa0761d6478bd642f, b^uint64(n)^0xe7037ed1a0b428db)
	hi, lo = bits.Mul64(hi^lo^0x8ebc6af09c88c6e3, fib)
	return hi ^ lo
}

func (e *DictEncoderByteArray) grow() {
	e.slots = make([]byteSlot, 2*len(e.slots))
	e.shift--
	mask := uint64(len(e.slots) - 1)
	for i := 0; i < e.n; i++ {
		hash := e.hash(e.data[e.offs[i]:e.offs[i+1]])
		h := hash >> e.shift
		for e.slots[h].idx != 0 {
			h = (h + 1) & mask
		}
		e.slots[h] = byteSlot{uint32(hash), int32(i + 1)}
	}
}

// addValue returns the dictionary index of v, adding it if it is new, and
// false if it is new and does not fit.
func (e *DictEncoderByteArray) addValue(v []byte, size int) (uint32, bool) {
	hash := e.hash(v)
	tag := uint32(hash)
	mask := uint64(len(e.slots) - 1)
	for h := hash >> e.shift; ; h = (h + 1) & mask {
		s := &e.slots[h]
		if s.idx == 0 {
			if !e.fits(size) {
				return 0, false
			}
			idx := int32(e.n)
			*s = byteSlot{tag, idx + 1}
			e.data = append(e.data, v...)
			e.offs = append(e.offs, len(e.data))
			e.n++
			e.dictSize += size
			if 2*e.n > len(e.slots) {
				e.grow()
			}
			return uint32(idx), true
		}
		if s.tag == tag {
			i := s.idx - 1
			if bytes.Equal(e.data[e.offs[i]:e.offs[i+1]], v) {
				return uint32(i), true
			}
		}
	}
}

func (e *DictEncoderByteArray) addByteArray(out []uint32, offsets []int32, data []byte) ([]uint32, int) {
	for i := 0; i+1 < len(offsets); i++ {
		v := data[offsets[i]:offsets[i+1]]
		idx, ok := e.addValue(v, 4+len(v))
		if !ok {
			return out, i
		}
		out = append(out, idx)
	}
	return out, max(len(offsets)-1, 0)
}

func (e *DictEncoderByteArray) addFixed(out []uint32, values []byte) ([]uint32, int) {
	w := e.fixed
	if w <= 0 {
		return out, 0
	}
	n := len(values) / w
	for i := 0; i < n; i++ {
		idx, ok := e.addValue(values[i*w:(i+1)*w], w)
		if !ok {
			return out, i
		}
		out = append(out, idx)
	}
	return out, n
}

// AppendByteArray adds the len(offsets)-1 values
// data[offsets[i]:offsets[i+1]] and returns how many it took.
func (e *DictEncoderByteArray) AppendByteArray(offsets []int32, data []byte) int {
	var n int
	e.indices, n = e.addByteArray(e.indices, offsets, data)
	return n
}

// AppendFixedLenByteArray adds len(values)/typeLength values stored back
// to back and returns how many it took.
func (e *DictEncoderByteArray) AppendFixedLenByteArray(values []byte) int {
	var n int
	e.indices, n = e.addFixed(e.indices, values)
	return n
}

// InsertByteArray is [DictEncoder32.InsertInt32] for BYTE_ARRAY values
// given as in [DictEncoderByteArray.AppendByteArray].
func (e *DictEncoderByteArray) InsertByteArray(dst []uint32, offsets []int32, data []byte) int {
	_, n := e.addByteArray(dst[:0], offsets, data)
	return n
}

// InsertFixedLenByteArray is [DictEncoder32.InsertInt32] for
// FIXED_LEN_BYTE_ARRAY values stored back to back.
func (e *DictEncoderByteArray) InsertFixedLenByteArray(dst []uint32, values []byte) int {
	_, n := e.addFixed(dst[:0], values)
	return n
}

// AppendPendingPlain: see fixedDict.AppendPendingPlain.
func (e *DictEncoderByteArray) AppendPendingPlain(dst []byte) []byte {
	size := 0
	for _, idx := range e.indices {
		size += e.offs[idx+1] - e.offs[idx]
	}
	if e.fixed == 0 {
		size += 4 * len(e.indices)
	}
	dst = slices.Grow(dst, size)
	for _, idx := range e.indices {
		v := e.data[e.offs[idx]:e.offs[idx+1]]
		if e.fixed == 0 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)))
		}
		dst = append(dst, v...)
	}
	e.indices = e.indices[:0]
	return dst
}

// AppendDictPage appends the PLAIN dictionary page body.
func (e *DictEncoderByteArray) AppendDictPage(dst []byte) []byte {
	if e.fixed != 0 {
		return append(dst, e.data...)
	}
	for i := 0; i < e.n; i++ {
		v := e.data[e.offs[i]:e.offs[i+1]]
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(v)))
		dst = append(dst, v...)
	}
	return dst
}
