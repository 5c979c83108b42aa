package arrowpq

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// leafReader reads one leaf column chunk batch by batch: the definition and
// repetition levels of whole records and the dense (non-null) physical
// values they carry, taken from the leaf's column.Reader page piece by
// page piece. Turning those into Arrow arrays is fieldReader's job.
type leafReader struct {
	col      *metadata.Column
	cr       *column.Reader
	rowGroup int

	// The batch being built: the levels of columns that are neither flat
	// nor repeating, the dense values, and numLevels, the levels of the
	// batch.
	def       []int16
	dense     denseValues
	numLevels int

	// For repeating columns: the levels path, its assembler, and the
	// position of each schema node on the path.
	asm *levels.Assembler
	// asms holds the assemblers of a closed Reader: ensureAssembler
	// builds on the buffers of one (retired.go).
	asms      *assemblerStack
	pathIndex map[*metadata.Node]int

	// wantIndices: the leaf reads as an Arrow dictionary; dictionary pages
	// yield indices into dictArray, built once per column chunk.
	wantIndices bool
	dictArray   arrow.Array
	// direct: flat fixed-width values decode straight into Arrow buffers.
	direct bool
	// conv: flat fixed-width values converted as they are decoded.
	conv *convTarget
	// binaryOut: byte arrays decode straight into the offsets and data
	// buffers of a String or Binary array.
	binaryOut bool
	// viewOut: byte arrays decode as views into the pages they are in
	// (a StringView or BinaryView array; column.Values.ViewMode).
	viewOut bool
	// viewUTF8: the views are strings, checked as they are decoded.
	viewUTF8  bool
	batchRows int

	// flat: max definition level 1, no repetition. Definition levels then
	// go straight from the page into the batch's validity bitmap, without
	// an int16 per level.
	flat      bool
	valid     []byte
	nullCount int
	// bitmaps lends valid between the leaves of the reader: a leaf takes
	// a bitmap for a batch and gives it back once the batch's arrays are
	// built (ReadOptions.bitmaps).
	bitmaps *column.BufferCache

	// locs is the offset index of the next chunk, set by a filtered read
	// so that SkipRecords steps over pages it did not fetch; sparse, when
	// the chunk holds only some pages (filterread.go).
	locs   []*format.PageLocation
	sparse *sparseChunk
	// chunks, when set, reads the chunks in windows from the file: reset
	// then gets no bytes (io.go).
	chunks *chunkSource

	// perRow is the chunk's non-null values per row, from its value
	// count, row count and null count (the statistics'; 0 when unknown):
	// guessFirstData's; levelsPerRow the chunk's levels per row
	// (binarySlots).
	perRow, levelsPerRow float64
}

// maxByteArrayData bounds the byte array data of one batch: the Arrow
// String/Binary layout has 32-bit offsets.
const maxByteArrayData = math.MaxInt32

func newLeafReader(col *metadata.Column, opts *ReadOptions) *leafReader {
	l := &leafReader{
		col:       col,
		batchRows: opts.BatchSize,
		cr:        column.NewReader(col, columnOptions(opts, maxByteArrayData)),
		chunks:    opts.chunks,
		bitmaps:   opts.bitmaps,
		asms:      opts.assemblers,
	}
	l.dense.cache = opts.scratch
	l.flat = col.MaxDef == 1 && col.MaxRep == 0
	var nodes []*metadata.Node
	for n := col.Node; n.Parent != nil; n = n.Parent {
		nodes = append(nodes, n)
	}
	l.pathIndex = make(map[*metadata.Node]int, len(nodes))
	for i := range nodes {
		l.pathIndex[nodes[len(nodes)-1-i]] = i
	}
	return l
}

// prefetchMinBytes is column.ReaderOptions.PrefetchMinBytes: 0, the
// default, except in tests that read small chunks ahead.
var prefetchMinBytes int

// columnOptions are the column.Reader options of a read with opts.
func columnOptions(opts *ReadOptions, maxData int) column.ReaderOptions {
	o := column.ReaderOptions{
		MaxPageSize:      opts.MaxPageSize,
		SkipChecksums:    opts.SkipChecksums,
		BatchRows:        opts.BatchSize,
		MaxByteArrayData: maxData,
		Buffers:          opts.pageBuffers,
		Window:           opts.ChunkWindow,
		Windows:          opts.windows,
		Dictionaries:     opts.dictionaries,
	}
	if opts.scratch != nil {
		o.Scratch = &opts.scratch.BufferCache
	}
	if opts.prefetch != nil {
		o.Prefetch, o.Spawn = prefetchPages, opts.prefetch.spawn
		o.PrefetchMinBytes = prefetchMinBytes
	}
	return o
}

// ensureAssembler creates the column's levels.Assembler on first use.
func (l *leafReader) ensureAssembler() error {
	if l.asm != nil {
		return nil
	}
	reps := make([]levels.Repetition, len(l.pathIndex))
	for n, i := range l.pathIndex {
		switch n.Repetition {
		case metadata.Optional:
			reps[i] = levels.Optional
		case metadata.Repeated:
			reps[i] = levels.Repeated
		case metadata.Required:
			reps[i] = levels.Required
		default:
			return l.wrap(fmt.Errorf("repetition %v: %w", n.Repetition, pagecodec.ErrUnsupported))
		}
	}
	p, err := levels.NewPath(reps)
	if err != nil {
		return l.wrap(err)
	}
	if l.asm, err = levels.NewAssemblerFrom(l.asms.take(), p, nil); err != nil {
		return l.wrap(err)
	}
	return nil
}

// reset starts a new column chunk.
func (l *leafReader) reset(rg int, chunk []byte, fileOffset int64, md *format.ColumnMetaData, numRows int64, assumeV2Compressed bool, dec column.Decryptor) {
	l.rowGroup = rg
	var src io.ReaderAt
	var size int64
	if chunk == nil && l.chunks != nil && l.sparse == nil {
		src, size = l.chunks.src, l.chunks.size(rg, l.col.Index, fileOffset)
	}
	l.cr.Reset(column.Chunk{
		Data: chunk, Source: src, Size: size, FileOffset: fileOffset, Codec: md.Codec,
		NumValues: md.NumValues, NumRows: numRows, NullCount: nullCount(md),
		AssumeV2Compressed: assumeV2Compressed,
		Decryptor:          dec,
		OffsetIndex:        l.locs,
		Sparse:             l.sparse != nil,
	})
	if l.conv != nil {
		l.conv.dictOK, l.conv.dictDone = false, false
	}
	if l.dictArray != nil {
		l.dictArray.Release()
		l.dictArray = nil
	}
	if l.binaryOut && l.dense.dataHint == 0 && md.NumValues > 0 {
		// The first batch's guess at its byte array data: the chunk's
		// uncompressed bytes per value (an overestimate for PLAIN pages;
		// dictionary pages grow the buffer a few times in the first
		// batch). The sizes come from the footer, so the guess is capped
		// by the bytes actually read: a hostile footer must not make a
		// small file allocate much.
		limit := min(16*max(int64(len(chunk)), size), 64<<20)
		perValue := min(max(md.TotalUncompressedSize, 0)/md.NumValues, limit)
		l.dense.dataHint = int(min(mulSat(perValue, int64(l.batchRows)), limit))
		// A dictionary-encoded chunk's bytes say little about its values'
		// (startBinary, guessFirstData).
		l.dense.hintLow = slices.ContainsFunc(md.Encodings, func(e format.Encoding) bool {
			return e == format.Encoding_PLAIN_DICTIONARY || e == format.Encoding_RLE_DICTIONARY
		})
		l.perRow, l.levelsPerRow = 0, 0
		if numRows > 0 {
			l.perRow = float64(md.NumValues-nullCount(md)) / float64(numRows)
			l.levelsPerRow = float64(md.NumValues) / float64(numRows)
		}
	}
}

// nullCount is the null_count of md's statistics when it is one (at most
// num_values), else 0: it only tightens guesses.
func nullCount(md *format.ColumnMetaData) int64 {
	if st := md.Statistics; st != nil && st.NullCount != nil && *st.NullCount >= 0 && *st.NullCount <= md.NumValues {
		return *st.NullCount
	}
	return 0
}

// guessFirstData replaces the reader's first guess at a batch's byte
// array data when the chunk is dictionary-encoded, whose size says little
// about its values': it loads the chunk's first page (and its dictionary),
// and when that page is dictionary-encoded guesses the values of numRows
// rows (the chunk's non-null values per row, from the footer's counts and
// statistics) at the dictionary's mean length, and a sixteenth more. The
// first batch then decodes into fresh memory like the others, where it
// decoded into scratch grown as needed and copied (the scratch kept the largest first batch, 13 MB of
// the strings read, a third of its live heap); later batches go by the
// bytes per row of the one before (freshDataGuess). An error loading the
// page is left to readBatch, which meets it again (page errors are
// sticky). The guess only sizes memory; the counts it trusts are bounded
// (maxGuessPerRow, maxFirstGuess), the mean length is that of values
// decoded from the file. TestHostileValueCountsAllocateNothing.
func (l *leafReader) guessFirstData(numRows int) {
	d := &l.dense
	if !l.binaryOut || !d.hintLow || d.lastRows > 0 {
		return
	}
	if _, err := l.cr.Remaining(); err != nil {
		return
	}
	d.hintLow = false
	if !l.cr.PageIsDictionaryEncoded() {
		return // PLAIN: the chunk's bytes per value are a fair guess
	}
	dict, ok := l.cr.Dictionary()
	if !ok || dict.N <= 0 || len(dict.Offsets) <= dict.N {
		d.hintLow = true
		return
	}
	perRow := l.perRow
	if l.col.MaxRep == 0 {
		perRow = min(perRow, 1) // at most a value a row
	}
	if perRow <= 0 || perRow > maxGuessPerRow {
		// No count, or one a list column may have but a footer may also
		// make up: scratch grown as the values come (startBinary).
		d.hintLow = true
		return
	}
	mean := float64(dict.Offsets[dict.N]) / float64(dict.N)
	guess := mean * float64(numRows) * perRow
	guess += guess / 16
	d.dataHint = int(min(guess, maxFirstGuess, float64(maxByteArrayData)))
}

// binarySlots is the number of slots startBinary makes room for in the
// offsets of a batch of numRows rows: a slot a row without repetition;
// for a list's leaf the chunk's levels per row (a level a slot, and one
// for each empty or null list; at most maxGuessPerRow), and a sixteenth
// more. Room for a slot a row made the offsets of a list of strings grow
// by doubling in every batch (nested: about 4 MB a read of 41 MB). The
// count is also the rows freshDataGuess scales the last batch's data by,
// so it stays the same within a chunk: the last batch's slots instead
// would make it guess short.
func (l *leafReader) binarySlots(numRows int) int {
	if l.col.MaxRep == 0 || l.levelsPerRow <= 1 {
		return numRows
	}
	per := min(l.levelsPerRow, maxGuessPerRow)
	return int(float64(numRows)*per*17/16) + 1
}

// maxGuessPerRow is the most values per row of a list's byte arrays that
// guessFirstData believes the footer; maxFirstGuess the most bytes it
// guesses. With the mean length taken from the decoded dictionary, a
// footer's counts can then make the first batch of a leaf allocate at
// most maxGuessPerRow times a row's value of the dictionary's mean length
// per row, and never more than maxFirstGuess.
const (
	maxGuessPerRow = 8
	maxFirstGuess  = 64 << 20
)

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

// checkBatchBytes reports ErrLimit when numRows values of width bytes
// exceed what the leaf's column chunk can back (column.Reader.CheckBatchBytes).
func (l *leafReader) checkBatchBytes(numRows, width int) error {
	if err := l.cr.CheckBatchBytes(numRows, width); err != nil {
		return l.wrap(err)
	}
	return nil
}

// wrap locates err at the current page of the chunk.
func (l *leafReader) wrap(err error) error {
	e := &Error{Op: "read", RowGroup: l.rowGroup, Column: l.col.DottedPath, Page: -1, Offset: -1, Err: err}
	var pe *pagecodec.PageError
	if errors.As(err, &pe) {
		e.Page, e.Offset, e.Err = pe.Page, pe.Offset, pe.Err
	} else {
		e.Page, e.Offset = l.cr.Location()
	}
	if l.sparse != nil && e.Offset >= 0 {
		e.Offset = l.sparse.fileOffset(e.Offset)
	}
	return e
}

// readBatch gathers the levels and dense values of the next numRows records
// into l.def, l.valid or the assembler, and l.dense. It returns the number
// of records read, which is smaller than numRows only when the chunk ends.
func (l *leafReader) readBatch(numRows int) (int, error) {
	l.def = l.def[:0]
	l.valid, l.nullCount = l.valid[:0], 0
	if need := (numRows + 7) / 8; l.flat && cap(l.valid) < need {
		// A flat leaf's bitmap holds a bit a row: sized once, exactly,
		// instead of by GrowBitmap page piece by page piece (twice what
		// it needs each time; the 2,000-column file allocated 10 MB a
		// read of 320 MB for 2,000 bitmaps of 2.5 KB).
		l.valid = l.takeBitmap(need)
	}
	if l.col.MaxRep > 0 {
		// Repeating columns stream their levels into the assembler piece
		// by piece (no copy into the batch); an empty Append starts the
		// batch.
		if err := l.ensureAssembler(); err != nil {
			return 0, err
		}
		if err := l.asm.Append(nil, nil); err != nil {
			return 0, l.wrap(err)
		}
		l.asm.Reserve(numRows)
	}
	l.dense.Reset(l.col)
	l.dense.IndexMode = l.wantIndices
	l.dense.ViewMode = l.viewOut
	if l.dense.direct == nil && l.dense.offBuf == nil && l.conv == nil {
		// Scratch the leaf keeps (nested, dictionary indices, converted
		// after the fact): sized once from the footer's counts instead of
		// grown page piece by page piece. Never a slice aliasing an Arrow
		// buffer (direct, binary), which must not move.
		l.cr.ReserveValues(&l.dense.Values, numRows)
	}
	l.numLevels = 0
	if l.col.MaxRep > 0 {
		n, err := l.readRecords(numRows)
		l.finishChunk()
		return n, err
	}
	defer l.finishChunk()
	rows := 0
	for rows < numRows {
		left, err := l.cr.Remaining()
		if err == io.EOF {
			break
		} else if err != nil {
			return rows, l.wrap(err)
		}
		// Take levels from the page up to the end of the batch's rows,
		// and at most those decoded (PageLevels).
		k := min(left, numRows-rows)
		if l.col.MaxDef > 0 && !l.flat {
			def, _ := l.cr.PageLevels()
			k = min(k, len(def))
		}
		rows += k
		if err := l.take(k); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// finishChunk gives the page buffer back when the batch read the chunk's
// last page (column.Reader.FinishChunk), and the dictionary's buffer too
// unless the leaf builds Arrow dictionaries from it after the batch is read
// (dictionaryArray): the other leaves' values were gathered through it.
func (l *leafReader) finishChunk() {
	l.cr.FinishChunk()
	if !l.wantIndices {
		l.cr.ReleaseDictionary()
	}
}

// takeBitmap returns an empty bitmap of capacity at least need bytes: one
// another leaf gave back (giveBitmap) when the cache has one large enough,
// else a new one. A leaf kept its own bitmap for the whole read, which
// on a wide file read in one batch is a bitmap per leaf used once: 5.4 MB a
// read of the 2,000-column file (320 MB of Arrow data), where the leaves,
// decoded one after the other, now share about one. A bitmap lent is only
// scratch: arrays get copies of it (bitmapBuffer, structArray).
func (l *leafReader) takeBitmap(need int) []byte {
	if l.bitmaps != nil {
		// The cache holds bitmaps only, none larger than a batch's: the
		// best fit is taken; a smaller one (a short batch's) is dropped.
		if b := l.bitmaps.Take(need); cap(b) >= need {
			return b[:0]
		}
	}
	return make([]byte, 0, need)
}

// giveBitmap lends the leaf's bitmap to the other leaves once the arrays
// of the batch are built: nothing refers to it then.
func (l *leafReader) giveBitmap() {
	if l.bitmaps != nil && cap(l.valid) > 0 {
		l.bitmaps.Give(l.valid)
		l.valid = nil
	}
}

// readRecords is readBatch for repeating columns: the assembler takes
// levels page piece by page piece, up to the end of the batch's last
// record, which may continue on later pages.
func (l *leafReader) readRecords(numRows int) (int, error) {
	for {
		left, err := l.cr.Remaining()
		if err == io.EOF {
			break
		} else if err != nil {
			return l.asm.NumRows(), l.wrap(err)
		}
		def, rep := l.cr.PageLevels()
		if len(def) > maxRecordPiece {
			// The assembler's scratch follows the pieces it is given:
			// a page at a time it was a page's levels per depth, per
			// leaf (nested: 2.3 MB a read of 41 MB). Pieces may end
			// inside a record, as pages do.
			def, rep = def[:maxRecordPiece], rep[:maxRecordPiece]
		}
		before := l.asm.NumValues()
		n, err := l.asm.AppendRecords(def, rep, numRows)
		if err != nil {
			return l.asm.NumRows(), l.wrap(err)
		}
		l.cr.Consume(n)
		l.numLevels += n
		if numValues := l.asm.NumValues() - before; numValues > 0 {
			if err := l.decodeValues(numValues); err != nil {
				return l.asm.NumRows(), err
			}
		}
		if n < len(def) {
			break // the next level starts the next batch's first record
		}
		if l.locs != nil && n == left && l.asm.NumRows() == numRows {
			// With an offset index pages start at records: do not look
			// into the next page, which a filtered read may not have
			// fetched.
			break
		}
	}
	return l.asm.NumRows(), nil
}

// maxRecordPiece is the most levels readRecords hands the assembler at
// once.
const maxRecordPiece = 16 << 10

// take moves the next n levels of the page into the batch and decodes the
// values they carry (columns without repetition).
func (l *leafReader) take(n int) error {
	numValues := n
	if l.flat {
		l.valid = levels.GrowBitmap(l.valid, l.numLevels+n)
		nulls, err := l.cr.DecodeValidity(l.valid, l.numLevels, n)
		if err != nil {
			return l.wrap(err)
		}
		l.nullCount += nulls
		numValues = n - nulls
	} else if l.col.MaxDef > 0 {
		def, _ := l.cr.PageLevels()
		def = def[:n]
		l.def = append(l.def, def...)
		numValues = 0
		maxDef := l.col.MaxDef
		for _, d := range def {
			if d == maxDef {
				numValues++
			}
		}
		l.cr.Consume(n)
	} else {
		l.cr.Consume(n)
	}
	l.numLevels += n
	if numValues == 0 {
		return nil
	}
	if l.conv != nil {
		if err := l.decodeConverted(numValues); err != nil {
			return l.wrap(err)
		}
		return nil
	}
	return l.decodeValues(numValues)
}

// decodeValues appends the next numValues values of the page to the
// batch, keeping byte arrays in their Arrow buffers.
func (l *leafReader) decodeValues(numValues int) error {
	binary := l.dense.offBuf != nil
	if binary {
		l.dense.reserveBinary(numValues)
	}
	before := len(l.dense.Views)
	err := l.cr.DecodeValues(&l.dense.Values, numValues)
	if binary {
		l.dense.rehomeBinary()
	}
	if err == nil && l.viewUTF8 {
		// Now, while the page the values point into was just read: in
		// buildPageViews, after the batch's other pages, the check read
		// them from memory again (14% of a views read of strings).
		err = checkViewsUTF8(l.dense.Views[before:], l.dense.ViewBuffers, before/2)
	}
	if err != nil {
		return l.wrap(err)
	}
	return nil
}

// validity returns the validity bitmap of the batch's n records for the
// schema node at definition level defLevel (on a flat path), and its null
// count.
func (l *leafReader) validity(defLevel int16, n int) ([]byte, int) {
	if l.flat {
		return l.valid, l.nullCount
	}
	bm := make([]byte, (n+7)/8)
	return bm, levels.ValidityFromLevels(bm, 0, l.def, defLevel)
}
