package arrowpq_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// layoutsRecord has runs of repeated values (nulls in runs too) and lists.
func layoutsRecord(t *testing.T, rows int) arrow.RecordBatch {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(18, 5))
	for i := 0; i < rows; {
		run := 1 + rng.IntN(20)
		v := rng.Int64N(5)
		null := rng.IntN(6) == 0
		for k := 0; k < run && i < rows; k++ {
			if null {
				b.Field(0).AppendNull()
				b.Field(1).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(v)
				b.Field(1).(*array.StringBuilder).Append([]string{"a", "bb", "", "dddd", "e"}[v])
			}
			lb := b.Field(2).(*array.ListBuilder)
			if i%11 == 0 {
				lb.AppendNull()
			} else {
				lb.Append(true)
				for j := range i % 4 {
					lb.ValueBuilder().(*array.Int32Builder).Append(int32(i*10 + j))
				}
			}
			i++
		}
	}
	return b.NewRecordBatch()
}

// checkRunEndEncoded checks that got (run_end_encoded) holds exactly the
// values of want[from:from+got.Len()], in maximal runs: run ends found by
// a linear walk here, adjacent runs different.
func checkRunEndEncoded(t *testing.T, name string, got arrow.Array, want arrow.Array, from int) {
	t.Helper()
	ree, ok := got.(*array.RunEndEncoded)
	if !ok {
		t.Fatalf("%s: %s, want run_end_encoded", name, got.DataType())
	}
	ends := ree.RunEndsArr()
	vals := ree.Values()
	var endAt func(int) int
	switch e := ends.(type) {
	case *array.Int32:
		endAt = func(j int) int { return int(e.Value(j)) }
	case *array.Int16:
		endAt = func(j int) int { return int(e.Value(j)) }
	case *array.Int64:
		endAt = func(j int) int { return int(e.Value(j)) }
	}
	start := 0
	for j := 0; j < ends.Len(); j++ {
		end := endAt(j)
		if end <= start || end > ree.Len() {
			t.Fatalf("%s: run %d ends at %d after %d (length %d)", name, j, end, start, ree.Len())
		}
		for k := start; k < end; k++ {
			if !array.SliceEqual(vals, int64(j), int64(j+1), want, int64(from+k), int64(from+k+1)) {
				t.Fatalf("%s row %d: run %d value %v, want %v", name, from+k, j, vals.GetOneForMarshal(j), want.GetOneForMarshal(from+k))
			}
		}
		if j > 0 && array.SliceEqual(vals, int64(j-1), int64(j), vals, int64(j), int64(j+1)) {
			t.Fatalf("%s: runs %d and %d hold the same value", name, j-1, j)
		}
		start = end
	}
	if start != ree.Len() {
		t.Fatalf("%s: runs cover %d of %d rows", name, start, ree.Len())
	}
}

// checkListView checks that got (list_view) holds the lists of
// want[from:...], element by element.
func checkListView(t *testing.T, name string, got arrow.Array, want *array.List, from int) {
	t.Helper()
	lv, ok := got.(*array.ListView)
	if !ok {
		t.Fatalf("%s: %s, want list_view", name, got.DataType())
	}
	if err := lv.ValidateFull(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := 0; i < lv.Len(); i++ {
		k := from + i
		if lv.IsNull(i) != want.IsNull(k) {
			t.Fatalf("%s row %d: null %v", name, k, lv.IsNull(i))
		}
		if lv.IsNull(i) {
			continue
		}
		gs, ge := lv.ValueOffsets(i)
		ws, we := want.ValueOffsets(k)
		if ge-gs != we-ws || !array.SliceEqual(lv.ListValues(), gs, ge, want.ListValues(), ws, we) {
			t.Fatalf("%s row %d: list differs", name, k)
		}
	}
}

// TestReadRunEndEncodedAndListViews reads a pqarrow file (ARROW:schema
// naming Int64, String, List) with ReadOptions.RunEndEncoded and
// ListViews: the requests win, and the values are the source's.
func TestReadRunEndEncodedAndListViews(t *testing.T) {
	const rows = 5000
	src := layoutsRecord(t, rows)
	defer src.Release()
	path := pqarrowFile(t, src, parquet.NewWriterProperties(parquet.WithDataPageSize(2<<10)))
	recs := readRecords(t, path, &arrowpq.ReadOptions{BatchSize: 777, RunEndEncoded: []string{"i", "s"}, ListViews: true})
	row := 0
	for _, rec := range recs {
		checkRunEndEncoded(t, "i", rec.Column(0), src.Column(0), row)
		checkRunEndEncoded(t, "s", rec.Column(1), src.Column(1), row)
		checkListView(t, "l", rec.Column(2), src.Column(2).(*array.List), row)
		row += int(rec.NumRows())
		rec.Release()
	}
	if row != rows {
		t.Fatalf("%d rows, want %d", row, rows)
	}
}
