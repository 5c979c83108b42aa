package bitpack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveUnpack reads value i bit by bit from the LSB-first stream: bit j of
// value i is bit (i*width+j)%8 of byte (i*width+j)/8 (Encodings.md note 1).
func naiveUnpack(src []byte, n int, width uint) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		var v uint64
		for j := uint(0); j < width; j++ {
			bit := uint(i)*width + j
			v |= uint64(src[bit/8]>>(bit%8)&1) << j
		}
		out[i] = v
	}
	return out
}

func naivePack(vals []uint64, width uint) []byte {
	out := make([]byte, (uint(len(vals))*width+7)/8)
	for i, v := range vals {
		for j := uint(0); j < width; j++ {
			bit := uint(i)*width + j
			out[bit/8] |= byte(v>>j&1) << (bit % 8)
		}
	}
	return out
}

func TestSpecExample(t *testing.T) {
	// Encodings.md: 0..7 at bit width 3 pack to 10001000 11000110 11111010.
	want := []byte{0x88, 0xC6, 0xFA}
	vals := []uint32{0, 1, 2, 3, 4, 5, 6, 7}
	if got := AppendPacked32(nil, vals, 3); !bytes.Equal(got, want) {
		t.Errorf("AppendPacked32 = % x, want % x", got, want)
	}
	got := make([]uint32, 8)
	Unpack32(got, want, 3)
	if !slices.Equal(got, vals) {
		t.Errorf("Unpack32 = %v, want %v", got, vals)
	}
	got64 := make([]uint64, 8)
	Unpack64(got64, want, 3)
	for i := range got64 {
		if got64[i] != uint64(i) {
			t.Fatalf("Unpack64 = %v", got64)
		}
	}
	if got := naivePack([]uint64{0, 1, 2, 3, 4, 5, 6, 7}, 3); !bytes.Equal(got, want) {
		t.Errorf("naivePack = % x (reference broken)", got)
	}
}

func randVals(rng *rand.Rand, n int, width uint) []uint64 {
	v := make([]uint64, n)
	for i := range v {
		v[i] = rng.Uint64()
		if width < 64 {
			v[i] &= 1<<width - 1
		}
	}
	return v
}

func TestUnpackAllWidths(t *testing.T) {
	seed := uint64(1)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for width := uint(0); width <= 64; width++ {
		for _, n := range []int{0, 8, 16, 24, 64, 8 * 37} {
			vals := randVals(rng, n, width)
			packed := naivePack(vals, width)
			// Exact-size source: the tail path must not read past it.
			src := slices.Clip(packed)
			got64 := make([]uint64, n)
			Unpack64(got64, src, width)
			if !slices.Equal(got64, vals) {
				t.Fatalf("Unpack64 width %d n %d mismatch", width, n)
			}
			if p := AppendPacked64([]byte{0xAA}, vals, width); !bytes.Equal(p[1:], packed) || p[0] != 0xAA {
				t.Fatalf("AppendPacked64 width %d n %d mismatch", width, n)
			}
			if width > 32 {
				continue
			}
			vals32 := make([]uint32, n)
			for i, v := range vals {
				vals32[i] = uint32(v)
			}
			got32 := make([]uint32, n)
			Unpack32(got32, src, width)
			if !slices.Equal(got32, vals32) {
				t.Fatalf("Unpack32 width %d n %d mismatch", width, n)
			}
			if p := AppendPacked32(nil, vals32, width); !bytes.Equal(p, packed) {
				t.Fatalf("AppendPacked32 width %d n %d mismatch", width, n)
			}
		}
	}
}

// refDecode is a plain reading of the hybrid grammar, independent of
// HybridReader: it returns all values, or an error for malformed input. It
// stops early (without error) once it holds more than refLimit values.
func refDecode(src []byte, width uint) ([]uint64, error) {
	var out []uint64
	for len(src) > 0 && len(out) <= refLimit {
		h, n := binary.Uvarint(src)
		if n <= 0 || n > 5 || h >= 1<<32 {
			return out, ErrCorrupt
		}
		src = src[n:]
		if h&1 == 0 {
			nb := int(width+7) / 8
			if len(src) < nb {
				return out, ErrCorrupt
			}
			var v uint64
			for i := nb - 1; i >= 0; i-- {
				v = v<<8 | uint64(src[i])
			}
			if width < 64 && v>>width != 0 {
				return out, ErrCorrupt
			}
			src = src[nb:]
			for range min(h>>1, refLimit+1) {
				out = append(out, v)
			}
			continue
		}
		count := int(h>>1) * 8
		if h>>1 > MaxRunLen/8 {
			return out, ErrCorrupt
		}
		nb := count * int(width) / 8
		if nb > len(src) {
			count = len(src) * 8 / int(width)
			if count == 0 {
				return out, ErrCorrupt
			}
			nb = len(src)
		}
		out = append(out, naiveUnpack(src, min(count, refLimit+1), width)...)
		src = src[nb:]
	}
	return out, nil
}

const refLimit = 1 << 20

func TestHybridReaderVectors(t *testing.T) {
	tests := []struct {
		name  string
		src   []byte
		width uint
		runs  []Run
		vals  []uint32
	}{
		// One bit-packed group (header 1<<1|1) holding the spec example.
		{"bitpacked", []byte{0x03, 0x88, 0xC6, 0xFA}, 3,
			[]Run{{Packed: []byte{0x88, 0xC6, 0xFA}, Count: 8}}, []uint32{0, 1, 2, 3, 4, 5, 6, 7}},
		// RLE: count 10 (header 20 = 0x14), value 5 in one byte.
		{"rle", []byte{0x14, 0x05}, 3, []Run{{Value: 5, Count: 10}}, []uint32{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}},
		// RLE of width 9 stores its value in two little-endian bytes.
		{"rle-width9", []byte{0x04, 0x2C, 0x01}, 9, []Run{{Value: 300, Count: 2}}, []uint32{300, 300}},
		// RLE count 300: header 600 = 0xD8 0x04.
		{"rle-varint", []byte{0xD8, 0x04, 0x01}, 1, []Run{{Value: 1, Count: 300}}, slices.Repeat([]uint32{1}, 300)},
		// Truncated last group: 2 of 3 bytes present → 5 whole 3-bit values.
		{"clamped", []byte{0x03, 0x88, 0xC6}, 3,
			[]Run{{Packed: []byte{0x88, 0xC6}, Count: 5}}, []uint32{0, 1, 2, 3, 4}},
		// Width 0: the RLE value takes no bytes; bit-packed groups no bytes.
		{"width0", []byte{0x06, 0x03}, 0, []Run{{Value: 0, Count: 3}, {Packed: []byte{}, Count: 8}}, make([]uint32, 11)},
		// Zero-length runs are skipped.
		{"empty-runs", []byte{0x00, 0x01, 0x01, 0x04, 0x01}, 1, []Run{{Value: 1, Count: 2}}, []uint32{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r HybridReader
			r.Reset(tt.src, tt.width)
			var runs []Run
			for {
				run, err := r.NextRun()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				runs = append(runs, run)
			}
			if len(runs) != len(tt.runs) {
				t.Fatalf("runs = %+v, want %+v", runs, tt.runs)
			}
			for i := range runs {
				g, w := runs[i], tt.runs[i]
				if g.Count != w.Count || g.Value != w.Value || (g.Packed == nil) != (w.Packed == nil) || !bytes.Equal(g.Packed, w.Packed) {
					t.Errorf("run %d = %+v, want %+v", i, g, w)
				}
			}
			r.Reset(tt.src, tt.width)
			got := make([]uint32, len(tt.vals)+3)
			n, err := r.Decode32(got)
			if err != nil || !slices.Equal(got[:n], tt.vals) {
				t.Errorf("Decode32 = %v, %v; want %v", got[:n], err, tt.vals)
			}
		})
	}
}

func TestHybridReaderErrors(t *testing.T) {
	tests := []struct {
		name  string
		src   []byte
		width uint
		eof   bool // truncation: also io.ErrUnexpectedEOF
	}{
		{"header-overflow", []byte{0xff, 0xff, 0xff, 0xff, 0x10}, 1, false},
		{"header-too-long", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 1, false},
		{"header-truncated", []byte{0x80}, 1, true},
		{"bitpacked-groups-over-limit", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 1, false},
		{"rle-value-truncated", []byte{0x04, 0x01}, 9, true},
		{"rle-value-missing", []byte{0x04}, 1, true},
		{"rle-value-too-wide", []byte{0x04, 0x08}, 3, false},
		{"bitpacked-no-bytes", []byte{0x03}, 3, true},
		{"bitpacked-less-than-one-value", []byte{0x03, 0xff}, 9, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r HybridReader
			r.Reset(tt.src, tt.width)
			var err error
			for err == nil {
				_, err = r.NextRun()
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != tt.eof {
				t.Errorf("err = %v, ErrUnexpectedEOF want %v", err, tt.eof)
			}
			if _, rerr := refDecode(tt.src, tt.width); rerr == nil {
				t.Errorf("reference decoder accepts the input (test vector broken)")
			}
		})
	}
}

func TestEncoderVectors(t *testing.T) {
	var e HybridEncoder
	e.Reset(3)
	e.Append32([]uint32{0, 1, 2, 3, 4, 5, 6, 7})
	if got, want := e.Finish(), []byte{0x03, 0x88, 0xC6, 0xFA}; !bytes.Equal(got, want) {
		t.Errorf("bit-packed = % x, want % x", got, want)
	}
	e.Reset(3)
	e.AppendRepeat(5, 10)
	if got, want := e.Finish(), []byte{0x14, 0x05}; !bytes.Equal(got, want) {
		t.Errorf("rle = % x, want % x", got, want)
	}
	// Three values then padding: one group, values 1,2,3 then zeros.
	e.Reset(2)
	e.Append32([]uint32{1, 2, 3})
	if got, want := e.Finish(), []byte{0x03, 0x39, 0x00}; !bytes.Equal(got, want) {
		t.Errorf("padded = % x, want % x", got, want)
	}
	// 8 ones then 2: RLE(8 x 1) then a padded group holding 2.
	e.Reset(2)
	e.AppendRepeat(1, 8)
	e.Append32([]uint32{2})
	if got, want := e.Finish(), []byte{0x10, 0x01, 0x03, 0x02, 0x00}; !bytes.Equal(got, want) {
		t.Errorf("rle+group = % x, want % x", got, want)
	}
}

func randRuns(rng *rand.Rand, width uint, n int) []uint32 {
	vals := make([]uint32, 0, n)
	max := uint64(1) << width
	for len(vals) < n {
		v := uint32(rng.Uint64N(max))
		k := 1
		switch rng.IntN(4) {
		case 0:
			k = rng.IntN(40) + 1
		case 1:
			k = rng.IntN(9) + 1
		}
		for range min(k, n-len(vals)) {
			vals = append(vals, v)
		}
	}
	return vals
}

func TestHybridRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	var e HybridEncoder
	var r HybridReader
	for width := uint(0); width <= 32; width++ {
		for iter := 0; iter < 20; iter++ {
			vals := randRuns(rng, width, rng.IntN(2000))
			e.Reset(width)
			// Mix Append32 and AppendRepeat.
			for i := 0; i < len(vals); {
				j := i + 1
				for j < len(vals) && vals[j] == vals[i] {
					j++
				}
				if rng.IntN(2) == 0 {
					e.AppendRepeat(vals[i], j-i)
				} else {
					e.Append32(vals[i:j])
				}
				i = j
			}
			est := e.Len()
			enc := e.Finish()
			if d := len(enc) - est; d < -8 || d > 8 {
				t.Errorf("Len estimate %d, final %d", est, len(enc))
			}
			ref, err := refDecode(enc, width)
			if err != nil || len(ref) < len(vals) || len(ref) > len(vals)+7 {
				t.Fatalf("width %d: reference decode: %d values, %v; want %d", width, len(ref), err, len(vals))
			}
			for i, v := range vals {
				if ref[i] != uint64(v) {
					t.Fatalf("width %d: value %d = %d, want %d", width, i, ref[i], v)
				}
			}
			// Decode32 in random chunks equals the one-shot reference.
			r.Reset(enc, width)
			got := make([]uint32, 0, len(ref))
			for {
				chunk := make([]uint32, rng.IntN(30)+1)
				n, err := r.Decode32(chunk)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, chunk[:n]...)
				if n < len(chunk) {
					break
				}
			}
			if len(got) != len(ref) {
				t.Fatalf("width %d: Decode32 %d values, want %d", width, len(got), len(ref))
			}
			for i := range got {
				if uint64(got[i]) != ref[i] {
					t.Fatalf("width %d: Decode32 value %d = %d, want %d", width, i, got[i], ref[i])
				}
			}
			// Next32 in random chunks, mixed with Decode32, equals it too.
			r.Reset(enc, width)
			got = got[:0]
			for {
				chunk := make([]uint32, rng.IntN(70)+1)
				if rng.IntN(4) == 0 {
					n, err := r.Decode32(chunk)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, chunk[:n]...)
					if n < len(chunk) {
						break
					}
					continue
				}
				n, v, rle, err := r.Next32(chunk)
				if err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					break
				}
				if rle {
					for range n {
						got = append(got, v)
					}
				} else {
					got = append(got, chunk[:n]...)
				}
			}
			if len(got) != len(ref) {
				t.Fatalf("width %d: Next32 %d values, want %d", width, len(got), len(ref))
			}
			for i := range got {
				if uint64(got[i]) != ref[i] {
					t.Fatalf("width %d: Next32 value %d = %d, want %d", width, i, got[i], ref[i])
				}
			}
		}
	}
}

func TestEncoderLongRun(t *testing.T) {
	var e HybridEncoder
	e.Reset(1)
	e.Append32([]uint32{0, 1})
	e.AppendRepeat(1, MaxRunLen+20)
	enc := e.Finish()
	var r HybridReader
	r.Reset(enc, 1)
	total := 0
	for {
		run, err := r.NextRun()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		total += run.Count
	}
	// Values 0,1 are packed with 6 of the ones in a padded group... any
	// layout is fine as long as 2+MaxRunLen+20 values (plus padding) come back.
	if total < 2+MaxRunLen+20 || total > 2+MaxRunLen+20+7 {
		t.Errorf("total %d values", total)
	}
}

func TestDecodeAllocs(t *testing.T) {
	enc := AppendPacked32([]byte{0x41}, make([]uint32, 256), 5) // 32 groups
	dst := make([]uint32, 256)
	var r HybridReader
	if a := testing.AllocsPerRun(100, func() {
		r.Reset(enc, 5)
		if n, err := r.Decode32(dst); n != 256 || err != nil {
			t.Fatal(n, err)
		}
	}); a != 0 {
		t.Errorf("%v allocs per Decode32", a)
	}
}

// TestUnpackGather32 checks the fused unpack-and-gather against Unpack32
// followed by a plain gather, for every width, lengths with and without
// slack after the packed bytes, and an index out of range in some runs.
func TestUnpackGather32(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 5))
	for width := uint(0); width <= 32; width++ {
		for iter := 0; iter < 30; iter++ {
			n := 8 * rng.IntN(40)
			dictLen := 1 + int(rng.Uint64N(min(uint64(1)<<width, 5000)))
			vals := make([]uint32, n)
			for i := range vals {
				vals[i] = uint32(rng.Uint64N(uint64(dictLen)))
			}
			bad := -1
			if n > 0 && rng.IntN(3) == 0 && uint64(dictLen) < uint64(1)<<width {
				bad = rng.IntN(n)
				vals[bad] = uint32(uint64(dictLen) + rng.Uint64N(uint64(1)<<width-uint64(dictLen)))
			}
			src := AppendPacked32(nil, vals, width)
			if rng.IntN(2) == 0 {
				src = append(src, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
			}
			dict := make([]int64, dictLen)
			for i := range dict {
				dict[i] = int64(i)*1_000_003 + 7
			}
			got := make([]int64, n)
			k := UnpackGather32(got, src, width, dict)
			idx := make([]uint32, n)
			Unpack32(idx, src, width)
			want := n
			for i, v := range idx {
				if int(v) >= dictLen {
					want = i
					break
				}
			}
			if bad >= 0 && want != bad || bad < 0 && want != n {
				t.Fatalf("width %d: reference stops at %d, bad index at %d", width, want, bad)
			}
			if k != want {
				t.Fatalf("width %d: UnpackGather32 = %d, want %d", width, k, want)
			}
			for i := range want / 8 * 8 {
				if got[i] != dict[idx[i]] {
					t.Fatalf("width %d: value %d = %d, want %d", width, i, got[i], dict[idx[i]])
				}
			}
		}
	}
}
