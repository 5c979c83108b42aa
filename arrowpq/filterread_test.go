package arrowpq_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// readFiltered reads path with opts and returns the batches' rows as one
// array per column (nil columns when no row came back) and the stats.
func readFiltered(t testing.TB, path string, opts arrowpq.ReadOptions) ([]arrow.Array, int64, arrowpq.Stats, error) {
	t.Helper()
	r, err := arrowpq.OpenFile(path, &opts)
	if err != nil {
		return nil, 0, arrowpq.Stats{}, err
	}
	defer r.Close()
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var n int64
	for r.Next() {
		b := r.RecordBatch()
		if b.NumRows() == 0 {
			t.Errorf("%s: an empty batch", path)
		}
		b.Retain()
		batches = append(batches, b)
		n += b.NumRows()
	}
	if r.Err() != nil {
		return nil, 0, r.Stats(), r.Err()
	}
	return concatColumns(t, r.Schema(), batches), n, r.Stats(), nil
}

func concatColumns(t testing.TB, schema *arrow.Schema, batches []arrow.RecordBatch) []arrow.Array {
	t.Helper()
	out := make([]arrow.Array, schema.NumFields())
	for i := range out {
		var parts []arrow.Array
		for _, b := range batches {
			parts = append(parts, b.Column(i))
		}
		if len(parts) == 0 {
			continue
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	return out
}

// expectedRows returns the rows of ff's full read whose file row number is
// in rows (sorted), as one array per column.
func expectedRows(t testing.TB, ff *filterFile, rows []int64) []arrow.Array {
	t.Helper()
	var batches []arrow.RecordBatch
	var at int64
	k := 0
	for _, b := range ff.batches {
		n := b.NumRows()
		bools := make([]bool, n)
		for k < len(rows) && rows[k] < at+n {
			bools[rows[k]-at] = true
			k++
		}
		out, err := arrowpq.FilterBatch(nil, nil, b, arrowpq.NewSelection(bools))
		if err != nil {
			t.Fatal(err)
		}
		if out.NumRows() > 0 {
			batches = append(batches, out)
		} else {
			out.Release()
		}
		at += n
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	return concatColumns(t, ff.schema, batches)
}

func sameColumns(got, want []arrow.Array) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d columns, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		gl, wl := 0, 0
		if g != nil {
			gl = g.Len()
		}
		if w != nil {
			wl = w.Len()
		}
		if gl != wl {
			return fmt.Errorf("column %d: %d rows, want %d", i, gl, wl)
		}
		if gl > 0 && !array.ApproxEqual(g, w, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
			return fmt.Errorf("column %d differs", i)
		}
	}
	return nil
}

func releaseCols(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// checkReaderFilter reads ff through the Reader with predicate p and
// compares with rows, the exact matches (DuckDB's): in exact mode the same
// rows in the same order, with Superset a superset of whole pages whose
// evaluation gives the same rows, and with a random Rows range the
// matches inside it.
func checkReaderFilter(t *testing.T, rng *rand.Rand, ff *filterFile, p *arrowpq.Predicate, rows []int64) {
	t.Helper()
	bs := []int{0, 100, 1000}[rng.IntN(3)]
	want := expectedRows(t, ff, rows)
	defer releaseCols(want)
	got, n, st, err := readFiltered(t, ff.path, arrowpq.ReadOptions{Filter: p, BatchSize: bs, Parallelism: 1 + rng.IntN(2)})
	if err != nil {
		t.Errorf("%s: Reader with %s: %v", ff.name, p, err)
		return
	}
	if err := sameColumns(got, want); err != nil {
		t.Errorf("%s: Reader with %s: %d rows, want %d: %v", ff.name, p, n, len(rows), err)
	}
	releaseCols(got)
	if st.RowsReturned != int64(len(rows)) {
		t.Errorf("%s: %s: Stats.RowsReturned %d, want %d", ff.name, p, st.RowsReturned, len(rows))
	}
	if ff.own && len(st.Warnings) > 0 {
		t.Errorf("%s: %s: warnings on a file we wrote: %v", ff.name, p, st.Warnings)
	}

	// Superset: evaluating the returned rows gives the exact rows.
	sup, sn, _, err := readFiltered(t, ff.path, arrowpq.ReadOptions{Filter: p, Superset: true, BatchSize: bs})
	if err != nil {
		t.Errorf("%s: Superset read with %s: %v", ff.name, p, err)
		return
	}
	if sn < int64(len(rows)) {
		t.Errorf("%s: Superset with %s: %d rows, fewer than the %d matches", ff.name, p, sn, len(rows))
	}
	if sn > 0 {
		bp, err := p.Bind(ff.schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewRecordBatch(ff.schema, sup, sn)
		sel, err := bp.Evaluate(b)
		if err != nil {
			t.Fatal(err)
		}
		kept, err := arrowpq.FilterBatch(nil, nil, b, sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameColumns(kept.Columns(), want); err != nil {
			t.Errorf("%s: Superset with %s, evaluated: %v", ff.name, p, err)
		}
		kept.Release()
		b.Release()
	}
	releaseCols(sup)

	// Rows: a random window, combined with the filter.
	total := int64(0)
	for _, b := range ff.batches {
		total += b.NumRows()
	}
	if total == 0 {
		return
	}
	lo := rng.Int64N(total)
	hi := lo + 1 + rng.Int64N(total-lo)
	var inside []int64
	for _, r := range rows {
		if r >= lo && r < hi {
			inside = append(inside, r)
		}
	}
	want2 := expectedRows(t, ff, inside)
	defer releaseCols(want2)
	got2, _, _, err := readFiltered(t, ff.path, arrowpq.ReadOptions{Filter: p, Rows: arrowpq.NewRowRanges(arrowpq.RowRange{Start: lo, End: hi}), BatchSize: bs})
	if err != nil {
		t.Errorf("%s: Rows [%d, %d) with %s: %v", ff.name, lo, hi, p, err)
		return
	}
	if err := sameColumns(got2, want2); err != nil {
		t.Errorf("%s: Rows [%d, %d) with %s: %v", ff.name, lo, hi, p, err)
	}
	releaseCols(got2)
}
