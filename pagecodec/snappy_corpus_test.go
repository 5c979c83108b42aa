package pagecodec

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/golang/snappy"

	isnappy "github.com/arrowpq/arrowpq/internal/snappy"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestSnappyCorpusPages decodes every SNAPPY page body of the
// parquet-testing files (those whose footer parses) with internal/snappy
// and with golang/snappy: the bytes must be equal, and so must failure.
// It also checks Decompress, the path the reader takes.
func TestSnappyCorpusPages(t *testing.T) {
	testshared.Need(t, testdataDir)
	names, err := filepath.Glob(filepath.Join(testdataDir, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		md, err := metadata.ReadFooter(f, st.Size())
		if err != nil {
			f.Close()
			continue
		}
		for _, rg := range md.Meta.RowGroups {
			for _, cc := range rg.Columns {
				m := cc.MetaData
				if m == nil || m.Codec != format.CompressionCodec_SNAPPY {
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
					if v2 := h.DataPageHeaderV2; v2 != nil {
						if !v2.IsCompressed {
							continue
						}
						body = body[v2.RepetitionLevelsByteLength+v2.DefinitionLevelsByteLength:]
					}
					want, wantErr := snappy.Decode(nil, body)
					got, err := isnappy.Decode(nil, body)
					if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
						t.Errorf("%s page at %d: got %d bytes, %v; golang/snappy %d bytes, %v", filepath.Base(name), start+int64(end), len(got), err, len(want), wantErr)
					}
					var d Decompressor
					dst := make([]byte, len(want))
					err = d.Decompress(format.CompressionCodec_SNAPPY, dst, body)
					if (err != nil) != (wantErr != nil) || !bytes.Equal(dst, want) {
						t.Errorf("%s page at %d: Decompress: %v", filepath.Base(name), start+int64(end), err)
					}
					pages++
				}
			}
		}
		f.Close()
	}
	if pages < 50 {
		t.Errorf("only %d SNAPPY pages in the corpus", pages)
	}
	t.Logf("%d SNAPPY pages", pages)
}
