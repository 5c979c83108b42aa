package pagecodec

// A column chunk is a sequence of pages, each a Thrift-compact PageHeader
// followed by compressed_page_size bytes of body:
//
//	column-chunk = (page-header page-body)*
//	DICTIONARY_PAGE body = codec(PLAIN dictionary values)
//	DATA_PAGE body       = codec(rep-levels def-levels values)
//	                       RLE levels carry a 4-byte little-endian length
//	                       prefix; BIT_PACKED levels take
//	                       ceil(num_values*bitwidth/8) bytes and no prefix;
//	                       a max level of 0 means the section is absent
//	DATA_PAGE_V2 body    = rep-levels def-levels codec(values)
//	                       (levels are never compressed; their lengths are
//	                       in the header; is_compressed=false means the
//	                       values are stored as is)
//
// The optional crc is CRC-32 (IEEE) of the body bytes as stored.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// DefaultMaxPageSize is the largest page body (compressed or not) a
// [PageReader] accepts when [PageReaderOptions.MaxPageSize] is 0, and the
// default of arrowpq.ReadOptions.MaxPageSize, which refers to it: one limit
// for both layers. Real writers stay far below it (parquet-mr and
// parquet-cpp cut pages at 1 MiB; arrow-go's reader has the same 256 MiB
// default); a larger page is more likely a corrupt header than data. It
// bounds what a header may claim, not what is allocated: the buffer for a
// compressed page grows only as far as its body decodes (see
// [Decompressor.DecompressGrow]). At 1 GiB, one 3 KiB Brotli page could
// make a reader allocate over a gigabyte.
const DefaultMaxPageSize = 256 << 20

// maxHeaderSize bounds the bytes a page header may take; statistics with long
// binary min/max values are the only thing that makes headers big.
const maxHeaderSize = 16 << 20

// PageReaderOptions configures a [PageReader]. The zero value means: offsets
// relative to the chunk, no levels, [DefaultMaxPageSize], CRCs verified.
type PageReaderOptions struct {
	// FileOffset is the absolute file offset of the chunk's first byte;
	// page offsets in [Page] and [PageError] add it.
	FileOffset int64
	// MaxDefinitionLevel and MaxRepetitionLevel of the column: they say
	// whether a data page v1 body holds level sections and how wide
	// BIT_PACKED levels are.
	MaxDefinitionLevel int16
	MaxRepetitionLevel int16
	// MaxPageSize bounds the compressed and the uncompressed size of every
	// page, checked against the header before anything is allocated.
	MaxPageSize int
	// SkipCRC turns off the verification of page CRCs.
	SkipCRC bool
	// AssumeV2Compressed treats every DATA_PAGE_V2 with is_compressed=false
	// as compressed with the chunk's codec (pyarrow 2.0 wrote Snappy pages
	// flagged uncompressed; ARROW-17100). The caller decides it from the
	// file's created_by. Without it, a v2 page flagged uncompressed whose
	// stored and uncompressed value sizes differ is also decompressed with
	// the chunk's codec, because it cannot be stored as is.
	AssumeV2Compressed bool
	// Decryptor, when set, decrypts the header and body modules of an
	// encrypted column chunk (see decrypt.go).
	Decryptor Decryptor
	// CopyStored has every page section stored as is (the level sections
	// of a DATA_PAGE_V2, values stored uncompressed) copied into the
	// reader's buffer instead of aliasing the chunk: the pages then stay
	// valid while the reader goes on through a [Source] whose window is
	// refilled in place, until the buffer is swapped out
	// ([PageReader.SwapBuffer]) and reused.
	CopyStored bool
}

// Source supplies the bytes of a column chunk that is not held in memory
// whole ([PageReader.ResetSource]): a window of the chunk at a time.
type Source interface {
	// Window returns the chunk's bytes from chunk offset off on: at least
	// n of them (the caller never asks past the chunk's end), and more
	// when the source reads ahead. The bytes stay valid until the next
	// call, or until the page read from them is done; a failure to read
	// them is the error. The reader asks for the bytes of every header
	// and body, also when an earlier window holds them.
	Window(off, n int) ([]byte, error)
}

// Page is one page of a column chunk as returned by [PageReader.Next] or
// [PageReader.Read]. Its byte slices alias either the chunk given to
// [PageReader.Reset] (or the window of a [Source]) or the reader's own
// buffers; they stay valid until the next call of Next, NextHeader, Read,
// Skip, SkipTo or Reset on the reader.
type Page struct {
	// Type is DICTIONARY_PAGE, DATA_PAGE or DATA_PAGE_V2.
	Type format.PageType
	// Header is the parsed header, owned by the caller after the call.
	Header *format.PageHeader
	// Ordinal is the position of the page in the chunk, counting every
	// page (skipped and index pages included) from 0.
	Ordinal int
	// Offset is the absolute file offset of the page header.
	Offset int64
	// NumLevels is num_values of a data page: the number of level slots,
	// nulls included; 0 for a dictionary page.
	NumLevels int
	// NumValues is the number of encoded values in Values when the header
	// says it: the dictionary size of a dictionary page, num_values -
	// num_nulls of a DATA_PAGE_V2; -1 for a DATA_PAGE (the definition
	// levels tell).
	NumValues int
	// NumNulls and NumRows come from a DATA_PAGE_V2 header; -1 otherwise.
	NumNulls, NumRows int
	// Encoding is the encoding of Values.
	Encoding format.Encoding
	// RepetitionLevelEncoding and DefinitionLevelEncoding are RLE or
	// BIT_PACKED for data page v1, RLE for v2.
	RepetitionLevelEncoding, DefinitionLevelEncoding format.Encoding
	// RepetitionLevels and DefinitionLevels are the level sections,
	// uncompressed and without the v1 length prefix; empty when the
	// column's max level is 0.
	RepetitionLevels, DefinitionLevels []byte
	// Values holds the uncompressed encoded values.
	Values []byte
}

// PageReader iterates the pages of one column chunk, held in memory
// ([PageReader.Reset]) or read a window at a time from a [Source]
// ([PageReader.ResetSource]). The zero value is ready after Reset; a
// PageReader is reused across chunks by calling Reset again and then
// allocates nothing but the Thrift header per page in the steady state. It
// is not safe for concurrent use.
type PageReader struct {
	// chunk holds the chunk's bytes from chunk offset base on: the whole
	// chunk (base 0), or the current window of src. size is the chunk's
	// length.
	chunk []byte
	base  int
	size  int
	src   Source
	codec format.CompressionCodec
	opts  PageReaderOptions

	pos     int // start of the next header
	ordinal int
	hdr     *format.PageHeader
	hdrPos  int // start of the current header; -1 when none is pending
	bodyPos int // start of the current body
	err     error

	// dataPages counts the data page headers passed: the page ordinal of
	// an encrypted chunk's module AADs. plain holds decrypted bodies.
	dataPages int
	plain     []byte

	mem   thrift.TMemoryBuffer
	proto *thrift.TCompactProtocol
	conf  thrift.TConfiguration

	dec  Decompressor
	buf  []byte
	page Page
}

// Reset starts reading chunk, whose pages are compressed with codec.
func (r *PageReader) Reset(chunk []byte, codec format.CompressionCodec, opts PageReaderOptions) {
	if opts.MaxPageSize <= 0 {
		opts.MaxPageSize = DefaultMaxPageSize
	}
	r.chunk, r.codec, r.opts = chunk, codec, opts
	r.base, r.size, r.src = 0, len(chunk), nil
	r.pos, r.ordinal, r.hdr, r.hdrPos, r.err = 0, 0, nil, -1, nil
	r.dataPages = 0
}

// ResetSource starts reading a chunk of size bytes from src, whose pages
// are compressed with codec. The reader asks src for a window holding the
// next page header, then for one holding the page body when the window
// ends before it: a page never needs more than its header and body in
// memory. Errors of src are the reader's, located at the page.
func (r *PageReader) ResetSource(src Source, size int, codec format.CompressionCodec, opts PageReaderOptions) {
	r.Reset(nil, codec, opts)
	r.src, r.size = src, size
}

// headerProbe is the least a header cut short by the end of a window is
// parsed again in: more than the headers of real pages take (without
// statistics ~30 bytes). A longer header is parsed again in twice as
// many bytes, up to maxHeaderSize.
const headerProbe = 4 << 10

// headerMin is the least a header is first parsed in: more than most
// headers take, statistics included.
const headerMin = 1 << 10

// window returns the chunk's bytes [pos, pos+n), which lie inside the
// chunk, asking the source for them when the current window does not hold
// them.
func (r *PageReader) window(pos, n int) ([]byte, error) {
	// From a source, asked every time: the source may have lent its
	// buffer out between two pages.
	if r.src != nil {
		w, err := r.src.Window(pos, n)
		if err == nil && len(w) < n {
			err = errors.New("pagecodec: Source returned a short window")
		}
		if err != nil {
			r.chunk, r.base = nil, 0
			return nil, err
		}
		r.chunk, r.base = w, pos
	}
	return r.chunk[pos-r.base : pos-r.base+n], nil
}

// SwapBuffer makes b (may be nil) the buffer pages are decompressed into
// and returns the previous one; pages read before no longer stay valid. A
// caller with many readers that read one after the other lends one buffer
// between them (column.BufferCache).
func (r *PageReader) SwapBuffer(b []byte) []byte {
	old := r.buf
	r.buf = b[:0]
	return old
}

// Buffer returns the buffer pages are decompressed into (as SwapBuffer
// would), leaving it in place.
func (r *PageReader) Buffer() []byte { return r.buf }

// Offset returns the chunk-relative position of the next page header.
func (r *PageReader) Offset() int { return r.pos }

func (r *PageReader) fail(err error) error {
	pe := &PageError{Page: r.ordinal, Offset: r.opts.FileOffset + int64(r.pos), Err: err}
	if r.hdrPos >= 0 {
		pe.Offset = r.opts.FileOffset + int64(r.hdrPos)
	}
	r.err = pe
	return pe
}

// NextHeader parses the header of the next page without touching its body
// and checks its sizes against the chunk and the maximum page size. It
// returns io.EOF at the clean end of the chunk. Call [PageReader.Read] to get
// the page or [PageReader.Skip] to step over it; calling NextHeader again
// skips it too.
func (r *PageReader) NextHeader() (*format.PageHeader, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.hdrPos >= 0 {
		r.Skip()
	}
	if r.pos == r.size {
		return nil, io.EOF
	}
	r.hdrPos = r.pos
	limit := min(r.size-r.pos, maxHeaderSize)
	hdr, n, err := r.header(limit)
	if err != nil {
		return nil, r.fail(err)
	}
	r.hdr = hdr
	r.bodyPos = r.pos + n
	if err := r.checkHeader(hdr); err != nil {
		return nil, r.fail(err)
	}
	return hdr, nil
}

// header parses the header at r.pos, which may take up to limit bytes.
// From a source it parses in what the window holds from r.pos (at least
// headerProbe bytes, refilled when less), and when that fails (a header
// cut short, or as long as its statistics make it) in twice as many, up
// to limit: the error reported is the one of a parse with limit bytes, as
// for a chunk in memory.
func (r *PageReader) header(limit int) (*format.PageHeader, int, error) {
	n := limit
	if r.src != nil {
		// What the source holds or reads from the header on, at least
		// headerMin bytes: a header that does not fit is parsed again
		// below (a failed parse allocates its error).
		w, err := r.window(r.pos, min(limit, headerMin))
		if err != nil {
			return nil, 0, err
		}
		n = min(limit, len(w))
	}
	for {
		src, err := r.window(r.pos, n)
		if err != nil {
			return nil, 0, err
		}
		var hdr *format.PageHeader
		var size int
		if r.opts.Decryptor != nil {
			hdr, size, err = r.decryptHeader(src)
		} else {
			hdr, size, err = r.parseHeader(src)
		}
		if err == nil || n == limit {
			return hdr, size, err
		}
		n = min(limit, max(2*n, headerProbe))
	}
}

func (r *PageReader) parseHeader(src []byte) (*format.PageHeader, int, error) {
	r.conf.MaxMessageSize = int32(len(src))
	r.conf.MaxFrameSize = int32(len(src))
	if r.mem.Buffer == nil {
		r.mem.Buffer = new(bytes.Buffer)
	}
	*r.mem.Buffer = *bytes.NewBuffer(src)
	if r.proto == nil {
		r.proto = thrift.NewTCompactProtocolConf(&r.mem, &r.conf)
	}
	hdr := new(format.PageHeader)
	if err := hdr.Read(context.Background(), r.proto); err != nil {
		// The protocol may be left mid-struct; start afresh next time.
		r.proto = nil
		// Thrift's wrapping loses io.EOF; a parse that used up every
		// byte ran out of them.
		if r.mem.Len() == 0 || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, 0, errTruncated("page header: %v", err)
		}
		return nil, 0, errCorrupt("page header: %v", err)
	}
	return hdr, len(src) - r.mem.Len(), nil
}

func (r *PageReader) checkHeader(h *format.PageHeader) error {
	if h.CompressedPageSize < 0 || h.UncompressedPageSize < 0 {
		return errCorrupt("negative page size (compressed %d, uncompressed %d)", h.CompressedPageSize, h.UncompressedPageSize)
	}
	if int64(h.CompressedPageSize) > int64(r.size-r.bodyPos) {
		return errTruncated("page body of %d bytes, %d left in the column chunk", h.CompressedPageSize, r.size-r.bodyPos)
	}
	if int64(h.CompressedPageSize) > int64(r.opts.MaxPageSize) || int64(h.UncompressedPageSize) > int64(r.opts.MaxPageSize) {
		return errLimit("page of %d bytes (%d compressed) above the maximum of %d", h.UncompressedPageSize, h.CompressedPageSize, r.opts.MaxPageSize)
	}
	switch h.Type {
	case format.PageType_DATA_PAGE:
		if h.DataPageHeader == nil {
			return errCorrupt("DATA_PAGE without data_page_header")
		}
		if h.DataPageHeader.NumValues < 0 {
			return errCorrupt("DATA_PAGE num_values %d", h.DataPageHeader.NumValues)
		}
	case format.PageType_DATA_PAGE_V2:
		v2 := h.DataPageHeaderV2
		if v2 == nil {
			return errCorrupt("DATA_PAGE_V2 without data_page_header_v2")
		}
		if v2.NumValues < 0 || v2.NumNulls < 0 || v2.NumRows < 0 || v2.NumNulls > v2.NumValues {
			return errCorrupt("DATA_PAGE_V2 num_values %d, num_nulls %d, num_rows %d", v2.NumValues, v2.NumNulls, v2.NumRows)
		}
		if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 {
			return errCorrupt("DATA_PAGE_V2 negative level length")
		}
		lv := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if lv > int64(h.CompressedPageSize) || lv > int64(h.UncompressedPageSize) {
			return errCorrupt("DATA_PAGE_V2 levels of %d bytes in a page of %d", lv, min(h.CompressedPageSize, h.UncompressedPageSize))
		}
	case format.PageType_DICTIONARY_PAGE:
		if h.DictionaryPageHeader == nil {
			return errCorrupt("DICTIONARY_PAGE without dictionary_page_header")
		}
		if h.DictionaryPageHeader.NumValues < 0 {
			return errCorrupt("DICTIONARY_PAGE num_values %d", h.DictionaryPageHeader.NumValues)
		}
	}
	return nil
}

// Skip steps over the page whose header [PageReader.NextHeader] returned,
// without reading its body.
func (r *PageReader) Skip() {
	if r.hdrPos < 0 || r.hdr == nil {
		return
	}
	r.pos = r.bodyPos + int(r.hdr.CompressedPageSize)
	r.passPage()
}

// passPage ends the current page: the next header follows it.
func (r *PageReader) passPage() {
	if r.hdr.Type != format.PageType_DICTIONARY_PAGE {
		r.dataPages++
	}
	r.hdr, r.hdrPos = nil, -1
	r.ordinal++
}

// SkipTo steps to chunk-relative position pos, at or after the next page
// header, without reading what lies between: the caller knows from an
// offset index that pos starts a page (column.Reader.SkipRecords skips
// pages whose bytes were never fetched). It counts one page skipped.
func (r *PageReader) SkipTo(pos int) error {
	if r.err != nil {
		return r.err
	}
	if r.hdrPos >= 0 {
		r.Skip()
	}
	if pos < r.pos || pos > r.size {
		return r.fail(errCorrupt("page offset %d outside [%d, %d]", pos, r.pos, r.size))
	}
	r.pos = pos
	// The offset index lists data pages only: the page stepped over is a
	// data page, which an encrypted chunk's module AADs count.
	r.ordinal++
	r.dataPages++
	return nil
}

// Next returns the next dictionary or data page, skipping index pages and
// page types it does not know. It returns io.EOF at the clean end of the
// chunk; errors are [*PageError].
func (r *PageReader) Next() (*Page, error) {
	for {
		h, err := r.NextHeader()
		if err != nil {
			return nil, err
		}
		switch h.Type {
		case format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2, format.PageType_DICTIONARY_PAGE:
			return r.Read()
		}
		r.Skip()
	}
}

// Read reads the body of the page whose header [PageReader.NextHeader]
// returned: it verifies the CRC, decompresses and splits the levels from the
// values. Index pages and unknown types come back with only Type, Header,
// Ordinal and Offset set.
func (r *PageReader) Read() (*Page, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.hdrPos < 0 {
		return nil, errors.New("pagecodec: PageReader.Read without a header")
	}
	h := r.hdr
	body, err := r.window(r.bodyPos, int(h.CompressedPageSize))
	if err != nil {
		return nil, r.fail(err)
	}
	p := &r.page
	*p = Page{
		Type: h.Type, Header: h, Ordinal: r.ordinal,
		Offset:    r.opts.FileOffset + int64(r.hdrPos),
		NumValues: -1, NumNulls: -1, NumRows: -1,
	}
	if h.Crc != nil && !r.opts.SkipCRC {
		if got := crc32.ChecksumIEEE(body); got != uint32(*h.Crc) {
			return nil, r.fail(&checksumError{got: got, want: uint32(*h.Crc)})
		}
	}
	stored := len(body)
	if r.opts.Decryptor != nil {
		if body, err = r.decryptBody(body); err != nil {
			return nil, r.fail(err)
		}
	}
	switch h.Type {
	case format.PageType_DICTIONARY_PAGE:
		d := h.DictionaryPageHeader
		p.NumValues, p.Encoding = int(d.NumValues), d.Encoding
		p.Values, err = r.decompress(body, int(h.UncompressedPageSize))
	case format.PageType_DATA_PAGE:
		err = r.readV1(p, body)
	case format.PageType_DATA_PAGE_V2:
		err = r.readV2(p, body)
	}
	if err != nil {
		return nil, r.fail(err)
	}
	r.pos = r.bodyPos + stored
	r.passPage()
	return p, nil
}

type checksumError struct{ got, want uint32 }

func (e *checksumError) Error() string {
	return "pagecodec: page CRC-32 is " + hex32(e.got) + ", header says " + hex32(e.want)
}

func (e *checksumError) Unwrap() error { return ErrChecksum }

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	var b [10]byte
	b[0], b[1] = '0', 'x'
	for i := 9; i >= 2; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[:])
}

// decompress returns the uncompressed body: the chunk bytes themselves when
// the codec is UNCOMPRESSED, else the reader's buffer.
func (r *PageReader) decompress(body []byte, size int) ([]byte, error) {
	return r.decompressWith(r.codec, body, size)
}

func (r *PageReader) decompressWith(codec format.CompressionCodec, body []byte, size int) ([]byte, error) {
	// An empty body of an empty page is accepted whatever the codec: no
	// codec's empty stream is zero bytes, but writers emit them.
	if codec == format.CompressionCodec_UNCOMPRESSED || size == 0 && len(body) == 0 {
		if len(body) != size {
			return nil, errCorrupt("uncompressed page of %d bytes, header says %d", len(body), size)
		}
		if r.opts.CopyStored {
			return r.copyStored(0, body), nil
		}
		return body, nil
	}
	// ZSTD always goes through DecompressGrow (zstdGrow decodes into a
	// buffer already large enough just as Decompress does): its checks of
	// a frame against the header come first there, and an error must not
	// depend on how large a buffer earlier pages left (buffers are lent
	// between readers).
	if cap(r.buf) >= size && codec != format.CompressionCodec_ZSTD {
		dst := r.buf[:size]
		if err := r.dec.Decompress(codec, dst, body); err != nil {
			return nil, err
		}
		return dst, nil
	}
	// The header's size is not trusted with an allocation: the buffer
	// grows only as far as the body can decode.
	buf, err := r.dec.DecompressGrow(codec, r.buf[:0], body, size)
	if cap(buf) > cap(r.buf) {
		r.buf = buf[:0]
	}
	if err != nil {
		return nil, err
	}
	return buf, nil
}

func (r *PageReader) readV1(p *Page, body []byte) error {
	d := r.hdr.DataPageHeader
	p.NumLevels, p.Encoding = int(d.NumValues), d.Encoding
	p.RepetitionLevelEncoding, p.DefinitionLevelEncoding = d.RepetitionLevelEncoding, d.DefinitionLevelEncoding
	b, err := r.decompress(body, int(r.hdr.UncompressedPageSize))
	if err != nil {
		return err
	}
	if p.RepetitionLevels, b, err = splitLevels(b, p.RepetitionLevelEncoding, r.opts.MaxRepetitionLevel, p.NumLevels, "repetition"); err != nil {
		return err
	}
	if p.DefinitionLevels, b, err = splitLevels(b, p.DefinitionLevelEncoding, r.opts.MaxDefinitionLevel, p.NumLevels, "definition"); err != nil {
		return err
	}
	p.Values = b
	return nil
}

// splitLevels cuts one v1 level section off the front of b.
func splitLevels(b []byte, enc format.Encoding, maxLevel int16, numLevels int, what string) (levels, rest []byte, err error) {
	if maxLevel <= 0 {
		return nil, b, nil
	}
	switch enc {
	case format.Encoding_RLE:
		if len(b) < 4 {
			return nil, nil, errTruncated("%s levels length prefix", what)
		}
		n := binary.LittleEndian.Uint32(b)
		if uint64(n) > uint64(len(b)-4) {
			return nil, nil, errTruncated("%s levels of %d bytes, %d left in the page", what, n, len(b)-4)
		}
		return b[4 : 4+n], b[4+n:], nil
	case format.Encoding_BIT_PACKED:
		width := uint64(bits.Len16(uint16(maxLevel)))
		n := (uint64(numLevels)*width + 7) / 8
		if n > uint64(len(b)) {
			return nil, nil, errTruncated("BIT_PACKED %s levels of %d bytes, %d left in the page", what, n, len(b))
		}
		return b[:n], b[n:], nil
	}
	return nil, nil, errUnsupported("%s level encoding %v", what, enc)
}

func (r *PageReader) readV2(p *Page, body []byte) error {
	h := r.hdr
	d := h.DataPageHeaderV2
	p.NumLevels, p.NumNulls, p.NumRows, p.Encoding = int(d.NumValues), int(d.NumNulls), int(d.NumRows), d.Encoding
	p.NumValues = p.NumLevels - p.NumNulls
	p.RepetitionLevelEncoding, p.DefinitionLevelEncoding = format.Encoding_RLE, format.Encoding_RLE
	rl, dl := int(d.RepetitionLevelsByteLength), int(d.DefinitionLevelsByteLength)
	if rl+dl > len(body) {
		// Checked against compressed_page_size with the header; a
		// decrypted body is shorter than its module.
		return errCorrupt("DATA_PAGE_V2 levels of %d bytes in a page body of %d", rl+dl, len(body))
	}
	p.RepetitionLevels = body[:rl]
	p.DefinitionLevels = body[rl : rl+dl]
	values := body[rl+dl:]
	size := int(h.UncompressedPageSize) - rl - dl
	compressed := d.IsCompressed || r.opts.AssumeV2Compressed || len(values) != size
	var err error
	switch {
	case compressed:
		p.Values, err = r.decompress(values, size)
	case r.opts.CopyStored:
		p.Values = r.copyStored(0, values)
	default:
		p.Values = values
	}
	if err == nil && r.opts.CopyStored && rl+dl > 0 {
		// After the values in the buffer.
		lv := r.copyStored(len(p.Values), body[:rl+dl])
		p.RepetitionLevels, p.DefinitionLevels = lv[:rl:rl], lv[rl:]
	}
	return err
}

// copyStored copies b into the reader's buffer at off (the bytes before
// it are in use) and returns the copy. A buffer that grows leaves the
// bytes before off where they were, still valid.
func (r *PageReader) copyStored(off int, b []byte) []byte {
	if cap(r.buf) < off+len(b) {
		r.buf = make([]byte, 0, max(off+len(b), 2*cap(r.buf)))
		off = 0
	}
	dst := r.buf[off : off+len(b)]
	copy(dst, b)
	return dst
}

// Position is where a [PageReader] stands between two pages: the next
// header's offset and the page and data page ordinals counted so far.
type Position struct{ pos, ordinal, dataPages int }

// Position returns where the reader stands; with a header pending it is
// the start of that header.
func (r *PageReader) Position() Position {
	p := Position{r.pos, r.ordinal, r.dataPages}
	if r.hdrPos >= 0 {
		p.pos = r.hdrPos
	}
	return p
}

// Seek moves the reader of the same chunk to p, taken from [PageReader.Position]
// of another reader of the chunk after a page: a caller that read pages
// ahead on one reader goes on with another from the page it got to.
func (r *PageReader) Seek(p Position) {
	r.pos, r.ordinal, r.dataPages = p.pos, p.ordinal, p.dataPages
	r.hdr, r.hdrPos, r.err = nil, -1, nil
}

// Offset returns the chunk-relative offset of the next page header.
func (p Position) Offset() int { return p.pos }

// Chunk returns the chunk given to [PageReader.Reset]; nil after
// [PageReader.ResetSource].
func (r *PageReader) Chunk() []byte {
	if r.src != nil {
		return nil
	}
	return r.chunk
}

// Codec returns the codec given to [PageReader.Reset].
func (r *PageReader) Codec() format.CompressionCodec { return r.codec }
