package arrowpq

import (
	"bytes"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestDictionaryStringsInPoolBuffers reads a dictionary-encoded column of
// 200-byte strings (26 values, 64Ki rows, written by pqarrow) with and
// without RecycleBuffers. The fused dictionary gather grows the data block
// by block; with the pool, bytes it appended past the Arrow buffer's
// length (within a size class's capacity) were zeroed when the buffer was
// resized (pqflight's TestLargeBatches caught it: rows from 63,112 on read
// as zeros).
func TestDictionaryStringsInPoolBuffers(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	sb := b.Field(0).(*array.StringBuilder)
	pad := strings.Repeat("x", 190)
	var want []string
	for i := range 1 << 16 {
		s := pad + strings.Repeat(string(rune('a'+i%26)), 10)
		sb.Append(s)
		want = append(want, s)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, 1<<16, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	for _, recycle := range []bool{false, true} {
		for _, batch := range []int{0, 1000, 40000} {
			r, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ReadOptions{BatchSize: batch, RecycleBuffers: recycle})
			if err != nil {
				t.Fatal(err)
			}
			row := 0
			for r.Next() {
				col := r.RecordBatch().Column(0).(*array.String)
				for i := range col.Len() {
					if col.Value(i) != want[row] {
						t.Fatalf("RecycleBuffers %v, batch size %d: row %d = ...%q, want ...%q", recycle, batch, row, col.Value(i)[180:], want[row][180:])
					}
					row++
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			if row != len(want) {
				t.Fatalf("RecycleBuffers %v, batch size %d: %d rows", recycle, batch, row)
			}
		}
	}
}
