package levels

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

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

// TestSpreadZero holds SpreadZero equal to the two spreads it replaces:
// Spread into zeroed slots, and dense values at the start of the slots
// spread by SpreadInPlace; dst starts with garbage, which must not survive
// in null slots. The values start anywhere in the block.
func TestSpreadZero(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	for iter := 0; iter < 3000; iter++ {
		n := rng.IntN(1000)
		if iter%3 == 0 {
			n = 64 * rng.IntN(16)
		}
		offset := rng.IntN(130)
		if iter%2 == 0 {
			offset = 0
		}
		valid := randomValidity(rng, offset, n)
		nv := n - CountNulls(valid, offset, n)
		k0 := 1 + rng.IntN(SpreadBlockLen-nv)
		var block [SpreadBlockCap]uint64
		for i := 1; i < len(block); i++ {
			block[i] = rng.Uint64() | 1
		}
		dense := block[k0 : k0+nv]
		got := make([]uint64, n)
		for i := range got {
			got[i] = 0xdeadbeef
		}
		if k := SpreadZero(got, &block, k0, valid, offset); k != k0+nv {
			t.Fatalf("n %d offset %d: used %d values, want %d", n, offset, k-k0, nv)
		}
		want := make([]uint64, n)
		Spread(want, dense, valid, offset)
		if !slices.Equal(got, want) {
			t.Fatalf("n %d offset %d: SpreadZero differs from Spread into zeros", n, offset)
		}
		// Dense values at the start of the slots, spread in place.
		inPlace := make([]uint64, n)
		for i := range inPlace {
			inPlace[i] = 0xbad
		}
		copy(inPlace, dense)
		bm := make([]byte, (n+7)/8)
		for i := 0; i < n; i++ {
			if isSet(valid, offset+i) {
				bm[i/8] |= 1 << (i % 8)
			}
		}
		SpreadInPlace(inPlace, nv, bm, n)
		if !slices.Equal(got, inPlace) {
			t.Fatalf("n %d offset %d: SpreadZero differs from SpreadInPlace", n, offset)
		}
		// Other element types: 4-byte floats and 12-byte arrays.
		var block32 [SpreadBlockCap]float32
		var blockA [SpreadBlockCap][12]byte
		for i, v := range block {
			block32[i] = float32(v)
			blockA[i][0], blockA[i][11] = byte(v), byte(v>>8)
		}
		got32 := make([]float32, n)
		gotA := make([][12]byte, n)
		for i := range gotA {
			got32[i], gotA[i][5] = 1, 1
		}
		SpreadZero(got32, &block32, k0, valid, offset)
		SpreadZero(gotA, &blockA, k0, valid, offset)
		k := k0
		for i := range gotA {
			var w32 float32
			var wA [12]byte
			if isSet(valid, offset+i) {
				w32, wA = block32[k], blockA[k]
				k++
			}
			if got32[i] != w32 || gotA[i] != wA {
				t.Fatalf("n %d offset %d: slot %d is %v, %v; want %v, %v", n, offset, i, got32[i], gotA[i], w32, wA)
			}
		}
	}
}

// BenchmarkSpreadZero: 1024 8-byte slots from a block of values, random
// nulls, against SpreadInPlace on the same slots (the spread it replaces,
// with the copy of the dense values into the slots it needs).
func BenchmarkSpreadZero(b *testing.B) {
	const n = 1024
	for _, pct := range []int{0, 10, 50} {
		rng := rand.New(rand.NewPCG(1, 2))
		valid := make([]byte, n/8)
		for i := 0; i < n; i++ {
			if rng.IntN(100) >= pct {
				valid[i/8] |= 1 << (i % 8)
			}
		}
		nv := n - CountNulls(valid, 0, n)
		var block [SpreadBlockCap]uint64
		dst := make([]uint64, n)
		b.Run("nulls="+strconv.Itoa(pct)+"/kind=zero", func(b *testing.B) {
			b.SetBytes(n * 8)
			for b.Loop() {
				SpreadZero(dst, &block, SpreadBlockLen-nv, valid, 0)
			}
		})
		b.Run("nulls="+strconv.Itoa(pct)+"/kind=inplace", func(b *testing.B) {
			b.SetBytes(n * 8)
			for b.Loop() {
				copy(dst, block[:nv])
				SpreadInPlace(dst, nv, valid, n)
			}
		})
	}
}
