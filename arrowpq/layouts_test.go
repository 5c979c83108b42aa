package arrowpq_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
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

// layoutSource builds a batch of list views (one with views out of row
// order and overlapping, one large), run-end encoded columns (int64 and
// string values, int32 and int16 run ends, nulls in runs) and a list of
// run-end encoded values, and the same rows in plain layouts (lists and
// values), built independently from the same random choices.
func layoutSource(t *testing.T, rows int) (views, plain arrow.RecordBatch) {
	t.Helper()
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(18, 6))
	// Child values and per-row (offset, size, null) picked first.
	child := make([]int64, 3*rows)
	for i := range child {
		child[i] = rng.Int64N(1000) - 500
	}
	type view struct {
		off, size int
		null      bool
	}
	shuffled := make([]view, rows)
	for i := range shuffled {
		size := rng.IntN(4)
		shuffled[i] = view{off: rng.IntN(len(child) - size), size: size, null: rng.IntN(9) == 0}
	}
	type run struct {
		end  int
		v    int64
		null bool
	}
	var runs []run
	for end := 0; end < rows; {
		end = min(rows, end+1+rng.IntN(30))
		runs = append(runs, run{end: end, v: rng.Int64N(6), null: rng.IntN(5) == 0})
	}

	viewSchema := arrow.NewSchema([]arrow.Field{
		{Name: "lv", Type: arrow.ListViewOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "llv", Type: arrow.LargeListViewOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "ree", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "rees", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	plainSchema := arrow.NewSchema([]arrow.Field{
		{Name: "lv", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "llv", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "ree", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "rees", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	word := func(v int64) string { return strings.Repeat("x", int(v)) + "y" }

	// lv points into one child of 3×rows values, views out of row order
	// and overlapping; llv is built by the builder (views end to end).
	vb := array.NewRecordBuilder(mem, viewSchema)
	defer vb.Release()
	vb.Field(0).AppendNulls(rows) // replaced by lv below
	for i := range rows {
		v := shuffled[i]
		if v.null {
			vb.Field(1).AppendNull()
			continue
		}
		lb := vb.Field(1).(*array.LargeListViewBuilder)
		lb.AppendWithSize(true, v.size)
		for _, x := range child[v.off : v.off+v.size] {
			lb.ValueBuilder().(*array.Int64Builder).Append(x)
		}
	}
	offs, sizes := make([]int32, rows), make([]int32, rows)
	valid := make([]byte, (rows+7)/8)
	nulls := 0
	for i, v := range shuffled {
		offs[i], sizes[i] = int32(v.off), int32(v.size)
		if v.null {
			nulls++
			offs[i], sizes[i] = 0, 0
		} else {
			valid[i/8] |= 1 << (i % 8)
		}
	}
	cb := array.NewInt64Builder(mem)
	cb.AppendValues(child, nil)
	childArr := cb.NewArray()
	cb.Release()
	lvData := array.NewData(viewSchema.Field(0).Type, rows, []*memory.Buffer{memory.NewBufferBytes(valid),
		memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sizes))},
		[]arrow.ArrayData{childArr.Data()}, nulls, 0)
	childArr.Release()
	lv := array.MakeFromData(lvData)
	lvData.Release()
	for c := 2; c < 4; c++ {
		rb := vb.Field(c).(*array.RunEndEncodedBuilder)
		prev := 0
		for _, r := range runs {
			if r.null {
				rb.AppendNull()
			} else {
				rb.Append(uint64(r.end - prev))
				if c == 2 {
					rb.ValueBuilder().(*array.Int64Builder).Append(r.v)
				} else {
					rb.ValueBuilder().(*array.StringBuilder).Append(word(r.v))
				}
			}
			if r.null && r.end-prev > 1 {
				rb.ContinueRun(uint64(r.end - prev - 1))
			}
			prev = r.end
		}
	}
	built := vb.NewRecordBatch()
	defer built.Release()
	cols := built.Columns()
	views = array.NewRecordBatch(viewSchema, []arrow.Array{lv, cols[1], cols[2], cols[3]}, int64(rows))
	lv.Release()

	pb := array.NewRecordBuilder(mem, plainSchema)
	defer pb.Release()
	for c := range 2 {
		for i := range rows {
			v := shuffled[i]
			if v.null {
				pb.Field(c).AppendNull()
				continue
			}
			lb := pb.Field(c).(array.ListLikeBuilder)
			lb.Append(true)
			for _, x := range child[v.off : v.off+v.size] {
				lb.ValueBuilder().(*array.Int64Builder).Append(x)
			}
		}
	}
	prev := 0
	for _, r := range runs {
		for range r.end - prev {
			if r.null {
				pb.Field(2).AppendNull()
				pb.Field(3).AppendNull()
				continue
			}
			pb.Field(2).(*array.Int64Builder).Append(r.v)
			pb.Field(3).(*array.StringBuilder).Append(word(r.v))
		}
		prev = r.end
	}
	plain = pb.NewRecordBatch()
	return views, plain
}

// checkLists compares the lists of got (any list flavour) with those of
// want, rows from..from+got.Len().
func checkLists(t *testing.T, name string, got arrow.Array, want array.VarLenListLike, from int) {
	t.Helper()
	g, ok := got.(array.VarLenListLike)
	if !ok {
		t.Fatalf("%s: %s is not a list", name, got.DataType())
	}
	for i := 0; i < g.Len(); i++ {
		k := from + i
		if g.IsNull(i) != want.IsNull(k) {
			t.Fatalf("%s row %d: null %v", name, k, g.IsNull(i))
		}
		if g.IsNull(i) {
			continue
		}
		gs, ge := g.ValueOffsets(i)
		ws, we := want.ValueOffsets(k)
		if !array.SliceEqual(g.ListValues(), gs, ge, want.ListValues(), ws, we) {
			t.Fatalf("%s row %d: list differs", name, k)
		}
	}
}

// TestWriteLayouts writes list views (out of order and overlapping, and
// large) and run-end encoded columns. arrowpq reads the types back from
// ARROW:schema with the values of the plain rows built beside them;
// without ARROW:schema, pqarrow and DuckDB (the oracle) read lists and
// plain values equal to those rows.
func TestWriteLayouts(t *testing.T) {
	const rows = 3000
	views, plain := layoutSource(t, rows)
	defer views.Release()
	defer plain.Release()
	data := writeBytes(t, views, &arrowpq.WriteOptions{RowGroupRows: 1000})
	path := t.TempDir() + "/layouts.parquet"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	recs := readRecords(t, path, &arrowpq.ReadOptions{BatchSize: 400})
	row := 0
	for _, rec := range recs {
		if !rec.Schema().Equal(views.Schema()) {
			t.Fatalf("schema %v, want %v", rec.Schema(), views.Schema())
		}
		checkLists(t, "lv", rec.Column(0), plain.Column(0).(array.VarLenListLike), row)
		checkLists(t, "llv", rec.Column(1), plain.Column(1).(array.VarLenListLike), row)
		checkRunEndEncoded(t, "ree", rec.Column(2), plain.Column(2), row)
		checkRunEndEncoded(t, "rees", rec.Column(3), plain.Column(3), row)
		row += int(rec.NumRows())
		rec.Release()
	}
	if row != rows {
		t.Fatalf("%d rows, want %d", row, rows)
	}

	// The plain layouts without ARROW:schema, by us and by pqarrow.
	want, err := oracle.RenderRecord(nil, plain)
	if err != nil {
		t.Fatal(err)
	}
	ours, _, _ := readAll(t, path, &arrowpq.ReadOptions{IgnoreArrowSchema: true})
	if !bytes.Equal(ours, want) {
		t.Error("arrowpq without ARROW:schema reads other rows than the plain layouts")
	}
	bare := writeBytes(t, views, &arrowpq.WriteOptions{RowGroupRows: 1000, ArrowSchema: arrowpq.Off})
	theirs := readWithPqarrow(t, bare)
	defer theirs.Release()
	got, err := oracle.RenderRecord(nil, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("pqarrow reads other rows than the plain layouts")
	}
	if testing.Short() {
		return
	}
	oracle.Need(t)
	barePath := t.TempDir() + "/bare.parquet"
	if err := os.WriteFile(barePath, bare, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := oracle.DumpMany("duckdb", []string{path, barePath})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Err != "" {
			t.Fatalf("DuckDB file %d: %s", i, r.Err)
		}
		if err := oracle.Compare(want, r.Rows, oracle.AllowancesFor("duckdb")); err != nil {
			t.Errorf("DuckDB file %d reads other rows than the plain layouts: %v", i, err)
		}
	}
}
