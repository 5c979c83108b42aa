package arrowpq

// The split block bloom filter of BloomFilter.md: the bitset is z blocks of
// 256 bits, each eight little-endian 32-bit words. A value's 64-bit xxHash
// picks a block with its upper 32 bits ((h>>32)*z >> 32) and sets one bit in
// each word of it from its lower 32 bits: word i gets bit
// (lo*salt[i]) >> 27. A value may be present when all eight bits are set.

import (
	"encoding/binary"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

var bloomSalt = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

const bloomBlockBytes = 32

// bloomFilter is a split block bloom filter being filled. Words are kept
// as uint32 and serialized little-endian at the end.
type bloomFilter struct {
	words []uint32 // 8 per block
}

// bloomFilterBytes returns the bitset size for ndv distinct values at
// false-positive probability fpp: the spec's m = -8·ndv / ln(1 - fpp^(1/8))
// bits, rounded up to a power of two bytes within [32, MaxBloomFilterBytes].
func bloomFilterBytes(ndv int64, fpp float64) int {
	m := -8 * float64(ndv) / math.Log(1-math.Pow(fpp, 1.0/8))
	n := m / 8
	if !(n < MaxBloomFilterBytes) {
		return MaxBloomFilterBytes
	}
	b := bloomBlockBytes
	for float64(b) < n {
		b <<= 1
	}
	return b
}

// BloomFilterBytes is the size of the bitset the Writer allocates, per
// column chunk, for a column whose ColumnOptions ask for a bloom filter of
// ndv distinct values at false-positive probability fpp (zero means
// DefaultBloomFilterFPP): a power of two from 32 to MaxBloomFilterBytes.
// A server writing files for clients uses it to bound the memory their
// options can ask for; it returns 0 for ndv ≤ 0 and MaxBloomFilterBytes
// for an fpp outside (0, 1), which the Writer refuses.
func BloomFilterBytes(ndv int64, fpp float64) int {
	if ndv <= 0 {
		return 0
	}
	if fpp == 0 {
		fpp = DefaultBloomFilterFPP
	}
	if !(fpp > 0 && fpp < 1) {
		return MaxBloomFilterBytes
	}
	return bloomFilterBytes(ndv, fpp)
}

func newBloomFilter(numBytes int) *bloomFilter {
	return &bloomFilter{words: make([]uint32, numBytes/4)}
}

func (f *bloomFilter) reset() { clear(f.words) }

// insert adds a value by its hash.
func (f *bloomFilter) insert(h uint64) {
	z := uint64(len(f.words) / 8)
	blk := ((h >> 32) * z) >> 32
	w := f.words[blk*8 : blk*8+8 : blk*8+8]
	lo := uint32(h)
	for i := range 8 {
		w[i] |= 1 << ((lo * bloomSalt[i]) >> 27)
	}
}

// appendTo appends the BloomFilterHeader and the bitset to dst.
func (f *bloomFilter) appendTo(dst []byte) ([]byte, error) {
	hdr := &format.BloomFilterHeader{
		NumBytes:    int32(len(f.words) * 4),
		Algorithm:   &format.BloomFilterAlgorithm{BLOCK: &format.SplitBlockAlgorithm{}},
		Hash:        &format.BloomFilterHash{XXHASH: &format.XxHash{}},
		Compression: &format.BloomFilterCompression{UNCOMPRESSED: &format.Uncompressed{}},
	}
	dst, err := metadata.Marshal(dst, hdr)
	if err != nil {
		return dst, err
	}
	for _, w := range f.words {
		dst = binary.LittleEndian.AppendUint32(dst, w)
	}
	return dst, nil
}

// Hashing of gathered physical values (their PLAIN bytes), one loop per
// type.

func (f *bloomFilter) insertInt32(vals []int32) {
	for _, v := range vals {
		f.insert(metadata.XXHash64Uint32(uint32(v)))
	}
}

func (f *bloomFilter) insertInt64(vals []int64) {
	for _, v := range vals {
		f.insert(metadata.XXHash64Uint64(uint64(v)))
	}
}

func (f *bloomFilter) insertFloat(vals []float32) {
	for _, v := range vals {
		f.insert(metadata.XXHash64Uint32(math.Float32bits(v)))
	}
}

func (f *bloomFilter) insertDouble(vals []float64) {
	for _, v := range vals {
		f.insert(metadata.XXHash64Uint64(math.Float64bits(v)))
	}
}

// insertFixed hashes values of width bytes stored back to back (INT96,
// FIXED_LEN_BYTE_ARRAY).
func (f *bloomFilter) insertFixed(vals []byte, width int) {
	for i := 0; i+width <= len(vals); i += width {
		f.insert(metadata.XXHash64(vals[i : i+width]))
	}
}

// insertPlainByteArray hashes PLAIN encoded BYTE_ARRAY values (well
// formed: written by us), without their length prefixes.
func (f *bloomFilter) insertPlainByteArray(plain []byte) {
	for pos := 0; pos+4 <= len(plain); {
		end := pos + 4 + int(binary.LittleEndian.Uint32(plain[pos:]))
		f.insert(metadata.XXHash64(plain[pos+4 : end]))
		pos = end
	}
}

// insertByteArray hashes data[offsets[i]:offsets[i+1]]: the value without
// its length prefix.
func (f *bloomFilter) insertByteArray(offsets []int32, data []byte) {
	for i := 0; i+1 < len(offsets); i++ {
		f.insert(metadata.XXHash64(data[offsets[i]:offsets[i+1]]))
	}
}
