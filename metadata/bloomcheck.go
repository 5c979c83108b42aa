package metadata

// Lookups in the split block bloom filter of BloomFilter.md. The bitset is z
// blocks of 32 bytes, each eight little-endian 32-bit words. A value is
// hashed with XXH64 (seed 0) over its PLAIN encoding (byte arrays without
// the length prefix). The upper 32 bits of the hash pick the block,
// ((h>>32) * z) >> 32; the lower 32 bits pick one bit in each word:
// word i tests bit (lo * salt[i]) >> 27. A value may be present only when
// all eight bits are set.

import (
	"encoding/binary"
)

// bloomSalts are the eight odd constants of BloomFilter.md.
var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// MayContain reports whether the filter may hold a value whose XXH64 hash
// is hash (see [XXHash64]). False means the value is
// definitely absent from the column chunk. A filter with an empty or
// malformed bitset (not a whole number of 32-byte blocks) says true: it
// cannot rule anything out.
func (f *BloomFilter) MayContain(hash uint64) bool {
	n := len(f.Bitset)
	if n == 0 || n%bloomBlockSize != 0 {
		return true
	}
	z := uint64(n / bloomBlockSize)
	blk := int(((hash >> 32) * z) >> 32)
	block := f.Bitset[blk*bloomBlockSize : (blk+1)*bloomBlockSize]
	lo := uint32(hash)
	for i, salt := range bloomSalts {
		word := binary.LittleEndian.Uint32(block[4*i:])
		if word&(1<<((lo*salt)>>27)) == 0 {
			return false
		}
	}
	return true
}
