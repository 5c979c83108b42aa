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
	b := writeBytes(t, rec, nil)
	tbl := readOurs(t, b)
	defer tbl.Release()
	want, got := renderRec(t, rec), renderTbl(t, tbl)
	if err := oracle.Compare(got, want, oracle.Allowances{}); err != nil {
		t.Fatal(err)
	}
	if !tbl.Schema().Equal(rec.Schema()) {
		t.Errorf("schema:\n got %s\nwant %s", tbl.Schema(), rec.Schema())
	}
	_ = array.NewTableReader
}
