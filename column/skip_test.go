package column_test

import (
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
)

// record is one record's levels and values.
type record struct {
	def, rep []int16
	values   []any
}

// records splits data into records: a record starts at repetition level 0
// (every level for columns without repetition).
func records(col *metadata.Column, d testData, numRows int) []record {
	out := make([]record, 0, numRows)
	vi := 0
	numLevels := len(d.def)
	if col.MaxDef == 0 {
		numLevels = len(d.values)
	}
	for i := 0; i < numLevels; i++ {
		if col.MaxRep == 0 || d.rep[i] == 0 {
			out = append(out, record{})
		}
		r := &out[len(out)-1]
		if col.MaxDef > 0 {
			r.def = append(r.def, d.def[i])
		}
		if col.MaxRep > 0 {
			r.rep = append(r.rep, d.rep[i])
		}
		if col.MaxDef == 0 || d.def[i] == col.MaxDef {
			r.values = append(r.values, d.values[vi])
			vi++
		}
	}
	return out
}

// readRecords reads the next k records with Read, a level at a time,
// peeking at the page's next repetition level to stop at a record start.
func readRecords(t testing.TB, r *column.Reader, col *metadata.Column, k int) []record {
	var out []record
	var v column.Values
	def, rep := make([]int16, 1), make([]int16, 1)
	for {
		if _, err := r.Remaining(); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("Remaining: %v", err)
		}
		if col.MaxRep > 0 {
			_, pr := r.PageLevels()
			if pr[0] == 0 && len(out) == k {
				return out
			}
		} else if len(out) == k {
			return out
		}
		v.Reset(col)
		nl, nv, err := r.Read(&v, 1, def, rep)
		if err != nil || nl != 1 {
			t.Fatalf("Read: %d levels, %v", nl, err)
		}
		if col.MaxRep == 0 || rep[0] == 0 {
			out = append(out, record{})
		}
		rec := &out[len(out)-1]
		if col.MaxDef > 0 {
			rec.def = append(rec.def, def[0])
		}
		if col.MaxRep > 0 {
			rec.rep = append(rec.rep, rep[0])
		}
		if nv == 1 {
			rec.values = append(rec.values, valueAt(&v, 0))
		}
	}
}

func equalRecords(a, b []record) bool {
	return slices.EqualFunc(a, b, func(x, y record) bool {
		return slices.Equal(x.def, y.def) && slices.Equal(x.rep, y.rep) && slices.Equal(x.values, y.values)
	})
}

// skipCase is a written column and its records.
type skipCase struct {
	col   *metadata.Column
	chunk column.Chunk
	want  []record
}

var (
	skipCasesMu sync.Mutex
	skipCases   = map[spec]*skipCase{}
)

// skipCaseFor writes (once) the column of s.
func skipCaseFor(t testing.TB, s spec) *skipCase {
	skipCasesMu.Lock()
	defer skipCasesMu.Unlock()
	if c, ok := skipCases[s]; ok {
		return c
	}
	d := generate(s)
	col, chunk, _ := chunkOf(t, writeFile(t, s, d), s.index)
	c := &skipCase{col: col, chunk: chunk, want: records(col, d, s.rows)}
	if len(c.want) != s.rows {
		t.Fatalf("%d records generated for %d rows", len(c.want), s.rows)
	}
	skipCases[s] = c
	return c
}

// skipSpecs are the columns of the skip tests: flat and repeated, v1 and
// v2 pages, with and without an offset index, plain and dictionary.
func skipSpecs() []spec {
	var out []spec
	for _, sh := range []shape{required, optional, deep, nested} {
		for _, v2 := range []bool{false, true} {
			for _, index := range []bool{false, true} {
				for _, enc := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
					out = append(out, spec{physical: parquet.Types.ByteArray, shape: sh, enc: enc, v2: v2, index: index,
						pageSize: 300, codec: compress.Codecs.Snappy, rows: 1500, seed: 11})
				}
			}
		}
	}
	return out
}

// runSkips applies ops (positive: read that many records; negative: skip)
// and compares what is read with the records at the same positions.
func runSkips(t testing.TB, c *skipCase, ops []int) {
	r := column.NewReader(c.col, column.ReaderOptions{})
	r.Reset(c.chunk)
	pos := 0
	for i, op := range ops {
		if op < 0 {
			n, err := r.SkipRecords(-op)
			if err != nil {
				t.Fatalf("op %d: SkipRecords(%d) at record %d: %v", i, -op, pos, err)
			}
			if want := min(-op, len(c.want)-pos); n != want {
				t.Fatalf("op %d: SkipRecords(%d) at record %d skipped %d, want %d", i, -op, pos, n, want)
			}
			pos += n
			continue
		}
		got := readRecords(t, r, c.col, op)
		end := min(pos+op, len(c.want))
		if !equalRecords(got, c.want[pos:end]) {
			t.Fatalf("op %d: read %d records at record %d: got %d records differing from the %d written", i, op, pos, len(got), end-pos)
		}
		pos = end
	}
}

// randomOps makes a sequence of reads and skips that ends past the end.
func randomOps(rng *rand.Rand, rows int) []int {
	var ops []int
	for total := 0; total <= rows; {
		var k int
		switch rng.IntN(4) {
		case 0:
			k = 1 + rng.IntN(5)
		case 1:
			k = 1 + rng.IntN(100)
		default:
			k = 1 + rng.IntN(500)
		}
		total += k
		if rng.IntN(2) == 0 {
			ops = append(ops, k)
		} else {
			ops = append(ops, -k)
		}
	}
	return ops
}

// TestSkipRecords compares random skip/read sequences with reading every
// record and dropping the skipped ones.
func TestSkipRecords(t *testing.T) {
	seed := uint64(20261125)
	t.Logf("seed %d", seed)
	for _, s := range skipSpecs() {
		t.Run(s.String(), func(t *testing.T) {
			c := skipCaseFor(t, s)
			rng := rand.New(rand.NewPCG(seed, uint64(s.shape)))
			for range 20 {
				runSkips(t, c, randomOps(rng, s.rows))
			}
			// Edges: nothing, everything, one past, and a page at a time.
			runSkips(t, c, []int{-0, 3, -s.rows, 5})
			runSkips(t, c, []int{-(s.rows - 1), 5})
			runSkips(t, c, []int{-s.rows - 1, 1})
		})
	}
}

// TestSkipDoesNotReadPages skips all but the last rows of chunks with an
// offset index and of flat chunks without one: the page bodies read are
// the dictionary page's and the last page's, however many pages the chunk
// has.
func TestSkipDoesNotReadPages(t *testing.T) {
	for _, s := range skipSpecs() {
		if !s.index && s.shape == nested {
			continue // repeated pages must be read to count their records
		}
		t.Run(s.String(), func(t *testing.T) {
			c := skipCaseFor(t, s)
			r := column.NewReader(c.col, column.ReaderOptions{})
			r.Reset(c.chunk)
			numPages := len(c.chunk.OffsetIndex)
			if s.index && numPages < 10 {
				t.Fatalf("only %d pages", numPages)
			}
			n, err := r.SkipRecords(s.rows - 1)
			if err != nil || n != s.rows-1 {
				t.Fatalf("SkipRecords: %d, %v", n, err)
			}
			got := readRecords(t, r, c.col, 5)
			if !equalRecords(got, c.want[s.rows-1:]) {
				t.Fatal("the last record differs")
			}
			want := 1
			if s.enc == parquet.Encodings.RLEDict {
				want = 2
			}
			if read := column.PagesRead(r); read != want {
				t.Errorf("%d page bodies read, want %d (of %d pages)", read, want, numPages)
			}
		})
	}
}

// FuzzSkipRecords runs a fuzzed skip/read sequence over one of the skip
// test columns.
func FuzzSkipRecords(f *testing.F) {
	f.Add(uint8(0), []byte{3, 0x85, 7, 0xff, 1})
	f.Add(uint8(13), []byte{0x90, 2, 0x81, 0x81, 40})
	f.Add(uint8(31), []byte{0xc0, 0xc0, 1, 1, 1, 0x80})
	specs := skipSpecs()
	f.Fuzz(func(t *testing.T, which uint8, seq []byte) {
		s := specs[int(which)%len(specs)]
		c := skipCaseFor(t, s)
		var ops []int
		for _, b := range seq {
			k := int(b&0x7f) * (1 + int(b&0x7f)/16)
			if b&0x80 != 0 {
				k = -k
			}
			ops = append(ops, k)
		}
		runSkips(t, c, ops)
	})
}
