package metadata

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// TestXXHash64MoreVectors checks published XXH64 (seed 0) test vectors.
func TestXXHash64MoreVectors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
	}{
		{"", 0xef46db3751d8e999},
		{"a", 0xd24ec4f1a98c6e5b},
		{"abc", 0x44bc2cf5ad770999},
		{"message digest", 0x066ed728fceeb3be},
		{"abcdefghijklmnopqrstuvwxyz", 0xcfe1f278fa89835c},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0xaaa46907d3047814},
		{"12345678901234567890123456789012345678901234567890123456789012345678901234567890", 0xe04a477f19ee145d},
	} {
		if got := XXHash64([]byte(tc.in)); got != tc.want {
			t.Errorf("XXHash64(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

// TestXXHash64AgainstCespare compares every length up to 300 and the fixed
// width helpers with github.com/cespare/xxhash/v2.
func TestXXHash64AgainstCespare(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n := 0; n <= len(buf); n++ {
		if got, want := XXHash64(buf[:n]), xxhash.Sum64(buf[:n]); got != want {
			t.Fatalf("length %d: %#x, want %#x", n, got, want)
		}
	}
	for range 1000 {
		v := r.Uint64()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		if got, want := XXHash64Uint64(v), xxhash.Sum64(b[:]); got != want {
			t.Fatalf("uint64 %#x: %#x, want %#x", v, got, want)
		}
		if got, want := XXHash64Uint32(uint32(v)), xxhash.Sum64(b[:4]); got != want {
			t.Fatalf("uint32 %#x: %#x, want %#x", uint32(v), got, want)
		}
	}
}
