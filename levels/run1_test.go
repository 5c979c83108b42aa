package levels

import (
	"math/rand/v2"
	"testing"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// TestNextRun1MatchesHybrid decodes random width-1 hybrid data (valid
// runs, short runs, truncated runs, wide values, long headers, garbage)
// with the Decoder, whose width-1 runs go through nextRun1, and with
// bitpack.HybridReader.Decode32, the general reader: both must accept the
// same inputs and give the same levels, and DecodeValidity the same bits.
func TestNextRun1MatchesHybrid(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 11))
	failed := 0
	defer func() { t.Logf("%d of 5000 inputs rejected", failed) }()
	for iter := 0; iter < 5000; iter++ {
		var src []byte
		for range rng.IntN(12) {
			switch rng.IntN(6) {
			case 0, 1: // RLE run of 0 or 1 (sometimes 2: too wide)
				src = append(src, byte(rng.IntN(70)<<1), byte(rng.IntN(2)+rng.IntN(8)/7))
			case 2, 3: // bit-packed run, sometimes cut short by the end
				g := rng.IntN(5)
				src = append(src, byte(g<<1|1))
				for range g {
					src = append(src, byte(rng.Uint32()))
				}
			case 4: // multi-byte header
				src = append(src, 0x80|byte(rng.IntN(128)), byte(rng.IntN(3)))
			default:
				src = append(src, byte(rng.Uint32()))
			}
		}
		if len(src) > 0 && rng.IntN(4) == 0 {
			src = src[:rng.IntN(len(src))]
		}
		// Levels: all the data holds, fewer, or any number.
		var probe bitpack.HybridReader
		probe.Reset(src, 1)
		avail, _ := probe.Decode32(make([]uint32, 1<<12))
		numLevels := []int{avail, rng.IntN(avail + 1), rng.IntN(400)}[rng.IntN(3)]

		var d Decoder
		if err := d.ResetRLE(src, 1, numLevels); err != nil {
			t.Fatal(err)
		}
		got := make([]int16, numLevels)
		n, err := d.Decode(got)
		ok := err == nil && n == numLevels

		var h bitpack.HybridReader
		h.Reset(src, 1)
		want := make([]uint32, numLevels)
		m, herr := h.Decode32(want)
		hok := herr == nil && m == numLevels
		for _, v := range want[:max(m, 0)] {
			hok = hok && v <= 1
		}
		if ok != hok {
			t.Fatalf("src %x, %d levels: Decoder %d, %v; HybridReader %d, %v", src, numLevels, n, err, m, herr)
		}
		if !ok {
			failed++
			continue
		}
		for i := range got {
			if uint32(got[i]) != want[i] {
				t.Fatalf("src %x: level %d = %d, want %d", src, i, got[i], want[i])
			}
		}
		// DecodeValidity in random pieces.
		d.ResetRLE(src, 1, numLevels)
		bm := make([]byte, (numLevels+7)/8+1)
		nulls := 0
		for pos := 0; pos < numLevels; {
			k := min(numLevels-pos, rng.IntN(100))
			c, err := d.DecodeValidity(bm, pos, k)
			if err != nil {
				t.Fatalf("src %x: DecodeValidity: %v", src, err)
			}
			nulls += c
			pos += k
		}
		wantNulls := 0
		for i, v := range want {
			if v == 0 {
				wantNulls++
			}
			if bm[i/8]>>(i%8)&1 != byte(v) {
				t.Fatalf("src %x: validity bit %d = %d, want %d", src, i, bm[i/8]>>(i%8)&1, v)
			}
		}
		if nulls != wantNulls {
			t.Fatalf("src %x: %d nulls, want %d", src, nulls, wantNulls)
		}
	}
}
