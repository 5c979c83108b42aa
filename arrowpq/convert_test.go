package arrowpq

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

func int96(julianDay int32, nanos int64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(nanos))
	return binary.LittleEndian.AppendUint32(b, uint32(julianDay))
}

func TestInt96ToTimestamp(t *testing.T) {
	// 2440588 is the Julian day of 1970-01-01; 2454923 is 2009-04-01 (2440588 + 1238544000/86400), the
	// first timestamp of alltypes_plain.parquet (1238544000 s since the epoch).
	src := append(append(append(int96(2440588, 0), int96(2440589, 1)...), int96(2454923, 0)...), int96(2440587, 3_600_000_000_000)...)
	dst := make([]int64, 4)
	if err := int96ToTimestamp(dst, src, 1); err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 86_400_000_000_000 + 1, 1_238_544_000_000_000_000, -86_400_000_000_000 + 3_600_000_000_000}
	for i := range want {
		if dst[i] != want[i] {
			t.Errorf("ns[%d] = %d, want %d", i, dst[i], want[i])
		}
	}
	if err := int96ToTimestamp(dst, src, 1000); err != nil || dst[1] != 86_400_000_000 || dst[3] != -82_800_000_000 {
		t.Errorf("µs = %v, %v", dst, err)
	}
	// Year 2700: past the int64 nanosecond range (2262), fine in microseconds.
	far := int96(2440588+266_000, 0)
	// int96_from_spark.parquet's last value: Spark wrote year 290000
	// (9089380393200000000 µs, per the catalog) with a wrapped Julian day.
	spark := []byte{0x00, 0x60, 0xb9, 0xc7, 0x6e, 0xe2, 0xff, 0xff, 0xa8, 0xab, 0xb0, 0xf9}
	if err := int96ToTimestamp(dst[:1], spark, 1000); err != nil || dst[0] != 9089380393200000000 {
		t.Errorf("Spark year 290000 in µs: %d, %v", dst[0], err)
	}
	if err := int96ToTimestamp(dst[:1], spark, 1); !errors.Is(err, errOutOfRange) {
		t.Errorf("Spark year 290000 in ns: %d, %v", dst[0], err)
	}
	if err := int96ToTimestamp(dst[:1], far, 1); !errors.Is(err, errOutOfRange) {
		t.Errorf("ns overflow: %v", err)
	}
	if err := int96ToTimestamp(dst[:1], far, 1000); err != nil || dst[0] != 266_000*86_400_000_000 {
		t.Errorf("µs: %d, %v", dst[0], err)
	}
	back := timestampToInt96(nil, want, 1)
	if !bytes.Equal(back, src) {
		t.Errorf("timestampToInt96 = % x\nwant % x", back, src)
	}
}

func TestDecimalFromBigEndian(t *testing.T) {
	cases := []struct {
		be    []byte
		width int
		want  []byte
		err   bool
	}{
		{[]byte{0xff, 0x85}, 4, []byte{0x85, 0xff, 0xff, 0xff}, false},       // -123
		{[]byte{0x00, 0x64}, 8, []byte{0x64, 0, 0, 0, 0, 0, 0, 0}, false},    // 100
		{[]byte{0, 0, 0, 0, 0x01, 0x00}, 4, []byte{0x00, 0x01, 0, 0}, false}, // 256, extra zero bytes
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 4, []byte{0xfe, 0xff, 0xff, 0xff}, false},
		{[]byte{0x01, 0, 0, 0, 0}, 4, nil, true},    // 2^32 does not fit 4 bytes
		{[]byte{0x00, 0x80, 0, 0, 0}, 4, nil, true}, // 2^31: sign lost in 4 bytes
		{nil, 4, []byte{0, 0, 0, 0}, false},         // empty = 0
	}
	for _, tc := range cases {
		out := make([]byte, tc.width)
		err := decimalFromBigEndian(out, tc.be)
		if tc.err {
			if !errors.Is(err, errOutOfRange) {
				t.Errorf("% x: error %v, want out of range", tc.be, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(out, tc.want) {
			t.Errorf("% x → % x (%v), want % x", tc.be, out, err, tc.want)
		}
		// And back to the original width.
		be := make([]byte, len(tc.be))
		if len(tc.be) > 0 {
			if err := decimalToBigEndian(be, out); err != nil || !bytes.Equal(be, tc.be) {
				t.Errorf("back: % x (%v), want % x", be, err, tc.be)
			}
		}
	}
}

func TestDecimalFromInts(t *testing.T) {
	out := make([]byte, 32)
	if err := decimalFromInts(out, []int64{-2}, 32); err != nil {
		t.Fatal(err)
	}
	if out[0] != 0xfe || out[31] != 0xff || out[8] != 0xff {
		t.Errorf("-2 as decimal256: % x", out)
	}
	if err := decimalFromInts(out[:4], []int64{1 << 40}, 4); !errors.Is(err, errOutOfRange) {
		t.Errorf("2^40 in 4 bytes: %v", err)
	}
}

func TestIntervalToMonthDayNano(t *testing.T) {
	// 14 months, 3 days, 14706789 ms (the oracle README's example value).
	src := binary.LittleEndian.AppendUint32(nil, 14)
	src = binary.LittleEndian.AppendUint32(src, 3)
	src = binary.LittleEndian.AppendUint32(src, 14_706_789)
	dst := make([]byte, 16)
	if err := intervalToMonthDayNano(dst, src); err != nil {
		t.Fatal(err)
	}
	if m, d, ns := int32(binary.LittleEndian.Uint32(dst)), int32(binary.LittleEndian.Uint32(dst[4:])), int64(binary.LittleEndian.Uint64(dst[8:])); m != 14 || d != 3 || ns != 14_706_789_000_000 {
		t.Errorf("got %d mo %d d %d ns", m, d, ns)
	}
	big := binary.LittleEndian.AppendUint32(nil, 1<<31)
	big = append(big, make([]byte, 8)...)
	if err := intervalToMonthDayNano(dst, big); !errors.Is(err, errOutOfRange) {
		t.Errorf("2^31 months: %v", err)
	}
}

func TestScale(t *testing.T) {
	dst := make([]int64, 2)
	if err := scaleUp(dst, []int64{2, -3}, 86_400_000); err != nil || dst[0] != 172_800_000 || dst[1] != -259_200_000 {
		t.Errorf("scaleUp: %v %v", dst, err)
	}
	if err := scaleUp(dst[:1], []int64{1 << 62}, 1000); !errors.Is(err, errOutOfRange) {
		t.Errorf("overflow: %v", err)
	}
	d32 := make([]int32, 1)
	if err := scaleUp(d32, []int32{1 << 22}, 1000); !errors.Is(err, errOutOfRange) {
		t.Errorf("int32 overflow: %v", err)
	}
	scaleDown(dst, []int64{1999, -1999}, 1000)
	if dst[0] != 1 || dst[1] != -1 {
		t.Errorf("scaleDown: %v", dst)
	}
	u8 := make([]uint8, 2)
	castInts(u8, []int32{255, 256 + 7})
	if u8[0] != 255 || u8[1] != 7 {
		t.Errorf("castInts: %v", u8)
	}
}

// TestShortDecimalsMatchGeneral checks the fast path against the general
// conversion for every width up to 8 bytes and both signs.
func TestShortDecimalsMatchGeneral(t *testing.T) {
	for in := 1; in <= 8; in++ {
		for _, out := range []int{8, 16, 32} {
			// The four signs and extremes, then random values: enough
			// that every width reaches the loop past the first 8 bytes.
			src := make([]byte, 0, in*40)
			for _, lead := range []byte{0x00, 0x7f, 0x80, 0xff} {
				v := bytes.Repeat([]byte{0x5a}, in)
				v[0] = lead
				src = append(src, v...)
			}
			rng := rand.New(rand.NewPCG(uint64(in), uint64(out)))
			for len(src) < in*40 {
				src = append(src, byte(rng.Uint32()))
			}
			fast := make([]byte, 40*out)
			decimalsFromShortBigEndian(fast, src, in, out)
			for i := 0; i < 40; i++ {
				want := make([]byte, out)
				if err := decimalFromBigEndian(want, src[i*in:(i+1)*in]); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(fast[i*out:(i+1)*out], want) {
					t.Errorf("in %d out %d value %d: % x, want % x", in, out, i, fast[i*out:(i+1)*out], want)
				}
			}
		}
	}
}

// TestDateToDate64 widens before scaling: days × 86,400,000 needs 64 bits
// for any date more than 24 days from the epoch (a bug the writer's tests
// found).
func TestDateToDate64(t *testing.T) {
	d := &column.Values{Physical: format.Type_INT32, Int32: []int32{20000, -719162}, N: 2}
	conv := typemap.Conversion{Kind: typemap.Scale, Physical: format.Type_INT32, Mul: 86_400_000, Div: 1}
	out, err := convertDense(make([]byte, 16), conv, arrow.FixedWidthTypes.Date64, d, 8, arrow.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	got := arrow.Int64Traits.CastFromBytes(out)
	if got[0] != 20000*86_400_000 || got[1] != -719162*86_400_000 {
		t.Errorf("got %v", got)
	}
}
