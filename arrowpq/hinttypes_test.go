package arrowpq_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

var regenArrowRS = flag.Bool("regen-arrowrs", false, "rewrite testdata/arrowrs_hint_types.parquet with arrow-rs (parquet-wasm from the oracle)")

// hintTypesFile was written by arrow-rs (parquet 59.3.0 in parquet-wasm
// 0.8.0) from hintTypesRecord, with testdata/arrowrs_write.mjs; see
// TestArrowSchemaHintTypes.
const hintTypesFile = "testdata/arrowrs_hint_types.parquet"

// hintTypesRecord holds the Arrow types that arrow-rs stores as bare
// INT64/INT32 columns, the real type only in ARROW:schema; every column has
// a null. Values are chosen by hand: a day in ms, 12:34:56, a negative
// instant, the largest Date64 multiple of a day below 2^53.
func hintTypesRecord() arrow.RecordBatch {
	mem := memory.DefaultAllocator
	fields := []arrow.Field{
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
		{Name: "t32s", Type: arrow.FixedWidthTypes.Time32s, Nullable: true},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "ts_s_tz", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "+01:00"}, Nullable: true},
		{Name: "dur_s", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true},
		{Name: "dur_us", Type: arrow.FixedWidthTypes.Duration_us, Nullable: true},
	}
	valid := []bool{true, true, false, true}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	b.Field(0).(*array.Date64Builder).AppendValues([]arrow.Date64{0, 1641600000000, 0, -86400000}, valid)
	b.Field(1).(*array.Time32Builder).AppendValues([]arrow.Time32{0, 45296, 0, 86399}, valid)
	b.Field(2).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, 1700000000, 0, -1}, valid)
	b.Field(3).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{-62135596800, 1, 0, 253402300799}, valid)
	b.Field(4).(*array.DurationBuilder).AppendValues([]arrow.Duration{-1, 3600, 0, 1 << 40}, valid)
	b.Field(5).(*array.DurationBuilder).AppendValues([]arrow.Duration{1, -3600000000, 0, 1 << 62}, valid)
	return b.NewRecordBatch()
}

// writeHintTypesFile has arrow-rs write hintTypesRecord to hintTypesFile.
func writeHintTypesFile(t *testing.T) {
	oracle.Need(t)
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	rec := hintTypesRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "hint.arrows")
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("node", "testdata/arrowrs_write.mjs", oracle.Home(), in, hintTypesFile).CombinedOutput(); err != nil {
		t.Fatalf("arrowrs_write.mjs: %v: %s", err, out)
	}
}

// TestArrowSchemaHintTypes reads a file written by arrow-rs in which Date64,
// Time32(s), Timestamp(s) and Duration are bare INT64/INT32 columns: the
// ARROW:schema types come back with the written values, as arrow-rs reads
// them; pqarrow reads the same integers untyped, as does arrowpq without
// ARROW:schema.
func TestArrowSchemaHintTypes(t *testing.T) {
	if *regenArrowRS {
		writeHintTypesFile(t)
	}
	data, err := os.ReadFile(hintTypesFile)
	if err != nil {
		t.Fatal(err)
	}
	want := hintTypesRecord()
	defer want.Release()

	// The premise: arrow-rs wrote no annotation, only ARROW:schema.
	f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if cb := f.Meta.GetCreatedBy(); !strings.HasPrefix(cb, "parquet-rs") {
		t.Errorf("created_by %q: not written by arrow-rs", cb)
	}
	physical := []format.Type{format.Type_INT64, format.Type_INT32, format.Type_INT64, format.Type_INT64, format.Type_INT64, format.Type_INT64}
	for i, c := range f.Schema.Columns {
		el := c.Node.Element
		if c.Physical != physical[i] || el.LogicalType != nil || el.ConvertedType != nil {
			t.Errorf("column %s: %v, logical %v, converted %v; want bare %v", c.DottedPath, c.Physical, el.LogicalType, el.ConvertedType, physical[i])
		}
	}

	t.Run("arrowpq", func(t *testing.T) {
		got := readHintFile(t, data, nil)
		defer got.Release()
		if !got.Schema().Equal(want.Schema()) {
			t.Fatalf("schema\n got: %v\nwant: %v", got.Schema(), want.Schema())
		}
		for i := range want.Columns() {
			if !array.Equal(got.Column(i), want.Column(i)) {
				t.Errorf("%s: got %v, want %v", want.ColumnName(i), got.Column(i), want.Column(i))
			}
		}
	})
	t.Run("IgnoreArrowSchema", func(t *testing.T) {
		got := readHintFile(t, data, &arrowpq.ReadOptions{IgnoreArrowSchema: true})
		defer got.Release()
		for i, f := range got.Schema().Fields() {
			wantType := arrow.PrimitiveTypes.Int64
			if physical[i] == format.Type_INT32 {
				wantType = arrow.PrimitiveTypes.Int32
			}
			if !arrow.TypeEqual(f.Type, wantType) {
				t.Errorf("%s: %v, want %v", f.Name, f.Type, wantType)
			}
		}
	})
	t.Run("pqarrow", func(t *testing.T) {
		rdr, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		// pqarrow cannot read Duration at all ("no support for reading
		// columns of type: duration"): it is compared on the other columns.
		cols := []int{0, 1, 2, 3}
		rr, err := fr.GetRecordReader(context.Background(), cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		if !rr.Next() {
			t.Fatalf("pqarrow: no batch: %v", rr.Err())
		}
		theirs := rr.RecordBatch()
		ours := readHintFile(t, data, &arrowpq.ReadOptions{Columns: []string{"d64", "t32s", "ts_s", "ts_s_tz"}})
		defer ours.Release()
		// Nor does it apply ARROW:schema to bare integers (arrow-go
		// v18.8.0 reads them as Int64/Int32): it must read the same
		// integers that our typed arrays hold.
		for i := range cols {
			col := theirs.Column(i)
			raw := array.MakeFromData(array.NewData(col.DataType(), ours.Column(i).Len(), ours.Column(i).Data().Buffers(), nil, ours.Column(i).NullN(), 0))
			if !array.Equal(col, raw) {
				t.Errorf("%s: pqarrow reads %v, arrowpq %v", ours.ColumnName(i), col, ours.Column(i))
			}
			raw.Release()
		}
	})
	t.Run("arrow-rs", func(t *testing.T) {
		// arrow-rs (parquet-wasm) applies ARROW:schema as arrowpq does;
		// dump.mjs renders its typed values.
		oracle.Need(t)
		path, err := filepath.Abs(hintTypesFile)
		if err != nil {
			t.Fatal(err)
		}
		res, err := oracle.DumpMany("parquetwasm", []string{path})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Err != "" {
			t.Fatal(res[0].Err)
		}
		ours := readHintFile(t, data, nil)
		defer ours.Release()
		got, err := oracle.RenderRecord(nil, ours)
		if err != nil {
			t.Fatal(err)
		}
		if err := oracle.Compare(got, res[0].Rows, oracle.Allowances{}); err != nil {
			t.Errorf("arrowpq vs arrow-rs: %v\narrowpq:\n%s\narrow-rs:\n%s", err, got, res[0].Rows)
		}
	})
}

func readHintFile(t *testing.T, data []byte, opts *arrowpq.ReadOptions) arrow.RecordBatch {
	t.Helper()
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatalf("no batch: %v", r.Err())
	}
	rec := r.RecordBatch()
	rec.Retain()
	if r.Next() {
		t.Fatal("more than one batch")
	}
	return rec
}
