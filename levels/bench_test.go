package levels

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

const benchLevels = 1 << 16

// flatDefs returns max-def-1 definition levels: random nulls at the given
// percentage, or (pct < 0) runs averaging 1000 levels.
func flatDefs(pct int) []int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	lv := make([]int16, benchLevels)
	if pct < 0 {
		for i := 0; i < len(lv); {
			v := int16(rng.IntN(2))
			n := rng.IntN(2000) + 1
			for ; n > 0 && i < len(lv); n-- {
				lv[i] = v
				i++
			}
		}
		return lv
	}
	for i := range lv {
		if rng.IntN(100) >= pct {
			lv[i] = 1
		}
	}
	return lv
}

var nullCases = []struct {
	name string
	pct  int
}{{"0", 0}, {"10", 10}, {"50", 50}, {"runs", -1}}

// BenchmarkDefToBitmap measures flat definition levels (max 1) to a validity
// bitmap, from the encoded hybrid (src=rle, Decoder.DecodeValidity) or from
// decoded levels (src=int16, ValidityFromLevels). SetBytes counts the levels
// as int16 (2 bytes per level) whatever the source, so 1000 MB/s is one byte
// of levels per ns, half a level per ns. encoded-bytes is the page size.
func BenchmarkDefToBitmap(b *testing.B) {
	for _, nc := range nullCases {
		lv := flatDefs(nc.pct)
		bm := make([]byte, benchLevels/8+1)
		b.Run("src=rle/nulls="+nc.name, func(b *testing.B) {
			var e Encoder
			e.Reset(1)
			e.Append(lv)
			enc := e.Finish()
			var d Decoder
			b.SetBytes(2 * benchLevels)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				d.ResetRLE(enc, 1, benchLevels)
				if _, err := d.DecodeValidity(bm, 0, benchLevels); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(enc)), "encoded-bytes")
		})
		b.Run("src=int16/nulls="+nc.name, func(b *testing.B) {
			b.SetBytes(2 * benchLevels)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				ValidityFromLevels(bm, 0, lv, 1)
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkDecodeLevels measures the hybrid to []int16; SetBytes counts the
// decoded int16 levels.
func BenchmarkDecodeLevels(b *testing.B) {
	for _, nc := range nullCases {
		b.Run("max=1/nulls="+nc.name, func(b *testing.B) {
			lv := flatDefs(nc.pct)
			var e Encoder
			e.Reset(1)
			e.Append(lv)
			enc := e.Finish()
			var d Decoder
			out := make([]int16, benchLevels)
			b.SetBytes(2 * benchLevels)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				d.ResetRLE(enc, 1, benchLevels)
				if _, err := d.Decode(out); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkEncodeLevels measures []int16 to the hybrid; SetBytes counts the
// int16 input.
func BenchmarkEncodeLevels(b *testing.B) {
	for _, nc := range nullCases {
		b.Run("max=1/nulls="+nc.name, func(b *testing.B) {
			lv := flatDefs(nc.pct)
			var e Encoder
			b.SetBytes(2 * benchLevels)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				e.Reset(1)
				e.Append(lv)
				e.Finish()
			}
			reportCPU(b, cpu0)
		})
	}
}

// list3 records: optional list of optional int32, lists of 0..2*avg
// elements, pct% null lists and null elements.
func list3Records(rows, avg, pct int) (*Path, []any) {
	reps := []Repetition{Optional, Repeated, Optional}
	rng := rand.New(rand.NewPCG(3, 4))
	var id int64
	recs := make([]any, rows)
	for i := range recs {
		if rng.IntN(100) < pct {
			continue
		}
		l := make([]any, rng.IntN(2*avg+1))
		for j := range l {
			if rng.IntN(100) >= pct {
				l[j] = &some{id}
				id++
			}
		}
		recs[i] = &some{l}
	}
	return mustPath(reps), recs
}

// BenchmarkAssemble measures nested levels to validity bitmaps and offsets.
// SetBytes counts the def and rep levels as int16 (4 bytes per level).
func BenchmarkAssemble(b *testing.B) {
	for _, avg := range []int{1, 5, 50} {
		b.Run(fmt.Sprintf("shape=list3/avglen=%d/nulls=10", avg), func(b *testing.B) {
			p, recs := list3Records(benchLevels/max(avg, 1), avg, 10)
			lv := refShredAll(p, recs)
			a, _ := NewAssembler(p, nil)
			b.SetBytes(int64(4 * len(lv.def)))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if err := a.Append(lv.def, lv.rep); err != nil {
					b.Fatal(err)
				}
				a.Finish()
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(lv.def))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlevels/s")
		})
	}
	b.Run("shape=list2d/maxlen=4/nulls=10", func(b *testing.B) {
		// list<list<int32>>, 3-level both: the general per-level path.
		reps := []Repetition{Optional, Repeated, Optional, Repeated, Optional}
		p := mustPath(reps)
		rng := rand.New(rand.NewPCG(7, 8))
		var id int64
		var recs []any
		for n := 0; n < benchLevels; {
			r := genValue(rng, reps, nil, 0, &id, 0.1, 4)
			recs = append(recs, r)
			n += len(refShredAll(p, []any{r}).def)
		}
		lv := refShredAll(p, recs)
		a, _ := NewAssembler(p, nil)
		b.SetBytes(int64(4 * len(lv.def)))
		b.ReportAllocs()
		cpu0 := processCPU()
		for b.Loop() {
			if err := a.Append(lv.def, lv.rep); err != nil {
				b.Fatal(err)
			}
			a.Finish()
		}
		reportCPU(b, cpu0)
	})
	b.Run("shape=struct3/nulls=10", func(b *testing.B) {
		// optional a { optional b { optional int32 c } }: no repetition.
		p := mustPath([]Repetition{Optional, Optional, Optional})
		rng := rand.New(rand.NewPCG(5, 6))
		def := make([]int16, benchLevels)
		for i := range def {
			def[i] = 3
			if rng.IntN(10) == 0 {
				def[i] = int16(rng.IntN(3))
			}
		}
		a, _ := NewAssembler(p, nil)
		b.SetBytes(int64(2 * len(def)))
		b.ReportAllocs()
		cpu0 := processCPU()
		for b.Loop() {
			a.Append(def, nil)
			a.Finish()
		}
		reportCPU(b, cpu0)
	})
}

// BenchmarkShred measures Arrow layout to levels. SetBytes counts the def
// and rep levels produced as int16.
func BenchmarkShred(b *testing.B) {
	for _, nc := range nullCases {
		b.Run("shape=flat/nulls="+nc.name, func(b *testing.B) {
			p := mustPath([]Repetition{Optional})
			lv := flatDefs(nc.pct)
			data := []NodeData{{Len: benchLevels, Validity: make([]byte, benchLevels/8)}}
			for i, l := range lv {
				if l == 1 {
					data[0].Validity[i/8] |= 1 << (i % 8)
				}
			}
			s := NewShredder(p)
			b.SetBytes(2 * benchLevels)
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if err := s.Shred(data, 0, benchLevels); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
	for _, avg := range []int{1, 5, 50} {
		b.Run(fmt.Sprintf("shape=list3/avglen=%d/nulls=10", avg), func(b *testing.B) {
			p, recs := list3Records(benchLevels/max(avg, 1), avg, 10)
			l := refLayout(p, recs, nil, nil)
			rng := rand.New(rand.NewPCG(1, 1))
			data := nodeData(rng, p, l, []int{-1, -1, -1}, []bool{false, false, false})
			data[0].Len = len(recs)
			s := NewShredder(p)
			if err := s.Shred(data, 0, len(recs)); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(4 * len(s.Def())))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				s.Shred(data, 0, len(recs))
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU adds the process CPU time per op (see processCPU).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if d := processCPU() - cpu0; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkBaseline copies 64Ki int16 levels (128 KiB), the floor the level
// benchmarks compare against; SetBytes counts the bytes copied.
func BenchmarkBaseline(b *testing.B) {
	src := make([]int16, benchLevels)
	dst := make([]int16, benchLevels)
	b.Run("op=copy", func(b *testing.B) {
		b.SetBytes(2 * benchLevels)
		b.ReportAllocs()
		cpu0 := processCPU()
		for b.Loop() {
			copy(dst, src)
		}
		reportCPU(b, cpu0)
	})
}

var sink int

// BenchmarkBaselineSum sums 64Ki int16 levels: one load and add per level,
// the cheapest per-level loop; SetBytes counts the levels as int16. On an
// idle core it runs at about one level per cycle, so ratios to it stay
// meaningful when the machine is oversubscribed.
func BenchmarkBaselineSum(b *testing.B) {
	src := flatDefs(50)
	b.SetBytes(2 * benchLevels)
	cpu0 := processCPU()
	for b.Loop() {
		s := 0
		for _, v := range src {
			s += int(v)
		}
		sink = s
	}
	reportCPU(b, cpu0)
}

// nestedShape is one leaf column of benchmarks/datasets.go's nested table
// (500k rows): lists null 10%, lengths uniform in [0, maxLen], the element
// (and for list<struct> the struct field) null with the given percentages.
type nestedShape struct {
	name     string
	reps     []Repetition
	maxLen   int
	nullPcts []int // per optional node below the repeated one
}

var nestedShapes = []nestedShape{
	// ints: list<int64>, 5% null elements.
	{"list_int64", []Repetition{Optional, Repeated, Optional}, 5, []int{5}},
	// items.b: list<struct<a int32, b string>>, struct never null, b 20%.
	{"list_struct_leaf", []Repetition{Optional, Repeated, Optional, Optional}, 3, []int{0, 20}},
	// attrs: map<string, int64>, value never null but optional.
	{"map_value", []Repetition{Optional, Repeated, Optional}, 3, []int{0}},
	{"map_key", []Repetition{Optional, Repeated, Required}, 3, nil},
}

// levels returns the def and rep levels of rows records.
func (s nestedShape) levels(rows int) (*Path, []int16, []int16) {
	p := mustPath(s.reps)
	rng := rand.New(rand.NewPCG(7, 8))
	var def, rep []int16
	for range rows {
		if rng.IntN(10) == 0 {
			def, rep = append(def, 0), append(rep, 0)
			continue
		}
		n := rng.IntN(s.maxLen + 1)
		if n == 0 {
			def, rep = append(def, 1), append(rep, 0)
		}
		for j := range n {
			d := int16(2)
			for _, pct := range s.nullPcts {
				if rng.IntN(100) < pct {
					break
				}
				d++
			}
			def, rep = append(def, d), append(rep, int16(min(j, 1)))
		}
	}
	return p, def, rep
}

// readLike feeds levels to a the way arrowpq's leaf reader does: pages of
// pageLen levels, batches of batchRows records cut with AppendRecords, each
// batch finished. It returns the number of batches.
func readLike(a *Assembler, def, rep []int16, pageLen, batchRows int) (int, error) {
	batches := 0
	for pos := 0; pos < len(def); {
		if err := a.Append(nil, nil); err != nil {
			return batches, err
		}
		for {
			end := min(len(def), (pos/pageLen+1)*pageLen)
			k, err := a.AppendRecords(def[pos:end], rep[pos:end], batchRows)
			if err != nil {
				return batches, err
			}
			pos += k
			if pos < end || pos == len(def) {
				break
			}
		}
		a.Finish()
		batches++
	}
	return batches, nil
}

// BenchmarkAssembleRecords measures the reader's nested level work per
// column: 32Ki records of the nested table's shapes in pages of 10000
// levels, batches of 4096 records cut at record starts. SetBytes counts the
// def and rep levels as int16 (4 bytes per level).
func BenchmarkAssembleRecords(b *testing.B) {
	const rows, pageLen, batchRows = 32 << 10, 10000, 4096
	shapes := append(nestedShapes[:len(nestedShapes):len(nestedShapes)], nestedShape{
		// list<list<int64>>: the general path.
		"list_list_int64", []Repetition{Optional, Repeated, Optional, Repeated, Optional}, 3, []int{5, 5},
	})
	for _, s := range shapes {
		b.Run("shape="+s.name, func(b *testing.B) {
			var p *Path
			var def, rep []int16
			if len(s.reps) == 5 {
				p = mustPath(s.reps)
				rng := rand.New(rand.NewPCG(9, 10))
				var id int64
				recs := make([]any, rows)
				for i := range recs {
					recs[i] = genValue(rng, s.reps, nil, 0, &id, 0.1, s.maxLen)
				}
				lv := refShredAll(p, recs)
				def, rep = lv.def, lv.rep
			} else {
				p, def, rep = s.levels(rows)
			}
			a, _ := NewAssembler(p, nil)
			b.SetBytes(int64(4 * len(def)))
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := readLike(a, def, rep, pageLen, batchRows); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(def))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mlevels/s")
		})
	}
}

// BenchmarkDecodeNestedLevels measures the hybrid to []int16 for the def
// and rep levels of the nested shapes (bit widths 1 to 3); SetBytes counts
// the decoded int16 levels.
func BenchmarkDecodeNestedLevels(b *testing.B) {
	for _, s := range nestedShapes[:2] {
		p, def, rep := s.levels(32 << 10)
		for _, c := range []struct {
			what string
			lv   []int16
			max  int16
		}{{"def", def, p.MaxDef}, {"rep", rep, p.MaxRep}} {
			b.Run(fmt.Sprintf("shape=%s/levels=%s/max=%d", s.name, c.what, c.max), func(b *testing.B) {
				var e Encoder
				e.Reset(c.max)
				e.Append(c.lv)
				enc := e.Finish()
				var d Decoder
				out := make([]int16, len(c.lv))
				b.SetBytes(int64(2 * len(c.lv)))
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					d.ResetRLE(enc, c.max, len(c.lv))
					if _, err := d.Decode(out); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}
