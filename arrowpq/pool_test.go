package arrowpq

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func TestSizeClass(t *testing.T) {
	for _, c := range []struct{ in, want int }{
		{1, 1}, {8, 8}, {9, 9}, {16, 16}, {17, 18}, {32 << 10, 32 << 10}, {32<<10 + 1, 36 << 10},
		{36 << 10, 36 << 10}, {60<<10 + 1, 64 << 10}, {1<<20 - 1, 1 << 20}, {1<<20 + 1, 9 << 17},
	} {
		if got := sizeClass(c.in); got != c.want {
			t.Errorf("sizeClass(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestBufferPool(t *testing.T) {
	p := newBufferPool()
	a := p.Allocate(100 << 10)
	if len(a) != 100<<10 || cap(a) != sizeClass(100<<10) {
		t.Fatalf("Allocate: len %d cap %d", len(a), cap(a))
	}
	for i := range a {
		a[i] = 0xff
	}
	p.Free(a)
	// A smaller request of up to half the size reuses the buffer, zeroed.
	b := p.Allocate(60 << 10)
	if &b[0] != &a[0] {
		t.Fatal("the freed buffer was not reused")
	}
	if bytes.IndexByte(b, 0xff) >= 0 {
		t.Fatal("a reused buffer is not zeroed")
	}
	// Growing within the capacity keeps content and zeroes the new part.
	b[0] = 7
	b = p.Reallocate(90<<10, b)
	if &b[0] != &a[0] || b[0] != 7 || bytes.IndexByte(b[60<<10:], 0xff) >= 0 {
		t.Fatal("Reallocate within the capacity")
	}
	// Buffers the pool did not make, or of odd capacity, are not kept.
	p.Free(make([]byte, 100<<10, 100<<10+1))
	p.Free(make([]byte, 10))
	if p.held != 0 {
		t.Fatalf("pool holds %d bytes of foreign buffers", p.held)
	}
	// Nothing beyond the limit.
	p.limit = 100 << 10
	p.Free(p.Allocate(64 << 10))
	p.Free(p.Allocate(64 << 10))
	if p.held > p.limit {
		t.Fatalf("pool holds %d bytes, limit %d", p.held, p.limit)
	}
	p.close()
	p.Free(p.Allocate(64 << 10))
	if p.held != 0 {
		t.Fatal("a closed pool keeps buffers")
	}
}

// poolTestFile writes, with arrow-go's writer, a file of rows whose every
// batch of batchRows has the same byte size, and returns it with its data.
func poolTestFile(t *testing.T, rows int) ([]byte, arrow.RecordBatch) {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		if i%7 == 3 {
			b.Field(0).AppendNull()
			b.Field(1).AppendNull()
			b.Field(2).AppendNull()
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(int64(i) * 1_000_003)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("value-%08d-%040d", i, i*i))
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		for j := 0; j < 3; j++ {
			lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + j))
		}
	}
	rec := b.NewRecordBatch()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rows/2)), parquet.WithDictionaryDefault(false))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rec
}

// TestPoolKeepsRetainedBatches: batches a caller keeps are never recycled
// under it; each still equals the rows it was read from after the whole
// file is read.
func TestPoolKeepsRetainedBatches(t *testing.T) {
	const rows, batch = 60_000, 6_000
	data, src := poolTestFile(t, rows)
	defer src.Release()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{BatchSize: batch, Parallelism: 2, RecycleBuffers: true})
	if err != nil {
		t.Fatal(err)
	}
	var kept []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		kept = append(kept, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if len(kept) != rows/batch {
		t.Fatalf("%d batches, want %d", len(kept), rows/batch)
	}
	for i, rec := range kept {
		want := src.NewSlice(int64(i*batch), int64((i+1)*batch))
		if !array.RecordEqual(rec, want) {
			t.Errorf("batch %d differs from the rows it was read from", i)
		}
		want.Release()
		rec.Release()
	}
}

// TestPoolRecyclesReleasedBatches: once batches are released as the read
// goes on, later batches are built from their buffers, not from new
// memory, and still hold the right rows.
func TestPoolRecyclesReleasedBatches(t *testing.T) {
	const rows, batch = 60_000, 6_000
	data, src := poolTestFile(t, rows)
	defer src.Release()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{BatchSize: batch, Parallelism: 1, RecycleBuffers: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	i, freshAfterWarmup := 0, -1
	for r.Next() {
		want := src.NewSlice(int64(i*batch), int64((i+1)*batch))
		if !array.RecordEqual(r.RecordBatch(), want) {
			t.Errorf("batch %d differs from the rows it was read from", i)
		}
		want.Release()
		if i == 2 {
			freshAfterWarmup = r.pool.fresh
		}
		i++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if fresh := r.pool.fresh - freshAfterWarmup; fresh != 0 {
		t.Errorf("%d buffers allocated anew after the third batch; want all reused", fresh)
	}
	if freshAfterWarmup <= 0 {
		t.Errorf("the pool allocated %d buffers in the first batches: is it in use?", freshAfterWarmup)
	}
}

// TestScratchCache: take returns the smallest buffer that fits, else the
// largest; buffers below minScratch are not kept; a nil cache lends
// nothing.
func TestScratchCache(t *testing.T) {
	var c scratchCache
	for _, n := range []int{1000, 4000, 2000, minScratch - 1} {
		c.give(make([]byte, 10, n))
	}
	for _, tc := range []struct{ want, cap int }{{1500, 2000}, {5000, 4000}, {0, 1000}, {1, 0}} {
		b := c.take(tc.want)
		if cap(b) != tc.cap || len(b) != 0 {
			t.Fatalf("take(%d): len %d cap %d, want cap %d", tc.want, len(b), cap(b), tc.cap)
		}
	}
	var none *scratchCache
	none.give(make([]byte, 1<<20))
	if b := none.take(1); b != nil {
		t.Fatal("a nil cache lent a buffer")
	}
	none.endBatch()
}

// TestScratchCacheEndBatch: buffers stay over a batch in which one was
// taken, and are dropped after a batch in which none was.
func TestScratchCacheEndBatch(t *testing.T) {
	var c scratchCache
	c.give(make([]byte, 0, 1000))
	c.endBatch() // nothing taken in this batch: dropped
	if b := c.take(1); b != nil {
		t.Fatalf("an idle buffer of %d bytes outlived its batch", cap(b))
	}
	c.give(make([]byte, 0, 1000)) // taken (the take above), given back
	c.endBatch()
	b := c.take(1)
	if cap(b) != 1000 {
		t.Fatalf("a buffer in use during the batch was dropped: got cap %d", cap(b))
	}
	c.give(b)
	c.endBatch()
	c.endBatch()
	if b := c.take(1); b != nil {
		t.Fatal("a buffer nobody asked for in a batch was kept")
	}
}
