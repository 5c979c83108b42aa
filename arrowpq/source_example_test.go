package arrowpq_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// Read a Parquet file from an HTTP server that answers Range requests;
// s3://bucket/key URLs work the same way with AWS credentials in the
// environment (see docs/object-storage.md).
func ExampleOpenURL() {
	srv := httptest.NewServer(http.FileServer(http.Dir("../testdata")))
	defer srv.Close()
	r, err := arrowpq.OpenURL(context.Background(), srv.URL+"/sample.parquet", &arrowpq.ReadOptions{Columns: []string{"id", "city"}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Schema().Field(1).Name, rows)
	// Output: city 100
}
