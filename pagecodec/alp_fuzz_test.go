package pagecodec

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/arrowpq/arrowpq/internal/codectest"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// alpSeedPages are valid pages of both types for the fuzz corpora.
func alpSeedPages() [][]byte {
	pages := [][]byte{
		alpPageBytes(10, 4, alpVectorBytes(8, 4, 3, 3335, 15, []uint64{11665, 11665, 21665, 0}, []uint16{1}, []uint64{specNaN})),
		alpPageBytes(3, 19,
			alpVectorBytes(8, 2, 0, 100, 4, []uint64{0, 1, 2, 3, 4, 5, 6, 7}, []uint16{3}, []uint64{specNaN}),
			alpVectorBytes(8, 2, 1, -5, 0, make([]uint64, 8), nil, nil),
			alpVectorBytes(8, 1, 1, 7, 2, []uint64{1, 2, 3}, []uint16{2}, []uint64{0x8000000000000000})),
		alpPageBytes(3, 0),
	}
	var e ALPEncoder
	vals := make([]float64, 300)
	for i := range vals {
		vals[i] = float64(i*37%1000) / 100
	}
	vals[5] = math.Inf(-1)
	e.LogVectorSize = 6
	e.AppendDouble(vals)
	pages = append(pages, e.AppendTo(nil))
	var f ALPEncoder
	f32 := make([]float32, 100)
	for i := range f32 {
		f32[i] = float32(i) / 4
	}
	f32[7] = float32(math.NaN())
	f.LogVectorSize = 4
	f.AppendFloat(f32)
	pages = append(pages, f.AppendTo(nil))
	return pages
}

// FuzzDecodeALP feeds hostile pages to the decoder: no panic, every error
// wraps a sentinel, and a page that Reset accepts decodes, in batches of the
// fuzzed sizes, to what the value-by-value reference decoder gives.
func FuzzDecodeALP(f *testing.F) {
	for i, p := range alpSeedPages() {
		f.Add(p, i%2 == 0, []byte{3, 200})
		f.Add(p, i%2 == 1, []byte{0})
	}
	f.Fuzz(func(t *testing.T, page []byte, double bool, batches []byte) {
		width := 4
		if double {
			width = 8
		}
		var d ALPDecoder
		typ := alpType(width)
		if err := d.Reset(page, typ); err != nil {
			codectest.CheckError(t, err, ErrCorrupt, ErrUnsupported)
			return
		}
		ref, refErr := refDecodeALP(page, width)
		if refErr != nil {
			t.Fatalf("Reset accepted a page the reference rejects: %v", refErr)
		}
		got, err := decodeALPBatches(t, page, width, codectest.Batches(d.Len(), batches, 1))
		if err != nil {
			t.Fatalf("decode after a successful Reset: %v", err)
		}
		if len(got) != len(ref) {
			t.Fatalf("%d values, reference %d", len(got), len(ref))
		}
		for i := range got {
			if got[i] != ref[i] {
				t.Fatalf("value %d: %#x, reference %#x", i, got[i], ref[i])
			}
		}
	})
}

// FuzzRoundTripALP encodes the fuzzed bytes read as doubles or floats and
// checks that they decode bit for bit.
func FuzzRoundTripALP(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 1, 2, 3, 4, 5, 6, 7, 8}, true, uint8(0))
	f.Add(binary.LittleEndian.AppendUint64(nil, math.Float64bits(12.34)), false, uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, double bool, lg uint8) {
		lg = alpMinLogVector + lg%(alpMaxLogVector-alpMinLogVector+1)
		if double {
			vals := make([]float64, len(raw)/8)
			for i := range vals {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
			checkALPRoundTrip(t, vals, int(lg), 1)
			return
		}
		vals := make([]float32, len(raw)/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		checkALPRoundTrip(t, vals, int(lg), 1)
	})
}

func alpType(width int) format.Type {
	if width == 4 {
		return format.Type_FLOAT
	}
	return format.Type_DOUBLE
}
