package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// TestParallelReadAheadRule: on the pipeline, a field's leaves read pages
// ahead only when the field is more than its decoders' share of the read
// (share × Parallelism > decoders); fields of similar size are read without
// read-ahead goroutines. Every read returns the serial read's batches.
func TestParallelReadAheadRule(t *testing.T) {
	const rows = 400_000
	rng := rand.New(rand.NewPCG(17, 25))
	ints := func() arrow.Array {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		for range rows {
			b.Append(int64(rng.Uint64()))
		}
		return b.NewArray()
	}
	text := func() arrow.Array {
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		for i := range rows {
			b.Append(fmt.Sprintf("row %d: %x %x %x %x", i, rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64()))
		}
		return b.NewArray()
	}
	list := func() arrow.Array {
		b := array.NewListBuilder(memory.DefaultAllocator, arrow.PrimitiveTypes.Int64)
		defer b.Release()
		vb := b.ValueBuilder().(*array.Int64Builder)
		for range rows {
			b.Append(true)
			for range 6 {
				vb.Append(int64(rng.Uint64()))
			}
		}
		return b.NewArray()
	}
	for _, tc := range []struct {
		name  string
		cols  []arrow.Array
		par   int
		ahead []bool
	}{
		// Four fields of one size: each is 1/4 of the read, the pipeline
		// keeps every worker busy.
		{"balanced", []arrow.Array{ints(), ints(), ints(), ints()}, 2, []bool{false, false, false, false}},
		{"balanced, 4 workers", []arrow.Array{ints(), ints(), ints(), ints()}, 4, []bool{false, false, false, false}},
		// A text column of ~80% of the bytes, not split (its batches are
		// under splitMinBatchBytes): it alone would hold up the read.
		{"dominant text", []arrow.Array{ints(), text()}, 2, []bool{false, true}},
		// A repeated field is never split.
		{"dominant list", []arrow.Array{ints(), list()}, 2, []bool{false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fields []arrow.Field
			for i, c := range tc.cols {
				fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType()})
			}
			rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), tc.cols, rows)
			for _, c := range tc.cols {
				c.Release()
			}
			data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: rows / 2, Compression: arrowpq.Snappy})
			rec.Release()
			open := func(par int) *arrowpq.Reader {
				r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 50_000, Parallelism: par})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			serial, par := open(1), open(tc.par)
			defer serial.Close()
			defer par.Close()
			first := true
			for serial.Next() {
				if !par.Next() {
					t.Fatalf("Parallelism %d ends early: %v", tc.par, par.Err())
				}
				if first {
					first = false
					if got := arrowpq.ReadAheadFields(par); !slices.Equal(got, tc.ahead) {
						t.Errorf("fields reading ahead %v, want %v (decoders %v)", got, tc.ahead, arrowpq.SplitDecoders(par))
					}
				}
				if !array.RecordEqual(serial.RecordBatch(), par.RecordBatch()) {
					t.Fatal("a batch differs from the serial read's")
				}
			}
			if serial.Err() != nil || par.Next() || par.Err() != nil {
				t.Fatalf("end: %v, %v", serial.Err(), par.Err())
			}
		})
	}
}
