package column

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

var (
	errCorrupt     = pagecodec.ErrCorrupt
	errUnsupported = pagecodec.ErrUnsupported
	errLimit       = pagecodec.ErrLimit
)

// ReaderOptions configures a [Reader]. The zero value means: pages up to
// [pagecodec.DefaultMaxPageSize], CRCs verified, batches of up to 64Ki rows
// for the output bound, byte array data up to math.MaxInt32 bytes.
type ReaderOptions struct {
	// MaxPageSize bounds the compressed and uncompressed size of a page.
	MaxPageSize int
	// SkipChecksums turns off the verification of page CRCs.
	SkipChecksums bool
	// BatchRows is the most rows the caller reads between two resets of
	// its [Values]; it widens the bound on expanding values (dictionary
	// gathers, delta encodings) to 32 bytes a row.
	BatchRows int
	// MaxByteArrayData bounds the BYTE_ARRAY data held in one [Values]:
	// beyond it a read fails with [*BatchFullError]. Zero means
	// math.MaxInt32, what 32-bit Arrow offsets address.
	MaxByteArrayData int
	// Prefetch, with Spawn, reads that many pages ahead of the decoder on
	// another goroutine (checksum, decompression, level split; not for
	// encrypted chunks) in chunks of at least PrefetchMinBytes: see
	// prefetch.go. Zero reads every page when the decoder asks for it.
	Prefetch int
	// Spawn runs task on a goroutine of the caller's and reports true, or
	// reports false when it has none free: the decoder then reads the
	// page itself (the whole chunk serially when the first call
	// refuses). Package column starts no goroutine itself.
	Spawn func(task func()) bool
	// PrefetchMinBytes is the smallest chunk read ahead; zero means
	// [DefaultPrefetchMinBytes].
	PrefetchMinBytes int
	// Buffers, when set, is shared with other readers of the caller: the
	// reader gives its page buffer (and its page decoders) back at the end
	// of each chunk (io.EOF, or [Reader.FinishChunk]) and borrows one
	// before the next page it reads. Nil: the reader keeps its own.
	Buffers *BufferCache
	// Window is how many bytes of a chunk given by its [Chunk.Source] are
	// read at once (a page's header and body when that is more); zero
	// means [DefaultWindow]. See window.go.
	Window int
	// Windows, when set, lends the window buffers of chunks read from a
	// Source between the readers of the caller, as Buffers lends page
	// buffers: a reader takes one at the first read of a chunk and gives it
	// back at the chunk's end. Nil: the reader keeps its own.
	Windows *BufferCache
	// Dictionaries, when set, takes the buffers that fixed-width
	// dictionaries were decompressed into back from the readers of the
	// caller that release them ([Reader.ReleaseDictionary]) and lends them
	// for the next dictionary pages. A cache of its own, apart from
	// Buffers: lent among the page buffers, a long file's dictionaries and
	// pages took each other's buffers at each row group and grew them
	// (numeric: 6.4 MB more a read).
	Dictionaries *BufferCache
	// Scratch, when set, lends the buffers of the values [Reader.ReserveValues]
	// sizes: a caller gives a Values' scratch back with [GiveValues] when
	// it is done with it (arrowpq: a closed Reader's, to the next Reader).
	Scratch *BufferCache
}

// Decryptor decrypts the modules of one column chunk (Parquet modular
// encryption): page headers and bodies, with the data page ordinals of
// their AADs counted by the page iteration (skipped pages included).
// Package encryption's ChunkDecryptor implements it; column does not
// import that package.
type Decryptor = pagecodec.Decryptor

// Chunk describes the column chunk given to [Reader.Reset].
type Chunk struct {
	// Data holds the chunk's bytes, from its first page header (the
	// dictionary page when there is one) to the end of its last page.
	Data []byte
	// Source, when Data is nil, holds the chunk instead: Size bytes from
	// FileOffset, read a window at a time as the pages are read
	// ([ReaderOptions.Window]), so that the chunk is never in memory whole.
	// Not for Sparse chunks. Its ReadAt must be safe for concurrent use
	// when the chunk is read ahead ([ReaderOptions.Prefetch]).
	Source io.ReaderAt
	Size   int64
	// FileOffset is the file offset of Data[0]; errors and the offset
	// index use file offsets.
	FileOffset int64
	// Codec compresses the chunk's pages.
	Codec format.CompressionCodec
	// NumValues is the chunk's num_values from its metadata, NumRows the
	// row group's row count; both only size first guesses and the last
	// page of an offset index.
	NumValues, NumRows int64
	// NullCount is the null_count of the chunk's statistics (0 when it
	// has none): it only makes [Reader.ReserveValues]'s estimate tighter.
	NullCount int64
	// AssumeV2Compressed: see [pagecodec.PageReaderOptions].
	AssumeV2Compressed bool
	// OffsetIndex, when set, lists the chunk's data pages
	// (metadata.ReadOffsetIndex, checked with metadata.CheckOffsetIndex):
	// [Reader.SkipRecords] then steps over whole pages without reading
	// their bodies.
	OffsetIndex []*format.PageLocation
	// Decryptor, when set, decrypts the chunk's page headers and pages:
	// the chunk is encrypted. It is the chunk's own (its AADs carry the
	// row group and column ordinals) and is used until the next Reset.
	Decryptor Decryptor
	// Sparse says Data holds only some of the chunk's pages, packed: the
	// bytes before the first data page (the dictionary page), then the
	// pages kept, in order. OffsetIndex then describes Data, not the file:
	// offsets are FileOffset plus the position in Data, and a page left
	// out has CompressedPageSize 0 and the offset of what follows it. A
	// page left out is stepped over by SkipRecords and never read (reading
	// it is an error), and a page found where the index does not place one
	// is an error rather than a fallback to reading headers.
	Sparse bool
}

// Reader reads the levels and values of one leaf column chunk after the
// other. Reset starts a chunk; the zero Reader is not usable, make one with
// [NewReader]. A Reader keeps its buffers across chunks and is not safe for
// concurrent use.
//
// Two ways read: [Reader.Read] (and the typed [ReadFixed],
// [ReadByteArray]) copy levels into caller slices and append values to
// caller buffers; the page-piece methods ([Reader.PageLevels],
// [Reader.DecodeValidity], [Reader.Consume], [Reader.DecodeValues]) let a
// caller take the current page's levels in place (into a validity bitmap
// or a levels.Assembler) and then the values they carry.
type Reader struct {
	col  *metadata.Column
	opts ReaderOptions
	flat bool // max definition level 1, no repetition

	pages    pagecodec.PageReader
	popts    pagecodec.PageReaderOptions
	chunkLen int
	numRows  int64
	// numValues is the chunk's num_values from the footer (levels,
	// nulls included) less its null_count when known: only an estimate
	// (ReserveValues), never trusted.
	numValues int64
	locs      []*format.PageLocation
	sparse    bool // Chunk.Sparse
	dataPage  int  // data pages met so far in the chunk
	err       error
	win       window // the window of a chunk read from its Source

	dict    dictionary
	hasDict bool
	// dictBuf is the buffer fixed-width dictionaries are decompressed
	// into and used in without a copy (viewDictionary), kept from chunk
	// to chunk; dictViewed says that r.dict's slices are in it. Read
	// ahead swaps it with the slot the dictionary page came in.
	dictBuf    []byte
	dictViewed bool
	// dictShared: views handed out point into r.dict's BYTE_ARRAY data
	// (views.go).
	dictShared bool
	// chunkDone: the chunk's pages are all read and its page buffer is
	// given back (endChunk); cleared by Reset.
	chunkDone bool

	// The data page being consumed: its levels and its values. Flat
	// columns decode their definition levels as they are consumed; other
	// columns with levels decode a window of up to levelWindow of them at
	// a time into r.pd's buffers, the page's levels winStart to winEnd.
	page             *pagecodec.Page
	pageLen, pagePos int
	winStart, winEnd int
	// pd holds the decoders of the page's levels and dictionary indices,
	// and the window of levels; with ReaderOptions.Buffers it is lent
	// between readers like the page buffer (takeDecoders).
	pd  *pageDecoders
	dec valueDecoder
	// hasBuf: the page reader holds a buffer of ReaderOptions.Buffers
	// (or one of its own), to give back at the end of the chunk.
	hasBuf bool
	// nextSize is the uncompressed size of the page whose header is
	// pending: the buffer to borrow for it.
	nextSize int
	// gaveCap is the capacity of the buffer given back at the end of the
	// last chunk: the next chunk (the next row group of a long file, whose
	// first page is its small dictionary page) asks for as much again.
	gaveCap int

	// Scratch for decode-and-drop (SkipRecords), made at the first skip
	// inside a page.
	drop *dropScratch

	// pagesRead counts the pages whose bodies were read (checksummed and
	// decompressed): the test hook that shows a skipped page is not.
	pagesRead int

	prefetcher
}

// NewReader returns a reader of col's chunks.
func NewReader(col *metadata.Column, opts ReaderOptions) *Reader {
	if opts.BatchRows <= 0 {
		opts.BatchRows = 64 << 10
	}
	if opts.MaxByteArrayData <= 0 {
		opts.MaxByteArrayData = math.MaxInt32
	}
	return &Reader{
		col:  col,
		opts: opts,
		flat: col.MaxDef == 1 && col.MaxRep == 0,
		popts: pagecodec.PageReaderOptions{
			MaxDefinitionLevel: col.MaxDef,
			MaxRepetitionLevel: col.MaxRep,
			MaxPageSize:        opts.MaxPageSize,
			SkipCRC:            opts.SkipChecksums,
		},
	}
}

// Column returns the leaf the reader reads.
func (r *Reader) Column() *metadata.Column { return r.col }

// Reset starts reading chunk c. The dictionary of the previous chunk is
// dropped.
func (r *Reader) Reset(c Chunk) {
	r.stopPrefetch()
	r.win.release()
	r.chunkLen = chunkSize(&c)
	r.numRows = c.NumRows
	r.numValues = c.NumValues
	if c.NullCount > 0 && c.NullCount < c.NumValues {
		r.numValues -= c.NullCount
	}
	r.locs = c.OffsetIndex
	r.sparse = c.Sparse && c.OffsetIndex != nil
	r.dataPage = 0
	r.err = nil
	r.popts.FileOffset = c.FileOffset
	r.popts.Decryptor = c.Decryptor
	r.popts.AssumeV2Compressed = c.AssumeV2Compressed
	if windowed(&c) {
		r.win.reset(&c, r.window(), r.opts.Windows)
		r.pages.ResetSource(&r.win, r.chunkLen, c.Codec, r.popts)
	} else {
		r.win.src = nil
		r.pages.Reset(c.Data, c.Codec, r.popts)
	}
	r.prefetching, r.started, r.held = r.canPrefetch(c), false, nil
	r.hasDict = false
	r.dict.N = 0
	r.page = nil
	r.pageLen, r.pagePos = 0, 0
	r.chunkDone = false
}

// windowed reports whether chunk c is read from its Source.
func windowed(c *Chunk) bool { return c.Data == nil && c.Source != nil && !c.Sparse }

// chunkSize is the length of chunk c.
func chunkSize(c *Chunk) int {
	if windowed(c) {
		return int(max(c.Size, 0))
	}
	return len(c.Data)
}

// window is the window size of chunks read from their Source.
func (r *Reader) window() int {
	if r.opts.Window > 0 {
		return r.opts.Window
	}
	return DefaultWindow
}

// Location returns the ordinal and file offset of the page being read, or
// -1, -1 before the first data page and after the last.
func (r *Reader) Location() (page int, offset int64) {
	if r.page == nil {
		return -1, -1
	}
	return r.page.Ordinal, r.page.Offset
}

// locate wraps err in a [*pagecodec.PageError] at the current page unless
// it is located already.
func (r *Reader) locate(err error) error {
	var pe *pagecodec.PageError
	if err == nil || err == io.EOF || errors.As(err, &pe) || r.page == nil {
		return err
	}
	return &pagecodec.PageError{Page: r.page.Ordinal, Offset: r.page.Offset, Err: err}
}

// Dictionary returns the chunk's dictionary, decoded once when its page
// was met, for every physical type: a caller producing Arrow dictionary
// arrays builds its dictionary from it and reads indices ([Values.IndexMode]).
// ok is false while no dictionary page has been read. The values stay
// valid until the next Reset, or until [Reader.ReleaseDictionary] releases
// them.
func (r *Reader) Dictionary() (dict *Values, ok bool) {
	return &r.dict.Values, r.hasDict
}

// PageIsDictionaryEncoded reports whether the current data page holds
// dictionary indices.
func (r *Reader) PageIsDictionaryEncoded() bool { return r.page != nil && r.dec.dict != nil }

// Remaining returns the levels of the current data page not yet consumed,
// loading the next data page (and a dictionary page on the way) when the
// current one is used up. It returns io.EOF at the end of the chunk.
//
// For a column with levels that is not flat, it also decodes the page's
// next levels for [Reader.PageLevels] when those it returned are consumed.
func (r *Reader) Remaining() (int, error) {
	for r.pagePos == r.pageLen {
		if err := r.nextDataPage(); err != nil {
			return 0, err
		}
	}
	if err := r.fillLevels(); err != nil {
		return 0, err
	}
	return r.pageLen - r.pagePos, nil
}

// PageLevels returns the next definition and repetition levels of the
// current page, decoded by [Reader.Remaining]: at least one while
// Remaining is above 0, at most Remaining (nil when the column's max level
// is 0). Flat columns (max definition level 1, no repetition) decode their
// levels on demand: use [Reader.DecodeValidity] for them. The slices are
// the reader's, valid until the next call of Remaining.
func (r *Reader) PageLevels() (def, rep []int16) {
	if r.col.MaxDef == 0 || r.flat {
		return nil, nil
	}
	return r.windowLevels()
}

// windowLevels returns the levels of the window from r.pagePos on.
func (r *Reader) windowLevels() (def, rep []int16) {
	from, to := r.pagePos-r.winStart, r.winEnd-r.winStart
	def = r.pd.defWin[from:to]
	if r.col.MaxRep > 0 {
		rep = r.pd.repWin[from:to]
	}
	return def, rep
}

// Consume marks the next n levels of the page as taken: n at most what
// PageLevels returned (columns with levels that are not flat), else at
// most Remaining.
func (r *Reader) Consume(n int) { r.pagePos += n }

// levelWindow is the most levels of a page that are decoded at once (a
// column with levels that is not flat). A window instead of the whole
// page: the page's levels were a buffer per leaf of two bytes each (4.5
// MB a read of the nested dataset's 38 MB of Arrow data), decoded
// and then read again from memory.
const levelWindow = 16 << 10

// fillLevels decodes the page's next levels into the window once the
// window is consumed (columns with levels that are not flat).
func (r *Reader) fillLevels() error {
	if r.flat || r.col.MaxDef == 0 || r.pagePos < r.winEnd || r.pagePos >= r.pageLen {
		return nil
	}
	if r.pagePos != r.winEnd {
		return r.fail(fmt.Errorf("column: levels consumed past those decoded (%d of %d)", r.pagePos, r.winEnd))
	}
	k := min(levelWindow, r.pageLen-r.pagePos)
	pd := r.pd
	if r.col.MaxRep > 0 {
		pd.repWin = growInt16(pd.repWin, k)
		if err := decodeExactly(&pd.rep, pd.repWin, r.pageLen, r.pagePos, "repetition"); err != nil {
			return r.fail(err)
		}
	}
	pd.defWin = growInt16(pd.defWin, k)
	if err := decodeExactly(&pd.def, pd.defWin, r.pageLen, r.pagePos, "definition"); err != nil {
		return r.fail(err)
	}
	r.winStart, r.winEnd = r.pagePos, r.pagePos+k
	return nil
}

// levelsReady is how many of the page's next levels may be consumed now:
// those left in the window for a column that is not flat, else the rest
// of the page.
func (r *Reader) levelsReady() int {
	if r.col.MaxDef > 0 && !r.flat {
		return r.winEnd - r.pagePos
	}
	return r.pageLen - r.pagePos
}

// decodeExactly decodes len(dst) levels of a page of pageLen, the first
// at page position pos.
func decodeExactly(d *levels.Decoder, dst []int16, pageLen, pos int, what string) error {
	n, err := d.Decode(dst)
	if err != nil {
		return fmt.Errorf("%s levels: %w", what, err)
	}
	if n != len(dst) {
		return fmt.Errorf("%s levels: %d of the %d the page header promises: %w", what, pos+n, pageLen, errCorrupt)
	}
	return nil
}

// DecodeValidity decodes the next n definition levels of a flat column's
// page (n ≤ Remaining) as validity bits from bit offset of bitmap, which
// must hold them, and returns how many are null.
func (r *Reader) DecodeValidity(bitmap []byte, offset, n int) (nulls int, err error) {
	if !r.flat {
		return 0, errors.New("column: DecodeValidity on a column that is not flat")
	}
	if n == 0 {
		return 0, nil
	}
	if r.pd == nil || r.page == nil {
		return 0, fmt.Errorf("column: DecodeValidity of %d levels without a data page: %w", n, errCorrupt)
	}
	nulls, err = r.pd.def.DecodeValidity(bitmap, offset, n)
	if err != nil {
		return 0, r.locate(err)
	}
	r.pagePos += n
	return nulls, nil
}

// nextDataPage loads the next data page, decoding a dictionary page on the
// way. It returns io.EOF at the end of the chunk.
func (r *Reader) nextDataPage() error {
	if r.err != nil {
		return r.err
	}
	if r.prefetching {
		return r.nextPrefetched()
	}
	for {
		start := r.pages.Offset()
		h, err := r.pages.NextHeader()
		if err != nil {
			r.page = nil
			if err != io.EOF {
				r.err = err
			} else {
				r.endChunk()
			}
			return err
		}
		r.nextSize = int(h.UncompressedPageSize)
		switch h.Type {
		case format.PageType_DICTIONARY_PAGE:
			if err := r.readDictionaryPage(); err != nil {
				return err
			}
		case format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2:
			if err := r.checkLocation(start); err != nil {
				return r.fail(err)
			}
			r.dataPage++
			return r.readPendingPage() // skip.go
		default:
			r.pages.Skip() // index pages and unknown types carry no rows
		}
	}
}

// borrowBuffer takes a page buffer from ReaderOptions.Buffers before a page
// is read when the reader gave its own back. Not at Reset: a caller resets
// every leaf of a row group before it reads any.
func (r *Reader) borrowBuffer() {
	if r.opts.Buffers != nil && !r.hasBuf {
		r.pages.SwapBuffer(r.opts.Buffers.Take(max(r.nextSize, r.gaveCap)))
		r.hasBuf = true
	}
}

// endChunk gives the page buffer to ReaderOptions.Buffers at the end of
// the chunk (no page is current; the next is read after a Reset).
func (r *Reader) endChunk() {
	r.chunkDone = true
	r.win.release()
	if r.opts.Buffers != nil && r.hasBuf {
		b := r.pages.SwapBuffer(nil)
		r.gaveCap = cap(b)
		r.opts.Buffers.Give(b)
		r.hasBuf = false
	}
	if r.opts.Buffers != nil && r.pd != nil {
		// No page is current: nothing decodes levels or indices before
		// the next data page takes decoders again.
		r.dec.dict, r.dec.dictIdx = nil, nil
		r.opts.Buffers.giveDecoders(r.pd)
		r.pd = nil
	}
}

// pageDecoders are the decoders of a data page that carry kilobytes of
// scratch each (levels.Decoder 1,800 bytes, pagecodec.DictIndexDecoder
// 1,168), and the window of levels of a column that is not flat (up to 64
// KB): the reader takes them for its first data page and, with
// ReaderOptions.Buffers, gives them back at the end of the chunk with its
// page buffer. Inline, they were 3 KB of every Reader, a leaf's: 6 MB a
// read of the 2,000-column file, whose leaves, read one after the other,
// now share one.
type pageDecoders struct {
	def, rep levels.Decoder
	dictIdx  pagecodec.DictIndexDecoder
	// defWin and repWin are the window of a page's levels (fillLevels).
	defWin, repWin []int16
}

// takeDecoders gives the reader page decoders if it has none.
func (r *Reader) takeDecoders() {
	if r.pd != nil {
		return
	}
	if r.opts.Buffers != nil {
		r.pd = r.opts.Buffers.takeDecoders()
	}
	if r.pd == nil {
		r.pd = new(pageDecoders)
	}
}

// FinishChunk gives the page buffer back (ReaderOptions.Buffers) when the
// chunk's last page is consumed, without waiting for the io.EOF of the
// next [Reader.Remaining]: a caller that reads exactly the chunk's rows
// never asks for that. Call it after the values of the consumed levels are
// decoded; it does nothing while levels or pages are left.
func (r *Reader) FinishChunk() {
	if r.prefetching {
		if r.page != nil && r.pagePos == r.pageLen && r.held != nil && r.held.pos.Offset() == r.chunkLen {
			r.handOff()
		}
		return
	}
	if r.page != nil && r.pagePos == r.pageLen && r.pages.Offset() == r.chunkLen && (r.opts.Buffers != nil || r.win.src != nil) {
		r.page = nil
		r.endChunk()
	}
}

// ReleaseDictionary gives the buffer that the chunk's dictionary was
// decompressed into, and is used in (fixed-width types: viewDictionary), to
// ReaderOptions.Dictionaries once the chunk's pages are all read and its
// page buffer is given back: after the io.EOF of [Reader.Remaining] or
// [Reader.Read], or a [Reader.FinishChunk] at the chunk's end (a chunk read
// ahead keeps its buffer). [Reader.Dictionary] then reports no dictionary
// until the next chunk's dictionary page, which takes a buffer from
// Dictionaries again. It does nothing before the end of the chunk, without
// Dictionaries, or when the reader holds no such buffer.
//
// For a caller done with the dictionary at the chunk's end: one that
// gathers values through it, not one that builds Arrow dictionaries from
// it after the last page. A reader kept its dictionary buffer until it was
// dropped, which on a wide file of one row group (2,000 leaves, each a
// dictionary of a few KB) was 9.6 MB a read of 320 MB of Arrow data; read
// serially, the leaves now share a few.
func (r *Reader) ReleaseDictionary() {
	if !r.chunkDone || r.opts.Dictionaries == nil || r.dictBuf == nil {
		return
	}
	if r.dictViewed {
		d := &r.dict
		d.Int32, d.Int64, d.Float32, d.Float64, d.Fixed = nil, nil, nil, nil, nil
		d.N = 0
		r.dictViewed = false
		r.hasDict = false
	}
	r.opts.Dictionaries.Give(r.dictBuf)
	r.dictBuf = nil
}

// takeDictBuffer takes a buffer for the pending dictionary page from
// ReaderOptions.Dictionaries when the reader holds none (it released its
// own: ReleaseDictionary).
func (r *Reader) takeDictBuffer() {
	if r.dictBuf == nil && r.opts.Dictionaries != nil {
		r.dictBuf = r.opts.Dictionaries.Take(r.nextSize)
	}
}

// startDataPage makes data page p the current page: its levels and its
// values' decoder.
func (r *Reader) startDataPage(p *pagecodec.Page) error {
	r.takeDecoders()
	if err := r.loadLevels(p); err != nil {
		return r.fail(err)
	}
	if err := r.dec.reset(r, p); err != nil {
		return r.fail(err)
	}
	return nil
}

// fail makes err sticky, located at the current page.
func (r *Reader) fail(err error) error {
	r.err = r.locate(err)
	return r.err
}

// checkLocation drops an offset index whose next entry is not the data
// page at chunk offset start: skipping then falls back to reading pages.
//
// In a sparse chunk the index is the only map of Data: a data page where
// it places none, or one it marks as left out, is an error.
func (r *Reader) checkLocation(start int) error {
	if r.locs == nil {
		return nil
	}
	if r.dataPage >= len(r.locs) || r.locs[r.dataPage] == nil || r.locs[r.dataPage].Offset != r.popts.FileOffset+int64(start) {
		if r.sparse {
			return fmt.Errorf("data page %d is not where the offset index places it: %w", r.dataPage, errCorrupt)
		}
		r.locs = nil
		return nil
	}
	if r.sparse && r.locs[r.dataPage].CompressedPageSize == 0 {
		return fmt.Errorf("data page %d was not fetched (left out of a sparse chunk): %w", r.dataPage, errCorrupt)
	}
	return nil
}

// loadLevels decodes every level of data page p (flat columns: prepares
// their decoder).
func (r *Reader) loadLevels(p *pagecodec.Page) error {
	n := p.NumLevels
	if n < 0 {
		return fmt.Errorf("negative level count %d: %w", n, errCorrupt)
	}
	r.pageLen, r.pagePos = n, 0
	if r.flat {
		// Flat columns decode levels as they are consumed: no buffer of
		// the page's level count.
		return resetLevelDecoder(&r.pd.def, p.DefinitionLevels, p.DefinitionLevelEncoding, 1, n, "definition")
	}
	// The level count from the header drives what a batch of this page
	// grows (offsets, validity, values): bound it by the page's bytes.
	// RLE makes 64 levels per byte unremarkable (long null runs); far
	// more is a hostile header. Small pages get at least 1Mi levels.
	if limit := levelLimit(p); (r.col.MaxDef > 0 || r.col.MaxRep > 0) && n > limit {
		return fmt.Errorf("page of %d bytes claims %d levels (limit %d): %w",
			p.Header.GetUncompressedPageSize(), n, limit, errLimit)
	}
	r.winStart, r.winEnd = 0, 0
	if r.col.MaxRep > 0 {
		if err := resetLevelDecoder(&r.pd.rep, p.RepetitionLevels, p.RepetitionLevelEncoding, r.col.MaxRep, n, "repetition"); err != nil {
			return err
		}
	}
	if r.col.MaxDef > 0 {
		return resetLevelDecoder(&r.pd.def, p.DefinitionLevels, p.DefinitionLevelEncoding, r.col.MaxDef, n, "definition")
	}
	return nil
}

// levelLimit is the most levels a data page may claim before they size a
// buffer: 64 per byte of the page (uncompressed, as checked by the
// decompressor), at least 1Mi.
func levelLimit(p *pagecodec.Page) int {
	return max(64*int(max(p.Header.GetUncompressedPageSize(), 0)), 1<<20)
}

// resetLevelDecoder prepares d for n levels in encoding enc; what names
// the levels in errors.
func resetLevelDecoder(d *levels.Decoder, src []byte, enc format.Encoding, maxLevel int16, n int, what string) error {
	var err error
	switch enc {
	case format.Encoding_RLE:
		err = d.ResetRLE(src, maxLevel, n)
	case format.Encoding_BIT_PACKED:
		_, err = d.ResetBitPacked(src, maxLevel, n)
	default:
		return fmt.Errorf("%s levels in encoding %v: %w", what, enc, errUnsupported)
	}
	if err != nil {
		return fmt.Errorf("%s levels: %w", what, err)
	}
	return nil
}

func growInt16(s []int16, n int) []int16 {
	if cap(s) < n {
		return make([]int16, n, n+n/4)
	}
	return s[:n]
}

// DecodeValues appends the next n values of the current page to dst (its
// Physical and Width set by [Values.Reset]); n is the count of non-null
// levels the caller consumed. With dst.IndexMode, dictionary pages append
// indices into [Reader.Dictionary] to dst.Indices, and a page that fell
// back from the dictionary first turns the indices held into values and
// clears IndexMode.
func (r *Reader) DecodeValues(dst *Values, n int) error {
	if err := r.dec.decode(r, dst, n); err != nil {
		return r.locate(err)
	}
	return nil
}

// DecodeIndices decodes the next len(dst) dictionary indices of a
// dictionary-encoded page ([Reader.PageIsDictionaryEncoded]), each checked
// against the dictionary's size.
func (r *Reader) DecodeIndices(dst []int32) error {
	if r.dec.dict == nil {
		return r.locate(fmt.Errorf("indices from a page in encoding %v: %w", r.dec.enc, errCorrupt))
	}
	if err := r.dec.decodeIndices(dst); err != nil {
		return r.locate(err)
	}
	return nil
}

// Fixed-width output of a batch takes rows × width bytes, and the width
// may come from the file (a FIXED_LEN_BYTE_ARRAY type_length, or the
// ARROW:schema). Null slots take their width too, backed by nothing but a
// definition level, so the product is checked before it is allocated: at
// most what the chunk's bytes can decode to (maxChunkRatio per byte, more
// than Snappy, LZ4 or gzip reach), or minBatchLimit, or 32 bytes a row.
// The same bound applies to values that expand from their page
// (dictionary gathers: valueDecoder.checkOut). minBatchLimit is large
// enough for repetitive data that compresses beyond maxChunkRatio, and
// small enough that a read's allocations, doubling as they grow, stay
// under 1 GiB.
const (
	maxChunkRatio = 1 << 10
	minBatchLimit = 256 << 20
)

// outputLimit is the most bytes of values one batch of the chunk may hold.
func (r *Reader) outputLimit(numRows int) int64 {
	return max(mulSat(int64(r.chunkLen), maxChunkRatio), minBatchLimit, mulSat(int64(numRows), 32))
}

// CheckBatchBytes reports [pagecodec.ErrLimit] when numRows values of
// width bytes exceed what the current column chunk can back: a caller
// checks it before it allocates fixed-width output whose width comes from
// the file.
func (r *Reader) CheckBatchBytes(numRows, width int) error {
	need := mulSat(int64(numRows), int64(width))
	if limit := r.outputLimit(numRows); need > limit {
		return fmt.Errorf("%d rows of %d-byte values need %d bytes, more than the %d-byte column chunk can hold (limit %d); read with a smaller BatchSize: %w",
			numRows, width, need, r.chunkLen, limit, errLimit)
	}
	return nil
}

// mulSat returns a×b for non-negative a and b, saturated at MaxInt64: a
// product of sizes from a file must not wrap around.
func mulSat(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Read reads up to n levels, across pages, into def and rep (each used when
// the column's max level is above 0, then at least n long) and appends the
// values they carry to dst. It returns the levels and values read; fewer
// than n levels with a nil error only at the end of the chunk, and 0, 0,
// io.EOF after it. Levels of one record may span calls (repeated columns):
// use [Reader.SkipRecords] to move by records.
func (r *Reader) Read(dst *Values, n int, def, rep []int16) (numLevels, numValues int, err error) {
	if r.col.MaxDef > 0 {
		n = min(n, len(def))
	}
	if r.col.MaxRep > 0 {
		n = min(n, len(rep))
	}
	for numLevels < n {
		left, err := r.Remaining()
		if err == io.EOF {
			if numLevels == 0 {
				return 0, 0, io.EOF
			}
			break
		}
		if err != nil {
			return numLevels, numValues, err
		}
		k := min(left, n-numLevels, r.levelsReady())
		nv := k
		switch {
		case r.flat:
			d := def[numLevels : numLevels+k]
			got, err := r.pd.def.Decode(d)
			if err == nil && got != k {
				err = fmt.Errorf("definition levels: %d of %d: %w", got, k, errCorrupt)
			}
			if err != nil {
				return numLevels, numValues, r.fail(err)
			}
			nv = countEqual(d, 1)
		case r.col.MaxDef > 0:
			wdef, wrep := r.windowLevels()
			d := def[numLevels : numLevels+k]
			copy(d, wdef)
			nv = countEqual(d, r.col.MaxDef)
			if r.col.MaxRep > 0 {
				copy(rep[numLevels:numLevels+k], wrep)
			}
		}
		r.pagePos += k
		if nv > 0 {
			if err := r.DecodeValues(dst, nv); err != nil {
				return numLevels, numValues, err
			}
		}
		numLevels += k
		numValues += nv
	}
	return numLevels, numValues, nil
}

func countEqual(s []int16, v int16) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}
