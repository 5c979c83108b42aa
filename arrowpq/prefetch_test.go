package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// TestPrefetchRead reads a file whose chunks are large enough to be read
// ahead (column.DefaultPrefetchMinBytes) with Parallelism 2 and 1: the
// same batches; and no goroutine is left after Close mid-way, after the
// end, or once a Reader dropped without Close has filled its read-ahead.
func TestPrefetchRead(t *testing.T) {
	const rows = 600_000
	rng := rand.New(rand.NewPCG(17, 4))
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range rows {
		ib.Append(int64(rng.Uint64()))
		if i%9 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(fmt.Sprintf("value %d of %x", i, rng.Uint32()))
		}
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray()}
	ib.Release()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: rows / 2, Compression: arrowpq.Snappy})
	open := func(par int) *arrowpq.Reader {
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 50_000, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := runtime.NumGoroutine()
	serial, ahead := open(1), open(2)
	for serial.Next() {
		if !ahead.Next() {
			t.Fatalf("Parallelism 2 ends early: %v", ahead.Err())
		}
		if !array.RecordEqual(serial.RecordBatch(), ahead.RecordBatch()) {
			t.Fatal("Parallelism 2 reads a batch that differs from Parallelism 1's")
		}
	}
	if serial.Err() != nil || ahead.Next() || ahead.Err() != nil {
		t.Fatalf("end: %v, %v", serial.Err(), ahead.Err())
	}
	serial.Close()
	ahead.Close()
	waitGoroutines(t, base, "after the end")

	r := open(2)
	r.Next()
	r.Next()
	r.Close()
	waitGoroutines(t, base, "closed mid-way")

	r = open(2)
	r.Next()
	waitGoroutines(t, base, "dropped without Close")
	r.Close()
}
