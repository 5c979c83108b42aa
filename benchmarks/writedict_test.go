package benchmarks

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictDataset is a table of Arrow dictionary arrays (categorical data as
// Arrow holds it): flags and modes of 3 and 7 values, 1,000 categories
// with 5% nulls and 20,000 cities with a skewed distribution, all strings,
// and 500 int64 codes.
var dictDataset = Dataset{Name: "dict", Rows: 1_000_000, Build: buildDict}

func buildDict(mem memory.Allocator, rows int) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(9, 10))
	strs := func(n int, f func(i int) string) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for i := range n {
			b.Append(f(i))
		}
		return b.NewArray()
	}
	type col struct {
		name  string
		index arrow.DataType
		dict  arrow.Array
		pick  func() int // -1 for null
	}
	codes := array.NewInt64Builder(mem)
	for i := range 500 {
		codes.Append(int64(i)*7919 + 1_000_000)
	}
	codeArr := codes.NewArray()
	codes.Release()
	cols := []col{
		{"flag", arrow.PrimitiveTypes.Int8, strs(3, func(i int) string { return []string{"A", "N", "R"}[i] }), func() int { return rng.IntN(3) }},
		{"mode", arrow.PrimitiveTypes.Int8, strs(7, func(i int) string { return []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}[i] }), func() int { return rng.IntN(7) }},
		{"category", arrow.PrimitiveTypes.Int16, strs(1000, func(i int) string { return fmt.Sprintf("category-%04d-%s", i, words[i%len(words)]) }), func() int {
			if rng.IntN(20) == 0 {
				return -1
			}
			return rng.IntN(1000)
		}},
		{"city", arrow.PrimitiveTypes.Int32, strs(20000, func(i int) string { return fmt.Sprintf("%s %s %d", words[i%len(words)], words[(i/7)%len(words)], i) }), func() int {
			return min(rng.IntN(20000), rng.IntN(20000), rng.IntN(20000))
		}},
		{"code", arrow.PrimitiveTypes.Int16, codeArr, func() int { return rng.IntN(500) }},
	}
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		ib := array.NewBuilder(mem, c.index)
		for range rows {
			j := c.pick()
			switch b := ib.(type) {
			case *array.Int8Builder:
				b.Append(int8(j))
			case *array.Int16Builder:
				if j < 0 {
					b.AppendNull()
				} else {
					b.Append(int16(j))
				}
			case *array.Int32Builder:
				b.Append(int32(j))
			}
		}
		idx := ib.NewArray()
		ib.Release()
		dt := &arrow.DictionaryType{IndexType: c.index, ValueType: c.dict.DataType()}
		arrs = append(arrs, array.NewDictionaryArray(dt, idx, c.dict))
		idx.Release()
		c.dict.Release()
		fields = append(fields, arrow.Field{Name: c.name, Type: dt, Nullable: true})
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

var (
	dictRecord     arrow.RecordBatch
	dictRecordOnce sync.Once
)

// BenchmarkWriteDictionary writes dictDataset, whose columns are Arrow
// dictionary arrays, as BenchmarkWrite writes its datasets (same options,
// metrics and b.SetBytes, the Arrow size with the dictionaries). arrowpq
// writes them through their dictionaries (each dictionary value hashed
// once per batch and column chunk, indices translated); compare with a
// build before that (per value hashing) for the speedup.
func BenchmarkWriteDictionary(b *testing.B) {
	for _, codec := range benchCodecs {
		for _, impl := range []string{"arrowpq", "pqarrow"} {
			b.Run(fmt.Sprintf("data=dict/codec=%s/impl=%s", codec, impl), func(b *testing.B) {
				dictRecordOnce.Do(func() { dictRecord = dictDataset.Build(memory.NewGoAllocator(), dictDataset.ScaledRows()) })
				rec := dictRecord
				b.SetBytes(arrowBytes(rec))
				b.ReportAllocs()
				var peak uint64
				var size int64
				cpu0 := processCPU()
				for b.Loop() {
					cw := &countingWriter{}
					p := peakHeap(func() {
						if impl == "arrowpq" {
							writeArrowpq(b, cw, rec, codec)
						} else {
							writePqarrow(b, cw, rec, codec)
						}
					})
					peak = max(peak, p)
					size = cw.n
				}
				b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				reportCPU(b, arrowBytes(rec), cpu0)
				b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
				b.ReportMetric(float64(size)/(1<<20), "file-MB")
			})
		}
	}
}
