package pagecodec

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestSkip walks alltypes_tiny_pages.parquet twice, once reading every page
// and once skipping every other data page by its header; the pages read the
// second time equal the ones of the first walk with the same ordinal.
func TestSkip(t *testing.T) {
	testshared.Need(t, testdataDir)
	for _, c := range readTestFile(t, "alltypes_tiny_pages.parquet")[:3] {
		var all []Page
		var vals [][]byte
		r := readerFor(c)
		for {
			p, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, *p)
			vals = append(vals, bytes.Clone(p.Values))
		}
		if len(all) < 4 {
			t.Fatalf("%s: only %d pages", c.Path, len(all))
		}
		r = readerFor(c)
		read := 0
		for i := 0; ; i++ {
			h, err := r.NextHeader()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Type == format.PageType_DATA_PAGE && i%2 == 1 {
				r.Skip()
				continue
			}
			p, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if p.Ordinal != i || p.Offset != all[i].Offset || !bytes.Equal(p.Values, vals[i]) || p.NumLevels != all[i].NumLevels {
				t.Fatalf("%s page %d differs after skipping", c.Path, i)
			}
			read++
		}
		if read == 0 || read == len(all) {
			t.Fatalf("read %d of %d", read, len(all))
		}
	}
}

// TestTruncatedChunk cuts a chunk at every length: each cut gives
// io.ErrUnexpectedEOF (or a clean io.EOF exactly between pages), never a
// panic, and errors locate the page.
func TestTruncatedChunk(t *testing.T) {
	testshared.Need(t, testdataDir)
	c := readTestFile(t, "datapage_v2.snappy.parquet")[0]
	var ends []int
	r := readerFor(c)
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, r.Offset())
	}
	for n := range len(c.Chunk) {
		var r PageReader
		r.Reset(c.Chunk[:n], c.Meta.Codec, PageReaderOptions{MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep})
		var err error
		for err == nil {
			_, err = r.Next()
		}
		clean := n == 0
		for _, e := range ends {
			clean = clean || e == n
		}
		if clean {
			if err != io.EOF {
				t.Fatalf("cut at page end %d: %v", n, err)
			}
			continue
		}
		var pe *PageError
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrCorrupt) || !errors.As(err, &pe) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}

// TestV1BitPackedLevels: with BIT_PACKED levels a v1 page has no length
// prefix; 10 levels of max 1 take 2 bytes, of max 3 take 3 bytes.
func TestV1BitPackedLevels(t *testing.T) {
	for _, tc := range []struct {
		maxDef int16
		bytes  int
	}{{1, 2}, {3, 3}, {0, 0}} {
		levels := []byte{0xAA, 0xBB, 0xCC}[:tc.bytes]
		body := append(bytes.Clone(levels), 'v', 'a', 'l')
		h := &format.PageHeader{Type: format.PageType_DATA_PAGE, DataPageHeader: &format.DataPageHeader{
			NumValues: 10, Encoding: format.Encoding_PLAIN,
			DefinitionLevelEncoding: format.Encoding_BIT_PACKED, RepetitionLevelEncoding: format.Encoding_BIT_PACKED,
		}}
		w, _ := NewPageWriter(PageWriterOptions{})
		w.body = body
		chunk, _, err := w.finish(nil, h, len(body))
		if err != nil {
			t.Fatal(err)
		}
		var r PageReader
		r.Reset(chunk, format.CompressionCodec_UNCOMPRESSED, PageReaderOptions{MaxDefinitionLevel: tc.maxDef})
		p, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.DefinitionLevels, levels) || string(p.Values) != "val" || len(p.RepetitionLevels) != 0 {
			t.Fatalf("max %d: levels % x values %q", tc.maxDef, p.DefinitionLevels, p.Values)
		}
	}
}
