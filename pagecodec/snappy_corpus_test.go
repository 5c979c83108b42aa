package pagecodec

import (
	"bytes"
	"testing"

	"github.com/golang/snappy"

	isnappy "github.com/arrowpq/arrowpq/internal/snappy"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestSnappyCorpusPages decodes every SNAPPY page body of the
// parquet-testing files (those whose footer parses) with internal/snappy
// and with golang/snappy: the bytes must be equal, and so must failure.
// It also checks Decompress, the path the reader takes.
func TestSnappyCorpusPages(t *testing.T) {
	pages := 0
	forCorpusPages(t, format.CompressionCodec_SNAPPY, func(p corpusPage) {
		want, wantErr := snappy.Decode(nil, p.body)
		got, err := isnappy.Decode(nil, p.body)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%s page at %d: got %d bytes, %v; golang/snappy %d bytes, %v", p.file, p.at, len(got), err, len(want), wantErr)
		}
		var d Decompressor
		dst := make([]byte, len(want))
		err = d.Decompress(format.CompressionCodec_SNAPPY, dst, p.body)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(dst, want) {
			t.Errorf("%s page at %d: Decompress: %v", p.file, p.at, err)
		}
		pages++
	})
	if pages < 50 {
		t.Errorf("only %d SNAPPY pages in the corpus", pages)
	}
	t.Logf("%d SNAPPY pages", pages)
}
