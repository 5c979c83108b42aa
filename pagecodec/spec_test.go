package pagecodec

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

// The vectors in this file are the examples of Encodings.md (apache/
// parquet-format), written out by hand byte by byte.

// TestSpecHybridBitPacked: "The numbers 1 through 7 using bit width 3" are
// 10001000 11000110 11111010; as dictionary indices they follow the bit
// width byte and the run header (1 group of 8: 1<<1|1 = 3).
func TestSpecHybridBitPacked(t *testing.T) {
	page := []byte{3, 0x03, 0x88, 0xC6, 0xFA}
	var d DictIndexDecoder
	if err := d.Reset(page, 8); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 8)
	if _, err := d.DecodeIndices(got); err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 1, 2, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The same page against a dictionary of 7 values: index 7 is out of
	// range.
	d.Reset(page, 7)
	n, err := d.DecodeIndices(got)
	if !errors.Is(err, ErrCorrupt) || n != 7 {
		t.Fatalf("got %d, %v; want 7 values then ErrCorrupt", n, err)
	}
	// An RLE run: header 5<<1, value 4 in one byte; then a gather.
	d.Reset([]byte{3, 0x0A, 0x04}, 5)
	dict := []int64{10, 11, 12, 13, 14}
	vals := make([]int64, 5)
	if _, err := DecodeDict(&d, vals, dict); err != nil {
		t.Fatal(err)
	}
	if want := []int64{14, 14, 14, 14, 14}; !slices.Equal(vals, want) {
		t.Fatalf("got %v, want %v", vals, want)
	}
	// Asking for a sixth value is a truncation.
	d.Reset([]byte{3, 0x0A, 0x04}, 5)
	if _, err := d.DecodeIndices(make([]int32, 6)); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want io.ErrUnexpectedEOF", err)
	}
}

// TestSpecRLEBoolean: BOOLEAN values in RLE carry the 4-byte length.
func TestSpecRLEBoolean(t *testing.T) {
	// Bit-packed 1,0,1,0,1,0,1,0 (0x55), then an RLE run of 9 trues.
	page := []byte{4, 0, 0, 0, 0x03, 0x55, 0x12, 0x01}
	var d RLEBooleanDecoder
	if err := d.Reset(page); err != nil {
		t.Fatal(err)
	}
	bm := make([]byte, 3)
	bm[0] = 0x01 // bit 0 is the caller's and must stay
	if _, err := d.DecodeBoolean(bm, 1, 17); err != nil {
		t.Fatal(err)
	}
	// bits 1..8 = 1,0,1,0,1,0,1,0; bits 9..17 = 1.
	want := []byte{0x01 | 0x55<<1, 0x55>>7 | 0xFE, 0x03}
	if !bytes.Equal(bm, want) {
		t.Fatalf("got %08b, want %08b", bm, want)
	}
	var e RLEBooleanEncoder
	e.Reset()
	e.Append(bm, 1, 17)
	enc := e.AppendTo(nil)
	d.Reset(enc)
	bm2 := make([]byte, 3)
	if _, err := d.DecodeBoolean(bm2, 0, 17); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x55, 0xFF, 0x01}; !bytes.Equal(bm2, want) {
		t.Fatalf("round trip got %08b, want %08b", bm2, want)
	}
}

// TestSpecDeltaBinaryPacked decodes the two examples of the spec (block
// size 8, one miniblock).
func TestSpecDeltaBinaryPacked(t *testing.T) {
	for _, tc := range []struct {
		name string
		page []byte
		want []int64
	}{
		// header 8, 1, 5, zigzag(1)=2; block: zigzag(1)=2, width 0.
		{"example1", []byte{8, 1, 5, 2, 2, 0}, []int64{1, 2, 3, 4, 5}},
		// header 8, 1, 8, zigzag(7)=14; block: zigzag(-2)=3, width 2,
		// 0,0,0,3 | 3,3,3,pad on 2 bits LSB first: 0xC0 0x3F.
		{"example2", []byte{8, 1, 8, 14, 3, 2, 0xC0, 0x3F}, []int64{7, 5, 3, 1, 2, 3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d DeltaBinaryPackedDecoder
			if err := d.Reset(tc.page); err != nil {
				t.Fatal(err)
			}
			got := make([]int64, len(tc.want))
			if _, err := d.DecodeInt64(got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if d.Len() != 0 {
				t.Fatalf("%d values left", d.Len())
			}
			got32 := make([]int32, len(tc.want))
			d.Reset(tc.page)
			for i := range got32 {
				if _, err := d.DecodeInt32(got32[i : i+1]); err != nil {
					t.Fatal(err)
				}
				if int64(got32[i]) != tc.want[i] {
					t.Fatalf("INT32 value %d: got %d", i, got32[i])
				}
			}
			end, total, err := deltaBinaryPackedEnd(append(tc.page, 0xEE))
			if err != nil || end != len(tc.page) || total != len(tc.want) {
				t.Fatalf("end %d total %d err %v", end, total, err)
			}
		})
	}
}

// TestDeltaBinaryPackedEncoderBytes checks our encoder against bytes
// computed by hand: 5, 5, 6, 6 in one block of 128 with 4 miniblocks of 32.
func TestDeltaBinaryPackedEncoderBytes(t *testing.T) {
	var e DeltaBinaryPackedEncoder
	e.AppendInt32([]int32{5, 5, 6, 6})
	got := e.AppendTo(nil)
	// header: 128 = 0x80 0x01, 4, 4, zigzag(5)=10; block: min delta 0,
	// widths 1,0,0,0; miniblock 0: deltas 0,1,0 (+29 zero pads) on 1 bit.
	want := []byte{0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0}
	if !bytes.Equal(got, want) {
		t.Fatalf("got % x, want % x", got, want)
	}
}

// TestSpecDeltaLengthByteArray: "Hello", "World", "Foobar", "ABCDEF" are
// DeltaEncoding(5, 5, 6, 6) then "HelloWorldFoobarABCDEF".
func TestSpecDeltaLengthByteArray(t *testing.T) {
	// lengths with block 8: header 8,1,4,zigzag(5)=10; block: min delta 0,
	// width 1, deltas 0,1,0 -> 0x02.
	page := append([]byte{8, 1, 4, 10, 0, 1, 0x02}, "HelloWorldFoobarABCDEF"...)
	var d DeltaLengthByteArrayDecoder
	if err := d.Reset(page); err != nil {
		t.Fatal(err)
	}
	offs, data, err := d.DecodeByteArray([]int32{0}, nil, 4)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "HelloWorldFoobarABCDEF" || !slices.Equal(offs, []int32{0, 5, 10, 16, 22}) {
		t.Fatalf("got %q %v", data, offs)
	}
	// Our encoder (blocks of 128) writes the bytes of
	// TestDeltaBinaryPackedEncoderBytes followed by the data.
	var e DeltaLengthByteArrayEncoder
	e.AppendByteArray(offs, data)
	got := e.AppendTo(nil)
	want := append([]byte{0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0}, "HelloWorldFoobarABCDEF"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("encoder: got % x, want % x", got, want)
	}
}

// TestSpecDeltaByteArray: "axis", "axle", "babble", "babyhood" are prefix
// lengths DeltaEncoding(0, 2, 0, 3), suffix lengths DeltaEncoding(4, 2, 6,
// 5) and "axislebabbleyhood".
func TestSpecDeltaByteArray(t *testing.T) {
	// prefixes: 8,1,4,zigzag(0)=0; deltas 2,-2,3, min -2 -> 4,0,5 on 3
	// bits: 0x44 0x01 0x00.
	// suffix lengths: 8,1,4,zigzag(4)=8; deltas -2,4,-1, min -2 -> 0,6,1 on
	// 3 bits: 0x70 0x00 0x00.
	page := []byte{8, 1, 4, 0, 3, 3, 0x44, 0x01, 0x00}
	page = append(page, 8, 1, 4, 8, 3, 3, 0x70, 0x00, 0x00)
	page = append(page, "axislebabbleyhood"...)
	want := []string{"axis", "axle", "babble", "babyhood"}
	var d DeltaByteArrayDecoder
	if err := d.Reset(page); err != nil {
		t.Fatal(err)
	}
	var got []string
	offs, data := []int32{0}, []byte(nil)
	for range 4 { // one value per batch: the previous value crosses calls
		var err error
		offs, data, err = d.DecodeByteArray(offs, data, 1)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(offs); i++ {
		got = append(got, string(data[offs[i]:offs[i+1]]))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Our encoder's prefix and suffix split is the spec's: decoding its
	// output with the DBP decoder shows the same lengths.
	var e DeltaByteArrayEncoder
	e.AppendByteArray(offs, data)
	enc := e.AppendTo(nil)
	end, _, err := deltaBinaryPackedEnd(enc)
	if err != nil {
		t.Fatal(err)
	}
	var dbp DeltaBinaryPackedDecoder
	dbp.Reset(enc[:end])
	pre := make([]int32, 4)
	dbp.DecodeInt32(pre)
	if !slices.Equal(pre, []int32{0, 2, 0, 3}) {
		t.Fatalf("encoder prefixes %v", pre)
	}
	end2, _, _ := deltaBinaryPackedEnd(enc[end:])
	dbp.Reset(enc[end:])
	dbp.DecodeInt32(pre)
	if !slices.Equal(pre, []int32{4, 2, 6, 5}) || string(enc[end+end2:]) != "axislebabbleyhood" {
		t.Fatalf("encoder suffixes %v %q", pre, enc[end+end2:])
	}
}

// TestSpecByteStreamSplit: AA BB CC DD, 00 11 22 33, A3 B4 C5 D6 become
// AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
func TestSpecByteStreamSplit(t *testing.T) {
	page := []byte{0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6}
	want := []int32{int32(-0x22334456), 0x33221100, int32(-0x293a4b5d)} // 0xDDCCBBAA, 0x33221100, 0xD6C5B4A3
	var d ByteStreamSplitDecoder
	if err := d.Reset(page, 4); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 3)
	if _, err := d.DecodeInt32(got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %x, want %x", got, want)
	}
	var e ByteStreamSplitEncoder
	e.Reset(4)
	e.AppendInt32(want)
	if enc := e.AppendTo(nil); !bytes.Equal(enc, page) {
		t.Fatalf("encoder: got % x, want % x", enc, page)
	}
	// As FIXED_LEN_BYTE_ARRAY(4) the values are the raw bytes.
	d.Reset(page, 4)
	flba := make([]byte, 12)
	if _, err := d.DecodeFixedLenByteArray(flba); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33, 0xA3, 0xB4, 0xC5, 0xD6}; !bytes.Equal(flba, want) {
		t.Fatalf("FLBA got % x", flba)
	}
	if err := d.Reset(page[:11], 4); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("11 bytes: got %v, want ErrCorrupt", err)
	}
}

// TestPlainVectors checks PLAIN against hand-written bytes.
func TestPlainVectors(t *testing.T) {
	var d PlainDecoder
	d.Reset([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	i32 := make([]int32, 2)
	if _, err := d.DecodeInt32(i32); err != nil || !slices.Equal(i32, []int32{1, -1}) {
		t.Fatalf("INT32 %v %v", i32, err)
	}
	if !bytes.Equal(AppendPlainInt32(nil, i32), []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatal("AppendPlainInt32")
	}
	ba := []byte{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'}
	d.Reset(ba)
	offs, data, err := d.DecodeByteArray([]int32{0}, []byte("q"), 3)
	if err != nil || string(data) != "qabxyz" || !slices.Equal(offs, []int32{0, 3, 3, 6}) {
		t.Fatalf("BYTE_ARRAY %v %q %v", offs, data, err)
	}
	if got := AppendPlainByteArray(nil, []int32{1, 3, 3, 6}, data); !bytes.Equal(got, ba) {
		t.Fatalf("AppendPlainByteArray % x", got)
	}
	// Truncated: the third value claims 4 bytes.
	d.Reset([]byte{2, 0, 0, 0, 'a', 'b', 4, 0, 0, 0, 'x'})
	if _, _, err := d.DecodeByteArray(nil, nil, 2); !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("truncated BYTE_ARRAY: %v", err)
	}
	// BOOLEAN 1,0,1,1,0,0,0,0,1 = 0x0D 0x01.
	d.Reset([]byte{0x0D, 0x01})
	bm := make([]byte, 2)
	if _, err := d.DecodeBoolean(bm, 0, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := d.DecodeBoolean(bm, 4, 5); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bm, []byte{0x0D, 0x01}) {
		t.Fatalf("BOOLEAN %08b", bm)
	}
	var e PlainBooleanEncoder
	e.AppendBools([]bool{true, false, true, true})
	e.Append([]byte{0x00, 0x01}, 4, 5)
	if !bytes.Equal(e.Bytes(), []byte{0x0D, 0x01}) {
		t.Fatalf("PlainBooleanEncoder %08b", e.Bytes())
	}
	// INT96 and FIXED_LEN_BYTE_ARRAY are raw bytes.
	raw := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	d.Reset(raw)
	i96 := make([][12]byte, 1)
	if _, err := d.DecodeInt96(i96); err != nil || i96[0] != [12]byte(raw) {
		t.Fatalf("INT96 %v %v", i96, err)
	}
	d.Reset(raw)
	fl := make([]byte, 9)
	if n, err := d.DecodeFixedLenByteArray(fl, 3); err != nil || n != 3 || !bytes.Equal(fl, raw[:9]) {
		t.Fatalf("FLBA %v %v", fl, err)
	}
}

// TestDeltaBinaryPackedInt32Wrap: a writer that computes INT32 deltas in 32
// bits stores MaxInt32, MinInt32 as first value MaxInt32 and delta +1; the
// 64-bit sum truncated to 32 bits restores MinInt32.
func TestDeltaBinaryPackedInt32Wrap(t *testing.T) {
	// header 128 (0x80 0x01), 4 miniblocks, 2 values, zigzag(MaxInt32) =
	// 0xFFFFFFFE = fe ff ff ff 0f; block: min delta zigzag(1)=2, widths 0.
	page := []byte{0x80, 0x01, 4, 2, 0xfe, 0xff, 0xff, 0xff, 0x0f, 2, 0, 0, 0, 0}
	var d DeltaBinaryPackedDecoder
	if err := d.Reset(page); err != nil {
		t.Fatal(err)
	}
	got := make([]int32, 2)
	if _, err := d.DecodeInt32(got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 2147483647 || got[1] != -2147483648 {
		t.Fatalf("got %v", got)
	}
	// Unused miniblock widths may hold anything, even > 64.
	page[11], page[12], page[13] = 200, 99, 65
	d.Reset(page)
	if _, err := d.DecodeInt32(got); err != nil || got[1] != -2147483648 {
		t.Fatalf("garbage unused widths: %v %v", got, err)
	}
	// A used width above 64 is corrupt.
	page[10] = 65
	d.Reset(page)
	if _, err := d.DecodeInt32(got); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("width 65: %v", err)
	}
}

// TestCopyBits compares copyBits with a bit-by-bit copy for all offset
// combinations and lengths up to 200 bits.
func TestCopyBits(t *testing.T) {
	src := make([]byte, 40)
	for i := range src {
		src[i] = byte(i*73 + 19)
	}
	for so := 0; so < 9; so++ {
		for do := 0; do < 9; do++ {
			for n := 0; n <= 200; n++ {
				dst := bytes.Repeat([]byte{0xA5}, 40)
				want := bytes.Clone(dst)
				for i := 0; i < n; i++ {
					b := src[(so+i)/8] >> ((so + i) % 8) & 1
					p := do + i
					want[p/8] = want[p/8]&^(1<<(p%8)) | b<<(p%8)
				}
				copyBits(dst, do, src[:(so+n+7)/8], so, n)
				if !bytes.Equal(dst, want) {
					t.Fatalf("srcOff %d dstOff %d n %d: got %x want %x", so, do, n, dst, want)
				}
			}
		}
	}
}

// TestCopyShortOverlap: DELTA_BYTE_ARRAY copies a prefix from the value
// just written, a few bytes behind, within the same buffer.
func TestCopyShortOverlap(t *testing.T) {
	for gap := 1; gap < 40; gap++ {
		buf := make([]byte, 100)
		for i := range buf {
			buf[i] = byte(i)
		}
		want := bytes.Clone(buf)
		copy(want[gap:gap+10], want[0:10])
		copyShort(buf, gap, buf, 0, 10)
		if !bytes.Equal(buf[:gap+10], want[:gap+10]) {
			t.Fatalf("gap %d: got %v, want %v", gap, buf[:gap+10], want[:gap+10])
		}
	}
}
