package arrowpq_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
)

// failWriter accepts limit bytes, then fails.
type failWriter struct {
	limit int
	n     int
}

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.limit {
		k := w.limit - w.n
		w.n = w.limit
		return k, errDiskFull
	}
	w.n += len(p)
	return len(p), nil
}

// TestWriteFailingWriter cuts the output at every power of two: the error
// must surface from Write or Close, stay sticky, and wrap the cause.
func TestWriteFailingWriter(t *testing.T) {
	mem := memory.DefaultAllocator
	rec := genRecord(t, mem, 2000, 0, 3)
	defer rec.Release()
	full := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: 500})
	for limit := 1; limit < len(full); limit *= 2 {
		fw := &failWriter{limit: limit}
		w, err := arrowpq.NewWriter(fw, rec.Schema(), &arrowpq.WriteOptions{RowGroupRows: 500})
		if err != nil {
			t.Fatal(err)
		}
		werr := w.Write(rec)
		cerr := w.Close()
		if cerr == nil {
			t.Fatalf("limit %d of %d: Close succeeded", limit, len(full))
		}
		if !errors.Is(cerr, errDiskFull) {
			t.Errorf("limit %d: Close error %v does not wrap the cause", limit, cerr)
		}
		if werr != nil && werr.Error() != cerr.Error() {
			t.Errorf("limit %d: Write %v, Close %v: not the same first error", limit, werr, cerr)
		}
		if err := w.Write(rec); err == nil || err.Error() != cerr.Error() {
			t.Errorf("limit %d: Write after failure: %v", limit, err)
		}
	}
}

// TestCreateFileLeavesNothing: a failed write leaves neither the target
// nor the temporary file; a successful one leaves exactly the target.
func TestCreateFileLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	mem := memory.DefaultAllocator
	rec := genRecord(t, mem, 100, 0, 4)
	defer rec.Release()
	path := filepath.Join(dir, "out.parquet")

	w, err := arrowpq.CreateFile(path, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, nil)
	b := array.NewInt8Builder(mem)
	b.Append(1)
	arr := b.NewArray()
	bad := array.NewRecordBatch(other, []arrow.Array{arr}, 1)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("target exists before Close: %v", err)
	}
	if err := w.Write(bad); err == nil {
		t.Fatal("Write of a record with another schema succeeded")
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close after a failed Write succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}

	w, err = arrowpq.CreateFile(path, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "out.parquet" {
		t.Errorf("directory holds %v", entries)
	}
	f, err := arrowpq.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 100 {
		t.Errorf("%d rows", f.NumRows())
	}
	f.Close()
}

// TestWriteUnsupportedType names the field whose type Parquet cannot hold.
func TestWriteUnsupportedType(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "ok", Type: arrow.PrimitiveTypes.Int32},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "bad", Type: arrow.SparseUnionOf(nil, nil)})},
	}, nil)
	_, err := arrowpq.NewWriter(&bytes.Buffer{}, s, nil)
	if err == nil {
		t.Fatal("no error for a union field")
	}
	if !strings.Contains(err.Error(), "st.bad") || !errors.Is(err, metadata.ErrUnsupported) {
		t.Errorf("error %v does not name st.bad or wrap ErrUnsupported", err)
	}
	var e *arrowpq.Error
	if !errors.As(err, &e) || e.Op != "write" {
		t.Errorf("error %v is not an *arrowpq.Error of op write", err)
	}
}

// TestWriteBadOptions rejects encodings a type cannot use and options for
// columns the schema lacks.
func TestWriteBadOptions(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil)
	for _, o := range []*arrowpq.WriteOptions{
		{Encoding: arrowpq.DeltaBinaryPacked},
		{Columns: map[string]arrowpq.ColumnOptions{"nope": {}}},
		{Columns: map[string]arrowpq.ColumnOptions{"f": {Encoding: arrowpq.RLE}}},
		{Columns: map[string]arrowpq.ColumnOptions{"f": {BloomFilterNDV: 10, BloomFilterFPP: 2}}},
	} {
		if _, err := arrowpq.NewWriter(&bytes.Buffer{}, s, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestWriteValueOutOfRange: values a Parquet type cannot hold are errors
// naming the column, never silent wraps.
func TestWriteValueOutOfRange(t *testing.T) {
	mem := memory.DefaultAllocator
	b := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Second})
	b.Append(arrow.Time32(3_000_000)) // ×1000 overflows INT32
	rec := oneColumn("t", b.NewArray())
	defer rec.Release()
	w, err := arrowpq.NewWriter(&bytes.Buffer{}, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if err == nil || !strings.Contains(err.Error(), "column t") {
		t.Errorf("Write: %v, want an error naming column t", err)
	}
	ib := array.NewMonthDayNanoIntervalBuilder(mem)
	ib.Append(arrow.MonthDayNanoInterval{Months: -1})
	rec2 := oneColumn("iv", ib.NewArray())
	defer rec2.Release()
	w, _ = arrowpq.NewWriter(&bytes.Buffer{}, rec2.Schema(), nil)
	if err := w.Write(rec2); err == nil || !strings.Contains(err.Error(), "column iv") {
		t.Errorf("negative interval: %v", err)
	}
}

// TestAbortKeepsTarget checks that an aborted CreateFile leaves an existing
// target byte for byte and no temporary file behind.
func TestAbortKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	old := []byte("the previous contents")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	w, err := arrowpq.CreateFile(path, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != string(old) {
		t.Errorf("target after Abort = %q, %v; want %q", got, err, old)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after Abort, want only the target", len(entries))
	}
}
