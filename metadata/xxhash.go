package metadata

// xxHash64 (XXH64 of github.com/Cyan4973/xxHash, doc/xxhash_spec.md) with
// seed 0, the hash of Parquet's split block bloom filter (BloomFilter.md).
// Input is consumed in 32-byte stripes by four accumulators, then in 8-,
// 4- and 1-byte steps; a final avalanche mixes the bits.

import (
	"encoding/binary"
	"math/bits"
)

const (
	xxP1 uint64 = 0x9E3779B185EBCA87
	xxP2 uint64 = 0xC2B2AE3D27D4EB4F
	xxP3 uint64 = 0x165667B19E3779F9
	xxP4 uint64 = 0x85EBCA77C2B2AE63
	xxP5 uint64 = 0x27D4EB2F165667C5
)

func xxRound(acc, input uint64) uint64 {
	acc += input * xxP2
	acc = bits.RotateLeft64(acc, 31)
	return acc * xxP1
}

func xxMerge(acc, v uint64) uint64 {
	acc ^= xxRound(0, v)
	return acc*xxP1 + xxP4
}

func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}

// XXHash64 returns XXH64(b, seed 0), the hash of Parquet's bloom filters:
// a value's hash is XXHash64 of its PLAIN encoding (byte arrays without the
// length prefix).
func XXHash64(b []byte) uint64 {
	n := len(b)
	var h uint64
	if n >= 32 {
		p1, p2 := xxP1, xxP2 // variables: the sums wrap
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
		h = xxP5
	}
	h += uint64(n)
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
	return xxAvalanche(h)
}

// XXHash64Uint32 is XXHash64 of the 4 little-endian bytes of v (PLAIN INT32
// and FLOAT), without building them.
func XXHash64Uint32(v uint32) uint64 {
	h := xxP5 + 4
	h ^= uint64(v) * xxP1
	h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
	return xxAvalanche(h)
}

// XXHash64Uint64 is XXHash64 of the 8 little-endian bytes of v (PLAIN INT64
// and DOUBLE).
func XXHash64Uint64(v uint64) uint64 {
	h := xxP5 + 8
	h ^= xxRound(0, v)
	h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
	return xxAvalanche(h)
}
