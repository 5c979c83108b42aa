package pagecodec

// Compression codecs of Parquet pages (Compression.md): every codec
// decompresses a whole page body into a buffer whose size the page header
// gives, so a result of any other size is corrupt input.
//
// LZ4 (codec 5, deprecated) has two meanings in the wild: Hadoop's framing
// (a sequence of blocks, each a big-endian 4-byte uncompressed length, then
// chunks of a big-endian 4-byte compressed length and a raw LZ4 block) and a
// bare LZ4 block. We try the Hadoop framing first and fall back to the bare
// block, as parquet-cpp and arrow-rs do; we write the Hadoop framing.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	isnappy "github.com/arrowpq/arrowpq/internal/snappy"
	"github.com/arrowpq/arrowpq/internal/uninit"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// sharedZstd is one decoder for the whole process: DecodeAll on it is safe
// for concurrent use, and it is limited to the capacity of the destination,
// so a hostile frame cannot make it allocate beyond the page size. It runs
// as many DecodeAll calls at once as the machine has CPUs, not GOMAXPROCS:
// GOMAXPROCS may be raised after the first page is read (benchmarks with
// -cpu 1,2 do), and a decoder sized for one CPU serialized every parallel
// read after it.
//
// Its other options were measured on the ZSTD pages of lineitem and strings
// (30 MB each, DecodeAll into a reused buffer, thread CPU time, 3 rounds):
// concurrency 1 or low-memory mode change nothing (lineitem 1086-1147
// MB/s as is, 1135-1161 and 1130-1156; strings 1164-1184, 1146-1196,
// 1159-1209). Skipping the frame checksum (pqarrow writes one) gains up to
// 10% (strings 1279-1296 with one run at 913; lineitem 1028-1202, within
// the noise) and is not taken: it is the integrity check of the page.
//
// The floor, on all ZSTD pages of the benchmark files (issue 17 round 4,
// internal/zstdbench, thread CPU, medians of 3 runs): libzstd 1.5.4
// decodes lineitem at 1.25-1.30 GB/s, strings 1.40-1.44, numeric
// 1.79-1.85, DuckDB's wide file 1.61-1.74 (checksum verified); klauspost
// as called here 1.12-1.19, 1.16-1.26, 1.53-1.58, 1.34-1.43. The
// difference is ~10 ms of a lineitem read, ~11 of numeric, ~25 of
// strings.
// Decoders of identical options differ by where their frame decoder
// landed in the heap: in one of twelve, the 16-byte store with which the
// sequence loop updates the repeat offsets for every sequence crosses a
// 4 KiB page, and that decoder takes ~1.5x the CPU on the same frames
// (0.8 against 1.2 GB/s on lineitem; moving the frame decoder alone
// reproduces it: internal/zstdbench/_placement). newZstdDecoder makes
// another decoder when one of them is placed so (zstdplace.go).
var sharedZstd = sync.OnceValues(func() (*zstd.Decoder, error) {
	return newZstdDecoder(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(max(runtime.NumCPU(), 1)))
	})
})

// Decompressor decompresses page bodies and keeps the state of the stream
// codecs (gzip, brotli) between pages. The zero value is ready to use. A
// Decompressor is not safe for concurrent use; the zstd decoder behind it is
// shared by all of them.
type Decompressor struct {
	rd bytes.Reader
	gz *gzip.Reader
	br *brotli.Reader
}

// Decompress decompresses src, compressed with codec, into dst, which must
// have exactly the uncompressed length. A body that decompresses to any other
// length is [ErrCorrupt]; LZO is [ErrUnsupported]. ZSTD may also write into
// the spare capacity of dst (dst[len(dst):cap(dst)]), the decoder's margin
// for its fast copies: the bytes there are unspecified afterwards.
func (d *Decompressor) Decompress(codec format.CompressionCodec, dst, src []byte) error {
	switch codec {
	case format.CompressionCodec_UNCOMPRESSED:
		if len(src) != len(dst) {
			return errCorrupt("uncompressed page body of %d bytes, header says %d", len(src), len(dst))
		}
		copy(dst, src)
		return nil
	case format.CompressionCodec_SNAPPY:
		// Our own decoder (internal/snappy), bit-identical to
		// golang/snappy's and faster on the pages of the benchmark
		// datasets (its BenchmarkDecode). Before it, golang/snappy,
		// and klauspost's s2 was measured no faster (905-1026 vs
		// 934-991 MB/s on a 1 MiB page of PLAIN strings) and, unlike
		// golang/snappy, accepts the S2 extensions that are not Snappy.
		n, err := isnappy.DecodedLen(src)
		if err != nil {
			return errCorrupt("snappy: %v", err)
		}
		if n != len(dst) {
			return errCorrupt("snappy body decodes to %d bytes, header says %d", n, len(dst))
		}
		if err := isnappy.DecodeInto(dst, src); err != nil {
			return errCorrupt("snappy: %v", err)
		}
		return nil
	case format.CompressionCodec_GZIP:
		d.rd.Reset(src)
		if d.gz == nil {
			gz, err := gzip.NewReader(&d.rd)
			if err != nil {
				return errCorrupt("gzip: %v", err)
			}
			d.gz = gz
		} else if err := d.gz.Reset(&d.rd); err != nil {
			return errCorrupt("gzip: %v", err)
		}
		// Multistream is on by default: concatenated members are one body.
		return readExactly("gzip", d.gz, dst)
	case format.CompressionCodec_BROTLI:
		d.rd.Reset(src)
		if d.br == nil {
			d.br = brotli.NewReader(&d.rd)
		} else if err := d.br.Reset(&d.rd); err != nil {
			return errCorrupt("brotli: %v", err)
		}
		return readExactly("brotli", d.br, dst)
	case format.CompressionCodec_LZ4:
		if decompressHadoopLZ4(dst, src) {
			return nil
		}
		return decompressLZ4Block("LZ4", dst, src)
	case format.CompressionCodec_LZ4_RAW:
		return decompressLZ4Block("LZ4_RAW", dst, src)
	case format.CompressionCodec_ZSTD:
		dec, err := sharedZstd()
		if err != nil {
			return fmt.Errorf("pagecodec: zstd: %w", err)
		}
		// The spare capacity of dst is the decoder's margin: with at
		// least zstdSlack bytes past the end of the frame it runs its
		// fast sequence loop (16-byte copies that may write past the
		// last byte) to the end, not its exact-copy loop over the last
		// block (sequenceDecs_decodeSync_safe_bmi2, 2-3.5% of a read
		// of lineitem or strings ZSTD). A frame that decodes to more
		// than len(dst) fails below, having written at most cap(dst).
		out, err := dec.DecodeAll(src, dst[:0:max(cap(dst), len(dst))])
		if err != nil {
			return errCorrupt("zstd: %v", err)
		}
		if len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[:1][0]) {
			return errCorrupt("zstd body decodes to %d bytes, header says %d", len(out), len(dst))
		}
		return nil
	case format.CompressionCodec_LZO:
		return errUnsupported("LZO codec")
	default:
		return errUnsupported("compression codec %d", int32(codec))
	}
}

// readExactly fills dst from a stream decoder and checks that the stream ends
// there.
func readExactly(name string, r io.Reader, dst []byte) error {
	if _, err := io.ReadFull(r, dst); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return errTruncated("%s body shorter than the %d bytes of the header", name, len(dst))
		}
		return errCorrupt("%s: %v", name, err)
	}
	var one [1]byte
	n, err := r.Read(one[:])
	for n == 0 && err == nil {
		n, err = r.Read(one[:])
	}
	if n > 0 {
		return errCorrupt("%s body longer than the %d bytes of the header", name, len(dst))
	}
	if err != io.EOF {
		return errCorrupt("%s: %v", name, err)
	}
	return nil
}

func decompressLZ4Block(name string, dst, src []byte) error {
	if len(dst) == 0 {
		// An empty block is a single token byte 0; some writers emit
		// nothing at all.
		if len(src) == 0 || (len(src) == 1 && src[0] == 0) {
			return nil
		}
		return errCorrupt("%s body of %d bytes for an empty page", name, len(src))
	}
	n, err := lz4.UncompressBlock(src, dst)
	if err != nil {
		return errCorrupt("%s: %v", name, err)
	}
	if n != len(dst) {
		return errCorrupt("%s body decodes to %d bytes, header says %d", name, n, len(dst))
	}
	return nil
}

// decompressHadoopLZ4 reports whether src is a well-formed Hadoop LZ4 stream
// that fills dst exactly. Any doubt returns false so that the caller can try
// the bare block.
func decompressHadoopLZ4(dst, src []byte) bool {
	out := 0
	for len(src) > 0 {
		if len(src) < 8 {
			return false
		}
		blockLen := uint64(binary.BigEndian.Uint32(src))
		src = src[4:]
		if blockLen > uint64(len(dst)-out) {
			return false
		}
		end := out + int(blockLen)
		for out < end {
			if len(src) < 4 {
				return false
			}
			chunkLen := uint64(binary.BigEndian.Uint32(src))
			src = src[4:]
			if chunkLen > uint64(len(src)) || chunkLen == 0 {
				return false
			}
			n, err := lz4.UncompressBlock(src[:chunkLen], dst[out:end])
			if err != nil || n == 0 {
				return false
			}
			out += n
			src = src[chunkLen:]
		}
	}
	return out == len(dst)
}

// DefaultZstdLevel is the ZSTD level of level 0: zstd's level 1,
// klauspost's SpeedFastest, the default of parquet-cpp (pyarrow) and
// arrow-rs. Level 3 (SpeedDefault, DuckDB's default and ours before) costs
// 15-35% more CPU for 0-4.5% smaller files: compressing the pages of the
// benchmark datasets alone, -cpu 1, level 1 vs 3: lineitem 0.52 vs 0.71 s
// (49.75 vs 48.33 MB), strings 0.92 vs 1.09 s (53.09 vs 50.82 MB), numeric
// and nested within 0.3% in size (issue 17; docs/performance.md).
//
// klauspost's encoder is the floor of the strings ZSTD write, slower than
// DuckDB's COPY: compressing the 241 pages of the strings benchmark file
// (233 MB) one by one takes, in thread CPU, klauspost level 1 920-950 ms
// for 56.00 MB (without all-literal entropy 938 ms, 56.04 MB; a 256 KiB
// window 962 ms; no entropy coding 861 ms, 63.6 MB; level 3 1170 ms, 53.62
// MB), libzstd 1.5.4 level 1 519-547 ms for 54.64 MB, level 3 (DuckDB's)
// 718 ms for 53.94 MB. No klauspost setting is as fast as libzstd level 3
// at ≤ 2% larger output (internal/zstdbench, issue 17 round 4).
const DefaultZstdLevel = 1

// zstdPool holds idle zstd encoders of one level for every Compressor of
// the process: an encoder holds about 5 MiB of history and tables, and
// with one per column chunk writer, a writer of 16 ZSTD columns allocated
// 90 MB before its first page (BenchmarkWrite data=lineitem, B/op) and
// kept it. Encoders are taken for one page at a time, so a process holds
// as many as it compresses pages at once.
type zstdPool struct {
	level zstd.EncoderLevel
	pool  sync.Pool
}

var zstdPools [zstd.SpeedBestCompression + 1]struct {
	once sync.Once
	p    *zstdPool
}

func zstdEncoders(level zstd.EncoderLevel) *zstdPool {
	level = min(max(level, zstd.SpeedFastest), zstd.SpeedBestCompression)
	z := &zstdPools[level]
	z.once.Do(func() { z.p = &zstdPool{level: level} })
	return z.p
}

func (p *zstdPool) get() (*zstd.Encoder, error) {
	if e, ok := p.pool.Get().(*zstd.Encoder); ok {
		return e, nil
	}
	// Literal entropy coding even for blocks without matches, as arrow-go
	// does: pages of random integers and of dictionary indices have no LZ
	// matches but skewed bytes, and at the default level klauspost skips
	// them (BenchmarkWrite data=nested ZSTD: 12.85 MB without, 10.75 with;
	// pqarrow 11.53). No frame checksum: the page CRC covers the body, and
	// libzstd (parquet-cpp, arrow-rs) writes none by default.
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true),
		zstd.WithAllLitEntropyCompression(true), zstd.WithEncoderCRC(false), zstd.WithEncoderLevel(p.level))
}

func (p *zstdPool) put(e *zstd.Encoder) { p.pool.Put(e) }

// Compressor compresses page bodies with one codec at one level, reusing
// its encoder state between pages. Create it with [NewCompressor]; it is not
// safe for concurrent use.
type Compressor struct {
	codec format.CompressionCodec
	level int
	zpool *zstdPool
	gzw   *gzip.Writer
	brw   *brotli.Writer
	lz    *lz4.Compressor   // LZ4 only: its tables are 64 KiB ...
	lzhc  *lz4.CompressorHC // ... and 320 KiB, per column writer
	aw    appendWriter
}

// NewCompressor returns a compressor for codec. Level 0 means the codec's
// default (ZSTD: 1, see [DefaultZstdLevel]); otherwise it is the codec's own
// scale: GZIP 1..9, BROTLI 0..11, ZSTD 1..22 (zstd's scale, mapped to the
// nearest of klauspost's encoder speeds: 1-2, 3-5, 6-9, 10-22), LZ4 and
// LZ4_RAW a positive level select the high-compression block compressor with
// that search depth. SNAPPY: levels up to 1 are the reference encoder
// (golang/snappy, the output size of parquet-cpp, arrow-rs and parquet-java),
// 2 and above klauspost's "better" Snappy encoder, which arrow-go uses: up
// to 8% smaller on text, half the speed. UNCOMPRESSED ignores the level. LZO
// returns [ErrUnsupported].
func NewCompressor(codec format.CompressionCodec, level int) (*Compressor, error) {
	c := &Compressor{codec: codec, level: level}
	switch codec {
	case format.CompressionCodec_UNCOMPRESSED, format.CompressionCodec_SNAPPY:
	case format.CompressionCodec_GZIP:
		if level == 0 {
			level = gzip.DefaultCompression
		}
		w, err := gzip.NewWriterLevel(&c.aw, level)
		if err != nil {
			return nil, fmt.Errorf("pagecodec: gzip level %d: %w", c.level, ErrUnsupported)
		}
		c.gzw = w
	case format.CompressionCodec_BROTLI:
		if level == 0 {
			level = brotli.DefaultCompression
		}
		if level < brotli.BestSpeed || level > brotli.BestCompression {
			return nil, errUnsupported("brotli level %d", level)
		}
		c.brw = brotli.NewWriterLevel(&c.aw, level)
	case format.CompressionCodec_ZSTD:
		if level == 0 {
			level = DefaultZstdLevel
		}
		el := zstd.EncoderLevelFromZstd(level)
		c.zpool = zstdEncoders(el)
		// Make one now, so that a bad level fails here.
		enc, err := c.zpool.get()
		if err != nil {
			return nil, fmt.Errorf("pagecodec: zstd level %d: %w", level, err)
		}
		c.zpool.put(enc)
	case format.CompressionCodec_LZ4, format.CompressionCodec_LZ4_RAW:
		c.lz, c.lzhc = new(lz4.Compressor), &lz4.CompressorHC{Level: lz4.CompressionLevel(level)}
	case format.CompressionCodec_LZO:
		return nil, errUnsupported("LZO codec")
	default:
		return nil, errUnsupported("compression codec %d", int32(codec))
	}
	return c, nil
}

// AppendCompressed appends the compressed form of src to dst and returns the
// extended slice.
func (c *Compressor) AppendCompressed(dst, src []byte) ([]byte, error) {
	switch c.codec {
	case format.CompressionCodec_UNCOMPRESSED:
		return append(dst, src...), nil
	case format.CompressionCodec_SNAPPY:
		n := len(dst)
		// Room for either encoder's bound, so that neither allocates.
		dst = grow(dst, max(snappy.MaxEncodedLen(len(src)), s2.MaxEncodedLen(len(src))))
		var out []byte
		if c.level >= 2 {
			// Snappy block format (no S2 extensions), decodable by
			// every Snappy decoder; it may use 4-byte copy offsets.
			out = s2.EncodeSnappyBetter(dst[n:cap(dst)], src)
		} else {
			out = snappy.Encode(dst[n:cap(dst)], src)
		}
		return dst[:n+len(out)], nil
	case format.CompressionCodec_GZIP:
		c.aw.b = dst
		c.gzw.Reset(&c.aw)
		if _, err := c.gzw.Write(src); err != nil {
			return dst, err
		}
		err := c.gzw.Close()
		dst, c.aw.b = c.aw.b, nil
		return dst, err
	case format.CompressionCodec_BROTLI:
		c.aw.b = dst
		c.brw.Reset(&c.aw)
		if _, err := c.brw.Write(src); err != nil {
			return dst, err
		}
		err := c.brw.Close()
		dst, c.aw.b = c.aw.b, nil
		return dst, err
	case format.CompressionCodec_ZSTD:
		enc, err := c.zpool.get()
		if err != nil {
			return dst, err
		}
		dst = enc.EncodeAll(src, dst)
		c.zpool.put(enc)
		return dst, nil
	case format.CompressionCodec_LZ4_RAW:
		return c.appendLZ4Block(dst, src)
	case format.CompressionCodec_LZ4:
		// Hadoop framing: one block with one chunk per 256 KiB of input
		// at most keeps every chunk decodable by Hadoop's fixed buffers.
		const chunk = 256 << 10
		// An empty body stays empty: the reader accepts it for an empty
		// page whatever the framing.
		for len(src) > 0 {
			part := src[:min(len(src), chunk)]
			src = src[len(part):]
			n := len(dst)
			dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
			var err error
			dst, err = c.appendLZ4Block(dst, part)
			if err != nil {
				return dst, err
			}
			binary.BigEndian.PutUint32(dst[n:], uint32(len(part)))
			binary.BigEndian.PutUint32(dst[n+4:], uint32(len(dst)-n-8))
		}
		return dst, nil
	}
	return dst, errUnsupported("compression codec %d", int32(c.codec))
}

func (c *Compressor) appendLZ4Block(dst, src []byte) ([]byte, error) {
	if len(src) == 0 {
		return append(dst, 0), nil
	}
	n := len(dst)
	dst = grow(dst, lz4.CompressBlockBound(len(src)))
	var m int
	var err error
	if c.level > 0 {
		m, err = c.lzhc.CompressBlock(src, dst[n:cap(dst)])
	} else {
		m, err = c.lz.CompressBlock(src, dst[n:cap(dst)])
	}
	if err != nil {
		return dst[:n], fmt.Errorf("pagecodec: lz4: %w", err)
	}
	return dst[:n+m], nil
}

// grow returns b with room for n more bytes past len(b) (the length is
// unchanged; the room is b[len(b):cap(b)]).
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n][:len(b)]
	}
	nb := make([]byte, len(b), len(b)+n+len(b)/4)
	copy(nb, b)
	return nb
}

type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Ratios that bound what a compressed body can decode to, from the formats:
// an LZ4 sequence's match length grows by at most 255 per input byte; a
// zstd block decodes to at most 128 KiB and takes at least 4 bytes (an RLE
// block: 3 header bytes and the byte). Deflate (gzip) reaches 1032:1 and
// Brotli far more, so those two are not bounded by a ratio but decoded into
// a buffer that grows as output arrives.
const (
	maxLZ4Ratio  = 256
	maxZstdRatio = 32 << 10
	// decodeSlack covers the fixed overheads (frame headers, end marks)
	// the ratios leave out.
	decodeSlack = 1 << 10
	// growStart is the first buffer of a stream codec whose output size
	// is unknown, and the least a zstd guess starts from.
	growStart = 1 << 20
	// zstdSlack is the spare capacity past a frame's content that lets
	// klauspost's decoder copy 16 bytes at a time to the end of the
	// frame (its compressedBlockOverAlloc, 16), with room to spare.
	zstdSlack = 64
)

// DecompressGrow decompresses src, compressed with codec, to exactly size
// bytes, appended to dst[:0] (dst is reused when its capacity is enough).
// Unlike [Decompressor.Decompress] it does not take size on trust: size
// comes from a page header, and a forged header must not make a small body
// allocate up to the page limit. Before anything is allocated, size is
// checked against what src can decode to (exactly for Snappy, by the
// codec's maximum ratio for LZ4 and zstd); gzip and Brotli output, and a
// zstd frame's, goes into a buffer that grows with what the decoder
// produces, so a body that decodes to less than size fails having
// allocated about what it decoded. Errors are those of Decompress.
func (d *Decompressor) DecompressGrow(codec format.CompressionCodec, dst, src []byte, size int) ([]byte, error) {
	if size < 0 {
		return dst[:0], errCorrupt("negative decompressed size %d", size)
	}
	if cap(dst) >= size {
		dst = dst[:size]
		return dst, d.Decompress(codec, dst, src)
	}
	switch codec {
	case format.CompressionCodec_UNCOMPRESSED:
		if len(src) != size {
			return dst[:0], errCorrupt("uncompressed page body of %d bytes, header says %d", len(src), size)
		}
	case format.CompressionCodec_SNAPPY:
		n, err := isnappy.DecodedLen(src)
		if err != nil {
			return dst[:0], errCorrupt("snappy: %v", err)
		}
		if n != size {
			return dst[:0], errCorrupt("snappy body decodes to %d bytes, header says %d", n, size)
		}
	case format.CompressionCodec_LZ4, format.CompressionCodec_LZ4_RAW:
		if bound := maxLZ4Ratio*uint64(len(src)) + decodeSlack; uint64(size) > bound {
			return dst[:0], errCorrupt("%v body of %d bytes cannot decode to the %d bytes of the header (at most %d)", codec, len(src), size, bound)
		}
	case format.CompressionCodec_ZSTD:
		return d.zstdGrow(dst, src, size)
	case format.CompressionCodec_GZIP, format.CompressionCodec_BROTLI:
		r, err := d.stream(codec, src)
		if err != nil {
			return dst[:0], err
		}
		// The names and messages of Decompress (readExactly): whether a
		// page decodes into a buffer large enough already or grows one
		// depends on the pages read before, not on the page.
		name := "gzip"
		if codec == format.CompressionCodec_BROTLI {
			name = "brotli"
		}
		return readGrow(name, r, dst, size)
	default:
		// LZO and unknown codecs fail without a buffer.
		return dst[:0], d.Decompress(codec, nil, src)
	}
	dst = growTo(dst[:0], size)[:size]
	return dst, d.Decompress(codec, dst, src)
}

// growTo returns a buffer of capacity at least n holding b's bytes, with
// headroom so that pages of slightly different sizes share one buffer, and
// the zstd decoder finds its margin (zstdSlack) past a page of n bytes.
func growTo(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	// Not zeroed: a decompressor writes the bytes of a page before
	// anything reads them, and a page is cut at its size.
	nb := uninit.Bytes(n + n/8 + zstdSlack)[:len(b)]
	copy(nb, b)
	return nb
}

// stream returns the gzip or Brotli decoder reset to read src.
func (d *Decompressor) stream(codec format.CompressionCodec, src []byte) (io.Reader, error) {
	d.rd.Reset(src)
	switch codec {
	case format.CompressionCodec_GZIP:
		if d.gz == nil {
			gz, err := gzip.NewReader(&d.rd)
			if err != nil {
				return nil, errCorrupt("gzip: %v", err)
			}
			d.gz = gz
		} else if err := d.gz.Reset(&d.rd); err != nil {
			return nil, errCorrupt("gzip: %v", err)
		}
		return d.gz, nil
	default:
		if d.br == nil {
			d.br = brotli.NewReader(&d.rd)
		} else if err := d.br.Reset(&d.rd); err != nil {
			return nil, errCorrupt("brotli: %v", err)
		}
		return d.br, nil
	}
}

// readGrow reads exactly size bytes from a stream decoder into dst[:0],
// doubling the buffer as output arrives, and checks that the stream ends
// there.
func readGrow(name string, r io.Reader, dst []byte, size int) ([]byte, error) {
	dst = dst[:0]
	for len(dst) < size {
		want := min(size, max(2*len(dst), growStart, cap(dst)))
		dst = growTo(dst, want)
		n, err := io.ReadFull(r, dst[len(dst):want])
		dst = dst[:len(dst)+n]
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return dst[:0], errTruncated("%s body shorter than the %d bytes of the header", name, size)
			}
			return dst[:0], errCorrupt("%s: %v", name, err)
		}
	}
	var one [1]byte
	n, err := r.Read(one[:])
	for n == 0 && err == nil {
		n, err = r.Read(one[:])
	}
	if n > 0 {
		return dst[:0], errCorrupt("%s body longer than the %d bytes of the header", name, size)
	}
	if err != io.EOF {
		return dst[:0], errCorrupt("%s: %v", name, err)
	}
	return dst, nil
}

// zstdGrow decodes a zstd body of unverified size: into dst at the header's
// size when dst is that large already, else a first buffer from the frame's
// content size (when it states one within size) or a guess from the body,
// grown fourfold each time the decoder reports it too small.
func (d *Decompressor) zstdGrow(dst, src []byte, size int) ([]byte, error) {
	if bound := maxZstdRatio*uint64(len(src)) + decodeSlack; uint64(size) > bound {
		return dst[:0], errCorrupt("ZSTD body of %d bytes cannot decode to the %d bytes of the header (at most %d)", len(src), size, bound)
	}
	dec, err := sharedZstd()
	if err != nil {
		return dst[:0], fmt.Errorf("pagecodec: zstd: %w", err)
	}
	guess := min(size, max(growStart, 32*len(src)))
	var h zstd.Header
	if h.Decode(src) == nil && h.HasFCS {
		if h.FrameContentSize > uint64(size) {
			return dst[:0], errCorrupt("zstd frame of %d bytes, header says %d", h.FrameContentSize, size)
		}
		guess = max(int(h.FrameContentSize), min(guess, growStart))
	}
	if cap(dst) >= size {
		// The buffer already holds the header's size: trusting it costs
		// no allocation, and a page compressed more than the guess allows
		// (dictionary indices of long runs) is decoded once, not again
		// after each fourfold growth.
		guess = size
	}
	for {
		dst = growTo(dst[:0], guess)
		// At the header's size the whole buffer is the limit (the
		// decoder's margin, see Decompress); below it the guess is, so
		// that a frame larger than the guess says so and the buffer
		// grows.
		limit := cap(dst)
		if guess < size {
			limit = guess
		}
		out, err := dec.DecodeAll(src, dst[:0:limit])
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) && guess < size {
			guess = min(size, 4*guess)
			continue
		}
		if err != nil {
			return dst[:0], errCorrupt("zstd: %v", err)
		}
		if len(out) != size || (len(out) > 0 && &out[0] != &dst[:1][0]) {
			return dst[:0], errCorrupt("zstd body decodes to %d bytes, header says %d", len(out), size)
		}
		// dst, not out: out's capacity is the limit, and a buffer
		// returned at exactly this page's size was replaced by a new one
		// at the next page a few bytes larger (19 of ~1 MB per read of
		// numeric ZSTD, BenchmarkRead B/op).
		return dst[:size], nil
	}
}
