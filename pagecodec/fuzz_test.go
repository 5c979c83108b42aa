package pagecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"testing"

	"github.com/arrowpq/arrowpq/internal/codectest"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// The hostile-bytes fuzzers check that decoders never panic, stop within the
// bytes they were given and return errors wrapping the package sentinels.
// The round-trip fuzzers check decode(encode(v)) == v.

// maxFuzzValues bounds how many values a fuzzer asks for, since counts in
// headers may claim billions of zero-width values.
const maxFuzzValues = 1 << 16

func checkErr(t *testing.T, err error) {
	t.Helper()
	codectest.CheckError(t, err, ErrCorrupt, ErrUnsupported, ErrLimit, ErrChecksum)
}

func FuzzDecodePlain(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, uint8(0), uint16(2), uint8(0))
	f.Add([]byte{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'}, uint8(6), uint16(3), uint8(0))
	f.Add([]byte{0x0D, 0x01}, uint8(7), uint16(9), uint8(3))
	f.Fuzz(func(t *testing.T, src []byte, typ uint8, n uint16, typeLen uint8) {
		var d PlainDecoder
		d.Reset(src)
		k := int(n)
		var err error
		switch typ % 8 {
		case 0:
			_, err = d.DecodeInt32(make([]int32, k))
		case 1:
			_, err = d.DecodeInt64(make([]int64, k))
		case 2:
			_, err = d.DecodeFloat(make([]float32, k))
		case 3:
			_, err = d.DecodeDouble(make([]float64, k))
		case 4:
			_, err = d.DecodeInt96(make([][12]byte, k))
		case 5:
			_, err = d.DecodeFixedLenByteArray(make([]byte, k*int(typeLen)), int(typeLen))
		case 6:
			var offs []int32
			var data []byte
			if typeLen%2 == 1 {
				// Room for the one-pass path.
				data = make([]byte, 0, int(typeLen)*4)
			}
			offs, data, err = d.DecodeByteArray([]int32{0}, data, k)
			if len(data) > len(src) || len(offs) > k+1 {
				t.Fatalf("decoded %d bytes from %d", len(data), len(src))
			}
		case 7:
			_, err = d.DecodeBoolean(make([]byte, (k+int(typeLen%8)+7)/8), int(typeLen%8), k)
		}
		checkErr(t, err)
	})
}

func FuzzDecodeDeltaBinaryPacked(f *testing.F) {
	f.Add([]byte{8, 1, 5, 2, 2, 0}, uint16(5), false)
	f.Add([]byte{8, 1, 8, 14, 3, 2, 0xC0, 0x3F}, uint16(3), true)
	var e DeltaBinaryPackedEncoder
	e.AppendInt64([]int64{math.MinInt64, math.MaxInt64, 0, -1, 1 << 40})
	f.Add(e.AppendTo(nil), uint16(2), false)
	f.Fuzz(func(t *testing.T, src []byte, batch uint16, is32 bool) {
		var d DeltaBinaryPackedDecoder
		if err := d.Reset(src); err != nil {
			checkErr(t, err)
			return
		}
		b := max(int(batch)%1024, 1)
		buf64 := make([]int64, b)
		buf32 := make([]int32, b)
		for asked := 0; d.Len() > 0 && asked < maxFuzzValues; asked += b {
			k := min(b, d.Len())
			var err error
			if is32 {
				_, err = d.DecodeInt32(buf32[:k])
			} else {
				_, err = d.DecodeInt64(buf64[:k])
			}
			if err != nil {
				checkErr(t, err)
				return
			}
		}
	})
}

func FuzzDecodeDeltaLengthByteArray(f *testing.F) {
	f.Add(append([]byte{8, 1, 4, 10, 0, 1, 0x02}, "HelloWorldFoobarABCDEF"...), uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, batch uint16) {
		var d DeltaLengthByteArrayDecoder
		if err := d.Reset(src); err != nil {
			checkErr(t, err)
			return
		}
		b := max(int(batch)%1024, 1)
		offs, data := []int32{0}, []byte(nil)
		for asked := 0; d.Len() > 0 && asked < maxFuzzValues; asked += b {
			var err error
			offs, data, err = d.DecodeByteArray(offs[:1], data[:0], min(b, d.Len()))
			if err != nil {
				checkErr(t, err)
				return
			}
			if len(data) > len(src) {
				t.Fatalf("%d bytes from a page of %d", len(data), len(src))
			}
		}
	})
}

func FuzzDecodeDeltaByteArray(f *testing.F) {
	page := []byte{8, 1, 4, 0, 3, 3, 0x44, 0x01, 0x00, 8, 1, 4, 8, 3, 3, 0x70, 0x00, 0x00}
	f.Add(append(page, "axislebabbleyhood"...), uint16(3), uint8(0))
	f.Add(append(page, "axislebabbleyhood"...), uint16(3), uint8(4))
	f.Fuzz(func(t *testing.T, src []byte, batch uint16, typeLen uint8) {
		var d DeltaByteArrayDecoder
		if err := d.Reset(src); err != nil {
			checkErr(t, err)
			return
		}
		b := max(int(batch)%1024, 1)
		offs, data := []int32{0}, []byte(nil)
		// The data a page makes is bounded by prefix reuse: at most
		// values * longest value, and the longest value by the page.
		for asked := 0; d.Len() > 0 && asked < maxFuzzValues; asked += b {
			var err error
			if typeLen > 0 {
				buf := make([]byte, min(b, d.Len())*int(typeLen))
				_, err = d.DecodeFixedLenByteArray(buf, int(typeLen))
			} else {
				offs, data, err = d.DecodeByteArray(offs[:1], data[:0], min(b, d.Len()))
			}
			if err != nil {
				checkErr(t, err)
				return
			}
		}
	})
}

func FuzzDecodeByteStreamSplit(f *testing.F) {
	f.Add([]byte{0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6}, uint8(4), uint16(3))
	f.Fuzz(func(t *testing.T, src []byte, width uint8, n uint16) {
		var d ByteStreamSplitDecoder
		if err := d.Reset(src, int(width)); err != nil {
			checkErr(t, err)
			return
		}
		k := int(n)
		var err error
		switch width {
		case 4:
			_, err = d.DecodeFloat(make([]float32, k))
		case 8:
			_, err = d.DecodeInt64(make([]int64, k))
		default:
			_, err = d.DecodeFixedLenByteArray(make([]byte, k*int(width)))
		}
		checkErr(t, err)
	})
}

func FuzzDecodeDictIndices(f *testing.F) {
	f.Add([]byte{3, 0x03, 0x88, 0xC6, 0xFA}, uint16(8), uint16(8))
	f.Add([]byte{3, 0x0A, 0x04}, uint16(5), uint16(5))
	f.Fuzz(func(t *testing.T, src []byte, dictLen, n uint16) {
		var d DictIndexDecoder
		if err := d.Reset(src, int(dictLen)); err != nil {
			checkErr(t, err)
			return
		}
		dict := make([]int64, dictLen)
		dst := make([]int64, n)
		_, err := DecodeDict(&d, dst, dict)
		checkErr(t, err)
	})
}

func FuzzDecodeRLEBoolean(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, 0x03, 0x55, 0x12, 0x01}, uint16(17), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, n uint16, off uint8) {
		var d RLEBooleanDecoder
		if err := d.Reset(src); err != nil {
			checkErr(t, err)
			return
		}
		bm := make([]byte, (int(n)+int(off)+7)/8)
		_, err := d.DecodeBoolean(bm, int(off), int(n))
		checkErr(t, err)
	})
}

func FuzzDecompress(f *testing.F) {
	for _, codec := range []format.CompressionCodec{0, 1, 2, 4, 5, 6, 7} {
		c, err := NewCompressor(codec, 0)
		if err != nil {
			f.Fatal(err)
		}
		src := bytes.Repeat([]byte("parquet page "), 20)
		enc, _ := c.AppendCompressed(nil, src)
		f.Add(uint8(codec), enc, uint32(len(src)))
	}
	var d Decompressor
	f.Fuzz(func(t *testing.T, codec uint8, src []byte, size uint32) {
		// The caller has checked the size against its limit.
		size %= 1 << 20
		dst := make([]byte, size)
		checkErr(t, d.Decompress(format.CompressionCodec(codec%8), dst, src))
	})
}

func FuzzPageReader(f *testing.F) {
	for _, name := range []string{"datapage_v2.snappy.parquet", "alltypes_plain.parquet", "rle-dict-snappy-checksum.parquet", "delta_byte_array.parquet", "hadoop_lz4_compressed.parquet"} {
		if !testshared.Has(f, testdataDir) {
			break
		}
		for i, c := range readTestFile(f, name) {
			if i < 3 && len(c.Chunk) < 1<<14 {
				f.Add(c.Chunk, uint8(c.Meta.Codec), uint8(c.MaxDef), uint8(c.MaxRep))
			}
		}
	}
	// One reader for all inputs, as a column reader reuses it: this also
	// checks that Reset clears every state an error may leave. w reads
	// the same chunk through a Source in windows of a size taken from the
	// high bits of maxDef (1 to 993 bytes): the same pages and errors.
	var r, w PageReader
	f.Fuzz(func(t *testing.T, chunk []byte, codec, maxDef, maxRep uint8) {
		opts := PageReaderOptions{
			MaxDefinitionLevel: int16(maxDef % 8), MaxRepetitionLevel: int16(maxRep % 4), MaxPageSize: 1 << 20,
		}
		r.Reset(chunk, format.CompressionCodec(codec%8), opts)
		src := &windowSource{chunk: chunk, size: 1 + 31*int(maxDef>>3)}
		opts.CopyStored = maxRep&0x80 != 0
		w.ResetSource(src, len(chunk), format.CompressionCodec(codec%8), opts)
		for range 64 {
			p, err := r.Next()
			wp, werr := w.Next()
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("in memory: %v; in windows of %d: %v", err, src.size, werr)
			}
			if err == nil && !samePage(p, wp) {
				t.Fatalf("page %d differs in windows of %d", p.Ordinal, src.size)
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				var pe *PageError
				if !errors.As(err, &pe) {
					t.Fatalf("not a *PageError: %v", err)
				}
				checkErr(t, err)
				return
			}
			if len(p.Values) > 1<<20 {
				t.Fatalf("page of %d bytes past the limit", len(p.Values))
			}
		}
	})
}

// windowSource is a Source over chunk in windows of size bytes, each a
// new copy (so that a page aliasing an old window shows as a difference
// only if the reader reads it after the next call) whose previous one is
// overwritten with garbage, as a window refilled in place would be.
type windowSource struct {
	chunk []byte
	size  int
	last  []byte
}

func (s *windowSource) Window(off, n int) ([]byte, error) {
	for i := range s.last {
		s.last[i] = 0xa5
	}
	k := min(max(n, s.size), len(s.chunk)-off)
	s.last = bytes.Clone(s.chunk[off : off+k])
	return s.last, nil
}

// samePage reports whether two pages have the same fields and bytes.
func samePage(a, b *Page) bool {
	return a.Type == b.Type && a.Ordinal == b.Ordinal && a.Offset == b.Offset && a.NumLevels == b.NumLevels &&
		a.NumValues == b.NumValues && a.NumNulls == b.NumNulls && a.NumRows == b.NumRows && a.Encoding == b.Encoding &&
		a.RepetitionLevelEncoding == b.RepetitionLevelEncoding && a.DefinitionLevelEncoding == b.DefinitionLevelEncoding &&
		bytes.Equal(a.RepetitionLevels, b.RepetitionLevels) && bytes.Equal(a.DefinitionLevels, b.DefinitionLevels) &&
		bytes.Equal(a.Values, b.Values)
}

// int64sFrom reinterprets fuzz bytes as little-endian int64 values.
func int64sFrom(b []byte) []int64 {
	v := make([]int64, len(b)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v
}

// splitValues cuts fuzz bytes into byte arrays at each 0xff byte.
func splitValues(b []byte) ([]int32, []byte) {
	offs := []int32{0}
	var data []byte
	for _, part := range bytes.Split(b, []byte{0xff}) {
		data = append(data, part...)
		offs = append(offs, int32(len(data)))
	}
	return offs, data
}

func FuzzRoundTripDeltaBinaryPacked(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, uint16(1))
	f.Fuzz(func(t *testing.T, raw []byte, batch uint16) {
		vals := int64sFrom(raw)
		var e DeltaBinaryPackedEncoder
		e.AppendInt64(vals)
		enc := e.AppendTo(nil)
		var d DeltaBinaryPackedDecoder
		if err := d.Reset(enc); err != nil {
			t.Fatal(err)
		}
		got := make([]int64, len(vals))
		i := 0
		for _, k := range codectest.Batches(len(got), raw[:min(len(raw), 3)], uint64(batch)) {
			if _, err := d.DecodeInt64(got[i : i+k]); err != nil {
				t.Fatal(err)
			}
			i += k
		}
		if !slices.Equal(got, vals) {
			t.Fatalf("got %v, want %v", got, vals)
		}
		// INT32: the low halves, whose deltas may overflow 32 bits.
		v32 := make([]int32, len(vals))
		for i, v := range vals {
			v32[i] = int32(v)
		}
		e.AppendInt32(v32)
		enc = e.AppendTo(enc[:0])
		d.Reset(enc)
		g32 := make([]int32, len(v32))
		if _, err := d.DecodeInt32(g32); err != nil || !slices.Equal(g32, v32) {
			t.Fatalf("INT32: %v %v, want %v", err, g32, v32)
		}
	})
}

func FuzzRoundTripByteArray(f *testing.F) {
	f.Add([]byte("axis\xffaxle\xffbabble\xffbabyhood"), uint16(1))
	f.Fuzz(func(t *testing.T, raw []byte, batch uint16) {
		offs, data := splitValues(raw)
		n := len(offs) - 1
		b := max(int(batch)%300, 1)
		check := func(name string, dec func(o []int32, d []byte, k int) ([]int32, []byte, error)) {
			o, d := []int32{0}, []byte(nil)
			for i := 0; i < n; i += b {
				var err error
				o, d, err = dec(o, d, min(b, n-i))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if !slices.Equal(o, offs) || !bytes.Equal(d, data) {
				t.Fatalf("%s: got %v %q, want %v %q", name, o, d, offs, data)
			}
		}
		var pd PlainDecoder
		pd.Reset(AppendPlainByteArray(nil, offs, data))
		check("PLAIN", pd.DecodeByteArray)
		var le DeltaLengthByteArrayEncoder
		le.AppendByteArray(offs, data)
		var ld DeltaLengthByteArrayDecoder
		if err := ld.Reset(le.AppendTo(nil)); err != nil {
			t.Fatal(err)
		}
		check("DELTA_LENGTH_BYTE_ARRAY", ld.DecodeByteArray)
		var de DeltaByteArrayEncoder
		de.AppendByteArray(offs, data)
		var dd DeltaByteArrayDecoder
		if err := dd.Reset(de.AppendTo(nil)); err != nil {
			t.Fatal(err)
		}
		check("DELTA_BYTE_ARRAY", dd.DecodeByteArray)
		var dict DictEncoderByteArray
		dict.Reset(0, 0)
		if dict.AppendByteArray(offs, data) != n {
			t.Fatal("dictionary without limit refused values")
		}
		var dpd PlainDecoder
		dpd.Reset(dict.AppendDictPage(nil))
		dOffs, dData, err := dpd.DecodeByteArray([]int32{0}, nil, dict.DictLen())
		if err != nil {
			t.Fatal(err)
		}
		indices := dict.AppendIndices(nil)
		var di DictIndexDecoder
		di.Reset(indices, dict.DictLen())
		check("RLE_DICTIONARY", func(o []int32, d []byte, k int) ([]int32, []byte, error) {
			idx := make([]int32, k)
			if _, err := di.DecodeIndices(idx); err != nil {
				return o, d, err
			}
			return GatherByteArray(o, d, dOffs, dData, idx)
		})
		// The short-value gather, over the same indices, with the slack it
		// asks for (and, for long values, falling back).
		maxLen := 0
		for i := 0; i+1 < len(dOffs); i++ {
			maxLen = max(maxLen, int(dOffs[i+1]-dOffs[i]))
		}
		padded := append(slices.Clip(dData), make([]byte, 16)...)
		di.Reset(indices, dict.DictLen())
		check("RLE_DICTIONARY short", func(o []int32, d []byte, k int) ([]int32, []byte, error) {
			idx := make([]int32, k)
			if _, err := di.DecodeIndices(idx); err != nil {
				return o, d, err
			}
			return GatherByteArrayShort(o, d, dOffs, padded, idx, maxLen)
		})
	})
}

func FuzzRoundTripFixed(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xc0, 0x7f, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := int64sFrom(raw)
		f64 := make([]float64, len(vals))
		for i, v := range vals {
			f64[i] = math.Float64frombits(uint64(v))
		}
		bits := func(v []float64) []uint64 {
			out := make([]uint64, len(v))
			for i, x := range v {
				out[i] = math.Float64bits(x)
			}
			return out
		}
		var pd PlainDecoder
		pd.Reset(AppendPlainDouble(nil, f64))
		got := make([]float64, len(f64))
		if _, err := pd.DecodeDouble(got); err != nil || !slices.Equal(bits(got), bits(f64)) {
			t.Fatalf("PLAIN: %v", err)
		}
		var be ByteStreamSplitEncoder
		be.Reset(8)
		be.AppendDouble(f64)
		var bd ByteStreamSplitDecoder
		bd.Reset(be.AppendTo(nil), 8)
		if _, err := bd.DecodeDouble(got); err != nil || !slices.Equal(bits(got), bits(f64)) {
			t.Fatalf("BYTE_STREAM_SPLIT: %v", err)
		}
		var de DictEncoder64
		de.Reset(0)
		de.AppendDouble(f64)
		dict := make([]float64, de.DictLen())
		pd.Reset(de.AppendDictPage(nil))
		if _, err := pd.DecodeDouble(dict); err != nil {
			t.Fatal(err)
		}
		var di DictIndexDecoder
		di.Reset(de.AppendIndices(nil), len(dict))
		clear(got)
		if _, err := DecodeDict(&di, got, dict); err != nil || !slices.Equal(bits(got), bits(f64)) {
			t.Fatalf("RLE_DICTIONARY: %v", err)
		}
		// Booleans: the low bit of each byte.
		bm := make([]byte, (len(raw)+7)/8)
		for i, b := range raw {
			bm[i/8] |= (b & 1) << (i % 8)
		}
		var re RLEBooleanEncoder
		re.Reset()
		re.Append(bm, 0, len(raw))
		var rd RLEBooleanDecoder
		if err := rd.Reset(re.AppendTo(nil)); err != nil {
			t.Fatal(err)
		}
		gotBM := make([]byte, len(bm))
		if _, err := rd.DecodeBoolean(gotBM, 0, len(raw)); err != nil || !bytes.Equal(gotBM, bm) {
			t.Fatalf("RLE BOOLEAN: %v %08b want %08b", err, gotBM, bm)
		}
	})
}

func FuzzRoundTripPage(f *testing.F) {
	f.Add([]byte("some values"), uint8(1), false, uint8(3))
	f.Fuzz(func(t *testing.T, values []byte, codec uint8, v2 bool, levelLen uint8) {
		c := format.CompressionCodec(codec % 8)
		if c == format.CompressionCodec_LZO {
			return
		}
		w, err := NewPageWriter(PageWriterOptions{Codec: c})
		if err != nil {
			t.Fatal(err)
		}
		levels := bytes.Repeat([]byte{0x02, 0x01}, int(levelLen)) // RLE runs of 1
		var chunk []byte
		chunk, _, err = w.AppendDictionaryPage(chunk, &DictionaryPage{NumValues: 1, Values: values})
		if err != nil {
			t.Fatal(err)
		}
		if v2 {
			chunk, _, err = w.AppendDataPageV2(chunk, &DataPageV2{NumLevels: int(levelLen), NumRows: int(levelLen), Encoding: format.Encoding_PLAIN, DefinitionLevels: levels, Values: values})
		} else {
			chunk, _, err = w.AppendDataPageV1(chunk, &DataPageV1{NumLevels: int(levelLen), Encoding: format.Encoding_PLAIN, DefinitionLevels: levels, Values: values})
		}
		if err != nil {
			t.Fatal(err)
		}
		var r PageReader
		r.Reset(chunk, c, PageReaderOptions{MaxDefinitionLevel: 1, FileOffset: 100})
		p, err := r.Next()
		if err != nil || p.Type != format.PageType_DICTIONARY_PAGE || !bytes.Equal(p.Values, values) || p.Offset != 100 || p.NumValues != 1 {
			t.Fatalf("dictionary page: %v", err)
		}
		p, err = r.Next()
		if err != nil || !bytes.Equal(p.Values, values) || !bytes.Equal(p.DefinitionLevels, levels) || p.NumLevels != int(levelLen) || p.Ordinal != 1 {
			t.Fatalf("data page: %v %+v", err, p)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("end: %v", err)
		}
	})
}
