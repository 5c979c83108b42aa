package metadata

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Bit patterns in IEEE 754 total order, smallest first, written out by
// hand from the definition (§5.10): negative NaNs by decreasing payload,
// -Inf, negative numbers by decreasing magnitude, -0, +0, positive numbers,
// +Inf, positive NaNs by increasing payload (quiet NaNs have the top
// fraction bit set, so they sort after signalling NaNs of that sign).
var (
	order64 = []uint64{
		0xffffffffffffffff, // -NaN, largest payload
		0xfff8000000000000, // -qNaN
		0xfff0000000000001, // -sNaN, smallest payload
		0xfff0000000000000, // -Inf
		0xffefffffffffffff, // -MaxFloat64
		0xbff0000000000000, // -1
		0x8000000000000001, // -smallest subnormal
		0x8000000000000000, // -0
		0x0000000000000000, // +0
		0x0000000000000001, // smallest subnormal
		0x000fffffffffffff, // largest subnormal
		0x3ff0000000000000, // 1
		0x7fefffffffffffff, // MaxFloat64
		0x7ff0000000000000, // +Inf
		0x7ff0000000000001, // +sNaN
		0x7ff8000000000000, // +qNaN
		0x7fffffffffffffff, // +NaN, largest payload
	}
	order32 = []uint32{
		0xffffffff, 0xffc00000, 0xff800001, 0xff800000, 0xff7fffff, 0xbf800000, 0x80000001, 0x80000000,
		0x00000000, 0x00000001, 0x007fffff, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff,
	}
	order16 = []uint16{
		0xffff, 0xfe00, 0xfc01, 0xfc00, 0xfbff, 0xbc00, 0x8001, 0x8000,
		0x0000, 0x0001, 0x03ff, 0x3c00, 0x7bff, 0x7c00, 0x7c01, 0x7e00, 0x7fff,
	}
)

func TestTotalOrderCompare(t *testing.T) {
	for i := range order64 {
		for j := range order64 {
			want := cmpKey(int64(i), int64(j))
			a, b := math.Float64frombits(order64[i]), math.Float64frombits(order64[j])
			if got := CompareTotalOrder64(a, b); got != want {
				t.Errorf("DOUBLE %#x vs %#x: %d, want %d", order64[i], order64[j], got, want)
			}
			if got := CompareTotalOrder32(math.Float32frombits(order32[i]), math.Float32frombits(order32[j])); got != want {
				t.Errorf("FLOAT %#x vs %#x: %d, want %d", order32[i], order32[j], got, want)
			}
			if got := CompareTotalOrderFloat16(order16[i], order16[j]); got != want {
				t.Errorf("FLOAT16 %#x vs %#x: %d, want %d", order16[i], order16[j], got, want)
			}
		}
	}
	// The key is an involution on the bits.
	for _, u := range order64 {
		if back := uint64(TotalOrderKey64(uint64(TotalOrderKey64(u)))); back != u {
			t.Errorf("key64 of key64 of %#x = %#x", u, back)
		}
	}
	for _, u := range order16 {
		if back := uint16(TotalOrderKey16(uint16(TotalOrderKey16(u)))); back != u {
			t.Errorf("key16 of key16 of %#x = %#x", u, back)
		}
	}
	// -0 and +0 under the key: -1 and 0, as the sign-magnitude trick says.
	if TotalOrderKey64(0x8000000000000000) != -1 || TotalOrderKey32(0x80000000) != -1 || TotalOrderKey16(0x8000) != -1 {
		t.Error("-0 does not key to -1")
	}
}

func TestCompareTotalOrderValues(t *testing.T) {
	c := leaf(t, phys(format.Type_FLOAT))
	v := func(bits uint32) Value {
		x, err := DecodeValue(c, le32(bits))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	// A signalling NaN and a quiet NaN with the same payload stay apart
	// (float64(float32) would make both quiet).
	sn, qn := v(0x7f800001), v(0x7fc00001)
	if got, ok := CompareTotalOrder(sn, qn); !ok || got != -1 {
		t.Errorf("sNaN vs qNaN: %d, %v", got, ok)
	}
	for _, x := range []Value{sn, qn, v(0xffc00000)} {
		if !x.IsNaN() {
			t.Errorf("%#x is not NaN", x.Bits)
		}
	}
	if v(0x7f800000).IsNaN() || v(0xff800000).IsNaN() {
		t.Error("an infinity is NaN")
	}
	if got, ok := CompareTotalOrder(v(0x80000000), v(0)); !ok || got != -1 {
		t.Errorf("-0 vs +0: %d, %v", got, ok)
	}
	d, err := DecodeValue(leaf(t, phys(format.Type_DOUBLE)), f64(1))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := CompareTotalOrder(sn, d); ok {
		t.Error("FLOAT compared with DOUBLE")
	}
	h := leaf(t, logical(flba(2), &format.LogicalType{FLOAT16: &format.Float16Type{}}))
	a, _ := DecodeValue(h, []byte{0x00, 0xfe}) // -qNaN
	b, _ := DecodeValue(h, []byte{0x00, 0xfc}) // -Inf
	if got, ok := CompareTotalOrder(a, b); !ok || got != -1 {
		t.Errorf("FLOAT16 -NaN vs -Inf: %d, %v", got, ok)
	}
	if !a.IsNaN() || b.IsNaN() {
		t.Errorf("FLOAT16 IsNaN: -NaN %v, -Inf %v", a.IsNaN(), b.IsNaN())
	}
}

func TestTotalOrderBounds(t *testing.T) {
	nan := func(u uint64) float64 { return math.Float64frombits(u) }
	tests := []struct {
		name     string
		vals     []float64
		min, max uint64 // bits
		nans     int64
		none     bool
	}{
		{"empty", nil, 0, 0, 0, true},
		{"plain numbers", []float64{3, -2, 5, 0.5}, math.Float64bits(-2), math.Float64bits(5), 0, false},
		{"zeros are distinct", []float64{0, math.Copysign(0, -1)}, 0x8000000000000000, 0, 0, false},
		{"max of -0 stays -0", []float64{-5, math.Copysign(0, -1)}, math.Float64bits(-5), 0x8000000000000000, 0, false},
		{"NaNs of both signs are left out", []float64{nan(0xfff8000000000000), 1, nan(0x7ff0000000000001), -1},
			math.Float64bits(-1), math.Float64bits(1), 2, false},
		{"all NaN: smallest and largest NaN", []float64{nan(0x7ff8000000000000), nan(0xfff0000000000001), nan(0x7fffffffffffffff), nan(0xffffffffffffffff)},
			0xffffffffffffffff, 0x7fffffffffffffff, 4, false},
		{"infinities", []float64{math.Inf(1), math.Inf(-1), nan(0x7ff8000000000000)}, 0xfff0000000000000, 0x7ff0000000000000, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Split in two and merged, as pages into a chunk.
			var a, b TotalOrderBounds
			h := len(tc.vals) / 2
			a.AddDouble(tc.vals[:h])
			b.AddDouble(tc.vals[h:])
			a.Merge(&b)
			var s format.Statistics
			a.Fill(&s)
			if s.NanCount == nil || *s.NanCount != tc.nans {
				t.Errorf("nan_count %v, want %d", s.NanCount, tc.nans)
			}
			if tc.none {
				if s.MinValue != nil || s.MaxValue != nil {
					t.Errorf("min/max % x % x for no values", s.MinValue, s.MaxValue)
				}
				return
			}
			if !bytes.Equal(s.MinValue, le64(tc.min)) || !bytes.Equal(s.MaxValue, le64(tc.max)) {
				t.Errorf("min % x max % x, want %#x %#x", s.MinValue, s.MaxValue, tc.min, tc.max)
			}
			if s.IsMinValueExact == nil || !*s.IsMinValueExact || s.IsMaxValueExact == nil || !*s.IsMaxValueExact {
				t.Error("bounds not marked exact")
			}
			// FLOAT and FLOAT16 agree where the values narrow exactly.
			var f TotalOrderBounds
			f32 := make([]float32, len(tc.vals))
			for i, v := range tc.vals {
				f32[i] = float32(v)
			}
			f.AddFloat(f32)
			lo, hi, _ := f.MinMax()
			if CompareTotalOrder32(math.Float32frombits(binary.LittleEndian.Uint32(lo)), math.Float32frombits(binary.LittleEndian.Uint32(hi))) > 0 {
				t.Errorf("FLOAT min % x above max % x", lo, hi)
			}
		})
	}
	var h TotalOrderBounds
	h.AddFloat16([]byte{0x00, 0x80, 0x00, 0x00, 0x00, 0x7e, 0x00, 0xc0, 0x00, 0xfe}) // -0, +0, NaN, -2, -NaN
	if lo, hi, ok := h.MinMax(); !ok || !bytes.Equal(lo, []byte{0x00, 0xc0}) || !bytes.Equal(hi, []byte{0x00, 0x00}) || h.NaNCount() != 2 {
		t.Errorf("FLOAT16 bounds % x % x %v, %d NaN", lo, hi, ok, h.NaNCount())
	}
}

// TestTotalOrderCorpus reads floating_orders_nan_count.parquet (written by
// parquet-mr with IEEE754 and TypeDefined columns; row groups: no NaN, some
// NaN, all NaN, zero min, zero max). For every IEEE754 column chunk the
// values, read by arrow-go, put through TotalOrderBounds must give the bytes
// and nan_count parquet-mr wrote; DecodeStats must mark them TotalOrder (and
// AllNaN for row group 2) and leave TypeDefined columns as they were.
func TestTotalOrderCorpus(t *testing.T) {
	testshared.Need(t, corpusDir)
	const name = "data/floating_orders_nan_count.parquet"
	f := openCorpus(t, name)
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	rd, err := pqfile.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	checked := 0
	for rg := range f.Meta.RowGroups {
		for ci, col := range f.Schema.Columns {
			ieee := strings.HasSuffix(col.DottedPath, "_ieee754")
			order := ColumnOrder(f, ci)
			if ieee != (order != nil && order.IEEE_754_TOTAL_ORDER != nil) {
				t.Fatalf("%s: column order %v", col.DottedPath, order)
			}
			st, err := ColumnStats(f, rg, ci)
			if err != nil {
				t.Fatal(err)
			}
			if st.TotalOrder != ieee {
				t.Errorf("rg %d %s: TotalOrder %v", rg, col.DottedPath, st.TotalOrder)
			}
			if st.AllNaN() != (ieee && rg == 2) {
				t.Errorf("rg %d %s: AllNaN %v", rg, col.DottedPath, st.AllNaN())
			}
			if !ieee {
				continue
			}
			var b TotalOrderBounds
			cr, err := rd.RowGroup(rg).Column(ci)
			if err != nil {
				t.Fatal(err)
			}
			switch r := cr.(type) {
			case *pqfile.Float32ColumnChunkReader:
				v := make([]float32, 100)
				n, _, err := r.ReadBatch(100, v, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				b.AddFloat(v[:n])
			case *pqfile.Float64ColumnChunkReader:
				v := make([]float64, 100)
				n, _, err := r.ReadBatch(100, v, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				b.AddDouble(v[:n])
			case *pqfile.FixedLenByteArrayColumnChunkReader:
				v := make([]parquet.FixedLenByteArray, 100)
				n, _, err := r.ReadBatch(100, v, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range v[:n] {
					b.AddFloat16(x)
				}
			default:
				t.Fatalf("%s: reader %T", col.DottedPath, cr)
			}
			var mine format.Statistics
			b.Fill(&mine)
			md, err := f.ColumnChunk(rg, ci)
			if err != nil {
				t.Fatal(err)
			}
			theirs := md.Statistics
			if !bytes.Equal(mine.MinValue, theirs.MinValue) || !bytes.Equal(mine.MaxValue, theirs.MaxValue) ||
				theirs.NanCount == nil || *mine.NanCount != *theirs.NanCount {
				t.Errorf("rg %d %s: computed min % x max % x nan %d; parquet-mr wrote % x, % x, %v",
					rg, col.DottedPath, mine.MinValue, mine.MaxValue, *mine.NanCount, theirs.MinValue, theirs.MaxValue, theirs.NanCount)
			}
			checked++
		}
	}
	if checked != 15 {
		t.Errorf("checked %d IEEE754 chunks, want 15 (3 columns x 5 row groups)", checked)
	}
}
