package pagecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// The fused dictionary decoders (DecodeDict, DecodeDictFixed,
// DecodeDictByteArray) against the two-pass path they replace
// (DecodeIndices, then Gather, GatherFixedLenByteArray or
// GatherByteArray/GatherByteArrayShort): same page, same chunks asked,
// equal output and the same error.

// indexPage is a random dictionary-indices data page: a bit width byte,
// then RLE and bit-packed runs written by hand so that their lengths are
// chosen (runs longer than a block, runs ending mid-block, a truncated
// last group), values below dictLen except, when bad is set, one.
func indexPage(rng *rand.Rand, width uint, dictLen int, bad bool) (page []byte, total int) {
	page = []byte{byte(width)}
	limit := uint64(1) << width
	valid := min(uint64(max(dictLen, 1)), limit)
	badAt := -1
	runs := rng.IntN(8)
	if bad && runs > 0 {
		badAt = rng.IntN(runs)
	}
	value := func(isBad bool) uint32 {
		if isBad && uint64(dictLen) < limit {
			return uint32(uint64(dictLen) + rng.Uint64N(limit-uint64(dictLen)))
		}
		return uint32(rng.Uint64N(valid))
	}
	for r := range runs {
		if rng.IntN(2) == 0 {
			count := 1 + rng.IntN(700)
			page = binary.AppendUvarint(page, uint64(count)<<1)
			v := value(r == badAt)
			for i := range bitpack.ByteWidth(width) {
				page = append(page, byte(v>>(8*i)))
			}
			total += count
			continue
		}
		groups := 1 + rng.IntN(80)
		vals := make([]uint32, groups*8)
		for i := range vals {
			vals[i] = value(false)
		}
		if r == badAt {
			vals[rng.IntN(len(vals))] = value(true)
		}
		page = binary.AppendUvarint(page, uint64(groups)<<1|1)
		page = bitpack.AppendPacked32(page, vals, width)
		total += groups * 8
	}
	return page, total
}

// chunks splits n into random pieces (the batches a reader asks for).
func chunks(rng *rand.Rand, n int) []int {
	var out []int
	for n > 0 {
		k := min(n, 1+rng.IntN(600))
		if rng.IntN(8) == 0 {
			k = n
		}
		out = append(out, k)
		n -= k
	}
	return out
}

// sameError fails unless both errors are nil, or both wrap the same
// sentinels; range errors must read the same.
func sameError(t *testing.T, what string, fused, plain error) {
	t.Helper()
	if (fused == nil) != (plain == nil) {
		t.Fatalf("%s: fused error %v, two-pass error %v", what, fused, plain)
	}
	if fused == nil {
		return
	}
	checkErr(t, fused)
	for _, s := range []error{ErrCorrupt, ErrLimit} {
		if errors.Is(fused, s) != errors.Is(plain, s) {
			t.Fatalf("%s: fused error %v, two-pass error %v", what, fused, plain)
		}
	}
	if bytes.Contains([]byte(plain.Error()), []byte("out of range")) && fused.Error() != plain.Error() {
		t.Fatalf("%s: fused error %q, two-pass error %q", what, fused, plain)
	}
}

type fusedCase struct {
	page    []byte
	dictLen int
	asks    []int
}

func randFusedCases(t *testing.T, perWidth int) []fusedCase {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	var cases []fusedCase
	for width := uint(0); width <= 32; width++ {
		for range perWidth {
			dictLen := 1 + int(rng.Uint64N(min(uint64(1)<<width, 3000)))
			if rng.IntN(10) == 0 {
				dictLen = rng.IntN(3) // 0, 1 or 2 values
			}
			page, total := indexPage(rng, width, dictLen, rng.IntN(5) == 0)
			switch rng.IntN(6) {
			case 0:
				total += 1 + rng.IntN(20) // ask past the page's end
			case 1:
				if len(page) > 2 {
					page = page[:len(page)-1-rng.IntN(min(len(page)-2, 4))] // cut inside a run
				}
			}
			if rng.IntN(20) == 0 {
				page = page[:0] // a page without values
			}
			cases = append(cases, fusedCase{page, dictLen, chunks(rng, total)})
		}
	}
	return cases
}

// twoPass decodes the asks with DecodeIndices and hands each chunk's
// indices to gather; it stops at the first error.
func twoPass(c fusedCase, gather func([]int32) error) error {
	var d DictIndexDecoder
	if err := d.Reset(c.page, c.dictLen); err != nil {
		return err
	}
	for _, k := range c.asks {
		idx := make([]int32, k)
		if _, err := d.DecodeIndices(idx); err != nil {
			return err
		}
		if err := gather(idx); err != nil {
			return err
		}
	}
	return nil
}

// fusedPass runs decode for each ask on one decoder.
func fusedPass(c fusedCase, decode func(d *DictIndexDecoder, k int) error) error {
	var d DictIndexDecoder
	if err := d.Reset(c.page, c.dictLen); err != nil {
		return err
	}
	for _, k := range c.asks {
		if err := decode(&d, k); err != nil {
			return err
		}
	}
	return nil
}

func sum(s []int) int {
	n := 0
	for _, v := range s {
		n += v
	}
	return n
}

func testFusedNumeric[T int32 | int64 | float32 | float64](t *testing.T, name string, cases []fusedCase) {
	var ranged, failed int
	defer func() { t.Logf("%d cases, %d failing (%d on an index out of range)", len(cases), failed, ranged) }()
	for i, c := range cases {
		dict := make([]T, c.dictLen)
		for j := range dict {
			dict[j] = T(j*7 + 1)
		}
		var want, got []T
		werr := twoPass(c, func(idx []int32) error {
			out := make([]T, len(idx))
			if err := Gather(out, dict, idx); err != nil {
				return err
			}
			want = append(want, out...)
			return nil
		})
		gerr := fusedPass(c, func(d *DictIndexDecoder, k int) error {
			out := make([]T, k)
			n, err := DecodeDict(d, out, dict)
			if err == nil && n != k {
				return fmt.Errorf("DecodeDict %d of %d values without an error", n, k)
			}
			if err == nil {
				got = append(got, out...)
			}
			return err
		})
		what := fmt.Sprintf("%s case %d (page %d bytes, dictionary %d)", name, i, len(c.page), c.dictLen)
		sameError(t, what, gerr, werr)
		if werr != nil {
			failed++
			if bytes.Contains([]byte(werr.Error()), []byte("out of range")) {
				ranged++
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d values, want %d (first difference at %d)", what, len(got), len(want), firstDiff(got, want))
		}
	}
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestDecodeDictFusedMatchesTwoPass(t *testing.T) {
	cases := randFusedCases(t, 30)
	t.Run("type=int32", func(t *testing.T) { testFusedNumeric[int32](t, "int32", cases) })
	t.Run("type=int64", func(t *testing.T) { testFusedNumeric[int64](t, "int64", cases) })
	t.Run("type=float32", func(t *testing.T) { testFusedNumeric[float32](t, "float32", cases) })
	t.Run("type=float64", func(t *testing.T) { testFusedNumeric[float64](t, "float64", cases) })
}

func TestDecodeDictFixedMatchesTwoPass(t *testing.T) {
	cases := randFusedCases(t, 15)
	for _, width := range []int{1, 2, 3, 4, 5, 7, 8, 12, 16, 32} {
		t.Run(fmt.Sprintf("width=%d", width), func(t *testing.T) {
			for i, c := range cases {
				dict := make([]byte, c.dictLen*width)
				for j := range dict {
					dict[j] = byte(j*13 + 5)
				}
				var want, got []byte
				werr := twoPass(c, func(idx []int32) error {
					out := make([]byte, len(idx)*width)
					if err := GatherFixedLenByteArray(out, dict, width, idx); err != nil {
						return err
					}
					want = append(want, out...)
					return nil
				})
				gerr := fusedPass(c, func(d *DictIndexDecoder, k int) error {
					out := make([]byte, k*width)
					n, err := DecodeDictFixed(d, out, dict, width)
					if err == nil && n != k {
						return fmt.Errorf("DecodeDictFixed %d of %d values without an error", n, k)
					}
					if err == nil {
						got = append(got, out...)
					}
					return err
				})
				what := fmt.Sprintf("case %d (page %d bytes, dictionary %d)", i, len(c.page), c.dictLen)
				sameError(t, what, gerr, werr)
				if !bytes.Equal(got, want) {
					t.Fatalf("%s: %d bytes, want %d (first difference at %d)", what, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}

// byteArrayDict returns a dictionary of n values of lengths in
// [minLen, maxLen] and the length of its longest value, its data padded
// with 32 bytes as column pads its dictionaries.
func byteArrayDict(rng *rand.Rand, n, minLen, maxLen int) (offs []int32, data []byte, longest int) {
	offs = []int32{0}
	for range n {
		l := minLen + rng.IntN(maxLen-minLen+1)
		longest = max(longest, l)
		for range l {
			data = append(data, byte('a'+rng.IntN(26)))
		}
		offs = append(offs, int32(len(data)))
	}
	data = append(data, make([]byte, 32)...)
	return offs, data[:len(data)-32], longest
}

func TestDecodeDictByteArrayMatchesTwoPass(t *testing.T) {
	cases := randFusedCases(t, 15)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lens := range [][2]int{{0, 0}, {1, 1}, {0, 8}, {3, 16}, {9, 17}, {17, 24}, {0, 32}, {30, 32}, {0, 40}, {17, 100}} {
		for _, slack := range []bool{true, false} {
			t.Run(fmt.Sprintf("len=%d-%d/slack=%v", lens[0], lens[1], slack), func(t *testing.T) {
				for i, c := range cases {
					offs, data, longest := byteArrayDict(rng, c.dictLen, lens[0], lens[1])
					if slack {
						data = data[:len(data)+32]
					}
					wo, wd := []int32{0}, []byte(nil)
					werr := twoPass(c, func(idx []int32) error {
						var err error
						if longest <= 16 {
							wo, wd, err = GatherByteArrayShort(wo, wd, offs, data, idx, longest)
						} else {
							wo, wd, err = GatherByteArray(wo, wd, offs, data, idx)
						}
						return err
					})
					// The fused decoder appends what it gathered before an
					// error; compare only after whole asks.
					go_, gd := []int32{0}, []byte(nil)
					gerr := fusedPass(c, func(d *DictIndexDecoder, k int) error {
						o, dd, err := DecodeDictByteArray(d, go_, gd, offs, data, longest, k)
						if err == nil {
							if len(o)-len(go_) != k {
								return fmt.Errorf("DecodeDictByteArray %d of %d values without an error", len(o)-len(go_), k)
							}
							go_, gd = o, dd
						}
						return err
					})
					what := fmt.Sprintf("case %d (page %d bytes, dictionary %d)", i, len(c.page), c.dictLen)
					sameError(t, what, gerr, werr)
					if !slices.Equal(go_, wo) || !bytes.Equal(gd, wd) {
						t.Fatalf("%s: %d values of %d bytes, want %d of %d", what, len(go_)-1, len(gd), len(wo)-1, len(wd))
					}
				}
			})
		}
	}
}

// TestDecodeDictRuns pins hand-computed values: an RLE run crossing the
// 256-index block, a bit-packed run of 3-bit indices and a bad index in
// each kind of run.
func TestDecodeDictRuns(t *testing.T) {
	dict := []int64{10, 11, 12, 13, 14}
	// RLE 300 × 4, then 8 packed 3-bit values 0..4,4,3,2 (spec example
	// packing).
	page := []byte{3}
	page = binary.AppendUvarint(page, 300<<1)
	page = append(page, 4)
	page = binary.AppendUvarint(page, 1<<1|1)
	page = bitpack.AppendPacked32(page, []uint32{0, 1, 2, 3, 4, 4, 3, 2}, 3)
	var d DictIndexDecoder
	if err := d.Reset(page, len(dict)); err != nil {
		t.Fatal(err)
	}
	got := make([]int64, 308)
	if n, err := DecodeDict(&d, got, dict); n != 308 || err != nil {
		t.Fatalf("DecodeDict = %d, %v", n, err)
	}
	want := append(slices.Repeat([]int64{14}, 300), 10, 11, 12, 13, 14, 14, 13, 12)
	if !slices.Equal(got, want) {
		t.Fatalf("got %v", got[295:])
	}
	// Index 5 of a 5-value dictionary: in the RLE run, then in the packed one.
	if err := d.Reset(page, 4); err != nil {
		t.Fatal(err)
	}
	if n, err := DecodeDict(&d, got, dict[:4]); n != 0 || !errors.Is(err, ErrCorrupt) ||
		err.Error() != "pagecodec: dictionary index 4 out of range for 4 values: corrupt input" {
		t.Fatalf("RLE run of a bad index: %d, %v", n, err)
	}
	d.Reset(page, 4)
	d2 := make([]byte, 300*16)
	if n, err := DecodeDictFixed(&d, d2, make([]byte, 4*16), 16); n != 0 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("fixed, RLE run of a bad index: %d, %v", n, err)
	}
	// The packed run alone (page[4:] starts at its header).
	page2 := append([]byte{3}, page[4:]...)
	d.Reset(page2, 4)
	if n, err := DecodeDict(&d, got[:8], dict[:4]); n != 4 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("packed run with a bad index at 4: %d, %v", n, err)
	}
}

// FuzzDecodeDictFused feeds hostile index pages to the fused decoders and
// the two-pass path they replace, in chunks of the fuzzed size: no panic,
// equal values, the same error.
func FuzzDecodeDictFused(f *testing.F) {
	f.Add([]byte{3, 0x03, 0x88, 0xC6, 0xFA}, uint16(8), uint16(8), uint16(3))
	f.Add([]byte{3, 0x0A, 0x04}, uint16(5), uint16(5), uint16(5))
	f.Add([]byte{3, 0xD8, 0x04, 0x04, 0x03, 0x88, 0xC6, 0xFA}, uint16(5), uint16(308), uint16(256))
	f.Add([]byte{10, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint16(1000), uint16(16), uint16(7))
	f.Fuzz(func(t *testing.T, page []byte, dictLen, n, chunk uint16) {
		c := fusedCase{page: page, dictLen: int(dictLen)}
		for left := int(n); left > 0; left -= int(max(chunk, 1)) {
			c.asks = append(c.asks, min(left, int(max(chunk, 1))))
		}
		testFusedNumeric[int64](t, "int64", []fusedCase{c})
		dict := make([]byte, c.dictLen*16)
		for j := range dict {
			dict[j] = byte(j)
		}
		var want, got []byte
		werr := twoPass(c, func(idx []int32) error {
			out := make([]byte, len(idx)*16)
			err := GatherFixedLenByteArray(out, dict, 16, idx)
			want = append(want, out...)
			return err
		})
		gerr := fusedPass(c, func(d *DictIndexDecoder, k int) error {
			out := make([]byte, k*16)
			_, err := DecodeDictFixed(d, out, dict, 16)
			if err == nil {
				got = append(got, out...)
			}
			return err
		})
		sameError(t, "fixed 16", gerr, werr)
		if werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("fixed 16: %d bytes, want %d", len(got), len(want))
		}
		rng := rand.New(rand.NewPCG(uint64(dictLen), 1))
		offs, data, longest := byteArrayDict(rng, c.dictLen, 0, 12)
		data = data[:len(data)+32]
		wo, wd := []int32{0}, []byte(nil)
		werr = twoPass(c, func(idx []int32) error {
			var err error
			wo, wd, err = GatherByteArrayShort(wo, wd, offs, data, idx, longest)
			return err
		})
		go_, gd := []int32{0}, []byte(nil)
		gerr = fusedPass(c, func(d *DictIndexDecoder, k int) error {
			o, dd, err := DecodeDictByteArray(d, go_, gd, offs, data, longest, k)
			if err == nil {
				go_, gd = o, dd
			}
			return err
		})
		sameError(t, "byte array", gerr, werr)
		if !slices.Equal(go_, wo) || !bytes.Equal(gd, wd) {
			t.Fatalf("byte array: %d values of %d bytes, want %d of %d", len(go_)-1, len(gd), len(wo)-1, len(wd))
		}
		// DecodeDictShort on the same dictionary (entries) and on one of
		// 3-byte values (values of one length).
		for _, lens := range [][2]int{{0, 12}, {3, 3}} {
			offs, data, _ := byteArrayDict(rng, c.dictLen, lens[0], lens[1])
			var sd ShortDict
			if !sd.Reset(offs, data) {
				continue
			}
			wo, wd := []int32{0}, []byte(nil)
			werr = twoPass(c, func(idx []int32) error {
				var err error
				wo, wd, err = GatherByteArray(wo, wd, offs, data, idx)
				return err
			})
			go_, gd := []int32{0}, []byte(nil)
			gerr = fusedPass(c, func(d *DictIndexDecoder, k int) error {
				o, dd, err := DecodeDictShort(d, go_, gd, &sd, k)
				if err == nil {
					go_, gd = o, dd
				}
				return err
			})
			sameError(t, "short", gerr, werr)
			if !slices.Equal(go_, wo) || !bytes.Equal(gd, wd) {
				t.Fatalf("short %v: %d values of %d bytes, want %d of %d", lens, len(go_)-1, len(gd), len(wo)-1, len(wd))
			}
		}
	})
}
