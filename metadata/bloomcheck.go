package metadata

// Lookups in the split block bloom filter of BloomFilter.md. The bitset is z
// blocks of 32 bytes, each eight little-endian 32-bit words. A value is
// hashed with XXH64 (seed 0) over its PLAIN encoding (byte arrays without
// the length prefix). The upper 32 bits of the hash pick the block,
// ((h>>32) * z) >> 32; the lower 32 bits pick one bit in each word:
// word i tests bit (lo * salt[i]) >> 27. A value may be present only when
// all eight bits are set.
//
// XXH64 follows doc/xxhash_spec.md of github.com/Cyan4973/xxHash: four
// accumulators consume 32-byte stripes, the rest is consumed in 8-, 4- and
// 1-byte steps, and an avalanche mixes the result.

import (
	"encoding/binary"
	"math/bits"
)

// bloomSalts are the eight odd constants of BloomFilter.md.
var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// MayContain reports whether the filter may hold a value whose XXH64 hash
// is hash (see [XXHash64] and [BloomHashPlain]). False means the value is
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

const (
	xxP1 uint64 = 0x9E3779B185EBCA87
	xxP2 uint64 = 0xC2B2AE3D27D4EB4F
	xxP3 uint64 = 0x165667B19E3779F9
	xxP4 uint64 = 0x85EBCA77C2B2AE63
	xxP5 uint64 = 0x27D4EB2F165667C5
)

// XXHash64 returns the XXH64 hash of b with seed 0, the hash Parquet bloom
// filters use.
func XXHash64(b []byte) uint64 {
	n := uint64(len(b))
	var h uint64
	if len(b) >= 32 {
		// Constants wrap modulo 2^64, as the spec's unsigned arithmetic.
		p1, p2 := xxP1, xxP2
		v1 := p1 + p2
		v2 := p2
		v3 := uint64(0)
		v4 := -p1
		for len(b) >= 32 {
			v1 = xxRound(v1, binary.LittleEndian.Uint64(b[0:]))
			v2 = xxRound(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = xxRound(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = xxRound(v4, binary.LittleEndian.Uint64(b[24:]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMergeRound(h, v1)
		h = xxMergeRound(h, v2)
		h = xxMergeRound(h, v3)
		h = xxMergeRound(h, v4)
	} else {
		h = xxP5
	}
	h += n
	for len(b) >= 8 {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
		b = b[8:]
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * xxP1
		h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * xxP5
		h = bits.RotateLeft64(h, 11) * xxP1
	}
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}

func xxRound(acc, lane uint64) uint64 {
	acc += lane * xxP2
	return bits.RotateLeft64(acc, 31) * xxP1
}

func xxMergeRound(acc, v uint64) uint64 {
	acc ^= xxRound(0, v)
	return acc*xxP1 + xxP4
}
