package column_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// fileAt is a file holding data at offset base (and nothing else): the
// io.ReaderAt of a chunk given by its Source.
type fileAt struct {
	data   []byte
	base   int64
	failAt int64 // > 0: a read covering this file offset fails
	reads  int
}

var errRead = errors.New("injected read failure")

func (f *fileAt) ReadAt(p []byte, off int64) (int, error) {
	f.reads++
	if f.failAt > 0 && off <= f.failAt && f.failAt < off+int64(len(p)) {
		return 0, errRead
	}
	if off < f.base || off > f.base+int64(len(f.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.data[off-f.base:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// sourced returns c given by its Source instead of its Data.
func sourced(c column.Chunk) (column.Chunk, *fileAt) {
	f := &fileAt{data: c.Data, base: c.FileOffset}
	c.Source, c.Size, c.Data = f, int64(len(c.Data)), nil
	return c, f
}

// windowOptions reads chunks given by their Source in windows of n bytes.
func windowOptions(opts column.ReaderOptions, n int, cache *column.BufferCache) column.ReaderOptions {
	opts.Window, opts.Windows = n, cache
	return opts
}

// testWindows are window sizes smaller than a page header, than a page,
// about a page, and the default.
var testWindows = []int{1, 13, 200, 4096, 0}

// TestWindowMatchesData reads arrow-go's chunks (flat, nested, dictionary,
// v1 and v2 pages, with an offset index) from memory and from a file in
// windows of every size, serially and read ahead, reads and skips
// interleaved: the same levels, values and pages read.
func TestWindowMatchesData(t *testing.T) {
	var sp spawner
	cache := new(column.BufferCache)
	for _, sh := range []shape{required, optional, deep, nested} {
		for _, v2 := range []bool{false, true} {
			for _, enc := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
				for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Uncompressed} {
					s := spec{physical: parquet.Types.ByteArray, shape: sh, enc: enc, v2: v2, index: true,
						pageSize: 300, codec: codec, rows: 1500, seed: 5}
					if sh == optional {
						s.physical = parquet.Types.Int64
					}
					d := generate(s)
					col, chunk, _ := chunkOf(t, writeFile(t, s, d), true)
					src, _ := sourced(chunk)
					for _, w := range testWindows {
						for _, step := range []int{1, 64, 1000} {
							name := fmt.Sprintf("%s window %d step %d", s, w, step)
							want := readOutcome(col, chunk, column.ReaderOptions{}, step, nil)
							sameOutcome(t, name, readOutcome(col, src, windowOptions(column.ReaderOptions{}, w, nil), step, nil), want)
							sameOutcome(t, name+" shared windows", readOutcome(col, src, windowOptions(column.ReaderOptions{}, w, cache), step, nil), want)
							sameOutcome(t, name+" read ahead", readOutcome(col, src, windowOptions(sp.options(2), w, cache), step, nil), want)
							compareData(t, name, want.data, d)
							skips := func(i int) bool { return i%5 == 4 }
							want = readOutcome(col, chunk, column.ReaderOptions{}, step, skips)
							sameOutcome(t, name+" with skips", readOutcome(col, src, windowOptions(column.ReaderOptions{}, w, nil), step, skips), want)
							sameOutcome(t, name+" read ahead with skips", readOutcome(col, src, windowOptions(sp.options(1), w, cache), step, skips), want)
						}
					}
					sp.settled(t, s.String())
				}
			}
		}
	}
}

// TestWindowErrors damages chunks at every position (a byte flipped, the
// chunk cut short) and reads each from memory and in windows, serially
// and read ahead: the same values before the error, the same error, at the
// same page.
func TestWindowErrors(t *testing.T) {
	var sp spawner
	col, chunk := crcChunk(t, 12)
	s := spec{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.RLEDict, v2: true,
		pageSize: 200, codec: compress.Codecs.Snappy, rows: 300, seed: 9}
	ncol, nchunk, _ := chunkOf(t, writeFile(t, s, generate(s)), false)
	rng := rand.New(rand.NewPCG(3, 4))
	cache := new(column.BufferCache)
	for _, tc := range []struct {
		name string
		data []byte
		ncol bool
	}{{"crc", chunk, false}, {"nested", nchunk.Data, true}} {
		c := col
		if tc.ncol {
			c = ncol
		}
		for pos := range len(tc.data) {
			for _, cut := range []bool{false, true} {
				data := slices.Clone(tc.data)
				if cut {
					data = data[:pos]
				} else {
					data[pos] ^= byte(1 + rng.IntN(255))
				}
				mem := column.Chunk{Data: data, Codec: format.CompressionCodec_SNAPPY, FileOffset: 4, NumRows: 1200}
				src, _ := sourced(mem)
				w := testWindows[pos%len(testWindows)]
				step := []int{7, 64, 500}[pos%3]
				want := readOutcome(c, mem, column.ReaderOptions{}, step, nil)
				name := fmt.Sprintf("%s pos %d cut %v window %d", tc.name, pos, cut, w)
				sameOutcome(t, name, readOutcome(c, src, windowOptions(column.ReaderOptions{}, w, cache), step, nil), want)
				sameOutcome(t, name+" read ahead", readOutcome(c, src, windowOptions(sp.options(1+pos%3), w, cache), step, nil), want)
			}
		}
	}
	sp.settled(t, "after Close")
}

// TestWindowReadError: a failing ReadAt ends the read with an error
// located at the page whose bytes it was reading, wrapping the cause and
// naming the file offset; the pages before it read as from memory.
func TestWindowReadError(t *testing.T) {
	var sp spawner
	col, chunk := crcChunk(t, 12)
	mem := column.Chunk{Data: chunk, Codec: format.CompressionCodec_SNAPPY, FileOffset: 1000, NumRows: 1200}
	want := readOutcome(col, mem, column.ReaderOptions{}, 64, nil)
	for _, fail := range []int64{1000, 1000 + int64(len(chunk))/2, 1000 + int64(len(chunk)) - 1} {
		for _, ahead := range []bool{false, true} {
			src, f := sourced(mem)
			f.failAt = fail
			opts := windowOptions(column.ReaderOptions{}, 100, nil)
			if ahead {
				opts = windowOptions(sp.options(2), 100, nil)
			}
			got := readOutcome(col, src, opts, 64, nil)
			name := fmt.Sprintf("failure at %d, ahead %v", fail, ahead)
			if !strings.Contains(got.err, errRead.Error()) || strings.Contains(got.err, "not located") || !strings.Contains(got.err, "at offset") {
				t.Fatalf("%s: error %q", name, got.err)
			}
			if len(got.data.values) > len(want.data.values) || !slices.Equal(got.data.values, want.data.values[:len(got.data.values)]) {
				t.Errorf("%s: values before the error differ", name)
			}
			// The error is located at the page being read: at or before
			// the failed offset, in the chunk.
			r := column.NewReader(col, opts)
			r.Reset(src)
			var v column.Values
			v.Reset(col)
			var err error
			for err == nil {
				_, _, err = r.Read(&v, 64, make([]int16, 64), nil)
			}
			r.Close()
			var pe *pagecodec.PageError
			if !errors.As(err, &pe) || !errors.Is(err, errRead) || pe.Offset < 1000 || pe.Offset > fail {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	sp.settled(t, "after Close")
}

// TestWindowBuffersShared: readers of one cache that read their chunks
// one after the other share one window buffer; a read allocates no
// window of its own in the steady state.
func TestWindowBuffersShared(t *testing.T) {
	s := spec{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.Plain,
		pageSize: 1000, codec: compress.Codecs.Snappy, rows: 5000, seed: 1}
	col, chunk, _ := chunkOf(t, writeFile(t, s, generate(s)), false)
	src, _ := sourced(chunk)
	cache := new(column.BufferCache)
	readers := make([]*column.Reader, 20)
	for i := range readers {
		readers[i] = column.NewReader(col, windowOptions(column.ReaderOptions{}, 512, cache))
	}
	var v column.Values
	def := make([]int16, 1000)
	read := func(c column.Chunk) {
		for _, r := range readers {
			r.Reset(c)
			for {
				v.Reset(col)
				if _, _, err := r.Read(&v, 1000, def, nil); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	read(src)
	if n := column.CachedBuffers(cache); n != 1 {
		t.Errorf("%d window buffers cached after reading 20 chunks one after the other, want 1", n)
	}
	// In the steady state a window costs no allocation: as many as
	// reading the chunks from memory.
	fromSource := testing.AllocsPerRun(5, func() { read(src) })
	fromData := testing.AllocsPerRun(5, func() { read(chunk) })
	if fromSource > fromData {
		t.Errorf("%.0f allocations reading 20 chunks in windows, %.0f from memory", fromSource, fromData)
	}
}

// FuzzReadWindow reads hostile chunks (FuzzRead's seeds) from memory and
// from a file in windows of a size taken from the input, serially and read
// ahead, reads and skips interleaved: the same outcome.
func FuzzReadWindow(f *testing.F) {
	for i, s := range []spec{
		{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, v2: true},
		{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.DeltaByteArray},
		{physical: parquet.Types.ByteArray, shape: optional, enc: parquet.Encodings.RLEDict},
		{physical: parquet.Types.Int32, shape: nested, enc: parquet.Encodings.Plain, v2: true},
	} {
		s.pageSize, s.rows, s.seed = 128, 100, uint64(i)
		s.codec = compress.Codecs.Snappy
		_, chunk, _ := chunkOf(f, writeFile(f, s, generate(s)), false)
		f.Add(uint8([]int{1, 4, 5, 9}[i]), uint8(chunk.Codec), uint8(i), uint16(i*37), chunk.Data)
	}
	var sp spawner
	cache := new(column.BufferCache)
	f.Fuzz(func(t *testing.T, which, codec, how uint8, window uint16, data []byte) {
		col := fuzzColumns[int(which)%len(fuzzColumns)]
		mem := column.Chunk{Data: data, Codec: format.CompressionCodec(codec % 8), NumRows: 100, FileOffset: 4}
		src, _ := sourced(mem)
		opts := column.ReaderOptions{MaxPageSize: 1 << 20, BatchRows: 64}
		win := windowOptions(opts, 1+int(window), cache)
		if how&0x40 != 0 {
			win.Prefetch, win.Spawn, win.PrefetchMinBytes = 1+int(how%3), sp.spawn, 1
		}
		step := []int{1, 10, 64}[how/3%3]
		skips := func(i int) bool { return how&0x80 != 0 && i%3 == 2 }
		sameOutcome(t, "fuzz", readOutcome(col, src, win, step, skips), readOutcome(col, mem, opts, step, skips))
		sp.settled(t, "after Close")
	})
}
