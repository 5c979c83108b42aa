package arrowpq

// xxHash64 (XXH64 of github.com/Cyan4973/xxHash, doc/xxhash_spec.md) with
// seed 0, the hash of Parquet's split block bloom filter (BloomFilter.md).
// Input is consumed in 32-byte stripes by four accumulators, then in 8-,
// 4- and 1-byte steps; a final avalanche mixes the bits.

import (
	"encoding/binary"
	"math/bits"
)

const (
	xxPrime1 uint64 = 0x9E3779B185EBCA87
	xxPrime2 uint64 = 0xC2B2AE3D27D4EB4F
	xxPrime3 uint64 = 0x165667B19E3779F9
	xxPrime4 uint64 = 0x85EBCA77C2B2AE63
	xxPrime5 uint64 = 0x27D4EB2F165667C5
)

func xxRound(acc, input uint64) uint64 {
	acc += input * xxPrime2
	acc = bits.RotateLeft64(acc, 31)
	return acc * xxPrime1
}

func xxMerge(acc, v uint64) uint64 {
	acc ^= xxRound(0, v)
	return acc*xxPrime1 + xxPrime4
}

func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

// xxhash64 returns XXH64(b, seed 0).
func xxhash64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		p1, p2 := xxPrime1, xxPrime2 // variables: the sums wrap
		v1 := p1 + p2
		v2 := p2
		v3 := uint64(0)
		v4 := -p1
		for len(b) >= 32 {
			s := b[:32:32]
			v1 = xxRound(v1, binary.LittleEndian.Uint64(s[0:8]))
			v2 = xxRound(v2, binary.LittleEndian.Uint64(s[8:16]))
			v3 = xxRound(v3, binary.LittleEndian.Uint64(s[16:24]))
			v4 = xxRound(v4, binary.LittleEndian.Uint64(s[24:32]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		h = xxMerge(h, v1)
		h = xxMerge(h, v2)
		h = xxMerge(h, v3)
		h = xxMerge(h, v4)
	} else {
		h = xxPrime5
	}
	h += uint64(n)
	for len(b) >= 8 {
		h ^= xxRound(0, binary.LittleEndian.Uint64(b))
		h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
		b = b[8:]
	}
	if len(b) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(b)) * xxPrime1
		h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
		b = b[4:]
	}
	for _, c := range b {
		h ^= uint64(c) * xxPrime5
		h = bits.RotateLeft64(h, 11) * xxPrime1
	}
	return xxAvalanche(h)
}

// xxhash64Uint32 is xxhash64 of the 4 little-endian bytes of v (PLAIN INT32
// and FLOAT), without building them.
func xxhash64Uint32(v uint32) uint64 {
	h := xxPrime5 + 4
	h ^= uint64(v) * xxPrime1
	h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
	return xxAvalanche(h)
}

// xxhash64Uint64 is xxhash64 of the 8 little-endian bytes of v (PLAIN INT64
// and DOUBLE).
func xxhash64Uint64(v uint64) uint64 {
	h := xxPrime5 + 8
	h ^= xxRound(0, v)
	h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	return xxAvalanche(h)
}
