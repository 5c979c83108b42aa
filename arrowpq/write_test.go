package arrowpq_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// writeBytes writes rec as a Parquet file in memory.
func writeBytes(t testing.TB, rec arrow.RecordBatch, opts *arrowpq.WriteOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, rec.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readOurs(t testing.TB, b []byte) arrow.Table {
	t.Helper()
	tbl, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func renderRec(t testing.TB, rec arrow.RecordBatch) []byte {
	t.Helper()
	out, err := oracle.RenderRecord(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func renderTbl(t testing.TB, tbl arrow.Table) []byte {
	t.Helper()
	out, err := oracle.RenderTable(tbl)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteRoundTripSmoke(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := genRecord(t, mem, 300, 5, 1)
	defer rec.Release()
	b := writeBytes(t, rec, &arrowpq.WriteOptions{Allocator: mem, MaxRowsPerPage: 30, RowGroupRows: 100})
	tbl := readOurs(t, b)
	defer tbl.Release()
	want, got := renderRec(t, rec), renderTbl(t, tbl)
	if err := oracle.Compare(got, want, oracle.Allowances{}); err != nil {
		t.Fatal(err)
	}
	if !tbl.Schema().Equal(rec.Schema()) {
		t.Errorf("schema:\n got %s\nwant %s", tbl.Schema(), rec.Schema())
	}
}

// TestWriteManyBatches writes one record in uneven batches with Write and
// as a table whose columns are chunked differently: the file reads back as
// the whole record.
func TestWriteManyBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := genRecord(t, mem, 500, 0, 5)
	defer rec.Release()
	want := renderRec(t, rec)
	opts := &arrowpq.WriteOptions{RowGroupRows: 170, MaxRowsPerPage: 40, Allocator: mem}

	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, rec.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, 1}, {1, 1}, {1, 230}, {230, 499}, {499, 500}} {
		s := rec.NewSlice(r[0], r[1])
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tbl := readOurs(t, buf.Bytes())
	if err := oracle.Compare(renderTbl(t, tbl), want, oracle.Allowances{}); err != nil {
		t.Errorf("batches: %v", err)
	}
	tbl.Release()

	// A table: column i is cut into chunks at multiples of 37+i rows.
	var cols []arrow.Column
	for i, a := range rec.Columns() {
		var chunks []arrow.Array
		for s := 0; s < 500; s += 37 + i {
			chunks = append(chunks, array.NewSlice(a, int64(s), int64(min(500, s+37+i))))
		}
		ch := arrow.NewChunked(a.DataType(), chunks)
		for _, c := range chunks {
			c.Release()
		}
		cols = append(cols, *arrow.NewColumn(rec.Schema().Field(i), ch))
		ch.Release()
	}
	tab := array.NewTable(rec.Schema(), cols, 500)
	for _, c := range cols {
		c.Release()
	}
	defer tab.Release()
	buf.Reset()
	if err := arrowpq.WriteTable(&buf, tab, opts); err != nil {
		t.Fatal(err)
	}
	tbl = readOurs(t, buf.Bytes())
	defer tbl.Release()
	if err := oracle.Compare(renderTbl(t, tbl), want, oracle.Allowances{}); err != nil {
		t.Errorf("table: %v", err)
	}
	if n := len(footerOf(t, buf.Bytes()).Meta.RowGroups); n != 3 {
		t.Errorf("%d row groups of at most 170 rows for 500", n)
	}
}
