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

// A filter from text or built in Go, bound to a file's schema, then
// applied to the batches read: the "read everything, then filter" path
// that ReadOptions.Filter will replace.
func ExampleParseFilter() {
	// A small file: order keys 1..6, ship modes, one missing.
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_shipmode", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4, 5, 6}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"AIR", "MAIL", "", "SHIP", "AIR", "RAIL"},
		[]bool{true, true, false, true, true, true})
	rec := b.NewRecordBatch()
	var file bytes.Buffer
	w, _ := arrowpq.NewWriter(&file, schema, nil)
	w.Write(rec)
	w.Close()

	filter, err := arrowpq.ParseFilter("l_orderkey BETWEEN 2 AND 5 AND l_shipmode IN ('AIR', 'MAIL')")
	if err != nil {
		log.Fatal(err)
	}
	// The same predicate in Go.
	same := arrowpq.And(arrowpq.Col("l_orderkey").Between(2, 5), arrowpq.Col("l_shipmode").In("AIR", "MAIL"))
	fmt.Println(filter.String() == same.String())

	r, err := arrowpq.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	bound, err := filter.Bind(r.Schema(), r.Metadata().Schema)
	if err != nil {
		log.Fatal(err)
	}
	for r.Next() {
		sel, err := bound.Evaluate(r.RecordBatch())
		if err != nil {
			log.Fatal(err)
		}
		out, err := arrowpq.FilterBatch(context.Background(), nil, r.RecordBatch(), sel)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(sel.Ranges(), out.Column(0), out.Column(1))
		out.Release()
	}

	// Errors point at the token.
	_, err = arrowpq.ParseFilter("l_orderkey BETWEEN 2 OR 5")
	fmt.Println(err)
	// Output:
	// true
	// [1,2) [4,5) [2 5] ["MAIL" "AIR"]
	// arrowpq: filter: column 22: expected AND in BETWEEN … AND …, found 'OR'
	// 	l_orderkey BETWEEN 2 OR 5
	// 	                     ^
}
