package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
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

// sortedPayloadFile writes ids 0…9999 (sorted) and a string payload
// "v%05d" of the id, in 10 row groups of 1000 rows and pages of 100 rows,
// with page indexes, and returns its path and size.
func sortedPayloadFile(t *testing.T) (string, int64) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 10000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("v%05d", i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "sorted.parquet")
	writeFile(t, path, rec, arrowpq.WriteOptions{RowGroupRows: 1000, MaxRowsPerPage: 100, Dictionary: arrowpq.Off})
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Size()
}

// readIDs reads column id (and checks s against it when projected).
func readIDs(t *testing.T, path string, opts arrowpq.ReadOptions) ([]int64, arrowpq.Stats) {
	t.Helper()
	cols, _, st, err := readFiltered(t, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseCols(cols)
	var ids []int64
	var ss *array.String
	for i, c := range cols {
		switch c := c.(type) {
		case *array.Int64:
			ids = c.Int64Values()
		case *array.String:
			ss = c
		case nil:
		default:
			t.Fatalf("column %d is %T", i, c)
		}
	}
	if ss != nil {
		if ids == nil {
			for i := range ss.Len() {
				var v int64
				fmt.Sscanf(ss.Value(i), "v%d", &v)
				ids = append(ids, v)
			}
		} else {
			for i, id := range ids {
				if want := fmt.Sprintf("v%05d", id); ss.Value(i) != want {
					t.Fatalf("row %d: s = %q, want %q", i, ss.Value(i), want)
				}
			}
		}
	}
	return slices.Clone(ids), st
}

func idRange(lo, hi int64) []int64 {
	var out []int64
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestFilteredReadSortedKey: a range predicate on a sorted key prunes nine
// row groups by statistics and, in the tenth, all but the two pages of
// each column that hold the range; the rows decoded are those two pages'.
func TestFilteredReadSortedKey(t *testing.T) {
	path, size := sortedPayloadFile(t)
	p, err := arrowpq.ParseFilter("id BETWEEN 2050 AND 2149")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		columns []string
	}{{"all columns", nil}, {"payload only", []string{"s"}}, {"key only", []string{"id"}}} {
		t.Run(tc.name, func(t *testing.T) {
			ids, st := readIDs(t, path, arrowpq.ReadOptions{Filter: p, Columns: tc.columns, Parallelism: 1})
			if !slices.Equal(ids, idRange(2050, 2150)) {
				t.Fatalf("ids %v…, %d rows", ids[:min(5, len(ids))], len(ids))
			}
			leaves := 2 // the predicate's column is read even when not projected
			if tc.columns != nil && tc.columns[0] == "id" {
				leaves = 1
			}
			want := arrowpq.Stats{RowGroups: 10, RowGroupsPrunedByStatistics: 9, Pages: 10 * leaves,
				PagesSkippedByPageIndex: 8 * leaves, RowsDecoded: 200, RowsReturned: 100}
			got := st
			got.BytesRead, got.Warnings = 0, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stats %+v\nwant  %+v", got, want)
			}
			if len(st.Warnings) > 0 {
				t.Errorf("warnings %v", st.Warnings)
			}
			// Footer, two page indexes and four pages of 100 rows.
			if st.BytesRead <= 0 || st.BytesRead > size/8 {
				t.Errorf("read %d bytes of a %d-byte file", st.BytesRead, size)
			}
		})
	}
	t.Run("Superset", func(t *testing.T) {
		ids, st := readIDs(t, path, arrowpq.ReadOptions{Filter: p, Superset: true})
		if !slices.Equal(ids, idRange(2000, 2200)) {
			t.Fatalf("superset ids %d rows from %v", len(ids), ids[:min(3, len(ids))])
		}
		if st.RowsReturned != 200 || st.PagesSkippedByPageIndex != 16 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("Rows offset limit", func(t *testing.T) {
		// OFFSET 2550 LIMIT 100, with and without the filter.
		rows := arrowpq.NewRowRanges(arrowpq.RowRange{Start: 2550, End: 2650})
		ids, st := readIDs(t, path, arrowpq.ReadOptions{Rows: rows, BatchSize: 30})
		if !slices.Equal(ids, idRange(2550, 2650)) {
			t.Fatalf("ids %d rows from %v", len(ids), ids[:min(3, len(ids))])
		}
		if st.RowsDecoded != 100 || st.Pages != 20 || st.PagesSkippedByPageIndex != 16 {
			t.Errorf("stats %+v", st)
		}
		ids, _ = readIDs(t, path, arrowpq.ReadOptions{Rows: rows, Filter: p})
		if !slices.Equal(ids, nil) {
			t.Fatalf("rows 2550…2649 with id BETWEEN 2050 AND 2149: %v", ids)
		}
		ids, _ = readIDs(t, path, arrowpq.ReadOptions{Rows: arrowpq.NewRowRanges(arrowpq.RowRange{Start: 2100, End: 2120}, arrowpq.RowRange{Start: 2140, End: 9000}), Filter: p})
		if want := append(idRange(2100, 2120), idRange(2140, 2150)...); !slices.Equal(ids, want) {
			t.Fatalf("two ranges with the filter: %v", ids)
		}
	})
}

// TestFilteredReadBloom: on unsorted unique strings statistics cannot
// prune; the bloom filters rule out every row group but the one holding
// the value, so that only one row group's chunk is decoded.
func TestFilteredReadBloom(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "key", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(1, 2))
	var keys []string
	for i := range 8000 {
		k := fmt.Sprintf("%016x", rng.Uint64())
		keys = append(keys, k)
		b.Field(0).(*array.StringBuilder).Append(k)
		b.Field(1).(*array.Int32Builder).Append(int32(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "bloom.parquet")
	writeFile(t, path, rec, arrowpq.WriteOptions{RowGroupRows: 1000, Dictionary: arrowpq.Off,
		Columns: map[string]arrowpq.ColumnOptions{"key": {BloomFilterNDV: 1000}}})
	for _, i := range []int{0, 4321, 7999} {
		p := arrowpq.Col("key").EQ(keys[i])
		cols, n, st, err := readFiltered(t, path, arrowpq.ReadOptions{Filter: p})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 || cols[1].(*array.Int32).Value(0) != int32(i) {
			t.Fatalf("key = %s: %d rows", keys[i], n)
		}
		releaseCols(cols)
		if st.RowGroups != 8 || st.RowGroupsPrunedByStatistics+st.RowGroupsPrunedByBloomFilter != 7 ||
			st.BloomFiltersRead != 8-st.RowGroupsPrunedByStatistics || st.RowGroupsPrunedByBloomFilter < 5 {
			t.Errorf("key = %s: stats %+v", keys[i], st)
		}
		if st.RowsDecoded > 1000 {
			t.Errorf("key = %s: decoded %d rows, more than one row group", keys[i], st.RowsDecoded)
		}
	}
	// A key that is not there: nothing decoded.
	_, n, st, err := readFiltered(t, path, arrowpq.ReadOptions{Filter: arrowpq.Col("key").EQ("0123456789abcdeX")})
	if err != nil || n != 0 || st.RowsDecoded > 1000 {
		t.Fatalf("absent key: %d rows, %+v, %v", n, st, err)
	}
}

// TestFilteredReadLyingPageIndex rewrites the offset index of one column
// chunk so that it contradicts the file (first_row_index not increasing):
// the reader warns, ignores it and still returns the right rows.
func TestFilteredReadLyingPageIndex(t *testing.T) {
	path, _ := sortedPayloadFile(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, lie := range []struct{ rg, col int }{{3, 0}, {2, 1}} {
		rg, col := lie.rg, lie.col
		oi, err := metadata.ReadOffsetIndex(bytes.NewReader(data), f, rg, col)
		if err != nil {
			t.Fatal(err)
		}
		if col == 0 {
			oi.PageLocations[3].FirstRowIndex = oi.PageLocations[2].FirstRowIndex
		} else {
			// Pages that do not tile the chunk: not trusted to skip.
			oi.PageLocations[5].CompressedPageSize--
		}
		out := data[:f.FooterOffset]
		at := int64(len(out))
		if out, err = metadata.Marshal(out, oi); err != nil {
			t.Fatal(err)
		}
		cc := f.Meta.RowGroups[rg].Columns[col]
		cc.OffsetIndexOffset = &at
		n := int32(int64(len(out)) - at)
		cc.OffsetIndexLength = &n
		if data, err = metadata.AppendFooter(out, f.Meta); err != nil {
			t.Fatal(err)
		}
		if f, err = metadata.ReadFooter(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatal(err)
		}
	}
	path = filepath.Join(t.TempDir(), "lying.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := arrowpq.Or(arrowpq.Col("id").Between(2050, 2149), arrowpq.Col("id").Between(3350, 3360))
	ids, st := readIDs(t, path, arrowpq.ReadOptions{Filter: p})
	if !slices.Equal(ids, append(idRange(2050, 2150), idRange(3350, 3361)...)) {
		t.Fatalf("ids: %d rows", len(ids))
	}
	joined := strings.Join(st.Warnings, "\n")
	if !strings.Contains(joined, "row group 3, column id: offset index not used") || !strings.Contains(joined, "row group 2, column s: offset index not used to skip pages") {
		t.Errorf("warnings %q", st.Warnings)
	}
}

// TestRowsCorpus reads random row windows of every corpus file with
// ReadOptions.Rows (page skipping by the offset index where there is one)
// and compares them with the same rows of a full read; bad_data files must
// fail cleanly, never panic.
func TestRowsCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "testdata", "parquet-testing")
	testshared.Need(t, dir)
	rng := rand.New(rand.NewPCG(7, 14))
	compared := 0
	defer func() {
		if compared < 40 {
			t.Errorf("only %d corpus files compared", compared)
		}
	}()
	for _, sub := range []string{"data", "bad_data"} {
		names, _ := filepath.Glob(filepath.Join(dir, sub, "*.parquet"))
		for _, path := range names {
			if strings.Contains(path, "large_string_map") {
				continue // 2 GiB of strings: TestLargeStringMap's
			}
			full, n, _, err := readFiltered(t, path, arrowpq.ReadOptions{})
			if err != nil || n == 0 {
				// Unreadable: a window must fail or return rows, not panic.
				cols, _, _, _ := readFiltered(t, path, arrowpq.ReadOptions{Rows: arrowpq.NewRowRanges(arrowpq.RowRange{Start: 1, End: 3})})
				releaseCols(cols)
				continue
			}
			compared++
			for range 3 {
				lo := rng.Int64N(n)
				hi := lo + 1 + rng.Int64N(n-lo)
				got, _, _, err := readFiltered(t, path, arrowpq.ReadOptions{Rows: arrowpq.NewRowRanges(arrowpq.RowRange{Start: lo, End: hi}), BatchSize: 1 + rng.IntN(300)})
				if err != nil {
					t.Errorf("%s: rows [%d, %d): %v", filepath.Base(path), lo, hi, err)
					continue
				}
				want := make([]arrow.Array, len(full))
				for i, c := range full {
					want[i] = array.NewSlice(c, lo, hi)
				}
				if err := sameColumns(got, want); err != nil {
					t.Errorf("%s: rows [%d, %d): %v", filepath.Base(path), lo, hi, err)
				}
				releaseCols(got)
				releaseCols(want)
			}
			releaseCols(full)
		}
	}
}
