package arrowpq_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func ExampleNewWriter() {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"a", "", "c"}, []bool{true, false, true})
	rec := b.NewRecordBatch()
	defer rec.Release()

	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, schema, &arrowpq.WriteOptions{
		Compression: arrowpq.Zstd,
		Columns:     map[string]arrowpq.ColumnOptions{"id": {BloomFilterNDV: 1000}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	tbl, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer tbl.Release()
	fmt.Println(tbl.NumRows(), "rows,", tbl.NumCols(), "columns")
	// Output: 3 rows, 2 columns
}

func ExampleWriteTable() {
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	b.AppendValues([]float64{1.5, 2.5}, nil)
	arr := b.NewArray()
	defer arr.Release()
	col := arrow.NewColumnFromArr(schema.Field(0), arr)
	defer col.Release()
	tbl := array.NewTable(schema, []arrow.Column{col}, 2)
	defer tbl.Release()

	var buf bytes.Buffer
	if err := arrowpq.WriteTable(&buf, tbl, &arrowpq.WriteOptions{Compression: arrowpq.Uncompressed}); err != nil {
		log.Fatal(err)
	}
	r, err := arrowpq.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println(r.NumRows(), "rows, created by", r.Metadata().CreatedBy())
	// Output: 2 rows, created by arrowpq version 0.1.0-dev
}
