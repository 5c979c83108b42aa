package levels

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// FileFormat.seed.txt, "Bit-packed (Deprecated)": 0..7 at width 3 encode as
// 00000101 00111001 01110111.
var specBitPacked = []byte{0x05, 0x39, 0x77}

func TestBitPackedSpecExample(t *testing.T) {
	levels := []int16{0, 1, 2, 3, 4, 5, 6, 7}
	if got := AppendBitPacked(nil, levels, 7); !bytes.Equal(got, specBitPacked) {
		t.Errorf("AppendBitPacked = %08b, want %08b", got, specBitPacked)
	}
	var d Decoder
	n, err := d.ResetBitPacked(append(slices.Clone(specBitPacked), 0xEE), 7, 8)
	if err != nil || n != 3 {
		t.Fatalf("ResetBitPacked = %d, %v", n, err)
	}
	got := make([]int16, 10)
	k, err := d.Decode(got)
	if err != nil || !slices.Equal(got[:k], levels) {
		t.Errorf("Decode = %v, %v; want %v", got[:k], err, levels)
	}
	// The hybrid's bit-packing of the same values differs (LSB first).
	if bytes.Equal(specBitPacked, []byte{0x88, 0xC6, 0xFA}) {
		t.Fatal("unreachable")
	}
}

func TestBitPackedWidths(t *testing.T) {
	// 30 levels at width 2 take 8 bytes (the spec's sizing example).
	if got := AppendBitPacked(nil, make([]int16, 30), 3); len(got) != 8 {
		t.Errorf("30 levels at width 2: %d bytes, want 8", len(got))
	}
	// Width 1: 1,0,1,1,0,0,0,0,1 → 10110000 1(0000000).
	if got := AppendBitPacked(nil, []int16{1, 0, 1, 1, 0, 0, 0, 0, 1}, 1); !bytes.Equal(got, []byte{0xB0, 0x80}) {
		t.Errorf("width 1 = %08b", got)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for maxLevel := int16(0); maxLevel < 300; maxLevel += 1 + maxLevel/3 {
		lv := make([]int16, rng.IntN(100))
		for i := range lv {
			lv[i] = int16(rng.IntN(int(maxLevel) + 1))
		}
		enc := AppendBitPacked(nil, lv, maxLevel)
		var d Decoder
		if _, err := d.ResetBitPacked(enc, maxLevel, len(lv)); err != nil {
			t.Fatal(err)
		}
		got := make([]int16, len(lv))
		if _, err := d.Decode(got); err != nil || !slices.Equal(got, lv) {
			t.Fatalf("max %d: got %v, %v want %v", maxLevel, got, err, lv)
		}
	}
}

func TestRLEVectors(t *testing.T) {
	// v1 form: length 4, then RLE(3 x 1), bit-packed group 1,0,1,0,1,0,1,0
	// (LSB first: 0x55) at width 1.
	src := []byte{4, 0, 0, 0, 0x06, 0x01, 0x03, 0x55, 0xAB}
	var d Decoder
	n, err := d.ResetRLEWithLength(src, 1, 11)
	if err != nil || n != 8 {
		t.Fatalf("ResetRLEWithLength = %d, %v", n, err)
	}
	got := make([]int16, 11)
	if k, err := d.Decode(got); err != nil || k != 11 {
		t.Fatal(k, err)
	}
	want := []int16{1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0}
	if !slices.Equal(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	// Same levels as validity, LSB first: levels 0-7 → 10101111, 8-10 → 010.
	d.ResetRLEWithLength(src, 1, 11)
	bm := []byte{0xff, 0xff}
	nulls, err := d.DecodeValidity(bm, 0, 11)
	if err != nil || nulls != 4 || bm[0] != 0b10101111 || bm[1] != 0b00000010 {
		t.Errorf("DecodeValidity = %08b, %d nulls, %v", bm, nulls, err)
	}
	// Encoder: no 8 equal levels in a row, so everything is bit-packed: one
	// run (header 2<<1|1) of two groups, 1,1,1,1,0,1,0,1 → 0xAF and
	// 0,1,0 plus zero padding → 0x02; the v1 form prefixes length 3.
	var e Encoder
	e.Reset(1)
	e.Append(want)
	if got, w := e.AppendWithLength(nil), []byte{3, 0, 0, 0, 0x05, 0xAF, 0x02}; !bytes.Equal(got, w) {
		t.Errorf("encoded % x, want % x", got, w)
	}
}

func TestDecoderErrors(t *testing.T) {
	var d Decoder
	buf := make([]int16, 100)
	tests := []struct {
		name string
		run  func() error
	}{
		{"short-length", func() error { _, err := d.ResetRLEWithLength([]byte{1, 0}, 1, 1); return err }},
		{"length-past-end", func() error { _, err := d.ResetRLEWithLength([]byte{9, 0, 0, 0, 2, 1}, 1, 1); return err }},
		{"data-ends-early", func() error {
			d.ResetRLE([]byte{0x04, 0x01}, 1, 5)
			_, err := d.Decode(buf)
			return err
		}},
		{"rle-level-above-max", func() error {
			d.ResetRLE([]byte{0x04, 0x03}, 2, 2)
			_, err := d.Decode(buf)
			return err
		}},
		{"packed-level-above-max", func() error {
			d.ResetRLE([]byte{0x03, 0xff, 0xff}, 2, 8)
			_, err := d.Decode(buf)
			return err
		}},
		{"packed-level-above-max-validity", func() error {
			d.ResetRLE([]byte{0x03, 0xff, 0xff}, 2, 8)
			_, err := d.DecodeValidity(make([]byte, 1), 0, 8)
			return err
		}},
		{"bitpacked-short", func() error { _, err := d.ResetBitPacked([]byte{1}, 3, 5); return err }},
		{"bitpacked-above-max", func() error {
			d.ResetBitPacked([]byte{0xff}, 2, 4)
			_, err := d.Decode(buf)
			return err
		}},
		{"negative-count", func() error { return d.ResetRLE(nil, 1, -1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	d.ResetRLE([]byte{0x04, 0x01}, 1, 5)
	if _, err := d.Decode(buf); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncation: %v", err)
	}
}

// refValidity is the obvious per-level loop.
func refValidity(levels []int16, threshold int16) ([]bool, int) {
	out := make([]bool, len(levels))
	nulls := 0
	for i, l := range levels {
		out[i] = l >= threshold
		if !out[i] {
			nulls++
		}
	}
	return out, nulls
}

func checkBits(t *testing.T, bm []byte, offset int, want []bool, guard byte) {
	t.Helper()
	for i, w := range want {
		p := offset + i
		if got := bm[p/8]>>(p%8)&1 == 1; got != w {
			t.Fatalf("bit %d = %v, want %v", i, got, w)
		}
	}
	// Bits before offset are kept.
	for p := 0; p < offset; p++ {
		if bm[p/8]>>(p%8)&1 != guard>>(p%8)&1 {
			t.Fatalf("bit %d before offset changed", p)
		}
	}
}

func randLevels(rng *rand.Rand, n int, maxLevel int16, runny bool) []int16 {
	lv := make([]int16, 0, n)
	for len(lv) < n {
		v := int16(rng.IntN(int(maxLevel) + 1))
		k := 1
		if runny {
			k = rng.IntN(100) + 1
		}
		for range min(k, n-len(lv)) {
			lv = append(lv, v)
		}
	}
	return lv
}

func TestValidityDifferential(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	var e Encoder
	var d Decoder
	for iter := 0; iter < 300; iter++ {
		maxLevel := int16(rng.IntN(4))
		lv := randLevels(rng, rng.IntN(3000), maxLevel, rng.IntN(2) == 0)
		want, wantNulls := refValidity(lv, maxLevel)
		offset := rng.IntN(20)
		guard := byte(rng.Uint32())
		bm := make([]byte, (offset+len(lv)+7)/8+1)
		for i := range bm {
			bm[i] = guard
		}
		if nulls := ValidityFromLevels(bm, offset, lv, maxLevel); nulls != wantNulls {
			t.Fatalf("ValidityFromLevels nulls %d want %d", nulls, wantNulls)
		}
		checkBits(t, bm, offset, want, guard)
		if n := CountNulls(bm, offset, len(lv)); n != wantNulls {
			t.Fatalf("CountNulls %d want %d", n, wantNulls)
		}

		// Hybrid, decoded in random chunks straight to a bitmap.
		e.Reset(maxLevel)
		if err := e.Append(lv); err != nil {
			t.Fatal(err)
		}
		enc := e.Finish()
		if err := d.ResetRLE(enc, maxLevel, len(lv)); err != nil {
			t.Fatal(err)
		}
		for i := range bm {
			bm[i] = guard
		}
		total := 0
		for pos := 0; pos < len(lv); {
			k := min(len(lv)-pos, rng.IntN(200))
			nulls, err := d.DecodeValidity(bm, offset+pos, k)
			if err != nil {
				t.Fatal(err)
			}
			total += nulls
			pos += k
		}
		if total != wantNulls {
			t.Fatalf("DecodeValidity nulls %d want %d", total, wantNulls)
		}
		checkBits(t, bm, offset, want, guard)

		// Decode in random chunks gives the levels back.
		d.ResetRLE(enc, maxLevel, len(lv))
		got := make([]int16, len(lv))
		for pos := 0; pos < len(lv); {
			k := min(len(lv)-pos, rng.IntN(300)+1)
			n, err := d.Decode(got[pos : pos+k])
			if err != nil || n != k {
				t.Fatal(n, err)
			}
			pos += k
		}
		if !slices.Equal(got, lv) {
			t.Fatal("Decode mismatch")
		}
		// BIT_PACKED straight to a bitmap.
		bp := AppendBitPacked(nil, lv, maxLevel)
		if _, err := d.ResetBitPacked(bp, maxLevel, len(lv)); err != nil {
			t.Fatal(err)
		}
		for i := range bm {
			bm[i] = guard
		}
		if nulls, err := d.DecodeValidity(bm, offset, len(lv)); err != nil || nulls != wantNulls {
			t.Fatal(nulls, err)
		}
		checkBits(t, bm, offset, want, guard)
	}
}

func TestSpread(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for iter := 0; iter < 200; iter++ {
		n := rng.IntN(500)
		offset := rng.IntN(16)
		bm := make([]byte, (offset+n+7)/8)
		var dense []int32
		want := make([]int32, n)
		p := rng.Float64()
		for i := range n {
			want[i] = -1
			if rng.Float64() < p {
				bm[(offset+i)/8] |= 1 << ((offset + i) % 8)
				want[i] = int32(len(dense))
				dense = append(dense, int32(len(dense)))
			}
		}
		dst := make([]int32, n)
		for i := range dst {
			dst[i] = -1
		}
		if k := Spread(dst, dense, bm, offset); k != len(dense) || !slices.Equal(dst, want) {
			t.Fatalf("Spread used %d of %d; got %v want %v", k, len(dense), dst, want)
		}
	}
}

func TestValidityFromLevelsExtremes(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for iter := 0; iter < 500; iter++ {
		lv := make([]int16, rng.IntN(300))
		for i := range lv {
			switch rng.IntN(3) {
			case 0:
				lv[i] = int16(rng.Uint32())
			default:
				lv[i] = int16(rng.IntN(5))
			}
		}
		threshold := int16(rng.IntN(5))
		if rng.IntN(4) == 0 {
			threshold = int16(rng.IntN(0x8000))
		}
		want, wantNulls := refValidity(lv, threshold)
		bm := make([]byte, (len(lv)+7)/8)
		if n := ValidityFromLevels(bm, 0, lv, threshold); n != wantNulls {
			t.Fatalf("threshold %d: %d nulls, want %d", threshold, n, wantNulls)
		}
		checkBits(t, bm, 0, want, 0)
	}
}

// TestDecodeNarrowWidths holds Decode to the spec's bit order on hybrid
// data built by hand (not by our encoder): bit-packed runs of random bytes
// at widths 1..4 (1..3 take unpackNarrow) between RLE runs, every max level
// of the width, so some data holds levels above max, decoded in random
// pieces that start and stop inside groups.
func TestDecodeNarrowWidths(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 51))
	for iter := 0; iter < 3000; iter++ {
		w := uint(1 + rng.IntN(4))
		maxLevel := int16(1<<(w-1) + rng.IntN(1<<(w-1)))
		var src []byte
		var want []int16
		for range 1 + rng.IntN(4) {
			if rng.IntN(3) == 0 { // RLE run
				n, v := 1+rng.IntN(30), rng.IntN(int(maxLevel)+1)
				src = append(src, byte(n<<1), byte(v))
				for range n {
					want = append(want, int16(v))
				}
				continue
			}
			groups := 1 + rng.IntN(40)
			src = append(src, byte(groups<<1|1))
			packed := make([]byte, groups*int(w))
			for i := range packed {
				packed[i] = byte(rng.Uint32())
				if rng.IntN(4) > 0 { // mostly levels within max
					packed[i] &= 0x55 >> (w - 1)
				}
			}
			src = append(src, packed...)
			// Level i is bits i*w .. i*w+w-1, LSB first (Encodings.md).
			for i := 0; i < groups*8; i++ {
				var v int16
				for b := 0; b < int(w); b++ {
					bit := i*int(w) + b
					v |= int16(packed[bit/8]>>(bit%8)&1) << b
				}
				want = append(want, v)
			}
		}
		firstBad := slices.IndexFunc(want, func(v int16) bool { return v > maxLevel })
		var d Decoder
		if err := d.ResetRLE(src, maxLevel, len(want)); err != nil {
			t.Fatal(err)
		}
		got := make([]int16, len(want))
		pos := 0
		var err error
		for pos < len(want) {
			var k int
			k, err = d.Decode(got[pos:min(len(want), pos+1+rng.IntN(70))])
			pos += k
			if err != nil {
				break
			}
		}
		if firstBad < 0 {
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("width %d max %d: %v, levels %v, want %v", w, maxLevel, err, got, want)
			}
			continue
		}
		if !errors.Is(err, ErrCorrupt) || pos > firstBad || !slices.Equal(got[:pos], want[:pos]) {
			t.Fatalf("width %d max %d, level %d above max: decoded %d, %v", w, maxLevel, firstBad, pos, err)
		}
	}
}
