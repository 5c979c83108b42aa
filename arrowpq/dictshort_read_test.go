package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// TestShortDictionaryStrings reads string columns of short dictionaries
// (pagecodec.ShortDict: values of one length, entries of 8 to 32 bytes,
// empty values, nulls, a dictionary too large for entries) that pqarrow
// wrote in many small pages and row groups, in batches that straddle
// pages, and compares every slot with the source.
func TestShortDictionaryStrings(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 14))
	cols := []struct {
		name     string
		values   []string
		nullable bool
	}{
		{"flag", []string{"N", "R", "A"}, false},
		{"flag_null", []string{"O", "F"}, true},
		{"mode", []string{"TRUCK", "MAIL", "REG AIR", "AIR", "FOB", "RAIL", "SHIP"}, false},
		{"instruct", []string{"DELIVER IN PERSON", "TAKE BACK RETURN", "NONE", "COLLECT COD"}, true},
		{"equal5", nil, false},
		{"with_empty", []string{"", "a", "", "bcdefghijklmnopqrstuvwxyz01234"}, true},
		{"len31", []string{"0123456789012345678901234567890", "x"}, false},
		{"many", nil, false},
	}
	for i := range 50 {
		cols[4].values = append(cols[4].values, fmt.Sprintf("k%04d", i))
	}
	for i := range 9000 {
		cols[7].values = append(cols[7].values, fmt.Sprintf("m%d", i)) // entries past 64 KiB
	}
	var fields []arrow.Field
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: c.name, Type: arrow.BinaryTypes.String, Nullable: c.nullable})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	const rows = 30_000
	for range rows {
		for j, c := range cols {
			sb := b.Field(j).(*array.StringBuilder)
			if c.nullable && rng.IntN(10) == 0 {
				sb.AppendNull()
				continue
			}
			sb.Append(c.values[rng.IntN(len(c.values))])
		}
	}
	src := b.NewRecordBatch()
	defer src.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDataPageSize(2<<10), parquet.WithMaxRowGroupLength(11_000),
		parquet.WithDictionaryPageSizeLimit(1<<20))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(src); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/short.parquet"
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, batch := range []int{1, 777, 4096, rows} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			recs := readRecords(t, path, &arrowpq.ReadOptions{BatchSize: batch})
			row := 0
			for _, rec := range recs {
				for j := range cols {
					got := rec.Column(j).(*array.String)
					want := src.Column(j).(*array.String)
					for i := range got.Len() {
						if got.IsNull(i) != want.IsNull(row+i) || got.Value(i) != want.Value(row+i) {
							t.Fatalf("column %s row %d: %q (null %v), want %q (null %v)", cols[j].name, row+i,
								got.Value(i), got.IsNull(i), want.Value(row+i), want.IsNull(row+i))
						}
					}
				}
				row += int(rec.NumRows())
				rec.Release()
			}
			if row != rows {
				t.Fatalf("%d rows, want %d", row, rows)
			}
		})
	}
}
