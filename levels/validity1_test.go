package levels

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomHybrid1 returns width-1 hybrid data: encoded levels of a random
// null pattern (all valid, all null, alternating, random at several rates,
// long runs), or hand-made runs including malformed ones (values wider
// than a bit, multi-byte headers, empty runs, truncation).
func randomHybrid1(rng *rand.Rand) (src []byte, numLevels int) {
	if rng.IntN(3) > 0 {
		n := rng.IntN(3000)
		lv := make([]int16, n)
		pattern := rng.IntN(6)
		pct := []int{1, 10, 50, 90}[rng.IntN(4)]
		for i := range lv {
			switch pattern {
			case 0:
				lv[i] = 1
			case 1:
				lv[i] = 0
			case 2:
				lv[i] = int16(i & 1)
			case 3:
				if i > 0 && rng.IntN(200) != 0 {
					lv[i] = lv[i-1]
				} else {
					lv[i] = int16(rng.IntN(2))
				}
			default:
				if rng.IntN(100) >= pct {
					lv[i] = 1
				}
			}
		}
		var e Encoder
		e.Reset(1)
		e.Append(lv)
		src = append([]byte(nil), e.Finish()...)
		if rng.IntN(8) == 0 && len(src) > 0 {
			src = src[:rng.IntN(len(src))]
		}
		return src, []int{n, rng.IntN(n + 1), n + rng.IntN(20)}[rng.IntN(3)]
	}
	for range rng.IntN(16) {
		switch rng.IntN(7) {
		case 0, 1:
			src = append(src, byte(rng.IntN(64)<<1), byte(rng.IntN(2)+rng.IntN(16)/15))
		case 2, 3:
			g := rng.IntN(12)
			src = append(src, byte(g<<1|1))
			for range g {
				src = append(src, byte(rng.Uint32()))
			}
		case 4: // multi-byte headers: a long RLE run or bit-packed run
			if rng.IntN(2) == 0 {
				src = append(src, 0x80|byte(rng.IntN(64)<<1), byte(1+rng.IntN(3)), byte(rng.IntN(2)))
			} else {
				g := 64 + rng.IntN(40)
				src = append(src, 0x80|byte(g<<1|1)&0x7f, byte(g>>6))
				for range g {
					src = append(src, byte(rng.Uint32()))
				}
			}
		case 5:
			src = append(src, 0, 1, 1, 0) // empty runs
		default:
			src = append(src, byte(rng.Uint32()))
		}
	}
	if len(src) > 0 && rng.IntN(4) == 0 {
		src = src[:rng.IntN(len(src))]
	}
	return src, rng.IntN(2000)
}

// TestDecodeValidity1Differential runs decodeValidity1 (the width-1 loop)
// and the general DecodeValidity loop on the same random inputs, in the
// same random pieces at odd bit offsets into bitmaps of random bytes,
// mixed with Decode calls: the bitmaps, null counts, errors and the
// levels decoded afterwards must be equal.
func TestDecodeValidity1Differential(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 13))
	defer func() { validity1Fast = true }()
	for iter := 0; iter < 20000; iter++ {
		src, numLevels := randomHybrid1(rng)
		offset := rng.IntN(130)
		// The pieces: sizes crossing byte and word boundaries, and
		// whether a piece goes through Decode instead.
		type piece struct {
			k      int
			levels bool
		}
		var pieces []piece
		for left := numLevels; left > 0; {
			k := min(left, []int{1, 7, 8, 9, 63, 64, 65, 200, rng.IntN(1000)}[rng.IntN(9)])
			pieces = append(pieces, piece{k, rng.IntN(8) == 0})
			left -= k
		}
		fill := make([]byte, (offset+numLevels+7)/8+3)
		for i := range fill {
			fill[i] = byte(rng.Uint32())
		}
		type result struct {
			bm     []byte
			nulls  []int
			errs   []bool
			levels []int16
			left   int
		}
		run := func(fast bool) result {
			validity1Fast = fast
			var d Decoder
			r := result{bm: append([]byte(nil), fill...)}
			if err := d.ResetRLE(src, 1, numLevels); err != nil {
				t.Fatal(err)
			}
			pos := offset
			for _, p := range pieces {
				if p.levels {
					lv := make([]int16, p.k)
					n, err := d.Decode(lv)
					r.levels = append(r.levels, lv[:n]...)
					r.errs = append(r.errs, err != nil)
					if err != nil {
						break
					}
					continue
				}
				nulls, err := d.DecodeValidity(r.bm, pos, p.k)
				r.nulls = append(r.nulls, nulls)
				r.errs = append(r.errs, err != nil)
				if err != nil {
					break
				}
				pos += p.k
			}
			r.left = d.Remaining()
			// What is left, as levels.
			lv := make([]int16, r.left)
			n, err := d.Decode(lv)
			r.levels = append(r.levels, lv[:n]...)
			r.errs = append(r.errs, err != nil)
			return r
		}
		want, got := run(false), run(true)
		if !bytes.Equal(got.bm, want.bm) || !slices.Equal(got.nulls, want.nulls) ||
			!slices.Equal(got.errs, want.errs) || !slices.Equal(got.levels, want.levels) || got.left != want.left {
			t.Fatalf("src %x, %d levels at offset %d, pieces %v:\nfast    %+v\ngeneral %+v", src, numLevels, offset, pieces, got, want)
		}
	}
}
