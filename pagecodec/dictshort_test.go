package pagecodec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDecodeDictShortMatchesTwoPass holds DecodeDictShort (both layouts:
// values of one length, and entries of 8 to 32 bytes) equal to
// DecodeIndices followed by GatherByteArray on random pages of every index
// bit width, with bad indices, truncated pages and asks past the end.
func TestDecodeDictShortMatchesTwoPass(t *testing.T) {
	cases := randFusedCases(t, 15)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lens := range [][2]int{{0, 0}, {1, 1}, {2, 2}, {5, 5}, {8, 8}, {12, 12}, {16, 16}, {31, 31}, {0, 7}, {3, 7}, {0, 15}, {8, 15}, {4, 17}, {16, 23}, {0, 31}, {24, 31}} {
		t.Run(fmt.Sprintf("len=%d-%d", lens[0], lens[1]), func(t *testing.T) {
			var sd ShortDict
			for i, c := range cases {
				offs, data, _ := byteArrayDict(rng, c.dictLen, lens[0], lens[1])
				if !sd.Reset(offs, data) {
					if c.dictLen*shortEntry(lens[1]) <= shortDictMaxBytes {
						t.Fatalf("case %d: Reset of %d values of %d to %d bytes failed", i, c.dictLen, lens[0], lens[1])
					}
					continue
				}
				wo, wd := []int32{0}, []byte(nil)
				werr := twoPass(c, func(idx []int32) error {
					var err error
					wo, wd, err = GatherByteArray(wo, wd, offs, data, idx)
					return err
				})
				go_, gd := []int32{0}, []byte(nil)
				gerr := fusedPass(c, func(d *DictIndexDecoder, k int) error {
					o, dd, err := DecodeDictShort(d, go_, gd, &sd, k)
					if err == nil {
						if len(o)-len(go_) != k {
							return fmt.Errorf("DecodeDictShort %d of %d values without an error", len(o)-len(go_), k)
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

// TestDecodeDictShortErrorKeepsPrefix: on a bad index the values before
// its run are appended, with offsets that match the data.
func TestDecodeDictShortErrorKeepsPrefix(t *testing.T) {
	offs := []int32{0, 3, 4, 11} // "AIR", "A", "REG AIR"
	data := []byte("AIRAREG AIR")
	// 8 packed 2-bit indices 0,1,2,2,1,0,3,0: index 3 is past the end.
	page := []byte{2, 0x03, 0b10_10_01_00, 0b00_11_00_01}
	var sd ShortDict
	if !sd.Reset(offs, data) {
		t.Fatal("Reset failed")
	}
	var d DictIndexDecoder
	if err := d.Reset(page, 3); err != nil {
		t.Fatal(err)
	}
	o, dd, err := DecodeDictShort(&d, []int32{0}, nil, &sd, 8)
	if err == nil || err.Error() != "pagecodec: dictionary index 3 out of range for 3 values: corrupt input" {
		t.Fatalf("error %v", err)
	}
	if want := "AIRAREG AIRREG AIRAAIR"; string(dd) != want || !slices.Equal(o, []int32{0, 3, 4, 11, 18, 19, 22}) {
		t.Fatalf("got %v %q, want the first 6 values %q", o, dd, want)
	}
}

// TestShortDictReset pins which dictionaries Reset takes.
func TestShortDictReset(t *testing.T) {
	for _, c := range []struct {
		name string
		offs []int32
		data string
		ok   bool
	}{
		{"empty", []int32{0}, "", true},
		{"no offsets", nil, "", false},
		{"31 bytes", []int32{0, 31}, "0123456789012345678901234567890", true},
		{"32 bytes", []int32{0, 32}, "01234567890123456789012345678901", false},
		{"falling offsets", []int32{0, 2, 1}, "ab", false},
		{"past the data", []int32{0, 2, 5}, "ab", false},
		{"negative", []int32{-1, 2}, "ab", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sd ShortDict
			if got := sd.Reset(c.offs, []byte(c.data)); got != c.ok {
				t.Fatalf("Reset = %v, want %v", got, c.ok)
			}
		})
	}
	// Entries past 64 KiB: 8193 values of 1 to 7 bytes.
	offs := []int32{0}
	var data []byte
	for i := range 8193 {
		data = append(data, bytes.Repeat([]byte{'x'}, 1+i%7)...)
		offs = append(offs, int32(len(data)))
	}
	var sd ShortDict
	if sd.Reset(offs, data) {
		t.Fatal("Reset took 8193 entries of 8 bytes")
	}
	// Of one length they need no entries.
	offs = offs[:1]
	for i := range 65537 {
		offs = append(offs, int32(i+1))
	}
	if !sd.Reset(offs, bytes.Repeat([]byte{'y'}, 65537)) {
		t.Fatal("Reset refused 65537 values of 1 byte")
	}
}
