package pqflight_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// arrowSize is the size of the buffers of an array and its children.
func arrowSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrowSize(c)
	}
	return n
}

// BenchmarkDoGet reads the same file (400,000 generated rows: int64,
// string, float64, list<string>; 4 row groups) locally with arrowpq and
// over Flight on loopback, one stream or the endpoints in parallel.
// SetBytes is the size of the Arrow buffers of the whole table.
func BenchmarkDoGet(b *testing.B) {
	const rows = 400_000
	root := b.TempDir()
	path := filepath.Join(root, "bench.parquet")
	writeGen(b, path, rows, rows/4)
	tbl := genTable(rows, rows)
	var size int64
	for i := 0; i < int(tbl.NumCols()); i++ {
		for _, c := range tbl.Column(i).Data().Chunks() {
			size += arrowSize(c.Data())
		}
	}
	tbl.Release()
	ts := startServer(b, root, nil)
	ctx := context.Background()
	count := func(b *testing.B, got int64) {
		if got != rows {
			b.Fatalf("%d rows, want %d", got, rows)
		}
	}

	b.Run("source=local", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			r, err := arrowpq.OpenFile(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			r.Close()
			count(b, n)
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("source=flight/streams=1", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			stream, err := ts.client.DoGet(ctx, &flight.Ticket{Ticket: []byte(`{"path":"bench.parquet"}`)})
			if err != nil {
				b.Fatal(err)
			}
			rdr, err := flight.NewRecordReader(stream)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for rdr.Next() {
				n += rdr.RecordBatch().NumRows()
			}
			if err := rdr.Err(); err != nil {
				b.Fatal(err)
			}
			rdr.Release()
			count(b, n)
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("source=flight/streams=4", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			r, err := pqflight.NewReader(ctx, ts.client, "bench.parquet", &pqflight.ClientOptions{Parallelism: 4})
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
			r.Close()
			count(b, n)
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
