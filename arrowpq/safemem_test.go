package arrowpq

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// safeMemFile writes, with arrow-go's writer, rows of four string columns:
// "plain" (no dictionary), "dict" (dictionary-encoded, 50 distinct
// values), "list" (list<string>) and "rec" (struct<name: string>), in row
// groups of rowGroup rows.
func safeMemFile(t *testing.T, rows, rowGroup int) []byte {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "plain", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dict", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "rec", Type: arrow.StructOf(arrow.Field{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.StringBuilder).Append(safeMemPlain(i))
		b.Field(1).(*array.StringBuilder).Append(safeMemDict(i))
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).Append(safeMemElem(i, 0))
		lb.ValueBuilder().(*array.StringBuilder).Append(safeMemElem(i, 1))
		sb := b.Field(3).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(safeMemName(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(rowGroup)),
		parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("dict", true))
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
	return buf.Bytes()
}

func safeMemPlain(i int) string   { return fmt.Sprintf("plain-%08d-%032d", i, i*7) }
func safeMemDict(i int) string    { return fmt.Sprintf("category-%02d-%030d", i%50, i%50) }
func safeMemElem(i, j int) string { return fmt.Sprintf("elem-%08d-%d-%024d", i, j, i*j) }
func safeMemName(i int) string    { return fmt.Sprintf("name-%08d-%028d", i, i*3) }

// keptStrings takes Go strings from the first rows of a batch the way a
// caller does, without copying (array.String.Value aliases the batch's
// data buffer), and the values they must keep.
func keptStrings(t *testing.T, rec arrow.RecordBatch, n int) (got, want []string) {
	t.Helper()
	str := func(a arrow.Array) *array.String {
		if d, ok := a.(*array.Dictionary); ok {
			return d.Dictionary().(*array.String)
		}
		return a.(*array.String)
	}
	for i := 0; i < n; i++ {
		plain := str(rec.Column(0)).Value(i)
		var dict string
		if d, ok := rec.Column(1).(*array.Dictionary); ok {
			dict = str(d).Value(d.GetValueIndex(i))
		} else {
			dict = str(rec.Column(1)).Value(i)
		}
		l := rec.Column(2).(*array.List)
		start, _ := l.ValueOffsets(i)
		elem := l.ListValues().(*array.String).Value(int(start) + 1)
		name := rec.Column(3).(*array.Struct).Field(0).(*array.String).Value(i)
		got = append(got, plain, dict, elem, name)
		want = append(want, safeMemPlain(i), safeMemDict(i), safeMemElem(i, 1), safeMemName(i))
	}
	return got, want
}

// TestDefaultReadKeepsStrings: with the default options, Go strings taken
// from the first batch (plain, dictionary-encoded, in a list, in a struct;
// read as strings and as Arrow dictionaries) are unchanged after every
// later batch of several row groups was read and released. With the old
// default (the recycling pool) they read another batch's rows.
func TestDefaultReadKeepsStrings(t *testing.T) {
	const rows, rowGroup, batch = 40_000, 10_000, 2_500
	data := safeMemFile(t, rows, rowGroup)
	for _, c := range []struct {
		name string
		opts ReadOptions
	}{
		{"default", ReadOptions{BatchSize: batch}},
		{"serial", ReadOptions{BatchSize: batch, Parallelism: 1}},
		{"dictionary", ReadOptions{BatchSize: batch, Dictionary: []string{"dict", "plain"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got := len(r.Metadata().Meta.RowGroups); got != rows/rowGroup {
				t.Fatalf("%d row groups, want %d", got, rows/rowGroup)
			}
			var got, want []string
			batches := 0
			for r.Next() {
				if batches == 0 {
					got, want = keptStrings(t, r.RecordBatch(), 200)
				}
				batches++
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			if batches != rows/batch {
				t.Fatalf("%d batches, want %d", batches, rows/batch)
			}
			// Collections run finalizers and would reuse memory nothing
			// points at; the strings point at theirs.
			runtime.GC()
			runtime.GC()
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("string %d of the first batch is %q after the read, want %q", i, got[i], want[i])
				}
			}
		})
	}
}

// TestRecycleBuffersContract: with RecycleBuffers, the documented
// behaviour: a later batch is built in the released first batch's data
// buffer, so a string taken from the first batch without copying now reads
// another row, while a copy (strings.Clone) keeps its value.
func TestRecycleBuffersContract(t *testing.T) {
	const rows, rowGroup, batch = 40_000, 10_000, 2_500
	data := safeMemFile(t, rows, rowGroup)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{BatchSize: batch, Parallelism: 1, RecycleBuffers: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	first := r.RecordBatch().Column(0).(*array.String)
	firstData := unsafe.SliceData(first.ValueBytes())
	aliased := first.Value(0)
	copied := strings.Clone(aliased)
	reused := false
	for r.Next() {
		s := r.RecordBatch().Column(0).(*array.String)
		if unsafe.SliceData(s.ValueBytes()) == firstData {
			reused = true
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if !reused {
		t.Fatal("no later batch reused the first batch's data buffer")
	}
	if copied != safeMemPlain(0) {
		t.Fatalf("the copy reads %q", copied)
	}
	if aliased == copied {
		t.Fatal("the aliased string kept its value although its buffer was recycled")
	}
}

// TestRecycleBuffersWithAllocator: the two options exclude each other.
func TestRecycleBuffersWithAllocator(t *testing.T) {
	data := safeMemFile(t, 10, 10)
	_, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{RecycleBuffers: true, Allocator: memory.DefaultAllocator})
	if err == nil || !strings.Contains(err.Error(), "RecycleBuffers") {
		t.Fatalf("err = %v, want one naming RecycleBuffers", err)
	}
}

// TestFreshAllocator: exact sizes, zeroed memory, and content kept by
// Reallocate.
func TestFreshAllocator(t *testing.T) {
	var a freshAllocator
	b := a.Allocate(100 << 10)
	if len(b) != 100<<10 || cap(b) != 100<<10 {
		t.Fatalf("Allocate: len %d cap %d", len(b), cap(b))
	}
	for i := range b {
		b[i] = 0xff
	}
	a.Free(b)
	c := a.Allocate(100 << 10)
	if &c[0] == &b[0] || bytes.IndexByte(c, 0xff) >= 0 {
		t.Fatal("Allocate after Free reused or did not zero memory")
	}
	c[0] = 7
	c = a.Reallocate(200<<10, c)
	if len(c) != 200<<10 || c[0] != 7 || bytes.IndexByte(c[1:], 7) >= 0 {
		t.Fatal("Reallocate lost content or left garbage")
	}
	c[15] = 9
	c = a.Reallocate(10, c)
	c = a.Reallocate(20, c)
	if c[0] != 7 || c[15] != 0 {
		t.Fatalf("Reallocate within capacity: %v", c[:20])
	}
	if small := a.Allocate(10); len(small) != 10 {
		t.Fatalf("small Allocate: len %d", len(small))
	}
}

// TestDefaultReadDataNotShared: with the default options the byte array
// data of a batch decodes into new memory of its own (startBinary), which
// the batch takes; a leaf keeps no data slice past the batch, and
// scratch lent between leaves (scratchCache) is never handed out. The
// value bytes of the plain and dictionary-encoded columns, up to their
// capacity, never overlap a leaf's data slice or the cache's, nor another
// batch's values.
func TestDefaultReadDataNotShared(t *testing.T) {
	const rows, rowGroup, batch = 20_000, 10_000, 2_500
	data := safeMemFile(t, rows, rowGroup)
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{BatchSize: batch, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type span struct{ lo, hi uintptr }
	spanOf := func(b []byte) span {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		return span{p, p + uintptr(cap(b))}
	}
	overlap := func(a, b span) bool { return a.lo < b.hi && b.lo < a.hi }
	var kept []arrow.RecordBatch
	defer func() {
		for _, rec := range kept {
			rec.Release()
		}
	}()
	var seen []span
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		kept = append(kept, rec)
		var own []span
		for _, f := range r.plan.fields {
			if fr, ok := f.(*fieldReader); ok {
				for _, lr := range fr.leaves {
					if lr.binaryOut && cap(lr.dense.Data) > 0 {
						own = append(own, spanOf(lr.dense.Data))
					}
				}
			}
		}
		// Between batches the slices wait in the reader's scratchCache
		// for the next leaf.
		for _, b := range scratchHeld(r.opts.scratch) {
			own = append(own, spanOf(b))
		}
		for c := 0; c < 2; c++ {
			vals := rec.Column(c).(*array.String).ValueBytes()
			if len(vals) == 0 {
				t.Fatalf("column %d: no value bytes", c)
			}
			s := spanOf(vals[:len(vals):len(vals)])
			for _, o := range own {
				if overlap(s, o) {
					t.Fatalf("column %d of batch %d shares memory with a leaf's own data slice", c, len(kept)-1)
				}
			}
			for _, p := range seen {
				if overlap(s, p) {
					t.Fatalf("column %d of batch %d shares memory with an earlier batch", c, len(kept)-1)
				}
			}
			seen = append(seen, s)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(kept) != rows/batch {
		t.Fatalf("%d batches, want %d", len(kept), rows/batch)
	}
}

// TestDefaultReadBuffersNotShared: with the default options no buffer of a
// batch (values, validity, offsets, data, of every child) overlaps the
// memory of another batch or of the reader's lent scratch, and every batch
// kept to the end still holds what arrow-go wrote. The file mixes the
// leaf kinds whose memory the reader manages differently: direct fixed
// width with nulls (spread in place), converted with and without nulls
// (int8, decimal: the scratch path), PLAIN and dictionary strings
// (startBinary's lent slice), booleans, a list and a struct; serial and
// parallel decoding (the scratch and page buffer caches are shared by the
// goroutines).
func TestDefaultReadBuffersNotShared(t *testing.T) {
	const rows, rowGroup, batch = 12_000, 5_000, 1_000
	mem := memory.NewGoAllocator()
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "dec", Type: dec, Nullable: true},
		{Name: "decreq", Type: dec},
		{Name: "plain", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dict", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "rec", Type: arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := 0; i < rows; i++ {
		null := i%7 == 3
		appendOrNull := func(k int, f func()) {
			if null && k != 4 {
				b.Field(k).AppendNull()
				return
			}
			f()
		}
		appendOrNull(0, func() { b.Field(0).(*array.Int64Builder).Append(int64(i) * 1_000_003) })
		appendOrNull(1, func() { b.Field(1).(*array.Float32Builder).Append(float32(i) / 4) })
		appendOrNull(2, func() { b.Field(2).(*array.Int8Builder).Append(int8(i)) })
		appendOrNull(3, func() { b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i) * 101)) })
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i%97) * 7))
		appendOrNull(5, func() { b.Field(5).(*array.StringBuilder).Append(safeMemPlain(i)) })
		appendOrNull(6, func() { b.Field(6).(*array.StringBuilder).Append(safeMemDict(i)) })
		appendOrNull(7, func() { b.Field(7).(*array.BooleanBuilder).Append(i%3 == 0) })
		appendOrNull(8, func() {
			lb := b.Field(8).(*array.ListBuilder)
			lb.Append(true)
			for j := 0; j < i%4; j++ {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + j))
			}
		})
		appendOrNull(9, func() {
			sb := b.Field(9).(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(-i))
			sb.FieldBuilder(1).(*array.StringBuilder).Append(safeMemName(i))
		})
	}
	want := b.NewRecordBatch()
	defer want.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup),
		parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("dict", true), parquet.WithDictionaryFor("decreq", true))
	w, err := pqarrow.NewFileWriter(schema, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(want); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()

	type span struct{ lo, hi uintptr }
	var spansOf func(d arrow.ArrayData, out []span) []span
	spansOf = func(d arrow.ArrayData, out []span) []span {
		for _, bb := range d.Buffers() {
			if bb != nil && bb.Len() > 0 {
				p := uintptr(unsafe.Pointer(unsafe.SliceData(bb.Bytes())))
				out = append(out, span{p, p + uintptr(bb.Len())})
			}
		}
		for _, c := range d.Children() {
			out = spansOf(c, out)
		}
		return out
	}
	for _, par := range []int{1, 2} {
		t.Run(fmt.Sprintf("parallelism=%d", par), func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(data), int64(len(data)), &ReadOptions{BatchSize: batch, Parallelism: par})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var kept []arrow.RecordBatch
			defer func() {
				for _, rec := range kept {
					rec.Release()
				}
			}()
			var seen []span // of earlier batches
			for r.Next() {
				rec := r.RecordBatch()
				rec.Retain()
				kept = append(kept, rec)
				var mine []span
				for _, c := range rec.Columns() {
					mine = spansOf(c.Data(), mine)
				}
				var lent []span
				for _, s := range scratchHeld(r.opts.scratch) {
					p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
					lent = append(lent, span{p, p + uintptr(cap(s))})
				}
				for _, m := range mine {
					for _, o := range append(seen, lent...) {
						if m.lo < o.hi && o.lo < m.hi {
							t.Fatalf("batch %d shares memory with an earlier batch or the reader's scratch", len(kept)-1)
						}
					}
				}
				seen = append(seen, mine...)
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if len(kept) != rows/batch {
				t.Fatalf("%d batches, want %d", len(kept), rows/batch)
			}
			runtime.GC()
			for i, rec := range kept {
				exp := want.NewSlice(int64(i*batch), int64((i+1)*batch))
				ok := array.RecordEqual(rec, exp)
				exp.Release()
				if !ok {
					t.Fatalf("batch %d changed after later batches were read", i)
				}
			}
		})
	}
}

// scratchHeld returns the buffers waiting in c, leaving them there.
func scratchHeld(c *scratchCache) [][]byte {
	var held [][]byte
	for b := c.Take(0); b != nil; b = c.Take(0) {
		held = append(held, b)
	}
	for _, b := range held {
		c.Give(b)
	}
	return held
}
