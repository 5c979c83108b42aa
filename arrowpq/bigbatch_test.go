package arrowpq_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// bigBatchRecord has byte arrays flat (plain and dictionary encoded), in a
// list, as map keys and in a struct, beside fixed-width columns; its rows
// vary in size from empty to a few hundred bytes.
func bigBatchRecord(t *testing.T, seed uint64, rows int) arrow.RecordBatch {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dict", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true}, arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64}), Nullable: true},
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	word := func(max int) string { return strings.Repeat(string(rune('a'+rng.IntN(26))), rng.IntN(max+1)) }
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if rng.IntN(7) == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(word(300))
		}
		if rng.IntN(9) == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(strings.Repeat("dictionary value ", 1+rng.IntN(4)))
		}
		lb := b.Field(3).(*array.ListBuilder)
		if rng.IntN(8) == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for range rng.IntN(4) {
				lb.ValueBuilder().(*array.StringBuilder).Append(word(80))
			}
		}
		mb := b.Field(4).(*array.MapBuilder)
		if rng.IntN(10) == 0 {
			mb.AppendNull()
		} else {
			mb.Append(true)
			for k := range rng.IntN(3) {
				mb.KeyBuilder().(*array.StringBuilder).Append(word(60) + string(rune('0'+k)))
				mb.ItemBuilder().(*array.Int32Builder).Append(int32(i))
			}
		}
		sb := b.Field(5).(*array.StructBuilder)
		if rng.IntN(11) == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.BinaryBuilder).Append([]byte(word(120)))
			sb.FieldBuilder(1).(*array.Float64Builder).Append(float64(i) / 2)
		}
	}
	return b.NewRecordBatch()
}

// TestBatchEndsBeforeOffsetOverflow reads with a byte array limit of a few
// KiB per batch and leaf (the real one is 2 GiB - 1, the reach of int32
// offsets): batches end early wherever a leaf would exceed it, none does,
// and the rows read are those of an unlimited read.
func TestBatchEndsBeforeOffsetOverflow(t *testing.T) {
	rec := bigBatchRecord(t, 7, 3000)
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{RowGroupRows: 1100, MaxRowsPerPage: 170})
	want := renderRec(t, rec)
	const limit = 6000
	for _, par := range []int{1, 4} {
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: 400, Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		arrowpq.SetMaxBatchData(r, limit)
		var got []byte
		sizes := map[int]int{}
		for r.Next() {
			batch := r.RecordBatch()
			sizes[int(batch.NumRows())]++
			for i, col := range batch.Columns() {
				if n := byteArrayData(col); n > limit {
					t.Errorf("column %s: %d bytes in a batch of %d rows, limit %d", batch.ColumnName(i), n, batch.NumRows(), limit)
				}
			}
			got = append(got, renderRec(t, batch)...)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("parallelism %d: rows differ from the written ones", par)
		}
		// Without the limit every batch would have 400 rows but the last
		// of each row group (300) and the file (100).
		small := 0
		for n, k := range sizes {
			if n < 100 {
				small += k
			}
		}
		if small == 0 {
			t.Errorf("parallelism %d: batch sizes %v: no batch ended early", par, sizes)
		}
		t.Logf("parallelism %d: batch sizes (rows: count) %v", par, sizes)
	}
}

// TestBatchOverflowOneRow: a row whose byte array data alone exceeds the
// limit cannot be read; the error is the limit error of that column.
func TestBatchOverflowOneRow(t *testing.T) {
	rec := bigBatchRecord(t, 8, 50)
	defer rec.Release()
	data := writeBytes(t, rec, nil)
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{Columns: []string{"s"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	arrowpq.SetMaxBatchData(r, 10)
	for r.Next() {
	}
	var e *arrowpq.Error
	if err := r.Err(); !errors.Is(err, pagecodec.ErrLimit) || !errors.As(err, &e) || e.Column != "s" {
		t.Fatalf("error %v, want ErrLimit naming column s", err)
	}
}

// byteArrayData is the largest byte array data held by one leaf array
// under arr.
func byteArrayData(arr arrow.Array) int {
	switch a := arr.(type) {
	case *array.String:
		offs := a.ValueOffsets()
		return int(offs[len(offs)-1] - offs[0])
	case *array.Binary:
		offs := a.ValueOffsets()
		return int(offs[len(offs)-1] - offs[0])
	case *array.List:
		return byteArrayData(a.ListValues())
	case *array.Map:
		return max(byteArrayData(a.Keys()), byteArrayData(a.Items()))
	case *array.Struct:
		n := 0
		for i := range a.NumField() {
			n = max(n, byteArrayData(a.Field(i)))
		}
		return n
	}
	return 0
}
