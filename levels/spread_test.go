package levels

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// testSlots are n slots, their validity bitmap and null count.
type testSlots struct {
	n         int
	valid     []byte
	nullCount int
}

// bitmap is the valid argument of the Spread functions: nil when no slot
// is null.
func (s testSlots) bitmap() []byte {
	if s.nullCount == 0 {
		return nil
	}
	return s.valid
}

func u64s(b []byte) []uint64 { return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8) }
func u32s(b []byte) []uint32 { return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4) }

// The references spread slot by slot, the obvious way.

func refSpreadFixed(dst, dense []byte, width int, s testSlots) {
	k := 0
	for i := 0; i < s.n; i++ {
		if s.valid == nil || isSet(s.valid, i) {
			copy(dst[i*width:(i+1)*width], dense[k*width:(k+1)*width])
			k++
		}
	}
}

func refSpreadOffsets(out, dense []int32, s testSlots) {
	k := 0
	for i := 0; i < s.n; i++ {
		out[i] = dense[k]
		if s.valid == nil || isSet(s.valid, i) {
			k++
		}
	}
	out[s.n] = dense[k]
}

func randomSlots(rng *rand.Rand) testSlots {
	n := rng.IntN(300)
	if rng.IntN(4) == 0 {
		n = rng.IntN(5)
	}
	s := testSlots{n: n, valid: make([]byte, (n+7)/8)}
	p := []float64{0, 0.005, 0.02, 0.05, 0.5, 0.9, 1}[rng.IntN(7)]
	for i := 0; i < n; i++ {
		if rng.Float64() >= p {
			s.valid[i>>3] |= 1 << (i & 7)
		} else {
			s.nullCount++
		}
	}
	if rng.IntN(3) == 0 && n&7 != 0 {
		// Bits past n must not matter.
		s.valid[len(s.valid)-1] |= ^byte(0) << (n & 7)
	}
	return s
}

func countValid(s testSlots) int {
	nv := 0
	for i := 0; i < s.n; i++ {
		if isSet(s.valid, i) {
			nv++
		}
	}
	return nv
}

func TestSpreadMatchesReference(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	for iter := 0; iter < 3000; iter++ {
		s := randomSlots(rng)
		nv := countValid(s)
		width := 1 + rng.IntN(16)
		dense := make([]byte, nv*width)
		for i := range dense {
			dense[i] = byte(1 + rng.IntN(255))
		}
		want := make([]byte, s.n*width)
		refSpreadFixed(want, dense, width, s)

		got := make([]byte, s.n*width)
		SpreadWidth(got, dense, width, s.bitmap(), s.n)
		if !bytes.Equal(got, want) {
			t.Fatalf("spreadFixed: n %d, %d valid, width %d", s.n, nv, width)
		}
		inPlace := make([]byte, s.n*width)
		for i := range inPlace {
			inPlace[i] = 0xee // garbage past the dense prefix must become zero in null slots
		}
		copy(inPlace, dense)
		SpreadInPlaceWidth(inPlace, nv, width, s.bitmap(), s.n)
		if s.nullCount > 0 && !bytes.Equal(inPlace, want) {
			t.Fatalf("SpreadInPlaceWidth: n %d, %d valid, width %d", s.n, nv, width)
		}
		if (width == 4 || width == 8) && s.n > 0 {
			words := make([]byte, s.n*width+8)[:s.n*width] // 8-byte aligned
			for i := range words {
				words[i] = 0xee
			}
			copy(words, dense)
			if width == 4 {
				SpreadInPlace(u32s(words), nv, s.bitmap(), s.n)
			} else {
				SpreadInPlace(u64s(words), nv, s.bitmap(), s.n)
			}
			if s.nullCount > 0 && !bytes.Equal(words, want) {
				t.Fatalf("SpreadInPlace: n %d, %d valid, width %d", s.n, nv, width)
			}
		}
		// Bits: dense bit k is bit 0 of dense value k.
		denseBits := make([]byte, (nv+7)/8)
		wantBits := make([]byte, (s.n+7)/8)
		for k := range nv {
			if dense[k*width]&1 == 1 {
				denseBits[k>>3] |= 1 << (k & 7)
			}
		}
		for i := range s.n {
			if want[i*width]&1 == 1 && (s.bitmap() == nil || isSet(s.valid, i)) {
				wantBits[i>>3] |= 1 << (i & 7)
			}
		}
		gotBits := make([]byte, len(wantBits))
		SpreadBits(gotBits, denseBits, s.bitmap(), s.n)
		if !bytes.Equal(gotBits, wantBits) {
			t.Fatalf("SpreadBits: n %d, %d valid", s.n, nv)
		}

		offs := make([]int32, nv+1)
		for i := 1; i <= nv; i++ {
			offs[i] = offs[i-1] + int32(rng.IntN(5))
		}
		wantOff := make([]int32, s.n+1)
		refSpreadOffsets(wantOff, offs, s)
		gotOff := make([]int32, s.n+1)
		SpreadOffsets(gotOff, offs, s.bitmap(), s.n)
		if !slices.Equal(gotOff, wantOff) {
			t.Fatalf("spreadOffsets: n %d, %d valid", s.n, nv)
		}
		if s.nullCount > 0 {
			gotOff = make([]int32, s.n+1)
			copy(gotOff, offs)
			SpreadOffsetsInPlace(gotOff, nv, s.bitmap(), s.n)
			if !slices.Equal(gotOff, wantOff) {
				t.Fatalf("spreadOffsetsInPlace: n %d, %d valid\n got %v\nwant %v", s.n, nv, gotOff, wantOff)
			}
		}
	}
}

func TestNextPrevBit(t *testing.T) {
	// bits 3, 64, 65, 129 set, n = 140
	bm := make([]byte, 18)
	for _, i := range []int{3, 64, 65, 129} {
		bm[i>>3] |= 1 << (i & 7)
	}
	for _, c := range []struct {
		i    int
		set  bool
		next int
		prev int
	}{
		{0, true, 3, -1}, {4, true, 64, 3}, {66, true, 129, 65}, {130, true, 140, 129},
		{3, false, 4, 2}, {64, false, 66, 63}, {129, false, 130, 128}, {0, false, 0, -1},
	} {
		if got := nextBit(bm, c.i, 140, c.set); got != c.next {
			t.Errorf("nextBit(%d, %v) = %d, want %d", c.i, c.set, got, c.next)
		}
		if got := prevBit(bm, c.i, c.set); got != c.prev {
			t.Errorf("prevBit(%d, %v) = %d, want %d", c.i, c.set, got, c.prev)
		}
	}
}

// oldSpreadInPlace is the earlier version (a bit test per slot to find
// runs, a copy per run), kept as the benchmark's baseline.
func oldSpreadInPlace(buf []byte, nv, width int, s testSlots) {
	k := nv
	for i := s.n; i > 0; {
		if !isSet(s.valid, i-1) {
			j := i - 1
			for j > 0 && !isSet(s.valid, j-1) {
				j--
			}
			clear(buf[j*width : i*width])
			i = j
			continue
		}
		j := i - 1
		for j > 0 && isSet(s.valid, j-1) {
			j--
		}
		copy(buf[j*width:i*width], buf[(k-(i-j))*width:k*width])
		k -= i - j
		i = j
	}
}

func BenchmarkSpreadInPlace(b *testing.B) {
	const n = 64 << 10
	for _, nullPct := range []int{1, 10, 50} {
		rng := rand.New(rand.NewPCG(1, uint64(nullPct)))
		s := testSlots{n: n, valid: make([]byte, n/8)}
		for i := 0; i < n; i++ {
			if rng.IntN(100) >= nullPct {
				s.valid[i>>3] |= 1 << (i & 7)
			} else {
				s.nullCount++
			}
		}
		nv := n - s.nullCount
		buf := make([]byte, n*8)
		for _, impl := range []struct {
			name string
			fn   func([]byte, int, int, testSlots)
		}{{"SpreadInPlace", func(buf []byte, nv, _ int, s testSlots) { SpreadInPlace(u64s(buf), nv, s.bitmap(), s.n) }}, {"copy-per-run", oldSpreadInPlace}} {
			b.Run(fmt.Sprintf("nulls=%d%%/%s", nullPct, impl.name), func(b *testing.B) {
				b.SetBytes(n * 8)
				for b.Loop() {
					impl.fn(buf, nv, 8, s)
				}
			})
		}
	}
}

func BenchmarkSpreadInPlaceMode(b *testing.B) {
	const n = 64 << 10
	for _, nullPct := range []int{1, 10, 50} {
		rng := rand.New(rand.NewPCG(1, uint64(nullPct)))
		s := testSlots{n: n, valid: make([]byte, n/8)}
		for i := 0; i < n; i++ {
			if rng.IntN(100) >= nullPct {
				s.valid[i>>3] |= 1 << (i & 7)
			} else {
				s.nullCount++
			}
		}
		nv := n - s.nullCount
		buf := make([]byte, n*8)
		for _, mode := range []int{0, 1, 2, 3} {
			b.Run(fmt.Sprintf("nulls=%d%%/mode=%d", nullPct, mode), func(b *testing.B) {
				// Modes 0-2 are the Go words, 3 AVX-512 (spreadExpand).
				old := spreadExpandOK
				spreadRuns, spreadFixed, spreadExpandOK = mode > 0, mode > 1, old && mode > 2
				defer func() { spreadRuns, spreadFixed, spreadExpandOK = true, true, old }()
				b.SetBytes(n * 8)
				cpu0 := processCPU()
				for b.Loop() {
					SpreadInPlace(u64s(buf), nv, s.bitmap(), s.n)
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

// TestSpreadWord64MatchesLoop holds spreadWord64 (a byte at a time,
// unrolled) equal to the plain per-slot loop of SpreadInPlace on random
// words (every density, single bits, bytes of all ones or zeros) for both
// value sizes, with the values below the word at every distance.
func TestSpreadWord64MatchesLoop(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	for iter := 0; iter < 20000; iter++ {
		var w uint64
		switch rng.IntN(5) {
		case 0:
			w = 1 << rng.IntN(64)
		case 1:
			w = ^uint64(1 << rng.IntN(64))
		case 2: // whole bytes of ones and zeros
			for g := 0; g < 8; g++ {
				w |= uint64([]byte{0, 0xff, byte(rng.Uint32())}[rng.IntN(3)]) << (8 * g)
			}
		default:
			for j := 0; j < 64; j++ {
				if rng.IntN(64) < iter%65 {
					w |= 1 << j
				}
			}
		}
		nv := bits.OnesCount64(w)
		// Dense values end at k, the word's are [k-nv, k); k >= 64 and
		// k <= base+nv (a slot never precedes its value).
		k := 64 + rng.IntN(64)
		base := k - nv + rng.IntN(64)
		check := func(name string, got, want []uint64, kg, kw int) {
			t.Helper()
			if kg != kw || !slices.Equal(got, want) {
				t.Fatalf("%s: w %016x base %d k %d: k %d want %d\ngot  %x\nwant %x", name, w, base, k, kg, kw, got, want)
			}
		}
		n := base + 64
		v64 := make([]uint64, n)
		v32 := make([]uint32, n)
		for i := range v64 {
			v64[i] = rng.Uint64()
			v32[i] = uint32(v64[i])
		}
		ref := func(vals []uint64) int {
			kk := k
			for j := base + 63; j >= base; j-- {
				if w>>uint(j-base)&1 == 1 {
					kk--
					vals[j] = vals[kk]
				} else {
					vals[j] = 0
				}
			}
			return kk
		}
		want := slices.Clone(v64)
		kw := ref(want)
		got := slices.Clone(v64)
		kg := spreadWord64(got, w, base, k)
		check("uint64", got, want, kg, kw)
		g32 := slices.Clone(v32)
		kg = spreadWord64(g32, w, base, k)
		got32 := make([]uint64, n)
		want32 := make([]uint64, n)
		for i := range g32 {
			got32[i] = uint64(g32[i])
			want32[i] = want[i] & 0xffff_ffff
		}
		check("uint32", got32, want32, kg, kw)
	}
}
