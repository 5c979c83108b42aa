package column_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
)

// TestBufferCacheShared reads chunks written by arrow-go with readers that
// share a BufferCache: one after the other (the second reads from the
// buffer the first gave back at its end), interleaved (one holds its
// buffer mid-chunk while the other finishes), and ended by FinishChunk
// rather than io.EOF. Every read returns arrow-go's levels and values.
func TestBufferCacheShared(t *testing.T) {
	specs := []spec{
		{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, pageSize: 1 << 10, codec: compress.Codecs.Snappy, rows: 3000, seed: 21},
		{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.Plain, pageSize: 1 << 10, codec: compress.Codecs.Zstd, rows: 2000, seed: 22},
		{physical: parquet.Types.Double, shape: required, enc: parquet.Encodings.Plain, pageSize: 1 << 12, codec: compress.Codecs.Gzip, rows: 4000, seed: 23},
	}
	type input struct {
		want  testData
		chunk column.Chunk
		r     *column.Reader
	}
	var cache column.BufferCache
	var in []input
	for _, s := range specs {
		want := generate(s)
		col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
		in = append(in, input{want, chunk, column.NewReader(col, column.ReaderOptions{Buffers: &cache})})
	}
	// One after the other, twice: each reader ends its chunk (io.EOF)
	// and gives its buffer back, the next takes it.
	for round := range 2 {
		for i, x := range in {
			x.r.Reset(x.chunk)
			compareData(t, fmt.Sprintf("round %d, chunk %d", round, i), readAll(t, x.r, x.r.Column(), 500), x.want)
			if n := column.CachedBuffers(&cache); n != 1 {
				t.Fatalf("round %d, chunk %d: %d buffers cached after the chunk's end, want 1", round, i, n)
			}
		}
	}
	// Interleaved: reader 0 stops mid-chunk holding a buffer, reader 1
	// reads all of its chunk, reader 0 goes on.
	a, b := in[0], in[1]
	a.r.Reset(a.chunk)
	b.r.Reset(b.chunk)
	col := a.r.Column()
	var vals column.Values
	vals.Reset(col)
	def := make([]int16, 3000)
	nl, _, err := a.r.Read(&vals, 1234, def, nil)
	if err != nil || nl != 1234 {
		t.Fatalf("first part: %d levels, %v", nl, err)
	}
	compareData(t, "interleaved chunk 1", readAll(t, b.r, b.r.Column(), 77), b.want)
	nl2, _, err := a.r.Read(&vals, 3000, def[nl:], nil)
	if err != nil || nl+nl2 != 3000 {
		t.Fatalf("second part: %d levels, %v", nl2, err)
	}
	var got testData
	got.def = def
	for i := range vals.N {
		got.values = append(got.values, valueAt(&vals, i))
	}
	compareData(t, "interleaved chunk 0", got, a.want)
	if _, _, err := a.r.Read(&vals, 1, def, nil); err != io.EOF {
		t.Fatalf("after the chunk: %v, want io.EOF", err)
	}

	// FinishChunk after the last level: the buffer goes back before any
	// io.EOF; before it, nothing happens.
	x := in[2]
	before := column.CachedBuffers(&cache)
	if before == 0 {
		t.Fatal("no buffer cached after the interleaved reads")
	}
	x.r.Reset(x.chunk)
	vals.Reset(x.r.Column())
	if _, _, err := x.r.Read(&vals, 3999, nil, nil); err != nil {
		t.Fatal(err)
	}
	x.r.FinishChunk()
	if n := column.CachedBuffers(&cache); n != before-1 {
		t.Fatalf("FinishChunk with a level left: %d buffers cached, want %d", n, before-1)
	}
	if _, _, err := x.r.Read(&vals, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	x.r.FinishChunk()
	if n := column.CachedBuffers(&cache); n != before {
		t.Fatalf("FinishChunk at the end: %d buffers cached, want %d", n, before)
	}
	for i := range vals.N {
		if got, want := valueAt(&vals, i), x.want.values[i]; got != want {
			t.Fatalf("value %d = %v, want %v", i, got, want)
		}
	}
}

// TestPageDecodersShared: readers sharing a BufferCache give their page
// decoders (definition levels of a flat column, dictionary indices) back at
// the end of a chunk and the next reader takes them, so that readers read
// one after the other share one; a reader mid-chunk keeps its own while
// another reads a whole chunk of the same kind (levels and indices of other
// values: a decoder shared then reads the wrong ones). Every read returns
// arrow-go's levels and values.
func TestPageDecodersShared(t *testing.T) {
	var cache column.BufferCache
	type input struct {
		want  testData
		chunk column.Chunk
		r     *column.Reader
	}
	var in []input
	for seed := range uint64(3) {
		s := spec{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, pageSize: 1 << 10,
			codec: compress.Codecs.Snappy, rows: 3000, seed: 31 + seed}
		want := generate(s)
		col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
		in = append(in, input{want, chunk, column.NewReader(col, column.ReaderOptions{Buffers: &cache})})
	}
	for i, x := range in {
		x.r.Reset(x.chunk)
		compareData(t, fmt.Sprintf("chunk %d", i), readAll(t, x.r, x.r.Column(), 500), x.want)
		if n := column.CachedDecoders(&cache); n != 1 {
			t.Fatalf("chunk %d: %d page decoders cached after the chunk's end, want 1", i, n)
		}
	}
	a, b := in[0], in[1]
	a.r.Reset(a.chunk)
	b.r.Reset(b.chunk)
	var vals column.Values
	vals.Reset(a.r.Column())
	def := make([]int16, 3000)
	nl, _, err := a.r.Read(&vals, 1234, def, nil)
	if err != nil || nl != 1234 {
		t.Fatalf("first part: %d levels, %v", nl, err)
	}
	if n := column.CachedDecoders(&cache); n != 0 {
		t.Fatalf("mid-chunk: %d page decoders cached, want 0", n)
	}
	compareData(t, "interleaved chunk 1", readAll(t, b.r, b.r.Column(), 77), b.want)
	nl2, _, err := a.r.Read(&vals, 3000, def[nl:], nil)
	if err != nil || nl+nl2 != 3000 {
		t.Fatalf("second part: %d levels, %v", nl2, err)
	}
	got := testData{def: def}
	for i := range vals.N {
		got.values = append(got.values, valueAt(&vals, i))
	}
	compareData(t, "interleaved chunk 0", got, a.want)
	if _, _, err := a.r.Read(&vals, 1, def, nil); err != io.EOF {
		t.Fatalf("after the chunk: %v, want io.EOF", err)
	}
	if n := column.CachedDecoders(&cache); n != 2 {
		t.Fatalf("after both chunks: %d page decoders cached, want 2", n)
	}
	// After the chunk's end, levels are an error, not a shared decoder's.
	if _, err := a.r.DecodeValidity(make([]byte, 8), 0, 5); err == nil {
		t.Fatal("DecodeValidity after the chunk's end: no error")
	}
}
