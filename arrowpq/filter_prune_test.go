package arrowpq_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// sortedKeyFile writes ids 0..9999 (sorted) in 10 row groups of 1000 rows
// and pages of 100 rows, with page index and a bloom filter on id.
func sortedKeyFile(t *testing.T) *filterFile {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for i := range 10000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "sorted.parquet")
	writeFile(t, path, rec, arrowpq.WriteOptions{RowGroupRows: 1000, MaxRowsPerPage: 100, Dictionary: arrowpq.Off,
		Columns: map[string]arrowpq.ColumnOptions{"id": {BloomFilterNDV: 1000}}})
	return loadFilterFile(t, "sorted", path, true)
}

func writeFile(t *testing.T, path string, rec arrow.RecordBatch, opts arrowpq.WriteOptions) {
	t.Helper()
	opts.Parallelism = 1
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := arrowpq.NewWriter(out, rec.Schema(), &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
}

func bindText(t *testing.T, ff *filterFile, text string) *arrowpq.BoundPredicate {
	t.Helper()
	p, err := arrowpq.ParseFilter(text)
	if err != nil {
		t.Fatal(err)
	}
	bp, err := p.Bind(ff.schema, ff.meta.Schema)
	if err != nil {
		t.Fatal(err)
	}
	return bp
}

// decisions renders the decision of every row group: "." cannot match,
// "?" may match, "A" all match.
func decisions(ff *filterFile, bp *arrowpq.BoundPredicate, stats bool) string {
	var b strings.Builder
	for _, in := range ff.prune {
		res := bp.Prune(in)
		d := res.Decision
		if stats {
			d = res.ByStatistics
		}
		b.WriteByte(map[arrowpq.Decision]byte{arrowpq.CannotMatch: '.', arrowpq.MayMatch: '?', arrowpq.AllMatch: 'A'}[d])
	}
	return b.String()
}

func TestPruneSortedKey(t *testing.T) {
	ff := sortedKeyFile(t)
	defer ff.release()
	for _, tc := range []struct {
		filter    string
		decisions string // per row group
		rg        int    // a row group whose page ranges are checked
		may, all  string
		skipped   int // pages of rg skipped
	}{
		{"id BETWEEN 2050 AND 2149", "..?.......", 2, "[0,200)", "", 8},
		{"id BETWEEN 2000 AND 2199", "..?.......", 2, "[0,200)", "[0,200)", 8},
		{"id >= 9000", ".........A", 9, "[0,1000)", "[0,1000)", 0},
		{"NOT id < 9000", ".........A", 9, "[0,1000)", "[0,1000)", 0},
		{"id IS NULL", "..........", 0, "", "", 10},
		{"id IS NOT NULL", "AAAAAAAAAA", 0, "[0,1000)", "[0,1000)", 0},
		{"id != 5", "?AAAAAAAAA", 0, "[0,1000)", "[100,1000)", 0},
		{"id = 5 OR id = 9999", "?........?", 9, "[900,1000)", "", 9},
		{"id IN (5, 3500, 3501)", "?..?......", 3, "[500,600)", "", 9},
		{"id < 150.5 AND id > 149.5", "?.........", 0, "[100,200)", "", 9},
		{"NOT (id < 1000 OR id >= 2000)", ".A........", 1, "[0,1000)", "[0,1000)", 0},
		{"id > 9999", "..........", 9, "", "", 10},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			bp := bindText(t, ff, tc.filter)
			if got := decisions(ff, bp, false); got != tc.decisions {
				t.Fatalf("decisions %s, want %s", got, tc.decisions)
			}
			res := bp.Prune(ff.prune[tc.rg])
			if res.MayMatch.String() != tc.may || res.AllMatch.String() != tc.all || res.PagesSkipped != tc.skipped {
				t.Fatalf("row group %d: may %s all %s skipped %d, want may %s all %s skipped %d",
					tc.rg, res.MayMatch, res.AllMatch, res.PagesSkipped, tc.may, tc.all, tc.skipped)
			}
			if len(res.Warnings) > 0 {
				t.Fatalf("warnings %v", res.Warnings)
			}
		})
	}
}

// TestPruneLyingPageIndex corrupts the page index of row group 2 in the
// ways the issue lists; each time the index is ignored with a warning and
// the row group is read whole.
func TestPruneLyingPageIndex(t *testing.T) {
	ff := sortedKeyFile(t)
	defer ff.release()
	bp := bindText(t, ff, "id BETWEEN 2050 AND 2149")
	const col = 0
	for _, tc := range []struct {
		name    string
		corrupt func(ci *format.ColumnIndex, oi *format.OffsetIndex)
		warning string
	}{
		{"first_row_index not increasing", func(_ *format.ColumnIndex, oi *format.OffsetIndex) {
			oi.PageLocations[3].FirstRowIndex = oi.PageLocations[2].FirstRowIndex
		}, "first_row_index"},
		{"page offset out of the chunk", func(_ *format.ColumnIndex, oi *format.OffsetIndex) {
			oi.PageLocations[9].Offset += 1 << 20
		}, "inside the column chunk"},
		{"null count above the page's rows", func(ci *format.ColumnIndex, _ *format.OffsetIndex) {
			ci.NullCounts = make([]int64, len(ci.NullPages))
			ci.NullCounts[4] = 101
		}, "null count 101 above its 100 rows"},
		{"null counts that do not add up", func(ci *format.ColumnIndex, _ *format.OffsetIndex) {
			ci.NullCounts = make([]int64, len(ci.NullPages))
			ci.NullCounts[4] = 7
		}, "page null counts add up to 7"},
		{"page bounds outside the chunk's", func(ci *format.ColumnIndex, _ *format.OffsetIndex) {
			ci.MinValues[0] = []byte{0, 0, 0, 0, 0, 0, 0, 0}
		}, "outside the column chunk's"},
		{"fewer pages than locations", func(ci *format.ColumnIndex, _ *format.OffsetIndex) {
			ci.NullPages, ci.MinValues, ci.MaxValues = ci.NullPages[1:], ci.MinValues[1:], ci.MaxValues[1:]
			ci.NullCounts = nil
		}, "offset index has 10 pages, column index 9"},
		{"a page that lies about its values", func(ci *format.ColumnIndex, _ *format.OffsetIndex) {
			// Page 0 of row group 2 holds 2000..2099; claim 2500..2599.
			ci.MinValues[0], ci.MaxValues[0] = le64(2500), le64(2599)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := ff.prune[2]
			ci, oi := cloneColumnIndex(in.ColumnIndexes[col]), cloneOffsetIndex(in.OffsetIndexes[col])
			tc.corrupt(ci, oi)
			in.ColumnIndexes = map[int]*format.ColumnIndex{col: ci}
			in.OffsetIndexes = map[int]*format.OffsetIndex{col: oi}
			res := bp.Prune(in)
			if tc.warning == "" {
				// Undetectable from metadata alone (the bounds are inside the
				// chunk's): the reader's exact evaluation is what catches it.
				if len(res.Warnings) != 0 || res.MayMatch.String() != "[100,200)" {
					t.Fatalf("may %s warnings %v", res.MayMatch, res.Warnings)
				}
				return
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tc.warning) ||
				!strings.Contains(res.Warnings[0], "row group 2, column id: page index ignored") {
				t.Fatalf("warnings %q, want one containing %q", res.Warnings, tc.warning)
			}
			if res.MayMatch.String() != "[0,1000)" || res.Pages != 0 {
				t.Fatalf("may %s pages %d: the corrupt page index was used", res.MayMatch, res.Pages)
			}
			if res.Decision != arrowpq.MayMatch {
				t.Fatalf("decision %v", res.Decision)
			}
		})
	}
}

func cloneColumnIndex(ci *format.ColumnIndex) *format.ColumnIndex {
	c := *ci
	c.NullPages = append([]bool(nil), ci.NullPages...)
	c.MinValues = append([][]byte(nil), ci.MinValues...)
	c.MaxValues = append([][]byte(nil), ci.MaxValues...)
	c.NullCounts = append([]int64(nil), ci.NullCounts...)
	if ci.NullCounts == nil {
		c.NullCounts = nil
	}
	return &c
}

func cloneOffsetIndex(oi *format.OffsetIndex) *format.OffsetIndex {
	c := *oi
	c.PageLocations = nil
	for _, l := range oi.PageLocations {
		l2 := *l
		c.PageLocations = append(c.PageLocations, &l2)
	}
	return &c
}

// TestPruneBloomPointLookup: unique random strings (statistics cannot
// prune), a bloom filter per row group: a lookup of an existing value
// leaves at most the one row group that holds it, and a bloom filter that
// contradicts the statistics is ignored with a warning.
func TestPruneBloomPointLookup(t *testing.T) {
	ds, _ := benchmarks.DatasetByName("strings")
	rec := ds.Build(memory.DefaultAllocator, 4000)
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "strings.parquet")
	writeFile(t, path, rec, arrowpq.WriteOptions{RowGroupRows: 500,
		Columns: map[string]arrowpq.ColumnOptions{"unique_id": {BloomFilterNDV: 500}}})
	ff := loadFilterFile(t, "strings", path, true)
	defer ff.release()
	ids := rec.Column(0).(*array.String)
	for _, row := range []int{0, 1234, 3999} {
		bp := bindText(t, ff, fmt.Sprintf("unique_id = '%s'", ids.Value(row)))
		byStats, final := decisions(ff, bp, true), decisions(ff, bp, false)
		want := strings.Repeat(".", row/500) + "?" + strings.Repeat(".", 7-row/500)
		if final != want {
			t.Errorf("row %d: decisions %s, want %s (statistics alone: %s)", row, final, want, byStats)
		}
		if strings.Count(byStats, "?") < 6 {
			t.Errorf("statistics alone decide %s: the test does not need the bloom filter", byStats)
		}
	}
	bp := bindText(t, ff, "unique_id IN ('no such id', 'nor this one')")
	if got := decisions(ff, bp, false); strings.Count(got, "?") > 1 {
		t.Errorf("absent values: decisions %s, want (almost) all pruned", got)
	}
	// A bloom filter that rules out the value the statistics say every
	// row holds contradicts the file: ignored, with a warning.
	schema := arrow.NewSchema([]arrow.Field{{Name: "unique_id", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	val := ""
	for i := 0; val == ""; i++ {
		cand := fmt.Sprintf("same-%d", i)
		if !ff.prune[0].BloomFilters[0].MayContain(metadata.XXHash64([]byte(cand))) {
			val = cand
		}
	}
	for range 100 {
		b.Field(0).(*array.StringBuilder).Append(val)
	}
	same := b.NewRecordBatch()
	defer same.Release()
	samePath := filepath.Join(t.TempDir(), "same.parquet")
	writeFile(t, samePath, same, arrowpq.WriteOptions{})
	sf := loadFilterFile(t, "same", samePath, true)
	defer sf.release()
	in := sf.prune[0]
	in.BloomFilters = map[int]*metadata.BloomFilter{0: ff.prune[0].BloomFilters[0]}
	res := bindText(t, sf, "unique_id = '"+val+"'").Prune(in)
	if res.Decision != arrowpq.AllMatch || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "bloom filter ignored") {
		t.Fatalf("decision %v warnings %q, want all match and the bloom filter ignored", res.Decision, res.Warnings)
	}
}

// TestPruneStatisticsRules: two row groups of two rows each, values chosen
// so that each ordering rule decides; the expected decisions are worked out
// from the values in the comments.
func TestPruneStatisticsRules(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "st", Type: st, Nullable: true},
		{Name: "z", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	// Row group 0: s "abcdef" "abcxyz" (truncated to 4 bytes: min "abcd",
	// max "abcy"); u 2^63, 2^64-1; f 1, NaN; dec -1.50, -0.25; d -5000,
	// -4000 (1956, 1959); st null, {a: 5}; z -0, +0.
	// Row group 1: s "b" "bzzzzz"; u 1, 2; f 1, 2; dec 0, 1.00; d 0, 10;
	// st {10}, {20}; z 1, 2.
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"abcdef", "abcxyz", "b", "bzzzzz"}, nil)
	b.Field(1).(*array.Uint64Builder).AppendValues([]uint64{1 << 63, math.MaxUint64, 1, 2}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{1, math.NaN(), 1, 2}, nil)
	db := b.Field(3).(*array.Decimal128Builder)
	for _, v := range []int64{-150, -25, 0, 100} {
		db.Append(decimal128.FromI64(v))
	}
	b.Field(4).(*array.Date32Builder).AppendValues([]arrow.Date32{-5000, -4000, 0, 10}, nil)
	sb := b.Field(5).(*array.StructBuilder)
	sb.AppendNull()
	for _, a := range []int32{5, 10, 20} {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(a)
	}
	b.Field(6).(*array.Float64Builder).AppendValues([]float64{math.Copysign(0, -1), 0, 1, 2}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "rules.parquet")
	writeFile(t, path, rec, arrowpq.WriteOptions{RowGroupRows: 2, StatsTruncateLength: 4, Dictionary: arrowpq.Off})
	ff := loadFilterFile(t, "rules", path, true)
	defer ff.release()
	for _, tc := range []struct{ filter, want string }{
		{"s > 'abcy'", ".A"},     // max "abcy" is not above "abcy"; "b" is
		{"s >= 'abcy'", "?A"},    // a truncated max is only a bound: may match
		{"s = 'abc'", ".."},      // min "abcd" is above "abc"
		{"s LIKE 'abc%'", "A."},  // min and max both start with "abc"
		{"s LIKE 'abcz%'", ".."}, // [abcz, abd) misses [abcd, abcy]
		{"s LIKE '%'", "AA"},     // every string starts with ""
		{"u < 100", ".A"},        // unsigned: 2^63 is not negative
		{"u > 9223372036854775807", "A."},
		{"u = 18446744073709551615", "?."},
		{"f > 5", "?."},     // the NaN of row group 0 is above 5
		{"f < 5", "?A"},     // and not below it
		{"f = 'NaN'", "?."}, // nan_count 0 in row group 1
		{"f != 'NaN'", "?A"},
		{"f <= 'NaN'", "AA"},
		{"dec > 0", ".?"}, // -1.50..-0.25
		{"dec <= -1.5", "?."},
		{"dec < -1.5", ".."},
		{"dec BETWEEN -2 AND -0.25", "A."},
		{"d >= DATE '1970-01-01'", ".A"},
		{"d < DATE '1959-01-01'", "?."},
		{"st.a IS NULL", "?."}, // the null struct makes a null leaf
		{"st.a > 7", ".A"},     // row group 0: {5} and a null: 5 is not above 7
		{"st.a = 5", "?."},     // the null row is unknown, not TRUE
		{"z = 0", "A."},        // -0 = +0
		{"z < 0", ".."},        // -0 is not below 0
		{"NOT z = 0", ".A"},
		{"s = 'abc' OR u < 100", ".A"},
		{"NOT (s LIKE 'abc%' AND u > 5)", ".A"},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			bp := bindText(t, ff, tc.filter)
			if got := decisions(ff, bp, true); got != tc.want {
				t.Fatalf("decisions %s, want %s", got, tc.want)
			}
			// The exact rows agree (soundness, as in TestFilterDuckDB).
			rows, err := ff.evaluate(bp)
			if err != nil {
				t.Fatal(err)
			}
			checkPruning(t, ff, bp, rows, tc.filter)
		})
	}
}

// TestFilterInt96: alltypes_plain.parquet stores timestamp_col as INT96
// (read as timestamp[ns]); its values are 2009-03-01 00:00 and 00:01,
// 2009-04-01 00:00 and 00:01, 2009-02-01 …, 2009-01-01 … (DuckDB's dump).
func TestFilterInt96(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "testdata", "parquet-testing", "data", "alltypes_plain.parquet")
	testshared.Need(t, path)
	ff := loadFilterFile(t, "alltypes_plain", path, false)
	defer ff.release()
	for _, tc := range []struct {
		filter string
		want   []int64
	}{
		{"timestamp_col < TIMESTAMP '2009-03-01'", []int64{4, 5, 6, 7}},
		{"timestamp_col = TIMESTAMP '2009-04-01 00:01:00'", []int64{3}},
		{"timestamp_col BETWEEN DATE '2009-02-01' AND TIMESTAMP '2009-03-01 00:00:30'", []int64{0, 4, 5}},
	} {
		bp := bindText(t, ff, tc.filter)
		rows, err := ff.evaluate(bp)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows, tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.filter, rows, tc.want)
		}
		checkPruning(t, ff, bp, rows, tc.filter)
	}
}

// TestPruneFloatOrders: floating_orders_nan_count.parquet has five row
// groups (no NaN, some NaN, all NaN, zero min, zero max) of each float
// type under IEEE_754_TOTAL_ORDER and TYPE_ORDER, with nan_count.
// DuckDB's parquet_metadata gives the double bounds: [-2, 5], [-2, 3] with
// NaN, only NaN, [0, 5] and [-5, -0] (TYPE_ORDER: [-0, 5] and [-5, 0]).
func TestPruneFloatOrders(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "testdata", "parquet-testing", "data", "floating_orders_nan_count.parquet")
	testshared.Need(t, path)
	ff := loadFilterFile(t, "floating_orders_nan_count", path, false)
	defer ff.release()
	for _, tc := range []struct{ filter, want string }{
		// NaN is above 5: only the row groups that may hold NaN may
		// match, and the one whose nan_count covers every value matches.
		{"double_ieee754 > 5", ".?A.."},
		{"double_typedef > 5", ".?A.."},
		{"float_ieee754 > 5", ".?A.."},
		{"float16_typedef > 5", ".?A.."},
		// -0 is not below 0.
		{"double_ieee754 < 0", "??..?"},
		{"double_typedef <= 0", "??.?A"}, // row group 3 holds 0
		{"double_ieee754 = 'NaN'", ".?A.."},
		{"double_typedef != 'NaN'", "A?.AA"},
		{"double_typedef IN (3, 'NaN')", "????."},
	} {
		bp := bindText(t, ff, tc.filter)
		if got := decisions(ff, bp, true); got != tc.want {
			t.Errorf("%s: decisions %s, want %s", tc.filter, got, tc.want)
		}
		rows, err := ff.evaluate(bp)
		if err != nil {
			t.Fatal(err)
		}
		checkPruning(t, ff, bp, rows, tc.filter)
	}
}
