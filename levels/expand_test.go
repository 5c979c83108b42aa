package levels

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpreadExpand holds SpreadInPlace with the AVX-512 words
// (spreadExpand) equal to SpreadInPlace with the Go words, for 8- and
// 4-byte values, slot counts on and off word boundaries and every
// validity shape (no nulls, all null, single bits, runs, densities). On a
// CPU without AVX-512 both are the Go words.
func TestSpreadExpand(t *testing.T) {
	if !spreadExpandOK {
		t.Log("no AVX-512: comparing the Go words with themselves")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	for iter := 0; iter < 2000; iter++ {
		n := rng.IntN(3000)
		if iter%2 == 0 {
			n = 64 * rng.IntN(40)
		}
		valid := randomValidity(rng, 0, n)
		nv := n - CountNulls(valid, 0, n)
		v64 := make([]uint64, n)
		v32 := make([]uint32, n)
		for i := range v64 {
			v64[i] = rng.Uint64() | 1
			v32[i] = uint32(v64[i]) | 1
		}
		got64, got32 := slices.Clone(v64), slices.Clone(v32)
		SpreadInPlace(got64, nv, valid, n)
		SpreadInPlace(got32, nv, valid, n)
		old := spreadExpandOK
		spreadExpandOK = false
		SpreadInPlace(v64, nv, valid, n)
		SpreadInPlace(v32, nv, valid, n)
		spreadExpandOK = old
		if !slices.Equal(got64, v64) {
			t.Fatalf("n %d nv %d: 8-byte values differ", n, nv)
		}
		if !slices.Equal(got32, v32) {
			t.Fatalf("n %d nv %d: 4-byte values differ", n, nv)
		}
	}
}

// TestSpreadExpandCountMismatch: when the values counted do not match the
// set bits (a caller's error), spreadExpand leaves the slots alone and
// reports false, so that the assembly never loads outside the slice.
func TestSpreadExpandCountMismatch(t *testing.T) {
	vals := make([]uint64, 128)
	valid := make([]byte, 16)
	valid[0] = 0xff
	for _, k := range []int{0, 7, 9, 200} {
		if spreadExpand(vals, valid, 128, k) {
			t.Fatalf("k %d for 8 set bits: spread", k)
		}
	}
	if spreadExpandOK && !spreadExpand(vals, valid, 128, 8) {
		t.Fatal("k 8 for 8 set bits: not spread")
	}
}

// FuzzSpreadExpand holds SpreadInPlace with the AVX-512 words equal to
// the Go words for any validity bits and slot count, 8- and 4-byte values.
func FuzzSpreadExpand(f *testing.F) {
	f.Add([]byte{0xff, 0x00, 0x5a, 0xa5, 0x01, 0x80, 0xfe, 0x7f, 0x11, 0, 0, 0, 0, 0, 0, 0, 0xf0}, uint16(130))
	f.Add(make([]byte, 64), uint16(512))
	f.Fuzz(func(t *testing.T, valid []byte, n uint16) {
		m := min(int(n), 8*len(valid))
		nv := m - CountNulls(valid, 0, m)
		v64 := make([]uint64, m)
		v32 := make([]uint32, m)
		for i := range v64 {
			v64[i] = uint64(i)*0x9e3779b97f4a7c15 | 1
			v32[i] = uint32(v64[i])
		}
		got64, got32 := slices.Clone(v64), slices.Clone(v32)
		SpreadInPlace(got64, nv, valid, m)
		SpreadInPlace(got32, nv, valid, m)
		old := spreadExpandOK
		spreadExpandOK = false
		SpreadInPlace(v64, nv, valid, m)
		SpreadInPlace(v32, nv, valid, m)
		spreadExpandOK = old
		if !slices.Equal(got64, v64) || !slices.Equal(got32, v32) {
			t.Fatalf("n %d nv %d: AVX-512 words differ from the Go words", m, nv)
		}
	})
}

// randomValidity returns n random validity bits from bit offset of a new
// bitmap in one of several shapes (no nulls, all null, single bits, runs,
// random densities), with random bits before offset and after n.
func randomValidity(rng *rand.Rand, offset, n int) []byte {
	bm := make([]byte, (offset+n+7)/8+rng.IntN(3))
	for i := range bm {
		bm[i] = byte(rng.Uint32())
	}
	shape := rng.IntN(6)
	p := rng.Float64()
	run := false
	for i := offset; i < offset+n; i++ {
		var set bool
		switch shape {
		case 0:
			set = true
		case 1:
			set = false
		case 2:
			set = rng.IntN(64) != 0 // single nulls
		case 3:
			set = rng.IntN(64) == 0 // single values
		case 4:
			if rng.IntN(50) == 0 {
				run = !run
			}
			set = run
		default:
			set = rng.Float64() < p
		}
		if set {
			bm[i/8] |= 1 << (i % 8)
		} else {
			bm[i/8] &^= 1 << (i % 8)
		}
	}
	return bm
}
