package arrowpq_test

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
)

// TestDocsNameRealOptions keeps the docs true: every ReadOptions.X and
// WriteOptions.X that docs/type-mapping.md and docs/features.md name is a
// field of arrowpq.ReadOptions or arrowpq.WriteOptions.
func TestDocsNameRealOptions(t *testing.T) {
	types := map[string]reflect.Type{
		"ReadOptions":  reflect.TypeFor[arrowpq.ReadOptions](),
		"WriteOptions": reflect.TypeFor[arrowpq.WriteOptions](),
	}
	// typemap.ReadOptions.X names typemap's own options, which the docs
	// may name too; the others are arrowpq's.
	re := regexp.MustCompile(`(\w+\.)?\b(ReadOptions|WriteOptions)\.([A-Za-z0-9_]+)`)
	found := 0
	for _, doc := range []string{"../docs/type-mapping.md", "../docs/features.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			if string(m[1]) == "typemap." {
				continue
			}
			found++
			if _, ok := types[string(m[2])].FieldByName(string(m[3])); !ok {
				t.Errorf("%s names %s.%s, which arrowpq.%s does not have", doc, m[2], m[3], m[2])
			}
		}
	}
	// The option table of type-mapping.md alone names seven.
	if found < 7 {
		t.Errorf("found only %d option names in the docs: did the format change?", found)
	}
}

// TestSmallDecimals reads DECIMAL columns of precision 7, 15 and 30 as
// Decimal32, Decimal64 and Decimal128 with ReadOptions.SmallDecimals, with
// the unscaled values that pqarrow reads (as Decimal128) from the same file;
// the request wins over the Decimal128 of ARROW:schema, which restores the
// writer's type when SmallDecimals is off.
func TestSmallDecimals(t *testing.T) {
	vals := []int64{-9999999, 0, 1234567, 42}
	valid := []bool{true, true, true, false}
	fields := []arrow.Field{
		{Name: "p7", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}, Nullable: true},
		{Name: "p15", Type: &arrow.Decimal128Type{Precision: 15, Scale: 3}, Nullable: true},
		{Name: "p30", Type: &arrow.Decimal128Type{Precision: 30, Scale: 4}, Nullable: true},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i := range fields {
		for k, v := range vals {
			if valid[k] {
				b.Field(i).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
			} else {
				b.Field(i).AppendNull()
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	bare := writeBytes(t, rec, &arrowpq.WriteOptions{ArrowSchema: arrowpq.Off})

	got := readHintFile(t, bare, &arrowpq.ReadOptions{SmallDecimals: true})
	defer got.Release()
	want := []arrow.DataType{
		&arrow.Decimal32Type{Precision: 7, Scale: 2},
		&arrow.Decimal64Type{Precision: 15, Scale: 3},
		&arrow.Decimal128Type{Precision: 30, Scale: 4},
	}
	theirs := readWithPqarrow(t, bare)
	defer theirs.Release()
	for i, dt := range want {
		col := got.Column(i)
		if !arrow.TypeEqual(col.DataType(), dt) {
			t.Errorf("%s: %v, want %v", fields[i].Name, col.DataType(), dt)
			continue
		}
		ref := theirs.Column(i).(*array.Decimal128)
		for k := range vals {
			if col.IsNull(k) != ref.IsNull(k) {
				t.Errorf("%s[%d]: null %v, pqarrow %v", fields[i].Name, k, col.IsNull(k), ref.IsNull(k))
				continue
			}
			if col.IsNull(k) {
				continue
			}
			var unscaled int64
			switch c := col.(type) {
			case *array.Decimal32:
				unscaled = int64(c.Value(k))
			case *array.Decimal64:
				unscaled = int64(c.Value(k))
			case *array.Decimal128:
				unscaled = int64(c.Value(k).LowBits())
			}
			if r := ref.Value(k); unscaled != vals[k] || r != decimal128.FromI64(vals[k]) {
				t.Errorf("%s[%d]: %d, pqarrow %v, want %d", fields[i].Name, k, unscaled, r, vals[k])
			}
		}
	}

	// With ARROW:schema (Decimal128 for all three), the request still
	// wins; without it, ARROW:schema restores the writer's Decimal128.
	withSchema := writeBytes(t, rec, nil)
	small := readHintFile(t, withSchema, &arrowpq.ReadOptions{SmallDecimals: true})
	defer small.Release()
	for i, dt := range want {
		if got := small.Column(i).DataType(); !arrow.TypeEqual(got, dt) {
			t.Errorf("with ARROW:schema and SmallDecimals, %s: %v, want %v", fields[i].Name, got, dt)
		}
		if !array.Equal(small.Column(i), got.Column(i)) {
			t.Errorf("with ARROW:schema and SmallDecimals, %s differs from the read without ARROW:schema", fields[i].Name)
		}
	}
	restored := readHintFile(t, withSchema, nil)
	defer restored.Release()
	if !restored.Schema().Equal(rec.Schema()) {
		t.Errorf("with ARROW:schema: %v, want %v", restored.Schema(), rec.Schema())
	}
}

// TestRootName writes the schema root under WriteOptions.RootName, as the
// footer shows it; pqarrow reads the file.
func TestRootName(t *testing.T) {
	rec := hintTypesRecord()
	defer rec.Release()
	for _, tc := range []struct{ opt, want string }{{"", "schema"}, {"spark_schema", "spark_schema"}} {
		data := writeBytes(t, rec, &arrowpq.WriteOptions{RootName: tc.opt})
		f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Schema.Root.Name; got != tc.want {
			t.Errorf("RootName %q: root %q, want %q", tc.opt, got, tc.want)
		}
		if got := f.Meta.Schema[0].Name; got != tc.want {
			t.Errorf("RootName %q: FileMetaData.schema[0] %q, want %q", tc.opt, got, tc.want)
		}
		rdr, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if got := rdr.MetaData().Schema.Root().Name(); got != tc.want {
			t.Errorf("RootName %q: pqarrow sees root %q", tc.opt, got)
		}
	}
}

func readWithPqarrow(t *testing.T, data []byte) arrow.RecordBatch {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if !rr.Next() {
		t.Fatalf("pqarrow: no batch: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	rec.Retain()
	return rec
}
