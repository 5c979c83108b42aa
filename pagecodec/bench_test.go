package pagecodec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/s2"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Benchmarks decode or encode one page of benchN values; b.SetBytes is the
// size of the decoded values (for byte arrays the string bytes only, not
// the offsets). BenchmarkCopy is the floor: a copy of as many bytes.

const benchN = 64 << 10

func benchRand() *rand.Rand { return rand.New(rand.NewPCG(42, 7)) }

func benchStrings() ([]int32, []byte) {
	rng := benchRand()
	offs := []int32{0}
	var data []byte
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
	for range benchN {
		l := 10 + rng.IntN(31) // 10..40 bytes
		start := len(data)
		for len(data)-start < l {
			data = append(data, words[rng.IntN(len(words))]...)
		}
		data = data[:start+l]
		offs = append(offs, int32(len(data)))
	}
	return offs, data
}

func benchInt64s() []int64 {
	rng := benchRand()
	v := make([]int64, benchN)
	x := int64(1_700_000_000_000)
	for i := range v {
		x += int64(rng.IntN(1000))
		v[i] = x
	}
	return v
}

func benchInt32s() []int32 {
	v := benchInt64s()
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func BenchmarkCopy(b *testing.B) {
	for _, size := range []int{4 * benchN, 8 * benchN, 25 * benchN} {
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			src := make([]byte, size)
			dst := make([]byte, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	i64 := benchInt64s()
	i32 := benchInt32s()
	f64 := make([]float64, benchN)
	f32 := make([]float32, benchN)
	for i := range f64 {
		f64[i] = float64(i64[i]) / 1000
		f32[i] = float32(f64[i])
	}
	offs, data := benchStrings()
	strBytes := int64(len(data))

	b.Run("enc=plain/type=int32", func(b *testing.B) {
		page := AppendPlainInt32(nil, i32)
		dst := make([]int32, benchN)
		benchLoop(b, 4*benchN, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeInt32(dst); return err })
	})
	b.Run("enc=plain/type=int64", func(b *testing.B) {
		page := AppendPlainInt64(nil, i64)
		dst := make([]int64, benchN)
		benchLoop(b, 8*benchN, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeInt64(dst); return err })
	})
	b.Run("enc=plain/type=float", func(b *testing.B) {
		page := AppendPlainFloat(nil, f32)
		dst := make([]float32, benchN)
		benchLoop(b, 4*benchN, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeFloat(dst); return err })
	})
	b.Run("enc=plain/type=double", func(b *testing.B) {
		page := AppendPlainDouble(nil, f64)
		dst := make([]float64, benchN)
		benchLoop(b, 8*benchN, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeDouble(dst); return err })
	})
	b.Run("enc=plain/type=int96", func(b *testing.B) {
		page := make([]byte, 12*benchN)
		dst := make([][12]byte, benchN)
		benchLoop(b, 12*benchN, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeInt96(dst); return err })
	})
	b.Run("enc=plain/type=flba16", func(b *testing.B) {
		page := make([]byte, 16*benchN)
		dst := make([]byte, 16*benchN)
		benchLoop(b, 16*benchN, func() error {
			var d PlainDecoder
			d.Reset(page)
			_, err := d.DecodeFixedLenByteArray(dst, 16)
			return err
		})
	})
	b.Run("enc=plain/type=boolean", func(b *testing.B) {
		page := make([]byte, benchN/8)
		dst := make([]byte, benchN/8+1)
		benchLoop(b, benchN/8, func() error { var d PlainDecoder; d.Reset(page); _, err := d.DecodeBoolean(dst, 1, benchN); return err })
	})
	b.Run("enc=plain/type=byte_array", func(b *testing.B) {
		page := AppendPlainByteArray(nil, offs, data)
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, len(data))
		benchLoop(b, strBytes, func() error {
			var d PlainDecoder
			d.Reset(page)
			_, _, err := d.DecodeByteArray(append(o[:0], 0), dd[:0], benchN)
			return err
		})
	})
	b.Run("enc=rle_dictionary/type=int64", func(b *testing.B) {
		var e DictEncoder64
		e.Reset(0)
		dictVals := i64[:1000]
		vals := make([]int64, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = dictVals[rng.IntN(len(dictVals))]
		}
		e.AppendInt64(vals)
		page := e.AppendIndices(nil)
		dict := make([]int64, e.DictLen())
		var pd PlainDecoder
		pd.Reset(e.AppendDictPage(nil))
		pd.DecodeInt64(dict)
		dst := make([]int64, benchN)
		var d DictIndexDecoder
		benchLoop(b, 8*benchN, func() error {
			d.Reset(page, len(dict))
			_, err := DecodeDict(&d, dst, dict)
			return err
		})
	})
	b.Run("enc=rle_dictionary/type=int32", func(b *testing.B) {
		var e DictEncoder32
		e.Reset(0)
		vals := make([]int32, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = i32[rng.IntN(1000)]
		}
		e.AppendInt32(vals)
		page := e.AppendIndices(nil)
		dict := make([]int32, e.DictLen())
		var pd PlainDecoder
		pd.Reset(e.AppendDictPage(nil))
		pd.DecodeInt32(dict)
		dst := make([]int32, benchN)
		var d DictIndexDecoder
		benchLoop(b, 4*benchN, func() error {
			d.Reset(page, len(dict))
			_, err := DecodeDict(&d, dst, dict)
			return err
		})
	})
	b.Run("enc=rle_dictionary/type=byte_array", func(b *testing.B) {
		var e DictEncoderByteArray
		e.Reset(0, 0)
		// 1000 distinct strings, repeated at random.
		rng := benchRand()
		vo, vd := []int32{0}, []byte(nil)
		for range benchN {
			k := rng.IntN(1000)
			vd = append(vd, data[offs[k]:offs[k+1]]...)
			vo = append(vo, int32(len(vd)))
		}
		e.AppendByteArray(vo, vd)
		page := e.AppendIndices(nil)
		var pd PlainDecoder
		pd.Reset(e.AppendDictPage(nil))
		dOffs, dData, _ := pd.DecodeByteArray([]int32{0}, nil, e.DictLen())
		idx := make([]int32, benchN)
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, len(vd))
		var d DictIndexDecoder
		benchLoop(b, int64(len(vd)), func() error {
			d.Reset(page, e.DictLen())
			if _, err := d.DecodeIndices(idx); err != nil {
				return err
			}
			_, _, err := GatherByteArray(append(o[:0], 0), dd[:0], dOffs, dData, idx)
			return err
		})
	})
	b.Run("enc=delta_binary_packed/type=int64", func(b *testing.B) {
		var e DeltaBinaryPackedEncoder
		e.AppendInt64(i64)
		page := e.AppendTo(nil)
		dst := make([]int64, benchN)
		var d DeltaBinaryPackedDecoder
		benchLoop(b, 8*benchN, func() error { d.Reset(page); _, err := d.DecodeInt64(dst); return err })
	})
	b.Run("enc=delta_binary_packed/type=int32", func(b *testing.B) {
		var e DeltaBinaryPackedEncoder
		e.AppendInt32(i32)
		page := e.AppendTo(nil)
		dst := make([]int32, benchN)
		var d DeltaBinaryPackedDecoder
		benchLoop(b, 4*benchN, func() error { d.Reset(page); _, err := d.DecodeInt32(dst); return err })
	})
	b.Run("enc=delta_length_byte_array/type=byte_array", func(b *testing.B) {
		var e DeltaLengthByteArrayEncoder
		e.AppendByteArray(offs, data)
		page := e.AppendTo(nil)
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, len(data))
		var d DeltaLengthByteArrayDecoder
		benchLoop(b, strBytes, func() error {
			if err := d.Reset(page); err != nil {
				return err
			}
			_, _, err := d.DecodeByteArray(append(o[:0], 0), dd[:0], benchN)
			return err
		})
	})
	b.Run("enc=delta_byte_array/type=byte_array", func(b *testing.B) {
		var e DeltaByteArrayEncoder
		e.AppendByteArray(offs, data)
		page := e.AppendTo(nil)
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, len(data))
		var d DeltaByteArrayDecoder
		benchLoop(b, strBytes, func() error {
			if err := d.Reset(page); err != nil {
				return err
			}
			_, _, err := d.DecodeByteArray(append(o[:0], 0), dd[:0], benchN)
			return err
		})
	})
	for _, w := range []int{4, 8, 16} {
		name := map[int]string{4: "float", 8: "double", 16: "flba16"}[w]
		b.Run("enc=byte_stream_split/type="+name, func(b *testing.B) {
			var e ByteStreamSplitEncoder
			e.Reset(w)
			switch w {
			case 4:
				e.AppendFloat(f32)
			case 8:
				e.AppendDouble(f64)
			default:
				e.AppendFixedLenByteArray(make([]byte, 16*benchN))
			}
			page := e.AppendTo(nil)
			d32, d64, dfl := make([]float32, benchN), make([]float64, benchN), make([]byte, 16*benchN)
			var d ByteStreamSplitDecoder
			benchLoop(b, int64(w*benchN), func() error {
				d.Reset(page, w)
				var err error
				switch w {
				case 4:
					_, err = d.DecodeFloat(d32)
				case 8:
					_, err = d.DecodeDouble(d64)
				default:
					_, err = d.DecodeFixedLenByteArray(dfl)
				}
				return err
			})
		})
	}
	b.Run("enc=byte_stream_split/type=int64", func(b *testing.B) {
		var e ByteStreamSplitEncoder
		e.Reset(8)
		e.AppendInt64(i64)
		page := e.AppendTo(nil)
		dst := make([]int64, benchN)
		var d ByteStreamSplitDecoder
		benchLoop(b, 8*benchN, func() error { d.Reset(page, 8); _, err := d.DecodeInt64(dst); return err })
	})
	b.Run("enc=rle_dictionary/type=double", func(b *testing.B) {
		var e DictEncoder64
		e.Reset(0)
		vals := make([]float64, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = f64[rng.IntN(1000)]
		}
		e.AppendDouble(vals)
		page := e.AppendIndices(nil)
		dict := make([]float64, e.DictLen())
		var pd PlainDecoder
		pd.Reset(e.AppendDictPage(nil))
		pd.DecodeDouble(dict)
		dst := make([]float64, benchN)
		var d DictIndexDecoder
		benchLoop(b, 8*benchN, func() error {
			d.Reset(page, len(dict))
			_, err := DecodeDict(&d, dst, dict)
			return err
		})
	})
	b.Run("enc=rle_dictionary/type=flba16", func(b *testing.B) {
		var e DictEncoderByteArray
		e.Reset(0, 16)
		vals := make([]byte, 16*benchN)
		rng := benchRand()
		for i := 0; i < benchN; i++ {
			vals[16*i] = byte(rng.IntN(250))
			vals[16*i+1] = byte(rng.IntN(4))
		}
		e.AppendFixedLenByteArray(vals)
		page := e.AppendIndices(nil)
		dict := e.AppendDictPage(nil)
		idx := make([]int32, benchN)
		dst := make([]byte, 16*benchN)
		var d DictIndexDecoder
		benchLoop(b, 16*benchN, func() error {
			d.Reset(page, e.DictLen())
			if _, err := d.DecodeIndices(idx); err != nil {
				return err
			}
			return GatherFixedLenByteArray(dst, dict, 16, idx)
		})
	})
	b.Run("enc=delta_byte_array/type=flba16", func(b *testing.B) {
		vals := make([]byte, 16*benchN)
		for i := 0; i < benchN; i++ {
			copy(vals[16*i:], fmt.Sprintf("key-%011d", i*7))
		}
		var e DeltaByteArrayEncoder
		e.AppendFixedLenByteArray(vals, 16)
		page := e.AppendTo(nil)
		dst := make([]byte, 16*benchN)
		var d DeltaByteArrayDecoder
		benchLoop(b, 16*benchN, func() error {
			if err := d.Reset(page); err != nil {
				return err
			}
			_, err := d.DecodeFixedLenByteArray(dst, 16)
			return err
		})
	})
	b.Run("enc=byte_stream_split/type=int32", func(b *testing.B) {
		var e ByteStreamSplitEncoder
		e.Reset(4)
		e.AppendInt32(i32)
		page := e.AppendTo(nil)
		dst := make([]int32, benchN)
		var d ByteStreamSplitDecoder
		benchLoop(b, 4*benchN, func() error { d.Reset(page, 4); _, err := d.DecodeInt32(dst); return err })
	})
	b.Run("enc=rle/type=boolean", func(b *testing.B) {
		bm := make([]byte, benchN/8)
		rng := benchRand()
		for i := range bm {
			if rng.IntN(4) == 0 {
				bm[i] = byte(rng.Uint32())
			} else {
				bm[i] = 0xff
			}
		}
		var e RLEBooleanEncoder
		e.Reset()
		e.Append(bm, 0, benchN)
		page := e.AppendTo(nil)
		dst := make([]byte, benchN/8)
		var d RLEBooleanDecoder
		benchLoop(b, benchN/8, func() error { d.Reset(page); _, err := d.DecodeBoolean(dst, 0, benchN); return err })
	})
}

func BenchmarkEncode(b *testing.B) {
	i64 := benchInt64s()
	i32 := benchInt32s()
	offs, data := benchStrings()
	buf := make([]byte, 0, 64<<20)
	b.Run("enc=plain/type=int64", func(b *testing.B) {
		benchLoop(b, 8*benchN, func() error { buf = AppendPlainInt64(buf[:0], i64); return nil })
	})
	b.Run("enc=plain/type=int32", func(b *testing.B) {
		benchLoop(b, 4*benchN, func() error { buf = AppendPlainInt32(buf[:0], i32); return nil })
	})
	b.Run("enc=plain/type=byte_array", func(b *testing.B) {
		benchLoop(b, int64(len(data)), func() error { buf = AppendPlainByteArray(buf[:0], offs, data); return nil })
	})
	b.Run("enc=rle_dictionary/type=int64", func(b *testing.B) {
		vals := make([]int64, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = i64[rng.IntN(1000)]
		}
		var e DictEncoder64
		benchLoop(b, 8*benchN, func() error {
			e.Reset(0)
			e.AppendInt64(vals)
			buf = e.AppendIndices(buf[:0])
			return nil
		})
	})
	b.Run("enc=delta_binary_packed/type=int64", func(b *testing.B) {
		var e DeltaBinaryPackedEncoder
		benchLoop(b, 8*benchN, func() error { e.AppendInt64(i64); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=delta_binary_packed/type=int32", func(b *testing.B) {
		var e DeltaBinaryPackedEncoder
		benchLoop(b, 4*benchN, func() error { e.AppendInt32(i32); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=delta_length_byte_array/type=byte_array", func(b *testing.B) {
		var e DeltaLengthByteArrayEncoder
		benchLoop(b, int64(len(data)), func() error { e.AppendByteArray(offs, data); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=delta_byte_array/type=byte_array", func(b *testing.B) {
		var e DeltaByteArrayEncoder
		benchLoop(b, int64(len(data)), func() error { e.AppendByteArray(offs, data); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=byte_stream_split/type=int64", func(b *testing.B) {
		var e ByteStreamSplitEncoder
		benchLoop(b, 8*benchN, func() error { e.Reset(8); e.AppendInt64(i64); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=plain/type=double", func(b *testing.B) {
		f64 := make([]float64, benchN)
		benchLoop(b, 8*benchN, func() error { buf = AppendPlainDouble(buf[:0], f64); return nil })
	})
	b.Run("enc=plain/type=float", func(b *testing.B) {
		f32 := make([]float32, benchN)
		benchLoop(b, 4*benchN, func() error { buf = AppendPlainFloat(buf[:0], f32); return nil })
	})
	b.Run("enc=plain/type=int96", func(b *testing.B) {
		v := make([][12]byte, benchN)
		benchLoop(b, 12*benchN, func() error { buf = AppendPlainInt96(buf[:0], v); return nil })
	})
	b.Run("enc=plain/type=flba16", func(b *testing.B) {
		v := make([]byte, 16*benchN)
		benchLoop(b, 16*benchN, func() error { buf = AppendPlainFixedLenByteArray(buf[:0], v); return nil })
	})
	b.Run("enc=rle_dictionary/type=double", func(b *testing.B) {
		vals := make([]float64, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = float64(rng.IntN(1000)) / 8
		}
		var e DictEncoder64
		benchLoop(b, 8*benchN, func() error {
			e.Reset(0)
			e.AppendDouble(vals)
			buf = e.AppendIndices(buf[:0])
			return nil
		})
	})
	b.Run("enc=delta_byte_array/type=flba16", func(b *testing.B) {
		vals := make([]byte, 16*benchN)
		for i := 0; i < benchN; i++ {
			copy(vals[16*i:], fmt.Sprintf("key-%011d", i*7))
		}
		var e DeltaByteArrayEncoder
		benchLoop(b, 16*benchN, func() error { e.AppendFixedLenByteArray(vals, 16); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=byte_stream_split/type=double", func(b *testing.B) {
		f64 := make([]float64, benchN)
		var e ByteStreamSplitEncoder
		benchLoop(b, 8*benchN, func() error { e.Reset(8); e.AppendDouble(f64); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=plain/type=boolean", func(b *testing.B) {
		bm := bytes.Repeat([]byte{0xff, 0x0f, 0, 0x55}, benchN/32)
		var e PlainBooleanEncoder
		benchLoop(b, benchN/8, func() error { e.Reset(); e.Append(bm, 1, benchN-1); return nil })
	})
	b.Run("enc=rle_dictionary/type=int32", func(b *testing.B) {
		vals := make([]int32, benchN)
		rng := benchRand()
		for i := range vals {
			vals[i] = i32[rng.IntN(1000)]
		}
		var e DictEncoder32
		benchLoop(b, 4*benchN, func() error {
			e.Reset(0)
			e.AppendInt32(vals)
			buf = e.AppendIndices(buf[:0])
			return nil
		})
	})
	b.Run("enc=rle_dictionary/type=byte_array", func(b *testing.B) {
		rng := benchRand()
		vo, vd := []int32{0}, []byte(nil)
		for range benchN {
			k := rng.IntN(1000)
			vd = append(vd, data[offs[k]:offs[k+1]]...)
			vo = append(vo, int32(len(vd)))
		}
		var e DictEncoderByteArray
		benchLoop(b, int64(len(vd)), func() error {
			e.Reset(0, 0)
			e.AppendByteArray(vo, vd)
			buf = e.AppendIndices(buf[:0])
			return nil
		})
	})
	b.Run("enc=byte_stream_split/type=float", func(b *testing.B) {
		f32 := make([]float32, benchN)
		var e ByteStreamSplitEncoder
		benchLoop(b, 4*benchN, func() error { e.Reset(4); e.AppendFloat(f32); buf = e.AppendTo(buf[:0]); return nil })
	})
	b.Run("enc=rle/type=boolean", func(b *testing.B) {
		bm := bytes.Repeat([]byte{0xff, 0x0f, 0, 0x55}, benchN/32)
		var e RLEBooleanEncoder
		benchLoop(b, benchN/8, func() error { e.Reset(); e.Append(bm, 0, benchN); buf = e.AppendTo(buf[:0]); return nil })
	})
}

// benchPage is a 1 MiB page of PLAIN strings, compressible as real data is.
func benchPage() []byte {
	offs, data := benchStrings()
	p := AppendPlainByteArray(nil, offs, data)
	return p[:1<<20]
}

func BenchmarkCodec(b *testing.B) {
	page := benchPage()
	for _, codec := range []format.CompressionCodec{
		format.CompressionCodec_UNCOMPRESSED, format.CompressionCodec_SNAPPY, format.CompressionCodec_GZIP,
		format.CompressionCodec_BROTLI, format.CompressionCodec_LZ4, format.CompressionCodec_LZ4_RAW, format.CompressionCodec_ZSTD,
	} {
		c, err := NewCompressor(codec, 0)
		if err != nil {
			b.Fatal(err)
		}
		enc, err := c.AppendCompressed(nil, page)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("op=decompress/codec="+codec.String(), func(b *testing.B) {
			var d Decompressor
			dst := make([]byte, len(page))
			b.ReportMetric(float64(len(enc))/float64(len(page)), "ratio")
			benchLoop(b, int64(len(page)), func() error { return d.Decompress(codec, dst, enc) })
		})
		b.Run("op=compress/codec="+codec.String(), func(b *testing.B) {
			buf := make([]byte, 0, 2*len(page))
			benchLoop(b, int64(len(page)), func() error { _, err := c.AppendCompressed(buf[:0], page); return err })
		})
	}
}

// BenchmarkSnappyDecode compares golang/snappy with klauspost's s2 decoding
// the same Snappy block (see the choice in codec.go).
func BenchmarkSnappyDecode(b *testing.B) {
	page := benchPage()
	enc := snappy.Encode(nil, page)
	dst := make([]byte, len(page))
	b.Run("impl=golang_snappy", func(b *testing.B) {
		benchLoop(b, int64(len(page)), func() error { _, err := snappy.Decode(dst, enc); return err })
	})
	b.Run("impl=s2", func(b *testing.B) {
		benchLoop(b, int64(len(page)), func() error { _, err := s2.Decode(dst, enc); return err })
	})
	b.Run("op=encode/impl=golang_snappy", func(b *testing.B) {
		out := make([]byte, snappy.MaxEncodedLen(len(page)))
		benchLoop(b, int64(len(page)), func() error { snappy.Encode(out, page); return nil })
	})
	b.Run("op=encode/impl=s2", func(b *testing.B) {
		out := make([]byte, s2.MaxEncodedLen(len(page)))
		benchLoop(b, int64(len(page)), func() error { s2.EncodeSnappy(out, page); return nil })
	})
}

func benchLoop(b *testing.B, bytes int64, f func() error) {
	b.Helper()
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
}
