package bitpack

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkUnpack32 measures unpacking 4096 values; SetBytes counts the
// unpacked output (4 bytes per value).
func BenchmarkUnpack32(b *testing.B) {
	for _, width := range []uint{1, 2, 3, 5, 8, 13, 16, 20, 32} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			vals := make([]uint32, 4096)
			for i := range vals {
				vals[i] = rng.Uint32() & uint32(1<<width-1)
			}
			src := AppendPacked32(nil, vals, width)
			dst := make([]uint32, len(vals))
			b.SetBytes(int64(4 * len(dst)))
			b.ReportAllocs()
			for b.Loop() {
				Unpack32(dst, src, width)
			}
		})
	}
}

// BenchmarkUnpack64 is BenchmarkUnpack32 for 64-bit output (8 bytes per value).
func BenchmarkUnpack64(b *testing.B) {
	for _, width := range []uint{1, 13, 33, 64} {
		b.Run(fmt.Sprintf("width=%d", width), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			vals := make([]uint64, 4096)
			for i := range vals {
				vals[i] = rng.Uint64() & (1<<width - 1)
				if width == 64 {
					vals[i] = rng.Uint64()
				}
			}
			src := AppendPacked64(nil, vals, width)
			dst := make([]uint64, len(vals))
			b.SetBytes(int64(8 * len(dst)))
			b.ReportAllocs()
			for b.Loop() {
				Unpack64(dst, src, width)
			}
		})
	}
}

// BenchmarkHybridDecode32 decodes 64Ki hybrid values with Decode32; SetBytes
// counts the decoded output (4 bytes per value).
func BenchmarkHybridDecode32(b *testing.B) {
	for _, tc := range []struct {
		name  string
		runs  bool
		width uint
	}{{"random/width=3", false, 3}, {"random/width=12", false, 12}, {"runs/width=3", true, 3}} {
		b.Run(tc.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			var vals []uint32
			if tc.runs {
				vals = randRuns(rng, tc.width, 1<<16)
			} else {
				vals = make([]uint32, 1<<16)
				for i := range vals {
					vals[i] = rng.Uint32() & uint32(1<<tc.width-1)
				}
			}
			var e HybridEncoder
			e.Reset(tc.width)
			e.Append32(vals)
			enc := e.Finish()
			dst := make([]uint32, len(vals))
			var r HybridReader
			b.SetBytes(int64(4 * len(vals)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(enc, tc.width)
				if n, err := r.Decode32(dst); n != len(dst) || err != nil {
					b.Fatal(n, err)
				}
			}
		})
	}
}

// BenchmarkHybridEncode encodes 64Ki random 3-bit values; SetBytes counts the
// input (4 bytes per value).
func BenchmarkHybridEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	vals := randRuns(rng, 3, 1<<16)
	var e HybridEncoder
	b.SetBytes(int64(4 * len(vals)))
	b.ReportAllocs()
	for b.Loop() {
		e.Reset(3)
		e.Append32(vals)
		e.Finish()
	}
}
