package levels

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSpreadOffsetsWords holds SpreadOffsets and SpreadOffsetsInPlace
// (64 slots a step, mixed words branch-free) equal to the plain per-slot
// reference on slot counts up to 3000 (many whole words, partial last
// words), with validity all set, all clear, alternating, in long runs and
// random at 1-99%, and junk bits past n; mixed words run by run, slot by
// slot, and as chosen by the null count.
func TestSpreadOffsetsWords(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 19))
	defer func() { offsetRunNulls = 2 }()
	for iter := 0; iter < 3000; iter++ {
		n := rng.IntN(3000)
		s := testSlots{n: n, valid: make([]byte, (n+7)/8+rng.IntN(9))}
		pattern, pct := rng.IntN(6), 1+rng.IntN(99)
		for i := 0; i < n; i++ {
			var set bool
			switch pattern {
			case 0:
				set = true
			case 1:
				set = false
			case 2:
				set = i&1 == 0
			case 3:
				set = (i/(1+rng.IntN(300)))&1 == 0
			default:
				set = rng.IntN(100) >= pct
			}
			if set {
				s.valid[i>>3] |= 1 << (i & 7)
			} else {
				s.nullCount++
			}
		}
		for i := n; i < len(s.valid)*8; i++ {
			s.valid[i>>3] |= byte(rng.IntN(2)) << (i & 7)
		}
		nv := n - s.nullCount
		offs := make([]int32, nv+1)
		for i := 1; i <= nv; i++ {
			offs[i] = offs[i-1] + int32(rng.IntN(50))
		}
		want := make([]int32, n+1)
		refSpreadOffsets(want, offs, s)
		offsetRunNulls = []int{0, 2, 64}[iter%3]
		got := make([]int32, n+1)
		SpreadOffsets(got, offs, s.valid, n)
		if !slices.Equal(got, want) {
			t.Fatalf("SpreadOffsets: n %d, %d valid, pattern %d", n, nv, pattern)
		}
		got = make([]int32, n+1+rng.IntN(3))
		copy(got, offs)
		SpreadOffsetsInPlace(got, nv, s.valid, n)
		if !slices.Equal(got[:n+1], want) {
			t.Fatalf("SpreadOffsetsInPlace: n %d, %d valid, pattern %d", n, nv, pattern)
		}
	}
}

// BenchmarkSpreadOffsets measures SpreadOffsetsInPlace and SpreadOffsets
// on 64Ki slots with random nulls; SetBytes counts the 4-byte offsets.
func BenchmarkSpreadOffsets(b *testing.B) {
	const n = 64 << 10
	for _, pct := range []int{1, 10, 50} {
		rng := rand.New(rand.NewPCG(3, uint64(pct)))
		valid := make([]byte, n/8)
		nv := 0
		for i := 0; i < n; i++ {
			if rng.IntN(100) >= pct {
				valid[i>>3] |= 1 << (i & 7)
				nv++
			}
		}
		dense := make([]int32, nv+1)
		for i := 1; i <= nv; i++ {
			dense[i] = dense[i-1] + int32(rng.IntN(30))
		}
		out := make([]int32, n+1)
		b.Run(fmt.Sprintf("nulls=%d/InPlace", pct), func(b *testing.B) {
			b.SetBytes(4 * n)
			cpu0 := processCPU()
			for b.Loop() {
				copy(out, dense)
				SpreadOffsetsInPlace(out, nv, valid, n)
			}
			reportCPU(b, cpu0)
		})
		b.Run(fmt.Sprintf("nulls=%d/Copy", pct), func(b *testing.B) {
			b.SetBytes(4 * n)
			cpu0 := processCPU()
			for b.Loop() {
				SpreadOffsets(out, dense, valid, n)
			}
			reportCPU(b, cpu0)
		})
	}
}

// refSpreadBits is SpreadBits slot by slot.
func refSpreadBits(dst, dense []byte, valid []byte, n int) {
	k := 0
	for i := 0; i < n; i++ {
		if valid != nil && !isSet(valid, i) {
			continue
		}
		if isSet(dense, k) {
			dst[i>>3] |= 1 << (i & 7)
		}
		k++
	}
}

// TestSpreadBitsWords holds SpreadBits (whole bytes, or 64 slots a step)
// equal to the slot-by-slot reference on up to 3,000 slots: no bitmap,
// all set, all clear, alternating, long runs, 1-99% random, with junk
// bits past n in the bitmap and the dense bits, into a dst with bits set
// in the null slots (they must stay).
func TestSpreadBitsWords(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 29))
	for iter := 0; iter < 3000; iter++ {
		n := rng.IntN(3000)
		valid := make([]byte, (n+7)/8+rng.IntN(9))
		pattern, pct := rng.IntN(7), 1+rng.IntN(99)
		nv := 0
		for i := 0; i < n; i++ {
			var set bool
			switch pattern {
			case 0:
				set = true
			case 1:
				set = false
			case 2:
				set = i&1 == 0
			case 3:
				set = (i/(1+rng.IntN(300)))&1 == 0
			default:
				set = rng.IntN(100) >= pct
			}
			if set {
				valid[i>>3] |= 1 << (i & 7)
				nv++
			}
		}
		for i := n; i < len(valid)*8; i++ {
			valid[i>>3] |= byte(rng.IntN(2)) << (i & 7)
		}
		if pattern == 6 {
			valid, nv = nil, n
		}
		dense := make([]byte, (nv+7)/8)
		for i := range dense {
			dense[i] = byte(rng.Uint32()) // junk past nv too
		}
		dst := make([]byte, (n+7)/8)
		for i := 0; i < n; i++ {
			if valid != nil && !isSet(valid, i) && rng.IntN(2) == 0 {
				dst[i>>3] |= 1 << (i & 7)
			}
		}
		want := slices.Clone(dst)
		refSpreadBits(want, dense, valid, n)
		SpreadBits(dst, dense, valid, n)
		if !slices.Equal(dst, want) {
			t.Fatalf("n %d, %d valid, pattern %d:\ngot  %x\nwant %x", n, nv, pattern, dst, want)
		}
	}
}

// BenchmarkSpreadBits measures SpreadBits on 64Ki slots; SetBytes counts
// one byte per slot (as Arrow's bool kernels do).
func BenchmarkSpreadBits(b *testing.B) {
	const n = 64 << 10
	for _, pct := range []int{-1, 10, 50} {
		rng := rand.New(rand.NewPCG(5, uint64(pct+1)))
		var valid []byte
		nv := n
		if pct >= 0 {
			valid = make([]byte, n/8)
			nv = 0
			for i := 0; i < n; i++ {
				if rng.IntN(100) >= pct {
					valid[i>>3] |= 1 << (i & 7)
					nv++
				}
			}
		}
		dense := make([]byte, (nv+7)/8)
		for i := range dense {
			dense[i] = byte(rng.Uint32())
		}
		dst := make([]byte, n/8)
		name := fmt.Sprintf("nulls=%d", pct)
		if pct < 0 {
			name = "nulls=none"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(n)
			cpu0 := processCPU()
			for b.Loop() {
				clear(dst)
				SpreadBits(dst, dense, valid, n)
			}
			reportCPU(b, cpu0)
		})
	}
}

// TestSpreadWidthWords holds SpreadWidth and SpreadInPlaceWidth (runs
// found 64 slots at a time) equal to the per-slot reference on up to 1,500
// slots of widths 1..17 (whole words, partial last words), with validity
// all set, all clear, alternating, in long runs and random at 1-99%, and
// junk bits past n.
func TestSpreadWidthWords(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 31))
	for iter := 0; iter < 2000; iter++ {
		n := rng.IntN(1500)
		s := testSlots{n: n, valid: make([]byte, (n+7)/8+rng.IntN(9))}
		pattern, pct := rng.IntN(6), 1+rng.IntN(99)
		for i := 0; i < n; i++ {
			var set bool
			switch pattern {
			case 0:
				set = true
			case 1:
				set = false
			case 2:
				set = i&1 == 0
			case 3:
				set = (i/(1+rng.IntN(300)))&1 == 0
			default:
				set = rng.IntN(100) >= pct
			}
			if set {
				s.valid[i>>3] |= 1 << (i & 7)
			} else {
				s.nullCount++
			}
		}
		for i := n; i < len(s.valid)*8; i++ {
			s.valid[i>>3] |= byte(rng.IntN(2)) << (i & 7)
		}
		nv := n - s.nullCount
		width := 1 + rng.IntN(17)
		dense := make([]byte, nv*width)
		for i := range dense {
			dense[i] = byte(1 + rng.IntN(255))
		}
		want := make([]byte, n*width)
		refSpreadFixed(want, dense, width, s)
		got := make([]byte, n*width)
		SpreadWidth(got, dense, width, s.valid, n)
		if !slices.Equal(got, want) {
			t.Fatalf("SpreadWidth: n %d, %d valid, width %d, pattern %d", n, nv, width, pattern)
		}
		got = make([]byte, n*width)
		for i := range got {
			got[i] = 0xee // null slots must become zero
		}
		copy(got, dense)
		SpreadInPlaceWidth(got, nv, width, s.valid, n)
		if !slices.Equal(got, want) {
			t.Fatalf("SpreadInPlaceWidth: n %d, %d valid, width %d, pattern %d", n, nv, width, pattern)
		}
	}
}

// BenchmarkSpreadWidth measures SpreadWidth and SpreadInPlaceWidth on
// 64Ki 16-byte slots (decimal128) with random nulls; SetBytes counts the
// slots' bytes.
func BenchmarkSpreadWidth(b *testing.B) {
	const n, width = 64 << 10, 16
	for _, pct := range []int{1, 10, 50} {
		rng := rand.New(rand.NewPCG(7, uint64(pct)))
		valid := make([]byte, n/8)
		nv := 0
		for i := 0; i < n; i++ {
			if rng.IntN(100) >= pct {
				valid[i>>3] |= 1 << (i & 7)
				nv++
			}
		}
		dense := make([]byte, nv*width)
		buf := make([]byte, n*width)
		b.Run(fmt.Sprintf("nulls=%d/InPlace", pct), func(b *testing.B) {
			b.SetBytes(n * width)
			cpu0 := processCPU()
			for b.Loop() {
				SpreadInPlaceWidth(buf, nv, width, valid, n)
			}
			reportCPU(b, cpu0)
		})
		b.Run(fmt.Sprintf("nulls=%d/Copy", pct), func(b *testing.B) {
			b.SetBytes(n * width)
			cpu0 := processCPU()
			for b.Loop() {
				SpreadWidth(buf, dense, width, valid, n)
			}
			reportCPU(b, cpu0)
		})
	}
}
