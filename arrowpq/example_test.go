package arrowpq_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// Open a file and iterate its record batches, reading two columns, one of
// them a leaf inside a map.
func ExampleOpenFile() {
	r, err := arrowpq.OpenFile("../testdata/sample.parquet", &arrowpq.ReadOptions{
		Columns:   []string{"id", "city"},
		BatchSize: 40,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println(r.Schema())
	for r.Next() {
		rec := r.RecordBatch()
		fmt.Println(rec.NumRows(), "rows; first city:", rec.Column(1).ValueStr(0))
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// schema:
	//   fields: 2
	//     - id: type=int64
	//     - city: type=utf8, nullable
	// 40 rows; first city: Lisbon
	// 10 rows; first city: Lisbon
	// 40 rows; first city: Lisbon
	// 10 rows; first city: Lisbon
}

// Read a whole file into an Arrow table.
func ExampleReadTable() {
	f, err := os.Open("../testdata/sample.parquet")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	tbl, err := arrowpq.ReadTable(context.Background(), f, st.Size(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer tbl.Release()
	fmt.Println(tbl.NumRows(), "rows,", tbl.NumCols(), "columns")
	// Output: 100 rows, 6 columns
}
