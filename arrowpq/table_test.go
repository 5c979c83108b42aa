package arrowpq_test

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// failingSource yields its batches, then fails.
type failingSource struct {
	array.RecordReader
	err error
}

func (f *failingSource) Err() error { return f.err }

// TestReadAll: the table holds every batch of the source in order, keeps
// them alive after the source is released, and a failing source gives its
// error and no table.
func TestReadAll(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for i := range 3 {
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{int64(10 * i), int64(10*i + 1)}, nil)
		a := b.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{a}, 2))
		a.Release()
		b.Release()
	}
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := arrowpq.ReadAll(rr)
	rr.Release()
	for _, r := range recs {
		r.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, ch := range tbl.Column(0).Data().Chunks() {
		got = append(got, ch.(*array.Int64).Int64Values()...)
	}
	if want := []int64{0, 1, 10, 11, 20, 21}; tbl.NumRows() != 6 || len(got) != 6 || got[0] != want[0] || got[5] != want[5] || got[3] != want[3] {
		t.Errorf("table of %d rows %v, want %v", tbl.NumRows(), got, want)
	}
	tbl.Release()

	boom := errors.New("boom")
	b := array.NewInt64Builder(mem)
	b.Append(1)
	a := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{a}, 1)
	a.Release()
	b.Release()
	rr, _ = array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	tbl, err = arrowpq.ReadAll(&failingSource{RecordReader: rr, err: boom})
	rr.Release()
	if !errors.Is(err, boom) || tbl != nil {
		t.Errorf("failing source: table %v, error %v", tbl, err)
	}
}
