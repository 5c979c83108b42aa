package pqflight_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// Serve a directory over Flight on a loopback port, list it, and download
// two columns of a file, fetching its row groups in parallel.
func ExampleNewServer() {
	srv, err := pqflight.NewServer("../testdata", &pqflight.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	fs := flight.NewServerWithMiddleware(srv.Middleware())
	if err := fs.Init("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	fs.RegisterFlightService(srv)
	go fs.Serve()
	defer fs.Shutdown()

	ctx := context.Background()
	c, err := pqflight.Dial(fs.Addr().String(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	infos, err := pqflight.List(ctx, c, "")
	if err != nil {
		log.Fatal(err)
	}
	for _, info := range infos {
		fmt.Printf("%s: %d rows in %d endpoints\n", info.GetFlightDescriptor().GetPath()[0], info.GetTotalRecords(), len(info.GetEndpoint()))
	}
	tbl, err := pqflight.Download(ctx, c, "sample.parquet", &pqflight.ClientOptions{Columns: []string{"id", "city"}})
	if err != nil {
		log.Fatal(err)
	}
	defer tbl.Release()
	fmt.Println(tbl.NumRows(), "rows of", tbl.Schema().Field(0).Name, "and", tbl.Schema().Field(1).Name)
	// Output:
	// indexed.parquet: 100 rows in 1 endpoints
	// sample.parquet: 100 rows in 2 endpoints
	// 100 rows of id and city
}

// Upload a local Parquet file to a server, which writes it with zstd.
func ExampleUpload() {
	dir, err := os.MkdirTemp("", "pqflight-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := pqflight.NewServer(dir, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	fs := flight.NewServerWithMiddleware(srv.Middleware())
	if err := fs.Init("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	fs.RegisterFlightService(srv)
	go fs.Serve()
	defer fs.Shutdown()

	c, err := pqflight.Dial("grpc+tcp://"+fs.Addr().String(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := arrowpq.OpenFile("../testdata/sample.parquet", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	res, err := pqflight.Upload(context.Background(), c, "copy.parquet", r, &pqflight.ClientOptions{
		WriteOptions: &arrowpq.WriteOptions{Compression: arrowpq.Zstd},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Path, res.Rows)
	// Output:
	// copy.parquet 100
}

// Stream a file from a server batch by batch, two endpoints (row groups)
// fetched at once, without holding the whole file in memory.
func ExampleNewReader() {
	srv, err := pqflight.NewServer("../testdata", &pqflight.Options{ReadOnly: true, BatchSize: 30})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	fs := flight.NewServerWithMiddleware(srv.Middleware())
	if err := fs.Init("127.0.0.1:0"); err != nil {
		log.Fatal(err)
	}
	fs.RegisterFlightService(srv)
	go fs.Serve()
	defer fs.Shutdown()

	c, err := pqflight.Dial(fs.Addr().String(), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	r, err := pqflight.NewReader(context.Background(), c, "sample.parquet", &pqflight.ClientOptions{
		Columns:     []string{"id"},
		Parallelism: 2,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	for r.Next() {
		rec := r.RecordBatch()
		fmt.Println(rec.NumRows(), "rows from id", rec.Column(0).ValueStr(0))
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// 30 rows from id 0
	// 20 rows from id 30
	// 30 rows from id 50
	// 20 rows from id 80
}
