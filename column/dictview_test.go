package column_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
)

// TestDictionaryView reads dictionary-encoded chunks written by arrow-go
// (the values it was given are the expectation) through one Reader, chunk
// after chunk as row groups come, with the dictionary used where it was
// decompressed and, as the differential twin, copied out. The second
// chunk's data pages decompress into the buffer that held the first
// chunk's dictionary, and its dictionary into the one that held pages: a
// view left pointing at the wrong buffer reads wrong values there. Read
// ahead on another goroutine takes the same hand-over through its slots.
func TestDictionaryView(t *testing.T) {
	types := []struct {
		physical parquet.Type
		width    int
	}{
		{parquet.Types.Int32, 0}, {parquet.Types.Int64, 0}, {parquet.Types.Float, 0},
		{parquet.Types.Double, 0}, {parquet.Types.FixedLenByteArray, 5},
	}
	codecs := []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Uncompressed}
	for _, ty := range types {
		for _, codec := range codecs {
			for _, prefetch := range []bool{false, true} {
				name := fmt.Sprintf("%v/%v/prefetch=%v", ty.physical, codec, prefetch)
				t.Run(name, func(t *testing.T) {
					var col *metadata.Column
					var chunks []column.Chunk
					var wants []testData
					for seed := range uint64(3) {
						s := spec{physical: ty.physical, width: ty.width, shape: optional, enc: parquet.Encodings.RLEDict,
							pageSize: 2048, codec: codec, rows: 3000 + 500*int(seed), seed: 40 + seed}
						want := generate(s)
						c, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
						col = c // the same column in each file
						chunks = append(chunks, chunk)
						wants = append(wants, want)
					}
					for _, view := range []bool{true, false} {
						old := column.SetViewDictionaries(view)
						opts := column.ReaderOptions{Buffers: new(column.BufferCache)}
						if prefetch {
							opts.Prefetch, opts.PrefetchMinBytes = 2, 1
							opts.Spawn = func(f func()) bool { go f(); return true }
						}
						r := column.NewReader(col, opts)
						for i, chunk := range chunks {
							r.Reset(chunk)
							got := readAll(t, r, col, 97)
							compareData(t, fmt.Sprintf("view=%v chunk %d", view, i), got, wants[i])
							wantView := view && codec != compress.Codecs.Uncompressed
							if column.DictionaryViewed(r) != wantView {
								t.Errorf("view=%v chunk %d: dictionary viewed %v, want %v", view, i, column.DictionaryViewed(r), wantView)
							}
						}
						r.Close()
						column.SetViewDictionaries(old)
					}
				})
			}
		}
	}
}

// TestReleaseDictionary: readers sharing a Dictionaries cache give their
// fixed-width dictionary's buffer back at the end of a chunk and the next
// dictionary page, of this reader or another, decompresses into it (the
// first chunk has the most rows, so its buffer fits the others'); the
// values read stay arrow-go's (the values it was given). A release before
// the chunk's end does nothing: the buffers the cache holds then are
// poisoned and the rest of the chunk still reads right.
func TestReleaseDictionary(t *testing.T) {
	for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Zstd} {
		for _, prefetch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/prefetch=%v", codec, prefetch), func(t *testing.T) {
				var col *metadata.Column
				var chunks []column.Chunk
				var wants []testData
				for seed := range uint64(4) {
					s := spec{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict,
						pageSize: 2048, codec: codec, rows: 3000 + 2000*int(min(seed, 1)^1), seed: 60 + seed}
					want := generate(s)
					c, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
					col = c
					chunks = append(chunks, chunk)
					wants = append(wants, want)
				}
				dicts := new(column.BufferCache)
				opts := column.ReaderOptions{Buffers: new(column.BufferCache), Dictionaries: dicts}
				if prefetch {
					opts.Prefetch, opts.PrefetchMinBytes = 2, 1
					opts.Spawn = func(f func()) bool { go f(); return true }
				}
				readers := []*column.Reader{column.NewReader(col, opts), column.NewReader(col, opts)}
				var first []byte
				for i, chunk := range chunks[:3] {
					r := readers[i%2]
					r.Reset(chunk)
					got := readAll(t, r, col, 97)
					compareData(t, fmt.Sprintf("chunk %d", i), got, wants[i])
					if !column.DictionaryViewed(r) {
						t.Fatalf("chunk %d: dictionary not viewed", i)
					}
					r.ReleaseDictionary()
					if _, ok := r.Dictionary(); ok {
						t.Errorf("chunk %d: a dictionary after its release", i)
					}
					if n := column.CachedBuffers(dicts); n != 1 {
						t.Fatalf("chunk %d: the cache holds %d dictionary buffers after the release, want 1", i, n)
					}
					b := dicts.Take(0)
					if i == 0 {
						first = b
					} else if !prefetch && &b[:1][0] != &first[:1][0] {
						// (Read ahead, the page comes in a slot's buffer,
						// which swaps with the one taken.)
						t.Errorf("chunk %d: its dictionary is not in the buffer released before", i)
					}
					dicts.Give(b)
				}
				// Too early: the dictionary stays.
				r := readers[1]
				r.Reset(chunks[3])
				if _, err := r.Remaining(); err != nil {
					t.Fatal(err)
				}
				r.ReleaseDictionary()
				if d, ok := r.Dictionary(); !ok || d.N == 0 {
					t.Fatalf("released before the chunk's end: ok %v", ok)
				}
				for b := dicts.Take(0); b != nil; b = dicts.Take(0) {
					for j := range b[:cap(b)] {
						b[:cap(b)][j] = 0xA5
					}
				}
				compareData(t, "chunk 3", readAll(t, r, col, 97), wants[3])
				for _, r := range readers {
					r.Close()
				}
			})
		}
	}
}
