package column_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
)

// TestLevelWindows reads pages of several level windows (columns that are
// not flat decode a page's levels a window at a time): levels and values
// as arrow-go wrote them, read with Read in steps across window ends, with
// PageLevels and Consume, and with random skips and reads.
func TestLevelWindows(t *testing.T) {
	for _, sh := range []shape{nested, deep} {
		for _, v2 := range []bool{false, true} {
			for _, enc := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
				s := spec{physical: parquet.Types.Int64, shape: sh, enc: enc, v2: v2,
					pageSize: 8 << 20, codec: compress.Codecs.Snappy, rows: 5 * column.LevelWindow, seed: 5}
				t.Run(s.String(), func(t *testing.T) {
					want := generate(s)
					col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
					r := column.NewReader(col, column.ReaderOptions{})
					r.Reset(chunk)
					if left, err := r.Remaining(); err != nil || left < 3*column.LevelWindow {
						t.Fatalf("first page: %d levels, %v; the test wants pages of at least 3 windows (%d levels)", left, err, 3*column.LevelWindow)
					}
					for _, step := range []int{999, column.LevelWindow, column.LevelWindow + 1, 3 * column.LevelWindow} {
						r.Reset(chunk)
						compareData(t, fmt.Sprintf("Read step %d", step), readAll(t, r, col, step), want)
					}
					r.Reset(chunk)
					if got := consumeAll(t, r); len(got) != len(want.def) || fmt.Sprint(got) != fmt.Sprint(want.def) {
						t.Errorf("PageLevels and Consume: %d definition levels differ from the %d written", len(got), len(want.def))
					}
					c := &skipCase{col: col, chunk: chunk, want: records(col, want, s.rows)}
					rng := rand.New(rand.NewPCG(17, uint64(sh)))
					for range 5 {
						runSkips(t, c, bigOps(rng, s.rows))
					}
				})
			}
		}
	}
}

// consumeAll walks the chunk with Remaining, PageLevels and Consume, taking
// 5,000 levels at a time or what PageLevels holds, and returns the
// definition levels seen.
func consumeAll(t *testing.T, r *column.Reader) []int16 {
	var out []int16
	for {
		left, err := r.Remaining()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Remaining: %v", err)
		}
		def, _ := r.PageLevels()
		if len(def) == 0 || len(def) > left || len(def) > column.LevelWindow {
			t.Fatalf("PageLevels holds %d levels with %d left in the page", len(def), left)
		}
		k := min(len(def), 5000)
		out = append(out, def[:k]...)
		r.Consume(k)
	}
}

// bigOps is randomOps with steps of up to twice a window of levels.
func bigOps(rng *rand.Rand, rows int) []int {
	var ops []int
	for total := 0; total <= rows; {
		k := 1 + rng.IntN(2*column.LevelWindow/3)
		total += k
		if rng.IntN(2) == 0 {
			k = -k
		}
		ops = append(ops, k)
	}
	return ops
}
