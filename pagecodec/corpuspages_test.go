package pagecodec

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// corpusPage is one compressed page body of a parquet-testing file.
type corpusPage struct {
	file   string // base name
	column string // last element of the column's path
	at     int64  // file offset of the page's end
	body   []byte // compressed bytes (a V2 page's values only)
	size   int    // uncompressed size of body
}

// forCorpusPages calls fn with every compressed page body of the
// parquet-testing files (those whose footer parses) written with codec.
func forCorpusPages(t *testing.T, codec format.CompressionCodec, fn func(p corpusPage)) {
	t.Helper()
	testshared.Need(t, testdataDir)
	names, err := filepath.Glob(filepath.Join(testdataDir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		forFilePages(t, name, codec, fn)
	}
}

func forFilePages(t *testing.T, name string, codec format.CompressionCodec, fn func(p corpusPage)) {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.ReadFooter(f, st.Size())
	if err != nil {
		return
	}
	for _, rg := range md.Meta.RowGroups {
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m == nil || m.Codec != codec {
				continue
			}
			start := m.DataPageOffset
			if m.DictionaryPageOffset != nil && *m.DictionaryPageOffset > 0 && *m.DictionaryPageOffset < start {
				start = *m.DictionaryPageOffset
			}
			if start < 0 || m.TotalCompressedSize <= 0 || start+m.TotalCompressedSize > st.Size() {
				continue
			}
			chunk := make([]byte, m.TotalCompressedSize)
			if _, err := f.ReadAt(chunk, start); err != nil {
				t.Fatal(err)
			}
			var r PageReader
			r.Reset(chunk, m.Codec, PageReaderOptions{})
			for {
				h, err := r.NextHeader()
				if err != nil {
					if err != io.EOF {
						t.Logf("%s: %v", filepath.Base(name), err)
					}
					break
				}
				r.Skip()
				end := r.Offset()
				body := chunk[end-int(h.CompressedPageSize) : end]
				size := int(h.UncompressedPageSize)
				if v2 := h.DataPageHeaderV2; v2 != nil {
					if !v2.IsCompressed {
						continue
					}
					levels := v2.RepetitionLevelsByteLength + v2.DefinitionLevelsByteLength
					body = body[levels:]
					size -= int(levels)
				}
				fn(corpusPage{
					file: filepath.Base(name), column: m.PathInSchema[len(m.PathInSchema)-1],
					at: start + int64(end), body: body, size: size,
				})
			}
		}
	}
}
