package pagecodec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// zstdCLI decompresses the concatenated frames of bodies with libzstd (the
// zstd command), the oracle independent of klauspost, and cuts its output
// at sizes. It returns nil, without failing, when the command is missing.
func zstdCLI(t *testing.T, bodies [][]byte, sizes []int) [][]byte {
	t.Helper()
	path, err := exec.LookPath("zstd")
	if err != nil {
		if os.Getenv("ARROWPQ_REQUIRE_ZSTD") != "" {
			t.Fatalf("no zstd command, and ARROWPQ_REQUIRE_ZSTD is set: %v", err)
		}
		t.Logf("no zstd command: libzstd not compared (%v)", err)
		return nil
	}
	var in bytes.Buffer
	for _, b := range bodies {
		in.Write(b)
	}
	cmd := exec.Command(path, "-d", "-c", "-q")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d: %v", err)
	}
	res := make([][]byte, len(sizes))
	for i, n := range sizes {
		if n > len(out) {
			t.Fatalf("zstd -d output ends in page %d", i)
		}
		res[i], out = out[:n], out[n:]
	}
	if len(out) != 0 {
		t.Fatalf("zstd -d output has %d bytes past the pages", len(out))
	}
	return res
}

// poison fills the whole capacity of b with a byte no page ends up with in
// bulk, so that a stale or unwritten byte shows.
func poison(b []byte) {
	b = b[:cap(b)]
	for i := range b {
		b[i] = 0xA5
	}
}

// TestZstdCorpusPages decompresses every ZSTD page body of the
// parquet-testing files (those whose footer parses) three ways: with
// Decompress into one reused buffer with spare capacity, poisoned before
// each page (the reader's path), with DecompressGrow from an empty buffer,
// and with libzstd (the zstd command) on all bodies at once. All must be
// equal.
func TestZstdCorpusPages(t *testing.T) {
	var bodies, got [][]byte
	var sizes []int
	var where []string
	var d Decompressor
	buf := make([]byte, 0, 64<<10)
	forCorpusPages(t, format.CompressionCodec_ZSTD, func(p corpusPage) {
		at := p.file + " " + p.column
		buf = growTo(buf[:0], p.size)
		poison(buf)
		if err := d.Decompress(format.CompressionCodec_ZSTD, buf[:p.size], p.body); err != nil {
			t.Fatalf("%s: Decompress: %v", at, err)
		}
		grown, err := d.DecompressGrow(format.CompressionCodec_ZSTD, nil, p.body, p.size)
		if err != nil || !bytes.Equal(grown, buf[:p.size]) {
			t.Fatalf("%s: DecompressGrow differs from Decompress (err %v)", at, err)
		}
		bodies = append(bodies, p.body)
		got = append(got, bytes.Clone(buf[:p.size]))
		sizes = append(sizes, p.size)
		where = append(where, at)
	})
	if len(bodies) == 0 {
		t.Fatal("no ZSTD page in the corpus")
	}
	want := zstdCLI(t, bodies, sizes)
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Errorf("%s page %d: differs from libzstd", where[i], i)
		}
	}
	t.Logf("%d ZSTD pages", len(bodies))
}

// zstdPages returns page-like bodies of random sizes and contents (text,
// random bytes, long runs, empty), compressed by our Compressor at two
// levels and by klauspost without a frame content size, so that frames
// with and without one are both decoded.
func zstdPages(t *testing.T, rng *rand.Rand, n int) (raw, bodies [][]byte) {
	t.Helper()
	c1, err := NewCompressor(format.CompressionCodec_ZSTD, 1)
	if err != nil {
		t.Fatal(err)
	}
	c3, err := NewCompressor(format.CompressionCodec_ZSTD, 3)
	if err != nil {
		t.Fatal(err)
	}
	// A stream writer does not know the size in advance: no content size
	// in the frame header, and a window of its own.
	var sw bytes.Buffer
	noFCS, err := zstd.NewWriter(&sw, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<17))
	if err != nil {
		t.Fatal(err)
	}
	defer noFCS.Close()
	noSize := 0
	sizes := []int{0, 1, 15, 16, 17, 1000, 128<<10 - 1, 128 << 10, 128<<10 + 17, 300 << 10, 1 << 20}
	for i := 0; i < n; i++ {
		size := sizes[i%len(sizes)]
		if i >= len(sizes) {
			size = rng.IntN(1 << 20)
		}
		p := make([]byte, size)
		switch i % 4 {
		case 0:
			for j := range p {
				p[j] = "parquet page "[rng.IntN(13)]
			}
		case 1:
			for j := range p {
				p[j] = byte(rng.Uint32())
			}
		case 2:
			for j := range p {
				p[j] = byte(j / 1000)
			}
		}
		var body []byte
		switch i % 3 {
		case 0:
			body, err = c1.AppendCompressed(nil, p)
		case 1:
			body, err = c3.AppendCompressed(nil, p)
		default:
			sw.Reset()
			noFCS.Reset(&sw)
			if _, err = noFCS.Write(p); err == nil {
				err = noFCS.Close()
			}
			body = bytes.Clone(sw.Bytes())
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 && len(body) == 0 {
			continue // an empty body is the page reader's case, not the codec's
		}
		var h zstd.Header
		if err := h.Decode(body); err != nil {
			t.Fatal(err)
		}
		if i%3 == 2 {
			if !h.HasFCS {
				noSize++
			}
		} else if len(p) > 1000 && (!h.HasFCS || h.FrameContentSize != uint64(len(p))) {
			t.Fatalf("frame of %d bytes: content size %v %d", len(p), h.HasFCS, h.FrameContentSize)
		}
		raw, bodies = append(raw, p), append(bodies, body)
	}
	if noSize == 0 {
		t.Fatal("every frame states its content size")
	}
	return raw, bodies
}

// TestZstdReusedBuffer decodes pages of shrinking, then random sizes into
// one buffer, poisoned before each page, the way a page reader reuses its
// buffer (Decompress when the buffer is large enough, else
// DecompressGrow): every page must equal its input and libzstd's output,
// with no byte of an earlier page or of the poison left in it. Every
// buffer DecompressGrow returns keeps room past the page (growTo's
// headroom), so that the next page of about the same size reuses it.
func TestZstdReusedBuffer(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	raw, bodies := zstdPages(t, rng, 40)
	// Largest first: later pages land in a buffer holding a larger
	// earlier page.
	order := make([]int, len(raw))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ { // insertion sort by size, descending
		for j := i; j > 0 && len(raw[order[j]]) > len(raw[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	order = append(order, rng.Perm(len(raw))...)
	sizes := make([]int, len(raw))
	for i := range raw {
		sizes[i] = len(raw[i])
	}
	oracle := zstdCLI(t, bodies, sizes)
	var d Decompressor
	var buf []byte
	for _, i := range order {
		size := len(raw[i])
		poison(buf)
		var out []byte
		if cap(buf) >= size {
			out = buf[:size]
			if err := d.Decompress(format.CompressionCodec_ZSTD, out, bodies[i]); err != nil {
				t.Fatalf("page %d (%d bytes): %v", i, size, err)
			}
		} else {
			var err error
			out, err = d.DecompressGrow(format.CompressionCodec_ZSTD, buf[:0], bodies[i], size)
			if err != nil {
				t.Fatalf("page %d (%d bytes): %v", i, size, err)
			}
			if cap(out) < size+zstdSlack {
				t.Errorf("page %d: DecompressGrow returned capacity %d for %d bytes", i, cap(out), size)
			}
			buf = out[:0]
		}
		if !bytes.Equal(out, raw[i]) {
			t.Fatalf("page %d (%d bytes): output differs from the input", i, size)
		}
		if oracle != nil && !bytes.Equal(out, oracle[i]) {
			t.Fatalf("page %d (%d bytes): output differs from libzstd", i, size)
		}
	}
}

// TestZstdSizeMismatch checks that a frame decoding to more or less than
// the header's size fails with ErrCorrupt even when the buffer has the
// room (spare capacity, which the decoder may write into), and that
// DecompressGrow stays bounded by the body when the frame states no
// content size.
func TestZstdSizeMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	raw, bodies := zstdPages(t, rng, 12)
	var d Decompressor
	for i, p := range raw {
		if len(p) < 2 {
			continue
		}
		buf := make([]byte, len(p)+1, 2*len(p)+zstdSlack)
		for _, size := range []int{len(p) - 1, len(p) + 1} {
			poison(buf)
			err := d.Decompress(format.CompressionCodec_ZSTD, buf[:size], bodies[i])
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("page %d of %d bytes as %d: got %v, want ErrCorrupt", i, len(p), size, err)
			}
			if _, err := d.DecompressGrow(format.CompressionCodec_ZSTD, buf[:0], bodies[i], size); !errors.Is(err, ErrCorrupt) {
				t.Errorf("page %d of %d bytes as %d (grow): got %v, want ErrCorrupt", i, len(p), size, err)
			}
		}
	}
}

// TestZstdHostileFrames feeds hand-made frames whose headers lie: a frame
// content size above what its blocks hold, and a window of 2 GiB. Both
// must fail with ErrCorrupt or decode to what the blocks hold, into a
// buffer with spare capacity (which the decoder may use), and allocate
// next to nothing; so must a window of 2 GiB.
func TestZstdHostileFrames(t *testing.T) {
	magic := []byte{0x28, 0xB5, 0x2F, 0xFD}
	raw5 := []byte{5<<3 | 1, 0, 0, 'a', 'b', 'c', 'd', 'e'} // last raw block of 5 bytes
	frame := func(header ...byte) []byte {
		return append(append(append([]byte{}, magic...), header...), raw5...)
	}
	frames := map[string]struct {
		body []byte
		size int
		ok   bool
	}{
		// Single segment, 4-byte content size 100 000; 5 bytes follow.
		"content size lies": {frame(0xA0, 0xA0, 0x86, 0x01, 0x00), 100000, false},
		// Single segment, 1-byte content size 5, exact.
		"content size exact": {frame(0x20, 5), 5, true},
		// Window descriptor exponent 21: 2 GiB, above the decoder's
		// limit (libzstd's too); no content size.
		"2 GiB window": {frame(0x00, 21<<3), 5, false},
		// Exponent 16: 64 MiB, accepted; DecodeAll decodes into the
		// destination, so the window allocates nothing.
		"64 MiB window": {frame(0x00, 16<<3), 5, true},
		// The same, page header claiming more than the frame holds.
		"2 GiB window, size lies": {frame(0x00, 21<<3), 4096, false},
	}
	var d Decompressor
	for name, f := range frames {
		t.Run(name, func(t *testing.T) {
			buf := make([]byte, f.size, f.size+1<<20)
			poison(buf)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := d.Decompress(format.CompressionCodec_ZSTD, buf[:f.size], f.body)
			_, errGrow := d.DecompressGrow(format.CompressionCodec_ZSTD, nil, f.body, f.size)
			runtime.ReadMemStats(&after)
			for _, err := range []error{err, errGrow} {
				if f.ok && err != nil {
					t.Errorf("got %v, want the 5 bytes", err)
				}
				if !f.ok && !errors.Is(err, ErrCorrupt) {
					t.Errorf("got %v, want ErrCorrupt", err)
				}
			}
			if f.ok && string(buf[:5]) != "abcde" {
				t.Errorf("decoded %q", buf[:5])
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
				t.Errorf("allocated %d bytes", alloc)
			}
		})
	}
}
