package pagecodec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// alpBenchData returns the float columns of the ALP benchmark, benchN values
// each. numeric_f32 and numeric_f64 have the distributions of the float
// columns of the numeric dataset (benchmarks/datasets.go: Float32()*1000 and
// NormFloat64()*1e6, no nulls here); the others are decimal data of the kind
// ALP is for.
func alpBenchData() []struct {
	name string
	f64  []float64
	f32  []float32
} {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(f func(i int) float64) []float64 {
		v := make([]float64, benchN)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	f32 := make([]float32, benchN)
	for i := range f32 {
		f32[i] = rng.Float32() * 1000
	}
	return []struct {
		name string
		f64  []float64
		f32  []float32
	}{
		{name: "numeric_f32", f32: f32},
		{name: "numeric_f64", f64: mk(func(int) float64 { return rng.NormFloat64() * 1e6 })},
		// Prices with 2 decimals, 1.00 .. 1000.00.
		{name: "prices", f64: mk(func(int) float64 { return float64(100+rng.IntN(100_000)) / 100 })},
		// A temperature sensor: a slow wave plus noise, 2 decimals.
		{name: "sensor", f64: mk(func(i int) float64 {
			return math.Round((21+4*math.Sin(float64(i)/500)+rng.NormFloat64()*0.3)*100) / 100
		})},
		// Latitude and longitude alternating, 6 decimals.
		{name: "latlon", f64: mk(func(i int) float64 {
			if i%2 == 0 {
				return float64(rng.IntN(180_000_000)-90_000_000) / 1e6
			}
			return float64(rng.IntN(360_000_000)-180_000_000) / 1e6
		})},
	}
}

// BenchmarkALP compares ALP with PLAIN, BYTE_STREAM_SPLIT and
// RLE_DICTIONARY (dictionary page included) on one page of benchN values,
// with and without ZSTD (level 1, the writer's default). b.SetBytes is the
// decoded size (4 or 8 bytes a value); the metric B/value is the encoded
// size, compressed when zstd=true.
func BenchmarkALP(b *testing.B) {
	for _, data := range alpBenchData() {
		width := 8
		if data.f32 != nil {
			width = 4
		}
		raw := width * benchN
		for _, enc := range []string{"plain", "byte_stream_split", "rle_dictionary", "alp"} {
			for _, zstd := range []bool{false, true} {
				name := fmt.Sprintf("data=%s/enc=%s/zstd=%v", data.name, enc, zstd)
				encode := alpBenchEncoder(data.f64, data.f32, enc)
				dict, vals := encode()
				var comp *Compressor
				if zstd {
					var err error
					if comp, err = NewCompressor(format.CompressionCodec_ZSTD, 1); err != nil {
						b.Fatal(err)
					}
				}
				var cd, cv []byte
				compress := func(dict, vals []byte) {
					if comp == nil {
						cd, cv = dict, vals
						return
					}
					var err error
					if cd, err = comp.AppendCompressed(cd[:0], dict); err != nil {
						b.Fatal(err)
					}
					if cv, err = comp.AppendCompressed(cv[:0], vals); err != nil {
						b.Fatal(err)
					}
				}
				compress(dict, vals)
				size := len(cd) + len(cv)
				b.Run(name+"/op=encode", func(b *testing.B) {
					b.SetBytes(int64(raw))
					b.ReportAllocs()
					cpu := cpuNanos()
					for b.Loop() {
						d, v := encode()
						compress(d, v)
					}
					reportCPU(b, cpu, raw)
					b.ReportMetric(float64(size)/benchN, "B/value")
				})
				b.Run(name+"/op=decode", func(b *testing.B) {
					decode := alpBenchDecoder(b, width, enc, len(dict))
					var dec Decompressor
					ud, uv := make([]byte, len(dict)), make([]byte, len(vals))
					b.SetBytes(int64(raw))
					b.ReportAllocs()
					cpu := cpuNanos()
					for b.Loop() {
						d, v := cd, cv
						if comp != nil {
							if err := dec.Decompress(format.CompressionCodec_ZSTD, ud, cd); err != nil {
								b.Fatal(err)
							}
							if err := dec.Decompress(format.CompressionCodec_ZSTD, uv, cv); err != nil {
								b.Fatal(err)
							}
							d, v = ud, uv
						}
						if err := decode(d, v); err != nil {
							b.Fatal(err)
						}
					}
					reportCPU(b, cpu, raw)
					b.ReportMetric(float64(size)/benchN, "B/value")
				})
			}
		}
	}
}

// reportCPU reports cpu-MB/s: bytes per op over the CPU time the process
// spent since cpu (run with GOMAXPROCS=1 so that it is this loop's).
func reportCPU(b *testing.B, cpu int64, bytes int) {
	if d := cpuNanos() - cpu; d > 0 && cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/(float64(d)/1e9)/1e6, "cpu-MB/s")
	}
}

// alpBenchEncoder returns a function encoding the values with enc into a
// dictionary page (empty but for RLE_DICTIONARY) and a data page body.
func alpBenchEncoder(f64 []float64, f32 []float32, enc string) func() ([]byte, []byte) {
	var page, dictPage []byte
	var bss ByteStreamSplitEncoder
	var alp ALPEncoder
	var d32 DictEncoder32
	var d64 DictEncoder64
	return func() ([]byte, []byte) {
		page, dictPage = page[:0], dictPage[:0]
		switch enc {
		case "plain":
			if f32 != nil {
				page = AppendPlainFloat(page, f32)
			} else {
				page = AppendPlainDouble(page, f64)
			}
		case "byte_stream_split":
			if f32 != nil {
				bss.Reset(4)
				bss.AppendFloat(f32)
			} else {
				bss.Reset(8)
				bss.AppendDouble(f64)
			}
			page = bss.AppendTo(page)
		case "rle_dictionary":
			if f32 != nil {
				d32.Reset(0)
				d32.AppendFloat(f32)
				dictPage, page = d32.AppendDictPage(dictPage), d32.AppendIndices(page)
			} else {
				d64.Reset(0)
				d64.AppendDouble(f64)
				dictPage, page = d64.AppendDictPage(dictPage), d64.AppendIndices(page)
			}
		case "alp":
			// The preset is kept from the first call: this measures a
			// page of a column chunk; BenchmarkALPPreset measures the
			// per-chunk sampling.
			if f32 != nil {
				alp.AppendFloat(f32)
			} else {
				alp.AppendDouble(f64)
			}
			page = alp.AppendTo(page)
		}
		return dictPage, page
	}
}

// alpBenchDecoder returns a function decoding a page of enc into a
// reused destination.
func alpBenchDecoder(b *testing.B, width int, enc string, dictBytes int) func(dict, page []byte) error {
	d64, d32 := make([]float64, benchN), make([]float32, benchN)
	dict64, dict32 := make([]float64, dictBytes/8), make([]float32, dictBytes/4)
	var plain PlainDecoder
	var bss ByteStreamSplitDecoder
	var alp ALPDecoder
	var idx DictIndexDecoder
	return func(dict, page []byte) error {
		var err error
		switch enc {
		case "plain":
			plain.Reset(page)
			if width == 4 {
				_, err = plain.DecodeFloat(d32)
			} else {
				_, err = plain.DecodeDouble(d64)
			}
		case "byte_stream_split":
			if err = bss.Reset(page, width); err != nil {
				return err
			}
			if width == 4 {
				_, err = bss.DecodeFloat(d32)
			} else {
				_, err = bss.DecodeDouble(d64)
			}
		case "rle_dictionary":
			plain.Reset(dict)
			if width == 4 {
				if _, err = plain.DecodeFloat(dict32); err != nil {
					return err
				}
				if err = idx.Reset(page, len(dict32)); err != nil {
					return err
				}
				_, err = DecodeDict(&idx, d32, dict32)
			} else {
				if _, err = plain.DecodeDouble(dict64); err != nil {
					return err
				}
				if err = idx.Reset(page, len(dict64)); err != nil {
					return err
				}
				_, err = DecodeDict(&idx, d64, dict64)
			}
		case "alp":
			if width == 4 {
				if err = alp.Reset(page, format.Type_FLOAT); err != nil {
					return err
				}
				_, err = alp.DecodeFloat(d32)
			} else {
				if err = alp.Reset(page, format.Type_DOUBLE); err != nil {
					return err
				}
				_, err = alp.DecodeDouble(d64)
			}
		}
		return err
	}
}

// BenchmarkALPPreset measures what a new column chunk costs on top of its
// pages: the sampling that picks the (exponent, factor) preset (8 vectors of
// 1024, 256 values each, every combination tried).
func BenchmarkALPPreset(b *testing.B) {
	for _, data := range alpBenchData() {
		if data.f64 == nil {
			continue
		}
		b.Run("data="+data.name, func(b *testing.B) {
			var e ALPEncoder
			e.width = 8
			e.pend64 = data.f64[:8*1024]
			b.ReportAllocs()
			cpu := cpuNanos()
			for b.Loop() {
				e.haveSet = false
				e.makePreset(1024)
			}
			if d := cpuNanos() - cpu; d > 0 && cpu > 0 {
				b.ReportMetric(float64(d)/float64(b.N)/1e6, "cpu-ms/op")
			}
			b.ReportMetric(float64(len(e.preset)), "combos")
		})
	}
}
