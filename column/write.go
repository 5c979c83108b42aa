package column

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Defaults of [WriterOptions] fields left zero.
const (
	DefaultPageSize           = 1 << 20
	DefaultMaxRowsPerPage     = 20_000
	DefaultDictionaryPageSize = 1 << 20
)

// Allocator provides the memory of the page buffers of a column chunk.
// arrow-go's memory.Allocator satisfies it.
type Allocator interface {
	Allocate(size int) []byte
	Reallocate(size int, b []byte) []byte
	Free(b []byte)
}

// goAllocator is the Allocator of the zero WriterOptions: Go memory.
type goAllocator struct{}

func (goAllocator) Allocate(size int) []byte { return make([]byte, size) }
func (goAllocator) Reallocate(size int, b []byte) []byte {
	nb := make([]byte, size)
	copy(nb, b)
	return nb
}
func (goAllocator) Free([]byte) {}

// WriterOptions configures a [Writer]. Zero sizes take the defaults above;
// the booleans are off when false (arrowpq resolves its own defaults).
type WriterOptions struct {
	Codec format.CompressionCodec
	// Level is the compression level; 0 is the codec's default.
	Level int
	// Dictionary starts every chunk dictionary encoded (not for BOOLEAN).
	Dictionary bool
	// DictionaryPageSize bounds the PLAIN size of the dictionary; past it
	// the chunk falls back to Encoding.
	DictionaryPageSize int
	// Encoding is the encoding of values that are not dictionary encoded:
	// PLAIN (the zero value), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
	// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT or RLE (BOOLEAN), for the
	// physical types the spec allows.
	Encoding format.Encoding
	// Statistics writes min, max and null counts into page headers and the
	// ColumnMetaData; SizeStatistics the level histograms and unencoded
	// BYTE_ARRAY bytes; PageIndex the column and offset indexes.
	Statistics, SizeStatistics, PageIndex bool
	// TruncateLength truncates BYTE_ARRAY min and max statistics longer
	// than it (0: no truncation).
	TruncateLength int
	// BloomFilterBytes is the size of the bloom filter bitset of every
	// chunk (see [metadata.BloomFilterBytes]); 0 writes none.
	BloomFilterBytes int
	DataPageV2       bool
	// PageSize is the target size of a data page before compression;
	// MaxRowsPerPage bounds its rows.
	PageSize, MaxRowsPerPage int
	// CRC writes page checksums.
	CRC bool
	// TotalOrder computes the statistics and column index bounds of a
	// FLOAT, DOUBLE or FLOAT16 column in IEEE 754 total order
	// (metadata.TotalOrderBounds: NaN counted, -0 below +0, NaN bounds
	// only when every value is NaN), for a file whose column_orders says
	// IEEE_754_TOTAL_ORDER for it ([metadata.TotalOrderColumnOrder]). It
	// is ignored for other columns.
	TotalOrder bool
	// Allocator provides the page buffers; nil is Go memory.
	Allocator Allocator
}

// ChunkResult is what [Writer.Finish] returns for a column chunk. Its
// structures belong to the caller.
type ChunkResult struct {
	Chunk *format.ColumnChunk // FileOffset and MetaData set
	// ColumnIndex and OffsetIndex are nil when not written.
	ColumnIndex *format.ColumnIndex
	OffsetIndex *format.OffsetIndex
	// Bloom is the chunk's bloom filter (nil when none), owned by the
	// Writer until its next Reset.
	Bloom *metadata.BloomFilter
}

// Writer writes the column chunks of one leaf column, one at a time (see
// the package documentation). The zero value is not usable; see
// [NewWriter]. It is not safe for concurrent use.
type Writer struct {
	col   *metadata.Column
	opts  WriterOptions
	arm   physArm      // the physical type's arm
	enc   valueEncoder // non-dictionary encoding
	dict  dictEncoder  // nil for BOOLEAN
	pw    *pagecodec.PageWriter
	mem   Allocator
	bloom *metadata.BloomFilter

	dictOn     bool  // the chunk is being dictionary encoded
	dictUsed   bool  // some value of the chunk went to the dictionary
	dictGiveUp bool  // the first page showed the dictionary does not pay
	dictRaw    int64 // PLAIN bytes of the values dictionary encoded

	page  pageState
	chunk chunkState
	body  []byte // scratch for page bodies
}

// pageState is what the data page being filled accumulates.
type pageState struct {
	defEnc, repEnc   levels.Encoder
	levels, values   int
	rows             int
	unencoded, raw   int64 // unencoded BYTE_ARRAY bytes; PLAIN bytes of the values
	defHist, repHist []int64
	stats            statsAcc
}

// chunkState is what a column chunk accumulates until it is written.
type chunkState struct {
	pages            []byte // data pages, compressed, with headers
	locs             []pageLoc
	rows, levels     int64
	uncompressed     int64
	stats            statsAcc
	unencoded        int64
	defHist, repHist []int64
	encStats         map[[2]int32]int32 // (page type, encoding) -> count
	encodings        []format.Encoding
	indexOK          bool // every page has a usable min/max
}

// pageLoc is one data page of the chunk for the page index.
type pageLoc struct {
	offset           int64 // in chunkState.pages
	size             int32
	firstRow         int64
	nullPage         bool
	min, max         []byte
	nulls, nans      int64
	unencoded        int64
	defHist, repHist []int64
}

// NewWriter returns a Writer of the chunks of column col. An encoding the
// physical type cannot take is an error wrapping [metadata.ErrUnsupported].
func NewWriter(col *metadata.Column, opts WriterOptions) (*Writer, error) {
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.MaxRowsPerPage <= 0 {
		opts.MaxRowsPerPage = DefaultMaxRowsPerPage
	}
	if opts.DictionaryPageSize <= 0 {
		opts.DictionaryPageSize = DefaultDictionaryPageSize
	}
	if opts.TruncateLength <= 0 {
		opts.TruncateLength = math.MaxInt
	}
	w := &Writer{col: col, opts: opts, mem: opts.Allocator}
	if w.mem == nil {
		w.mem = goAllocator{}
	}
	var err error
	if w.arm, err = newArm(col); err != nil {
		return nil, err
	}
	if w.enc, err = newValueEncoder(opts.Encoding, col); err != nil {
		return nil, err
	}
	if col.Physical == format.Type_BOOLEAN {
		w.opts.Dictionary = false
	} else if w.opts.Dictionary {
		w.dict = newDictEncoder(col)
	}
	w.pw, err = pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: opts.Codec, Level: opts.Level, SkipCRC: !opts.CRC})
	if err != nil {
		return nil, err
	}
	kind := statsKind(col)
	w.page.stats.kind, w.chunk.stats.kind = kind, kind
	if opts.TotalOrder && (kind == cmpFloat || kind == cmpDouble || kind == cmpFloat16) {
		w.page.stats.totalOrder, w.chunk.stats.totalOrder = true, true
	}
	w.page.defHist = make([]int64, col.MaxDef+1)
	w.page.repHist = make([]int64, col.MaxRep+1)
	w.chunk.defHist = make([]int64, col.MaxDef+1)
	w.chunk.repHist = make([]int64, col.MaxRep+1)
	if opts.BloomFilterBytes > 0 {
		w.bloom = metadata.NewBloomFilter(opts.BloomFilterBytes)
	}
	w.Reset()
	return w, nil
}

// SetEncryptor makes the column chunk being written an encrypted one
// (Parquet modular encryption): e encrypts its page headers and pages
// (package encryption's ChunkEncryptor for the chunk's row group and
// column). Call it after Reset, before the chunk's first page; Reset goes
// back to plaintext pages. The chunk's sizes, its offset index and
// TotalCompressedSize count the modules.
func (w *Writer) SetEncryptor(e pagecodec.Encryptor) { w.pw.SetEncryptor(e) }

// Column returns the column the Writer writes.
func (w *Writer) Column() *metadata.Column { return w.col }

// Reset starts a new column chunk: the pages, statistics, dictionary and
// bloom filter of the last one are dropped (the page buffer is kept).
func (w *Writer) Reset() {
	w.pw.SetEncryptor(nil)
	ch := &w.chunk
	ch.pages, ch.locs = ch.pages[:0], ch.locs[:0]
	ch.rows, ch.levels, ch.uncompressed, ch.unencoded = 0, 0, 0, 0
	ch.stats.reset()
	clear(ch.defHist)
	clear(ch.repHist)
	ch.encStats = map[[2]int32]int32{}
	ch.encodings = ch.encodings[:0]
	ch.indexOK = true
	w.dictOn, w.dictUsed, w.dictRaw, w.dictGiveUp = w.dict != nil, false, 0, false
	if w.dict != nil {
		w.dict.reset(w.opts.DictionaryPageSize, int(w.col.TypeLength))
	}
	if w.bloom != nil {
		w.bloom.Reset()
	}
	w.resetPage()
}

func (w *Writer) resetPage() {
	p := &w.page
	p.defEnc.Reset(w.col.MaxDef)
	p.repEnc.Reset(w.col.MaxRep)
	p.levels, p.values, p.rows, p.unencoded, p.raw = 0, 0, 0, 0, 0
	clear(p.defHist)
	clear(p.repHist)
	p.stats.reset()
	w.enc.reset()
}

// Free returns the page buffer to the Allocator; the Writer must not be
// used afterwards.
func (w *Writer) Free() {
	if cap(w.chunk.pages) > 0 {
		w.mem.Free(w.chunk.pages[:cap(w.chunk.pages)])
	}
	w.chunk.pages = nil
}

// WriteLevels adds the levels of a piece of rows whole records with
// numValues non-null values (whose values follow with Write). def and rep
// are ignored when the column's max definition or repetition level is 0;
// levels must be within the column's maxima (the caller's shredder makes
// them).
func (w *Writer) WriteLevels(def, rep []int16, rows, numValues int) {
	p := &w.page
	numLevels := rows
	if w.col.MaxDef > 0 {
		numLevels = len(def)
		_ = p.defEnc.Append(def)
		for _, d := range def {
			p.defHist[d]++
		}
	}
	if w.col.MaxRep > 0 {
		numLevels = len(rep)
		_ = p.repEnc.Append(rep)
		for _, r := range rep {
			p.repHist[r]++
		}
	}
	p.levels += numLevels
	p.values += numValues
	p.rows += rows
	p.stats.nulls += int64(numLevels - numValues)
}

// Write encodes values of the column's physical type (the matching field
// of v) into the page and adds them to the statistics and bloom filter.
func (w *Writer) Write(v *Batch) error {
	return w.arm.write(w, v)
}

// Dictionary reports whether values written now are dictionary encoded.
func (w *Writer) Dictionary() bool { return w.dictOn }

// DictionaryFits reports whether values adding at most extra bytes to the
// PLAIN size of the dictionary keep it within its limit (always true when
// not dictionary encoding).
func (w *Writer) DictionaryFits(extra int64) bool {
	return !w.dictOn || int64(w.dict.DictSize())+extra <= int64(w.opts.DictionaryPageSize)
}

// FallBack ends the page and writes the rest of the chunk in the fallback
// encoding.
func (w *Writer) FallBack() error {
	if err := w.FlushPage(); err != nil {
		return err
	}
	w.dictOn = false
	return nil
}

// PageRows returns the rows of the page being filled.
func (w *Writer) PageRows() int { return w.page.rows }

// PageBytes estimates the size of the page being filled before
// compression.
func (w *Writer) PageBytes() int {
	n := w.page.defEnc.Len() + w.page.repEnc.Len()
	if w.dictOn {
		return n + w.dict.IndicesLen()
	}
	return n + w.enc.len()
}

// PageFull reports whether the page has reached its size or row target.
func (w *Writer) PageFull() bool {
	return w.page.rows >= w.opts.MaxRowsPerPage || w.PageBytes() >= w.opts.PageSize
}

// BufferedBytes estimates the bytes the chunk will take in the file.
func (w *Writer) BufferedBytes() int64 {
	n := int64(len(w.chunk.pages) + w.PageBytes())
	if w.dictUsed {
		n += int64(w.dict.DictSize())
	}
	return n
}

// Bloom returns the bloom filter of the chunk being written, nil when the
// options ask for none.
func (w *Writer) Bloom() *metadata.BloomFilter { return w.bloom }

// reserve makes room for n more bytes of pages in the buffer from mem.
func (ch *chunkState) reserve(mem Allocator, n int) {
	if cap(ch.pages)-len(ch.pages) >= n {
		return
	}
	size := max(2*cap(ch.pages), len(ch.pages)+n, 64<<10)
	var b []byte
	if cap(ch.pages) == 0 {
		b = mem.Allocate(size)
	} else {
		b = mem.Reallocate(size, ch.pages[:cap(ch.pages)])
	}
	ch.pages = b[:len(ch.pages)]
}

// adopt keeps the pages in the allocator's buffer: if an append outgrew
// the reserved room (a page that compressed larger than expected), Go
// allocated a new array, whose bytes are copied back into the buffer
// (before is the slice the append started from).
func (ch *chunkState) adopt(mem Allocator, before []byte) {
	if cap(ch.pages) == cap(before) {
		return
	}
	grownPages := ch.pages
	ch.pages = before
	ch.reserve(mem, len(grownPages)-len(before))
	ch.pages = append(ch.pages, grownPages[len(before):]...)
}

// FlushPage writes the page being filled, if it has levels, to the chunk.
func (w *Writer) FlushPage() error {
	p := &w.page
	if p.levels == 0 {
		return nil
	}
	ch := &w.chunk
	enc := w.enc.encoding()
	var rep, def []byte
	if w.col.MaxRep > 0 {
		rep = p.repEnc.Finish()
	}
	if w.col.MaxDef > 0 {
		def = p.defEnc.Finish()
	}
	// A DATA_PAGE body is assembled here, levels then values, and
	// compressed as it is; a DATA_PAGE_V2 keeps its levels apart.
	body := w.body[:0]
	if !w.opts.DataPageV2 {
		body = pagecodec.AppendLevelsV1(body, rep, def)
	}
	valuesAt := len(body)
	inPlace := false
	switch {
	case p.values == 0:
		enc = format.Encoding_PLAIN // nothing to encode: no dictionary needed
	case w.dictOn:
		// After the first page, a dictionary that saves nothing (about as
		// large as the values it has seen: unique values) is given up for
		// the rest of the chunk; hashing every value costs more than the
		// encoding gains (BenchmarkWrite, data=numeric).
		w.dictRaw += p.raw
		if ch.rows == 0 && (int64(w.dict.DictSize()) > w.dictRaw*3/4 || w.dictOnlyRuns()) {
			w.dictGiveUp = true
		}
		if w.dictGiveUp && ch.rows == 0 && w.plainFallback() {
			// The first page itself goes PLAIN, and the chunk has no
			// dictionary page: bit-packed indices of unique values do not
			// compress, their values do (BenchmarkWrite data=numeric ZSTD:
			// 58.56 -> 56.5 MB, DuckDB 54.62, which never starts a
			// dictionary it cannot keep).
			// The values go where the PLAIN pages that follow put theirs,
			// not into a second page-sized buffer.
			pe := w.enc.(*plainEncoder)
			pe.buf = w.dict.AppendPendingPlain(pe.buf)
			body, inPlace = pe.appendPage(body, valuesAt)
			enc = format.Encoding_PLAIN
			w.dictUsed = false
			w.dict.reset(w.opts.DictionaryPageSize, int(w.col.TypeLength))
			break
		}
		enc = format.Encoding_RLE_DICTIONARY
		body = w.dict.AppendIndices(body)
	default:
		body, inPlace = w.enc.appendPage(body, valuesAt)
		// An arm may fall back to PLAIN for a page (ALP when it would
		// be larger): it says so after encoding.
		enc = w.enc.encoding()
	}
	if !inPlace {
		w.body = body
	}
	values := body[valuesAt:]
	var hdrStats *format.Statistics
	if w.opts.Statistics {
		hdrStats = p.stats.statistics(w.col.Physical, w.opts.TruncateLength, true)
	}
	offset := len(ch.pages)
	ch.reserve(w.mem, len(body)+len(rep)+len(def)+len(body)/4+4096)
	before := ch.pages
	pageType, wp, err := w.appendDataPage(enc, body, values, rep, def, hdrStats)
	if err != nil {
		return err
	}
	ch.adopt(w.mem, before)
	ch.uncompressed += int64(wp.HeaderSize + wp.UncompressedSize)
	ch.encStats[[2]int32{int32(pageType), int32(enc)}]++
	addEncoding(&ch.encodings, enc)
	if w.opts.PageIndex {
		w.addPageLoc(int64(offset), int32(wp.HeaderSize+wp.CompressedSize))
	}
	ch.rows += int64(p.rows)
	ch.levels += int64(p.levels)
	ch.unencoded += p.unencoded
	for i, v := range p.defHist {
		ch.defHist[i] += v
	}
	for i, v := range p.repHist {
		ch.repHist[i] += v
	}
	ch.stats.merge(&p.stats)
	w.resetPage()
	if w.dictGiveUp {
		w.dictOn = false
	}
	return nil
}

// dictOnlyRuns reports, at the end of a chunk's first page, whether its
// dictionary gains nothing a codec would not: values that repeat only in
// runs (a value seen before is the one just before it) and change often
// (runs of fewer than 16 on average), like a sorted key with a few rows
// each. Bit-packed indices of such values do not compress; their PLAIN
// values do (BenchmarkWrite data=lineitem ZSTD, l_orderkey: 3.55 MB with a
// dictionary, 0.91 MB PLAIN in DuckDB's file, which keeps dictionaries
// only for columns of few distinct values). UNCOMPRESSED chunks keep the
// dictionary: there the indices are what is small.
func (w *Writer) dictOnlyRuns() bool {
	if w.opts.Codec == format.CompressionCodec_UNCOMPRESSED {
		return false
	}
	n, distinct := w.dict.NumIndices(), w.dict.DictLen()
	if n == 0 || distinct*16 <= n {
		return false
	}
	runStarts := n - w.dict.PendingRepeats()
	return distinct*10 >= runStarts*9
}

// plainFallback reports whether the encoding after a dictionary fallback
// is PLAIN (BOOLEAN has no dictionary).
func (w *Writer) plainFallback() bool {
	_, ok := w.enc.(*plainEncoder)
	return ok
}

// appendDataPage compresses and appends the page to the chunk's pages.
func (w *Writer) appendDataPage(enc format.Encoding, body, values, rep, def []byte, st *format.Statistics) (format.PageType, pagecodec.WrittenPage, error) {
	p, ch := &w.page, &w.chunk
	var wp pagecodec.WrittenPage
	var err error
	if w.opts.DataPageV2 {
		ch.pages, wp, err = w.pw.AppendDataPageV2(ch.pages, &pagecodec.DataPageV2{
			NumLevels: p.levels, NumNulls: p.levels - p.values, NumRows: p.rows,
			// pagecodec marks an empty values section compressed without
			// compressing it; some readers (hyparquet) then fail to
			// decompress zero bytes. Store it uncompressed.
			Uncompressed: len(values) == 0,
			Encoding:     enc, RepetitionLevels: rep, DefinitionLevels: def, Values: values, Statistics: st,
		})
		return format.PageType_DATA_PAGE_V2, wp, err
	}
	ch.pages, wp, err = w.pw.AppendDataPageV1(ch.pages, &pagecodec.DataPageV1{
		NumLevels: p.levels, Encoding: enc, Body: body, Statistics: st,
	})
	return format.PageType_DATA_PAGE, wp, err
}

// addPageLoc records the page just written for the page index.
func (w *Writer) addPageLoc(offset int64, size int32) {
	p, ch := &w.page, &w.chunk
	loc := pageLoc{
		offset: offset, size: size, firstRow: ch.rows,
		nullPage: p.values == 0, nulls: p.stats.nulls, nans: p.stats.nans, unencoded: p.unencoded,
	}
	if w.col.MaxDef > 0 {
		loc.defHist = append([]int64(nil), p.defHist...)
	}
	if w.col.MaxRep > 0 {
		loc.repHist = append([]int64(nil), p.repHist...)
	}
	if !loc.nullPage {
		lo, hi, _, _ := p.stats.encode(w.col.Physical, w.opts.TruncateLength)
		if lo == nil || hi == nil {
			ch.indexOK = false
		}
		loc.min, loc.max = lo, hi
	}
	ch.locs = append(ch.locs, loc)
}

func addEncoding(list *[]format.Encoding, e format.Encoding) {
	for _, x := range *list {
		if x == e {
			return
		}
	}
	*list = append(*list, e)
}

// appendDictPage appends the dictionary page of the chunk to dst, if the
// chunk used its dictionary.
func (w *Writer) appendDictPage(dst []byte) ([]byte, pagecodec.WrittenPage, error) {
	// A chunk without a single value (all null) gets no dictionary page:
	// an empty one would be an empty compressed body, which some readers
	// (hyparquet with LZ4_RAW) cannot decompress.
	if !w.dictUsed {
		return dst, pagecodec.WrittenPage{}, nil
	}
	body, n := w.dict.AppendDictPage(w.body[:0]), w.dict.DictLen()
	w.body = body
	return w.pw.AppendDictionaryPage(dst, &pagecodec.DictionaryPage{NumValues: n, Values: body})
}

// Finish flushes the last page and writes the chunk, dictionary page
// first, to out, at file offset offset; scratch is a buffer it may use
// (returned, maybe grown). The chunk stays the Writer's until Reset.
func (w *Writer) Finish(out io.Writer, offset int64, scratch []byte) (ChunkResult, []byte, error) {
	if err := w.FlushPage(); err != nil {
		return ChunkResult{}, scratch, err
	}
	ch := &w.chunk
	start := offset
	dict, dwp, err := w.appendDictPage(scratch[:0])
	if err != nil {
		return ChunkResult{}, dict, err
	}
	if _, err := out.Write(dict); err != nil {
		return ChunkResult{}, dict, err
	}
	dataStart := start + int64(len(dict))
	if _, err := out.Write(ch.pages); err != nil {
		return ChunkResult{}, dict, err
	}
	md := &format.ColumnMetaData{
		Type:                  w.col.Physical,
		PathInSchema:          w.col.Path,
		Codec:                 w.opts.Codec,
		NumValues:             ch.levels,
		TotalUncompressedSize: ch.uncompressed,
		TotalCompressedSize:   int64(len(dict) + len(ch.pages)),
		DataPageOffset:        dataStart,
	}
	w.addEncodings(md, len(dict) > 0)
	if len(dict) > 0 {
		md.DictionaryPageOffset = ptrTo(start)
		md.TotalUncompressedSize += int64(dwp.HeaderSize + dwp.UncompressedSize)
	}
	if w.opts.Statistics {
		md.Statistics = ch.stats.statistics(w.col.Physical, w.opts.TruncateLength, true)
	}
	if w.opts.SizeStatistics {
		md.SizeStatistics = w.sizeStatistics()
	}
	res := ChunkResult{Chunk: &format.ColumnChunk{FileOffset: start, MetaData: md}, Bloom: w.bloom}
	if w.opts.PageIndex && len(ch.locs) > 0 {
		res.OffsetIndex = &format.OffsetIndex{}
		for _, l := range ch.locs {
			res.OffsetIndex.PageLocations = append(res.OffsetIndex.PageLocations, &format.PageLocation{Offset: dataStart + l.offset, CompressedPageSize: l.size, FirstRowIndex: l.firstRow})
			if w.col.Physical == format.Type_BYTE_ARRAY && w.opts.SizeStatistics {
				res.OffsetIndex.UnencodedByteArrayDataBytes = append(res.OffsetIndex.UnencodedByteArrayDataBytes, l.unencoded)
			}
		}
		if ch.indexOK && ch.stats.kind != cmpNone {
			res.ColumnIndex = w.columnIndex()
		}
	}
	return res, dict, nil
}

// addEncodings lists the encodings of the chunk and their page counts:
// PLAIN for the dictionary page, RLE for levels, then the data pages'.
func (w *Writer) addEncodings(md *format.ColumnMetaData, hasDict bool) {
	ch := &w.chunk
	hasLevels := w.col.MaxDef > 0 || w.col.MaxRep > 0
	if hasDict {
		md.Encodings = append(md.Encodings, format.Encoding_PLAIN)
		md.EncodingStats = append(md.EncodingStats, &format.PageEncodingStats{PageType: format.PageType_DICTIONARY_PAGE, Encoding: format.Encoding_PLAIN, Count: 1})
	}
	if hasLevels {
		md.Encodings = append(md.Encodings, format.Encoding_RLE)
	}
	for _, e := range ch.encodings {
		if !(e == format.Encoding_PLAIN && hasDict) && !(e == format.Encoding_RLE && hasLevels) {
			md.Encodings = append(md.Encodings, e)
		}
	}
	for _, pt := range []format.PageType{format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2} {
		for _, e := range ch.encodings {
			if n := ch.encStats[[2]int32{int32(pt), int32(e)}]; n > 0 {
				md.EncodingStats = append(md.EncodingStats, &format.PageEncodingStats{PageType: pt, Encoding: e, Count: n})
			}
		}
	}
}

// sizeStatistics returns the SizeStatistics of the chunk, nil when it has
// nothing to say (a required column that is not BYTE_ARRAY).
func (w *Writer) sizeStatistics() *format.SizeStatistics {
	ch := &w.chunk
	ss := &format.SizeStatistics{}
	if w.col.Physical == format.Type_BYTE_ARRAY {
		ss.UnencodedByteArrayDataBytes = ptrTo(ch.unencoded)
	}
	if w.col.MaxDef > 0 {
		ss.DefinitionLevelHistogram = append([]int64(nil), ch.defHist...)
	}
	if w.col.MaxRep > 0 {
		ss.RepetitionLevelHistogram = append([]int64(nil), ch.repHist...)
	}
	if ss.UnencodedByteArrayDataBytes == nil && ss.DefinitionLevelHistogram == nil && ss.RepetitionLevelHistogram == nil {
		return nil
	}
	return ss
}

// columnIndex builds the ColumnIndex of the chunk's pages. The boundary
// order compares the pages' bounds as readers do (metadata.ComparePlain).
func (w *Writer) columnIndex() *format.ColumnIndex {
	ch := &w.chunk
	kind := ch.stats.kind
	ci := &format.ColumnIndex{}
	isFloat := kind == cmpFloat || kind == cmpDouble || kind == cmpFloat16
	asc, desc := true, true
	var prev *pageLoc
	for i := range ch.locs {
		l := &ch.locs[i]
		ci.NullPages = append(ci.NullPages, l.nullPage)
		ci.NullCounts = append(ci.NullCounts, l.nulls)
		if isFloat {
			ci.NanCounts = append(ci.NanCounts, l.nans)
		}
		if l.nullPage {
			ci.MinValues = append(ci.MinValues, []byte{})
			ci.MaxValues = append(ci.MaxValues, []byte{})
		} else {
			ci.MinValues = append(ci.MinValues, l.min)
			ci.MaxValues = append(ci.MaxValues, l.max)
			if prev != nil {
				cmp := metadata.ComparePlain
				if ch.stats.totalOrder {
					cmp = compareTotalOrder
				}
				cmpLo, errLo := cmp(w.col, l.min, prev.min)
				cmpHi, errHi := cmp(w.col, l.max, prev.max)
				if errLo != nil || errHi != nil {
					asc, desc = false, false
				}
				if cmpLo < 0 || cmpHi < 0 {
					asc = false
				}
				if cmpLo > 0 || cmpHi > 0 {
					desc = false
				}
			}
			prev = l
		}
		if w.opts.SizeStatistics {
			ci.DefinitionLevelHistograms = append(ci.DefinitionLevelHistograms, l.defHist...)
			ci.RepetitionLevelHistograms = append(ci.RepetitionLevelHistograms, l.repHist...)
		}
	}
	switch {
	case asc:
		ci.BoundaryOrder = format.BoundaryOrder_ASCENDING
	case desc:
		ci.BoundaryOrder = format.BoundaryOrder_DESCENDING
	default:
		ci.BoundaryOrder = format.BoundaryOrder_UNORDERED
	}
	return ci
}

// errType reports a Batch without the field of the column's physical type.
func errType(col *metadata.Column) error {
	return fmt.Errorf("column: values for a %s column of another physical type: %w", col.Physical, errMisuse)
}

// compareTotalOrder compares two PLAIN float bounds of col (FLOAT, DOUBLE
// or FLOAT16) in IEEE 754 total order, as metadata.ComparePlain does in
// TYPE_ORDER.
func compareTotalOrder(col *metadata.Column, a, b []byte) (int, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("bounds of %d and %d bytes: %w", len(a), len(b), errCorrupt)
	}
	var ka, kb int64
	switch len(a) {
	case 2:
		ka, kb = int64(metadata.TotalOrderKey16(binary.LittleEndian.Uint16(a))), int64(metadata.TotalOrderKey16(binary.LittleEndian.Uint16(b)))
	case 4:
		ka, kb = int64(metadata.TotalOrderKey32(binary.LittleEndian.Uint32(a))), int64(metadata.TotalOrderKey32(binary.LittleEndian.Uint32(b)))
	case 8:
		ka, kb = metadata.TotalOrderKey64(binary.LittleEndian.Uint64(a)), metadata.TotalOrderKey64(binary.LittleEndian.Uint64(b))
	default:
		return 0, fmt.Errorf("float bound of %d bytes for %s: %w", len(a), col.DottedPath, errCorrupt)
	}
	return cmpInt(ka, kb), nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
