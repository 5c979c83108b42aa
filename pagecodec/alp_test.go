package pagecodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/arrowpq/arrowpq/internal/codectest"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestALPConstants checks the power-of-ten tables against strconv, which
// rounds decimal literals correctly (IEEE 754 §5.12.2) in either precision.
func TestALPConstants(t *testing.T) {
	for i := 0; i <= alpMaxExponent64; i++ {
		for _, tc := range []struct {
			lit string
			got float64
		}{{fmt.Sprintf("1e%d", i), alpPow10[i]}, {fmt.Sprintf("1e-%d", i), alpNegPow10[i]}} {
			want, err := strconv.ParseFloat(tc.lit, 64)
			if err != nil || math.Float64bits(want) != math.Float64bits(tc.got) {
				t.Errorf("%s: table %x, want %x", tc.lit, math.Float64bits(tc.got), math.Float64bits(want))
			}
		}
	}
	for i := 0; i <= alpMaxExponent32; i++ {
		for _, tc := range []struct {
			lit string
			got float32
		}{{fmt.Sprintf("1e%d", i), alpPow10f[i]}, {fmt.Sprintf("1e-%d", i), alpNegPow10f[i]}} {
			want, err := strconv.ParseFloat(tc.lit, 32)
			if err != nil || math.Float32bits(float32(want)) != math.Float32bits(tc.got) {
				t.Errorf("%s (binary32): table %x, want %x", tc.lit, math.Float32bits(tc.got), math.Float32bits(float32(want)))
			}
		}
	}
}

// packLSB packs values at width bits, least significant bit first, one bit
// at a time: the RLE/bit-packing hybrid's order, written from the spec's
// words rather than with package bitpack.
func packLSB(values []uint64, width int) []byte {
	out := make([]byte, (len(values)*width+7)/8)
	bit := 0
	for _, v := range values {
		for k := 0; k < width; k++ {
			if v>>k&1 == 1 {
				out[bit/8] |= 1 << (bit % 8)
			}
			bit++
		}
	}
	return out
}

// alpVectorBytes builds one DOUBLE (width 8) or FLOAT (width 4) vector from
// its fields, as the spec lays them out.
func alpVectorBytes(width, e, f int, forVal int64, bw int, deltas []uint64, pos []uint16, excBits []uint64) []byte {
	b := []byte{byte(e), byte(f)}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(pos)))
	if width == 8 {
		b = binary.LittleEndian.AppendUint64(b, uint64(forVal))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(forVal))
	}
	b = append(b, byte(bw))
	b = append(b, packLSB(deltas, bw)...)
	for _, p := range pos {
		b = binary.LittleEndian.AppendUint16(b, p)
	}
	for _, x := range excBits {
		if width == 8 {
			b = binary.LittleEndian.AppendUint64(b, x)
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
	}
	return b
}

// alpPageBytes puts a header and the offset array in front of vectors.
func alpPageBytes(logVec int, n int32, vectors ...[]byte) []byte {
	b := []byte{0, 0, byte(logVec)}
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	off := 4 * len(vectors)
	for _, v := range vectors {
		b = binary.LittleEndian.AppendUint32(b, uint32(off))
		off += len(v)
	}
	for _, v := range vectors {
		b = append(b, v...)
	}
	return b
}

// specNaN is the NaN of the spec's worked example; any payload will do, it
// must come back bit for bit.
const specNaN = 0x7ff8000000000001

// TestALPSpecExample decodes the worked example of AlpEncoding.md
// ("Exceptions and Non-Zero Factor"): {1500.0, NaN, 2500.0, 333.5} with
// e=4, f=3, FOR 3335, bit width 15, deltas [11665, 11665, 21665, 0], one
// exception at position 1: a 31-byte vector.
func TestALPSpecExample(t *testing.T) {
	vec := alpVectorBytes(8, 4, 3, 3335, 15, []uint64{11665, 11665, 21665, 0}, []uint16{1}, []uint64{specNaN})
	if len(vec) != 31 {
		t.Fatalf("spec vector is %d bytes, the spec says 31", len(vec))
	}
	page := alpPageBytes(10, 4, vec)
	var d ALPDecoder
	if err := d.Reset(page, format.Type_DOUBLE); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 4)
	if n, err := d.DecodeDouble(got); n != 4 || err != nil {
		t.Fatalf("DecodeDouble: %d, %v", n, err)
	}
	want := []uint64{math.Float64bits(1500), specNaN, math.Float64bits(2500), math.Float64bits(333.5)}
	for i := range want {
		if math.Float64bits(got[i]) != want[i] {
			t.Errorf("value %d: %v (%#x), want %#x", i, got[i], math.Float64bits(got[i]), want[i])
		}
	}

	// Our encoder on the same values: whatever (e, f) it picks, e-f must
	// scale by 10, giving the spec's integers, FOR, width and exception.
	var enc ALPEncoder
	enc.AppendDouble([]float64{1500, math.Float64frombits(specNaN), 2500, 333.5})
	out := enc.AppendTo(nil)
	v := out[7+4:]
	if len(v) != 31 {
		t.Fatalf("encoded vector is %d bytes, want 31: % x", len(v), v)
	}
	e, f := int(v[0]), int(v[1])
	if e-f != 1 {
		t.Errorf("encoder chose e=%d f=%d: scale 10^%d, want 10^1", e, f, e-f)
	}
	wantVec := alpVectorBytes(8, e, f, 3335, 15, []uint64{11665, 11665, 21665, 0}, []uint16{1}, []uint64{specNaN})
	if string(v) != string(wantVec) {
		t.Errorf("encoded vector\n% x\nwant\n% x", v, wantVec)
	}
}

// refDecodeALP is a second decoder written value by value from the spec's
// text, without package bitpack or any batching: the reference the fast
// decoder is compared with. It returns the IEEE bits of each value.
func refDecodeALP(page []byte, width int) ([]uint64, error) {
	if len(page) < 7 || page[0] != 0 || page[1] != 0 || page[2] < 3 || page[2] > 15 {
		return nil, errors.New("header")
	}
	n := int(int32(binary.LittleEndian.Uint32(page[3:])))
	vs := 1 << page[2]
	if n < 0 {
		return nil, errors.New("n")
	}
	nv := (n + vs - 1) / vs
	arr := page[7:]
	if len(arr) < 4*nv {
		return nil, errors.New("offsets")
	}
	out := []uint64{}
	for i := 0; i < nv; i++ {
		off := int(binary.LittleEndian.Uint32(arr[4*i:]))
		cnt := vs
		if i == nv-1 {
			cnt = n - i*vs
		}
		if off > len(arr) {
			return nil, errors.New("offset")
		}
		b := arr[off:]
		hdr := 9 + (width - 4)
		if len(b) < hdr {
			return nil, errors.New("vector header")
		}
		e, f, nexc := int(b[0]), int(b[1]), int(binary.LittleEndian.Uint16(b[2:]))
		var forV uint64
		if width == 8 {
			forV = binary.LittleEndian.Uint64(b[4:])
		} else {
			forV = uint64(binary.LittleEndian.Uint32(b[4:]))
		}
		bw := int(b[hdr-1])
		if (width == 8 && (e > 18 || bw > 64)) || (width == 4 && (e > 10 || bw > 32)) || f > e {
			return nil, errors.New("vector fields")
		}
		packed := (cnt*bw + 7) / 8
		if len(b) < hdr+packed+nexc*(2+width) {
			return nil, errors.New("vector size")
		}
		data := b[hdr:]
		vals := make([]uint64, cnt)
		for j := 0; j < cnt; j++ {
			var delta uint64
			for k := 0; k < bw; k++ {
				bit := j*bw + k
				delta |= uint64(data[bit/8]>>(bit%8)&1) << k
			}
			if width == 8 {
				x := float64(int64(delta+forV)) * alpPow10[f]
				x *= alpNegPow10[e]
				vals[j] = math.Float64bits(x)
			} else {
				x := float32(int32(uint32(delta)+uint32(forV))) * alpPow10f[f]
				x = float32(x) * alpNegPow10f[e]
				vals[j] = uint64(math.Float32bits(x))
			}
		}
		pos := data[packed:]
		excv := pos[2*nexc:]
		for j := 0; j < nexc; j++ {
			p := int(binary.LittleEndian.Uint16(pos[2*j:]))
			if p >= cnt {
				return nil, errors.New("exception position")
			}
			if width == 8 {
				vals[p] = binary.LittleEndian.Uint64(excv[8*j:])
			} else {
				vals[p] = uint64(binary.LittleEndian.Uint32(excv[4*j:]))
			}
		}
		out = append(out, vals...)
	}
	return out, nil
}

// decodeALPBatches decodes a whole page in batches of the given sizes and
// returns the bits of the values.
func decodeALPBatches(t testing.TB, page []byte, width int, sizes []int) ([]uint64, error) {
	var d ALPDecoder
	typ := format.Type_DOUBLE
	if width == 4 {
		typ = format.Type_FLOAT
	}
	if err := d.Reset(page, typ); err != nil {
		return nil, err
	}
	var out []uint64
	for _, k := range sizes {
		if width == 8 {
			buf := make([]float64, k)
			n, err := d.DecodeDouble(buf)
			for _, v := range buf[:n] {
				out = append(out, math.Float64bits(v))
			}
			if err != nil {
				return out, err
			}
		} else {
			buf := make([]float32, k)
			n, err := d.DecodeFloat(buf)
			for _, v := range buf[:n] {
				out = append(out, uint64(math.Float32bits(v)))
			}
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

func bits64(vals []float64) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		out[i] = math.Float64bits(v)
	}
	return out
}

func bits32(vals []float32) []uint64 {
	out := make([]uint64, len(vals))
	for i, v := range vals {
		out[i] = uint64(math.Float32bits(v))
	}
	return out
}

// checkALPRoundTrip encodes vals (float32 or float64) with log vector size
// lg, checks that the decoder (in random batches), the reference decoder
// and the input agree bit for bit, and returns the page.
func checkALPRoundTrip[T float32 | float64](t *testing.T, vals []T, lg int, seed uint64) []byte {
	t.Helper()
	enc := ALPEncoder{LogVectorSize: lg}
	var want []uint64
	width := 8
	// Append in uneven pieces, as a column writer would.
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := 0; i < len(vals); {
		k := min(len(vals)-i, 1+rng.IntN(3000))
		switch s := any(vals[i : i+k]).(type) {
		case []float64:
			enc.AppendDouble(s)
		case []float32:
			enc.AppendFloat(s)
			width = 4
		}
		i += k
	}
	switch s := any(vals).(type) {
	case []float64:
		want = bits64(s)
	case []float32:
		want, width = bits32(s), 4
	}
	if enc.Len() > 0 && len(vals) == 0 {
		t.Errorf("Len %d with no values", enc.Len())
	}
	page := enc.AppendTo(nil)
	if len(vals) > 0 && len(page) > enc.Len()+len(page) {
		t.Errorf("page %d bytes", len(page))
	}
	ref, err := refDecodeALP(page, width)
	if err != nil {
		t.Fatalf("reference decoder: %v", err)
	}
	got, err := decodeALPBatches(t, page, width, codectest.Batches(len(vals), nil, seed))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(got) != len(want) || len(ref) != len(want) {
		t.Fatalf("decoded %d values, reference %d, want %d", len(got), len(ref), len(want))
	}
	for i := range want {
		if got[i] != want[i] || ref[i] != want[i] {
			t.Fatalf("value %d: decoded %#x, reference %#x, want %#x", i, got[i], ref[i], want[i])
		}
	}
	return page
}

// specials64 are values that must all be exceptions or survive exactly.
var specials64 = []float64{
	math.NaN(), math.Float64frombits(0xfff8000000000000), math.Float64frombits(0x7ff0000000000001),
	math.Float64frombits(0xfff0000deadbeef1), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
	math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.Float64frombits(0x000fffffffffffff),
	math.MaxFloat64, -math.MaxFloat64, 0x1p63, -0x1p63, 0x1p62, 9.223372036854775e18, 1e300, 1e-300,
	1, -1, 0.1, 0.2, 0.3, 1.0 / 3, math.Pi, 123456789012345678, 1e18, 1e19,
}

func specials32() []float32 {
	s := []float32{float32(math.NaN()), math.Float32frombits(0xffc00000), math.Float32frombits(0x7f800001),
		math.Float32frombits(0xff80beef), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, math.Float32frombits(0x007fffff),
		math.MaxFloat32, -math.MaxFloat32, 0x1p31, -0x1p31, 0x1p30, 2147483520, 1e30, 1e-30,
		1, -1, 0.1, 0.2, 0.3, 1.0 / 3, math.Pi, 16777217, 1e10, 1e11}
	return s
}

func TestALPRoundTrip(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	repeat := func(n int, f func(i int) float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	to32 := func(s []float64) []float32 {
		out := make([]float32, len(s))
		for i, v := range s {
			out[i] = float32(v)
		}
		return out
	}
	cases := []struct {
		name string
		vals []float64
	}{
		{"empty", nil},
		{"one value", []float64{12.5}},
		{"one exception", []float64{math.NaN()}},
		{"random bits", repeat(5000, func(int) float64 { return math.Float64frombits(rng.Uint64()) })},
		{"specials", specials64},
		{"specials repeated", repeat(3000, func(i int) float64 { return specials64[i%len(specials64)] })},
		{"all exceptions", repeat(2048, func(i int) float64 { return math.Float64frombits(0x7ff8000000000000 | uint64(i)) })},
		{"prices", repeat(10000, func(int) float64 { return float64(rng.IntN(1_000_000)) / 100 })},
		{"negative prices", repeat(3000, func(int) float64 { return float64(rng.IntN(200_000)-100_000) / 100 })},
		{"sensor", repeat(10000, func(i int) float64 { return math.Round((20+5*math.Sin(float64(i)/50)+rng.NormFloat64()*0.1)*10) / 10 })},
		{"lat/lon", repeat(10000, func(i int) float64 {
			if i%2 == 0 {
				return float64(rng.IntN(180_000_000)-90_000_000) / 1e6
			}
			return float64(rng.IntN(360_000_000)-180_000_000) / 1e6
		})},
		{"constant", repeat(3000, func(int) float64 { return 42.25 })},
		{"mostly decimal with noise", repeat(5000, func(i int) float64 {
			if i%97 == 0 {
				return rng.Float64()
			}
			return float64(rng.IntN(10000)) / 1000
		})},
		{"huge range", repeat(2000, func(i int) float64 { return float64(int64(rng.Uint64())) })},
		{"subnormals", repeat(1000, func(i int) float64 { return math.Float64frombits(rng.Uint64() & 0x800fffffffffffff) })},
		{"integers", repeat(4096, func(i int) float64 { return float64(i - 2000) })},
	}
	for _, tc := range cases {
		t.Run("double/"+tc.name, func(t *testing.T) {
			checkALPRoundTrip(t, tc.vals, 0, seed)
		})
		t.Run("float/"+tc.name, func(t *testing.T) {
			v32 := to32(tc.vals)
			if tc.name == "random bits" {
				v32 = make([]float32, 5000)
				for i := range v32 {
					v32[i] = math.Float32frombits(rng.Uint32())
				}
			}
			if tc.name == "specials" {
				v32 = specials32()
			}
			checkALPRoundTrip(t, v32, 0, seed)
		})
	}
	// Every vector size, with lengths around vector boundaries.
	prices := repeat(5000, func(int) float64 { return float64(rng.IntN(100_000)) / 100 })
	for lg := alpMinLogVector; lg <= alpMaxLogVector; lg++ {
		for _, n := range []int{1, 7, 8, 9, 1<<lg - 1, 1 << lg, 1<<lg + 1, 3<<lg + 5} {
			if n > 40000 {
				continue
			}
			vals := make([]float64, n)
			for i := range vals {
				vals[i] = prices[i%len(prices)]
				if i%13 == 0 {
					vals[i] = specials64[i%len(specials64)]
				}
			}
			t.Run(fmt.Sprintf("log=%d/n=%d", lg, n), func(t *testing.T) {
				page := checkALPRoundTrip(t, vals, lg, seed)
				if page[2] != byte(lg) {
					t.Errorf("log_vector_size %d, want %d", page[2], lg)
				}
				checkALPRoundTrip(t, to32(vals), lg, seed)
			})
		}
	}
}

// TestALPEncoderPages encodes two pages with one encoder (the preset is
// kept) and checks Len against the page it announces. The values have a
// period of 4 that a sample stride of 4 would alias into integers.
func TestALPEncoderPages(t *testing.T) {
	var e ALPEncoder
	vals := make([]float64, 10000)
	for i := range vals {
		vals[i] = float64(i%1000) / 4
	}
	for page := 0; page < 2; page++ {
		e.AppendDouble(vals)
		l := e.Len()
		out := e.AppendTo(nil)
		if len(out) > l || l > len(out)+10*1024+100 {
			t.Errorf("page %d: Len %d before AppendTo, page %d bytes", page, l, len(out))
		}
		if 3*len(out) > 8*len(vals) {
			t.Errorf("page %d: %d bytes for %d quarters", page, len(out), len(vals))
		}
		got, err := decodeALPBatches(t, out, 8, []int{len(vals)})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bits64(vals) {
			if got[i] != b {
				t.Fatalf("page %d value %d: %#x want %#x", page, i, got[i], b)
			}
		}
		if e.Len() != 0 {
			t.Errorf("Len after AppendTo %d", e.Len())
		}
	}
	// An empty page is a header with no vectors.
	if out := e.AppendTo(nil); len(out) != 7 || binary.LittleEndian.Uint32(out[3:]) != 0 {
		t.Errorf("empty page % x", out)
	}
}

// TestALPPricesSize: two-decimal prices take well under half their PLAIN
// size (the target).
func TestALPPricesSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 1<<16)
	for i := range vals {
		vals[i] = float64(100+rng.IntN(50_000)) / 100
	}
	var e ALPEncoder
	e.AppendDouble(vals)
	page := e.AppendTo(nil)
	plain := 8 * len(vals)
	t.Logf("ALP %d bytes, PLAIN %d: %.2fx", len(page), plain, float64(plain)/float64(len(page)))
	if 2*len(page) > plain {
		t.Errorf("ALP %d bytes is not 2x smaller than PLAIN %d", len(page), plain)
	}
}

func TestALPHostile(t *testing.T) {
	// A valid DOUBLE page: two vectors of 8 (log 3) and one of 3.
	v0 := alpVectorBytes(8, 2, 0, 100, 4, []uint64{0, 1, 2, 3, 4, 5, 6, 7}, []uint16{3}, []uint64{specNaN})
	v1 := alpVectorBytes(8, 2, 1, -5, 0, make([]uint64, 8), nil, nil)
	v2 := alpVectorBytes(8, 1, 1, 7, 2, []uint64{1, 2, 3}, []uint16{2}, []uint64{0x8000000000000000})
	good := alpPageBytes(3, 19, v0, v1, v2)
	want := []float64{1, 1.01, 1.02, math.Float64frombits(specNaN), 1.04, 1.05, 1.06, 1.07,
		-0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, 8, 9, math.Copysign(0, -1)}
	got, err := decodeALPBatches(t, good, 8, []int{3, 10, 6})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		// Hand-computed with the normative formula: (100+i)*1e0*1e-2.
		w := math.Float64bits(want[i])
		if i < 8 && i != 3 {
			w = math.Float64bits(float64(100+i) * 1e-2)
		}
		if got[i] != w {
			t.Errorf("value %d: %v, want %v", i, math.Float64frombits(got[i]), math.Float64frombits(w))
		}
	}

	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	vec0 := 7 + 12 // first vector
	tests := []struct {
		name string
		page []byte
		typ  format.Type
		want error
	}{
		{"compression mode 1 (ALP-RD, reserved)", mut(func(b []byte) []byte { b[0] = 1; return b }), format.Type_DOUBLE, ErrUnsupported},
		{"integer encoding 1", mut(func(b []byte) []byte { b[1] = 1; return b }), format.Type_DOUBLE, ErrUnsupported},
		{"log vector size 2", mut(func(b []byte) []byte { b[2] = 2; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"log vector size 16", mut(func(b []byte) []byte { b[2] = 16; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"negative num_elements", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[3:], 0xffffffff); return b }), format.Type_DOUBLE, ErrCorrupt},
		{"num_elements past the vectors", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[3:], 1<<30); return b }), format.Type_DOUBLE, io.ErrUnexpectedEOF},
		{"more values than vectors hold", mut(func(b []byte) []byte { b[3] = 25; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"first offset not past the array", mut(func(b []byte) []byte { b[7] = 11; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"second offset inconsistent", mut(func(b []byte) []byte { b[11]++; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"offset past the page", mut(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[15:], 1<<31); return b }), format.Type_DOUBLE, ErrCorrupt},
		{"exponent 19", mut(func(b []byte) []byte { b[vec0] = 19; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"factor above exponent", mut(func(b []byte) []byte { b[vec0+1] = 3; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"bit width 65", mut(func(b []byte) []byte { b[vec0+12] = 65; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"bit width 64 runs past the vector", mut(func(b []byte) []byte { b[vec0+12] = 64; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"exception position 8 in a vector of 8", mut(func(b []byte) []byte { b[vec0+13+4] = 8; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"exception position 3 in the last vector of 3", mut(func(b []byte) []byte { b[len(b)-10] = 3; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"more exceptions than values", mut(func(b []byte) []byte { b[vec0+2] = 9; return b }), format.Type_DOUBLE, ErrCorrupt},
		{"exception count past the page", mut(func(b []byte) []byte { b[len(b)-22] = 3; return b }), format.Type_DOUBLE, io.ErrUnexpectedEOF},
		{"FLOAT exponent 11", alpPageBytes(3, 1, alpVectorBytes(4, 11, 0, 0, 0, []uint64{0}, nil, nil)), format.Type_FLOAT, ErrCorrupt},
		{"FLOAT bit width 33", alpPageBytes(3, 1, alpVectorBytes(4, 1, 0, 0, 33, []uint64{0}, nil, nil)), format.Type_FLOAT, ErrCorrupt},
		{"INT32 column", good, format.Type_INT32, ErrUnsupported},
		{"DOUBLE page read as FLOAT", good, format.Type_FLOAT, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d ALPDecoder
			err := d.Reset(tc.page, tc.typ)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Reset: %v, want %v", err, tc.want)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			t.Log(err)
		})
	}
	// Every truncation of the page is an error.
	for n := 0; n < len(good); n++ {
		var d ALPDecoder
		if err := d.Reset(good[:n], format.Type_DOUBLE); !errors.Is(err, ErrCorrupt) {
			t.Errorf("page cut at %d: %v", n, err)
		}
	}
	// Asking for more than Len decodes the rest and reports a truncation.
	var d ALPDecoder
	if err := d.Reset(good, format.Type_DOUBLE); err != nil {
		t.Fatal(err)
	}
	if n, err := d.DecodeDouble(make([]float64, 25)); n != 19 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("DecodeDouble past the end: %d, %v", n, err)
	}
}

func TestALPDecodeAllocs(t *testing.T) {
	var e ALPEncoder
	vals := make([]float64, 5000)
	for i := range vals {
		vals[i] = float64(i) / 8
	}
	e.AppendDouble(vals)
	page := e.AppendTo(nil)
	var d ALPDecoder
	dst := make([]float64, 1000)
	// Warm the scratch vector.
	_ = d.Reset(page, format.Type_DOUBLE)
	_, _ = d.DecodeDouble(dst[:5])
	allocs := testing.AllocsPerRun(20, func() {
		if err := d.Reset(page, format.Type_DOUBLE); err != nil {
			t.Fatal(err)
		}
		for d.Len() > 0 {
			if _, err := d.DecodeDouble(dst[:min(len(dst), d.Len())]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per page", allocs)
	}
}
