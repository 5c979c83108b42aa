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
