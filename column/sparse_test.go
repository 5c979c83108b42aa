package column_test

import (
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// sparseOf packs c's chunk keeping the pages keep says, as a filtered read
// does: the bytes before the first data page, then the kept pages, with
// the offset index rewritten (left-out pages have size 0).
func sparseOf(c *skipCase, keep func(page int) bool) column.Chunk {
	ch := c.chunk
	locs := ch.OffsetIndex
	prefix := locs[0].Offset - ch.FileOffset
	data := append([]byte(nil), ch.Data[:prefix]...)
	var out []*format.PageLocation
	for i, loc := range locs {
		nl := &format.PageLocation{Offset: ch.FileOffset + int64(len(data)), FirstRowIndex: loc.FirstRowIndex}
		if keep(i) {
			start := loc.Offset - ch.FileOffset
			data = append(data, ch.Data[start:start+int64(loc.CompressedPageSize)]...)
			nl.CompressedPageSize = loc.CompressedPageSize
		}
		out = append(out, nl)
	}
	ch.Data, ch.OffsetIndex, ch.Sparse = data, out, true
	return ch
}

// TestSparseChunk reads the odd pages of sparse chunks (skipping the even
// ones, whose bytes are absent) and checks the records; reading a page
// left out is an error, never another page's data.
func TestSparseChunk(t *testing.T) {
	for _, s := range skipSpecs() {
		if !s.index {
			continue
		}
		t.Run(s.String(), func(t *testing.T) {
			c := skipCaseFor(t, s)
			sp := sparseOf(c, func(i int) bool { return i%2 == 1 })
			locs := c.chunk.OffsetIndex
			r := column.NewReader(c.col, column.ReaderOptions{})
			r.Reset(sp)
			pos := 0
			for i := 1; i < len(locs); i += 2 {
				first := int(locs[i].FirstRowIndex)
				end := s.rows
				if i+1 < len(locs) {
					end = int(locs[i+1].FirstRowIndex)
				}
				if n, err := r.SkipRecords(first - pos); err != nil || n != first-pos {
					t.Fatalf("page %d: SkipRecords(%d): %d, %v", i, first-pos, n, err)
				}
				got := readPage(t, r, c.col)
				if !equalRecords(got, c.want[first:end]) {
					t.Fatalf("page %d: records differ", i)
				}
				pos = end
			}
			// Page 0 is left out: reading it must fail.
			r.Reset(sp)
			if _, _, err := r.Read(&column.Values{}, 1, make([]int16, 1), make([]int16, 1)); err == nil || !strings.Contains(err.Error(), "not fetched") {
				t.Fatalf("reading a page left out: %v", err)
			}
		})
	}
}

// readPage reads the records of the next page and nothing past it (no look
// at the following page, which a sparse chunk may lack).
func readPage(t *testing.T, r *column.Reader, col *metadata.Column) []record {
	t.Helper()
	left, err := r.Remaining()
	if err != nil {
		t.Fatalf("Remaining: %v", err)
	}
	var out []record
	var v column.Values
	def, rep := make([]int16, 1), make([]int16, 1)
	for range left {
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
	return out
}
