package arrowpq_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// A filtered read: only the rows where the predicate is TRUE come back;
// row groups and pages that cannot match are not read (Reader.Stats).
func ExampleReadOptions_filter() {
	dir, err := os.MkdirTemp("", "arrowpq-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "orders.parquet")

	// 1000 orders, sorted by id, in 4 row groups.
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "mode", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	modes := []string{"AIR", "MAIL", "SHIP", "RAIL"}
	for i := range 1000 {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(modes[i%4])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := arrowpq.CreateFile(path, schema, &arrowpq.WriteOptions{RowGroupRows: 250, MaxRowsPerPage: 50})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	filter, err := arrowpq.ParseFilter("id BETWEEN 600 AND 609 AND mode IN ('AIR', 'RAIL')")
	if err != nil {
		log.Fatal(err)
	}
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Filter: filter})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		batch := r.RecordBatch()
		ids := batch.Column(0).(*array.Int64)
		modes := batch.Column(1).(*array.String)
		for i := range int(batch.NumRows()) {
			fmt.Println(ids.Value(i), modes.Value(i))
		}
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	st := r.Stats()
	fmt.Printf("row groups %d, pruned by statistics %d; pages %d, skipped %d; rows decoded %d, returned %d\n",
		st.RowGroups, st.RowGroupsPrunedByStatistics, st.Pages, st.PagesSkippedByPageIndex, st.RowsDecoded, st.RowsReturned)
	// Output:
	// 600 AIR
	// 603 RAIL
	// 604 AIR
	// 607 RAIL
	// 608 AIR
	// row groups 4, pruned by statistics 3; pages 10, skipped 8; rows decoded 50, returned 5
}
