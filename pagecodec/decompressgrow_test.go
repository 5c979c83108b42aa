package pagecodec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestDecompressGrow checks that a page body decodes to the size its
// header gives whatever the buffer it starts from, and that a header
// claiming far more than the body holds fails with ErrCorrupt having
// allocated about what the body decodes to, not the claim.
func TestDecompressGrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := make([]byte, 100<<10)
	for i := range text {
		text[i] = "abcdefgh"[rng.IntN(8)]
	}
	zeros := make([]byte, 8<<20) // ratio far above the first guesses
	codecs := []format.CompressionCodec{format.CompressionCodec_SNAPPY, format.CompressionCodec_GZIP,
		format.CompressionCodec_BROTLI, format.CompressionCodec_LZ4, format.CompressionCodec_LZ4_RAW,
		format.CompressionCodec_ZSTD}
	for _, codec := range codecs {
		t.Run(codec.String(), func(t *testing.T) {
			c, err := NewCompressor(codec, 0)
			if err != nil {
				t.Fatal(err)
			}
			var d Decompressor
			for _, data := range [][]byte{text, zeros} {
				body, err := c.AppendCompressed(nil, data)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.DecompressGrow(codec, nil, body, len(data))
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("%d bytes from %d: err %v, equal %v", len(data), len(body), err, bytes.Equal(got, data))
				}
				// One byte short and one byte over.
				for _, size := range []int{len(data) - 1, len(data) + 1} {
					if _, err := d.DecompressGrow(codec, nil, body, size); !errors.Is(err, ErrCorrupt) {
						t.Errorf("size %d for %d bytes: got %v, want ErrCorrupt", size, len(data), err)
					}
				}
			}
			body, _ := c.AppendCompressed(nil, text)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = d.DecompressGrow(codec, nil, body, 200<<20)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Errorf("a %d-byte body claiming 200 MiB allocated %d bytes", len(body), alloc)
			}
		})
	}
}
