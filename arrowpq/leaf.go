package arrowpq

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// leafReader reads one leaf column chunk batch by batch: the definition and
// repetition levels of whole records and the dense (non-null) physical
// values they carry. Turning those into Arrow arrays is the assembler's
// job (assemble.go).
//
// A page's levels are decoded when the page is loaded; its values are
// decoded as batches consume the page, so that a batch never holds more
// than it returns plus one page.
type leafReader struct {
	col      *metadata.Column
	codec    format.CompressionCodec
	pages    pagecodec.PageReader
	popts    pagecodec.PageReaderOptions
	rowGroup int
	// chunkLen is the size of the column chunk as read: what the file
	// spends on this leaf in the row group, which bounds what it can hold.
	chunkLen int

	dict    dictionary
	hasDict bool

	// The data page being consumed.
	page      *pagecodec.Page
	pageDef   []int16 // all levels of the page
	pageRep   []int16
	pageLen   int // levels in the page
	pagePos   int // levels already consumed
	values    valueDecoder
	chunkDone bool

	// The batch being built.
	def, rep []int16
	dense    denseValues
	// numLevels counts the levels of the batch.
	numLevels int

	// For repeating columns: the levels path, its assembler, and the
	// position of each schema node on the path.
	asm       *levels.Assembler
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
	batchRows int
	// maxData bounds the byte array data of one batch: maxByteArrayData,
	// lower in tests (see bigbatch.go).
	maxData int

	// flat: max definition level 1, no repetition. Definition levels then
	// go straight from the page into the batch's validity bitmap, without
	// an int16 per level.
	flat      bool
	defDec    levels.Decoder
	valid     []byte
	nullCount int
}

// dictionary holds the decoded dictionary page of a column chunk.
type dictionary struct {
	n int
	denseValues
	// maxLen is the length of the longest BYTE_ARRAY value: dictionaries
	// of short values gather with pagecodec.GatherByteArrayShort.
	maxLen int
}

func newLeafReader(col *metadata.Column, opts *ReadOptions) *leafReader {
	l := &leafReader{
		col:       col,
		batchRows: opts.BatchSize,
		maxData:   maxByteArrayData,
		popts: pagecodec.PageReaderOptions{
			MaxDefinitionLevel: col.MaxDef,
			MaxRepetitionLevel: col.MaxRep,
			MaxPageSize:        opts.MaxPageSize,
			SkipCRC:            opts.SkipChecksums,
		},
	}
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
	if l.asm, err = levels.NewAssembler(p, nil); err != nil {
		return l.wrap(err)
	}
	return nil
}

// reset starts a new column chunk.
func (l *leafReader) reset(rg int, chunk []byte, fileOffset int64, md *format.ColumnMetaData, assumeV2Compressed bool) {
	l.rowGroup = rg
	l.chunkLen = len(chunk)
	l.codec = md.Codec
	l.popts.FileOffset = fileOffset
	l.popts.AssumeV2Compressed = assumeV2Compressed
	l.pages.Reset(chunk, md.Codec, l.popts)
	l.hasDict = false
	l.dict.n = 0
	if l.conv != nil {
		l.conv.dictOK = false
	}
	if l.dictArray != nil {
		l.dictArray.Release()
		l.dictArray = nil
	}
	l.page = nil
	l.pageLen, l.pagePos = 0, 0
	l.chunkDone = false
	if l.binaryOut && l.dense.dataHint == 0 && md.NumValues > 0 {
		// The first batch's guess at its byte array data: the chunk's
		// uncompressed bytes per value (an overestimate for PLAIN pages;
		// dictionary pages grow the buffer a few times in the first
		// batch). The sizes come from the footer, so the guess is capped
		// by the bytes actually read: a hostile footer must not make a
		// small file allocate much.
		limit := min(16*int64(len(chunk)), 64<<20)
		perValue := min(max(md.TotalUncompressedSize, 0)/md.NumValues, limit)
		l.dense.dataHint = int(min(mulSat(perValue, int64(l.batchRows)), limit))
	}
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

// Fixed-width Arrow buffers of a batch take rows × width bytes, and the
// width may come from the file (a FIXED_LEN_BYTE_ARRAY type_length, or the
// ARROW:schema). Null slots take their width too, backed by nothing but a
// definition level, so the product is checked before it is allocated: at
// most what the chunk's bytes can decode to (maxChunkRatio per byte, more
// than Snappy, LZ4 or gzip reach), or minBatchLimit, or 32 bytes a row
// (any width up to Decimal256 is the caller's BatchSize's business). The
// same bound applies to values that expand from their page (dictionary
// gathers: valueDecoder.checkOut). minBatchLimit is large enough for
// repetitive data that compresses beyond maxChunkRatio, and small enough
// that a read's allocations, doubling as they grow, stay under 1 GiB.
const (
	maxChunkRatio = 1 << 10
	minBatchLimit = 256 << 20
)

// checkBatchBytes reports ErrLimit when numRows values of width bytes
// exceed what the leaf's column chunk can back.
func (l *leafReader) checkBatchBytes(numRows, width int) error {
	need := mulSat(int64(numRows), int64(width))
	limit := max(mulSat(int64(l.chunkLen), maxChunkRatio), minBatchLimit, mulSat(int64(numRows), 32))
	if need > limit {
		return l.wrap(fmt.Errorf("%d rows of %d-byte values need %d bytes, more than the %d-byte column chunk can hold (limit %d); read with a smaller BatchSize: %w",
			numRows, width, need, l.chunkLen, limit, pagecodec.ErrLimit))
	}
	return nil
}

// wrap locates err at the current page of the chunk.
func (l *leafReader) wrap(err error) error {
	e := &Error{Op: "read", RowGroup: l.rowGroup, Column: l.col.DottedPath, Page: -1, Offset: -1, Err: err}
	var pe *pagecodec.PageError
	if errors.As(err, &pe) {
		e.Page, e.Offset, e.Err = pe.Page, pe.Offset, pe.Err
	} else if l.page != nil {
		e.Page, e.Offset = l.page.Ordinal, l.page.Offset
	}
	return e
}

// nextDataPage loads the next data page, decoding a dictionary page on the
// way. It returns io.EOF at the end of the chunk.
func (l *leafReader) nextDataPage() error {
	for {
		p, err := l.pages.Next()
		if err == io.EOF {
			l.chunkDone = true
			l.page = nil
			return io.EOF
		}
		if err != nil {
			return l.wrap(err)
		}
		l.page = p
		switch p.Type {
		case format.PageType_DICTIONARY_PAGE:
			if l.hasDict {
				return l.wrap(fmt.Errorf("a second dictionary page: %w", pagecodec.ErrCorrupt))
			}
			if err := l.decodeDictionary(p); err != nil {
				return l.wrap(err)
			}
			l.hasDict = true
			if l.conv != nil {
				l.conv.convertDictionary(&l.dict)
			}
			continue
		case format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2:
		default:
			continue // index pages and unknown types carry no rows
		}
		if err := l.loadLevels(p); err != nil {
			return l.wrap(err)
		}
		if err := l.values.reset(l, p); err != nil {
			return l.wrap(err)
		}
		return nil
	}
}

// loadLevels decodes every level of data page p.
func (l *leafReader) loadLevels(p *pagecodec.Page) error {
	n := p.NumLevels
	if n < 0 {
		return fmt.Errorf("negative level count %d: %w", n, pagecodec.ErrCorrupt)
	}
	l.pageLen, l.pagePos = n, 0
	if l.flat {
		// Flat columns decode levels as batches need them: no buffer of
		// the page's level count.
		return resetLevelDecoder(&l.defDec, p.DefinitionLevels, p.DefinitionLevelEncoding, 1, n, "definition")
	}
	// Here the level count from the header sizes the int16 buffers of the
	// repetition and definition levels: bound it by the page's bytes,
	// before either is allocated. RLE makes 64 levels per byte
	// unremarkable (long null runs); far more is a hostile header. Small
	// pages get at least 1Mi levels.
	if limit := levelLimit(p); (l.col.MaxDef > 0 || l.col.MaxRep > 0) && n > limit {
		return fmt.Errorf("page of %d bytes claims %d levels (limit %d): %w",
			p.Header.GetUncompressedPageSize(), n, limit, pagecodec.ErrLimit)
	}
	if l.col.MaxRep > 0 {
		l.pageRep = growInt16(l.pageRep, n)
		if err := decodeLevels(l.pageRep, p.RepetitionLevels, p.RepetitionLevelEncoding, l.col.MaxRep, "repetition"); err != nil {
			return err
		}
	}
	if l.col.MaxDef > 0 {
		l.pageDef = growInt16(l.pageDef, n)
		if err := decodeLevels(l.pageDef, p.DefinitionLevels, p.DefinitionLevelEncoding, l.col.MaxDef, "definition"); err != nil {
			return err
		}
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
		return fmt.Errorf("%s levels in encoding %v: %w", what, enc, pagecodec.ErrUnsupported)
	}
	if err != nil {
		return fmt.Errorf("%s levels: %w", what, err)
	}
	return nil
}

// decodeLevels decodes exactly len(dst) levels.
func decodeLevels(dst []int16, src []byte, enc format.Encoding, maxLevel int16, what string) error {
	var d levels.Decoder
	if err := resetLevelDecoder(&d, src, enc, maxLevel, len(dst), what); err != nil {
		return err
	}
	n, err := d.Decode(dst)
	if err != nil {
		return fmt.Errorf("%s levels: %w", what, err)
	}
	if n != len(dst) {
		return fmt.Errorf("%s levels: %d of the %d the page header promises: %w", what, n, len(dst), pagecodec.ErrCorrupt)
	}
	return nil
}

func growInt16(s []int16, n int) []int16 {
	if cap(s) < n {
		return make([]int16, n, n+n/4)
	}
	return s[:n]
}

// readBatch gathers the levels and dense values of the next numRows records
// into l.def, l.rep and l.dense. It returns the number of records read,
// which is smaller than numRows only when the chunk ends.
func (l *leafReader) readBatch(numRows int) (int, error) {
	l.def, l.rep = l.def[:0], l.rep[:0]
	l.valid, l.nullCount = l.valid[:0], 0
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
	}
	direct := l.dense.direct
	l.dense.reset(l.col)
	l.dense.direct = direct
	l.dense.indexMode = l.wantIndices
	l.numLevels = 0
	if l.col.MaxRep > 0 {
		return l.readRecords(numRows)
	}
	rows := 0
	for rows < numRows {
		if l.pagePos == l.pageLen {
			if err := l.nextDataPage(); err == io.EOF {
				break
			} else if err != nil {
				return rows, err
			}
			continue
		}
		// Take levels from the page up to the end of the batch's rows.
		start := l.pagePos
		end := min(l.pageLen, start+numRows-rows)
		rows += end - start
		if err := l.take(start, end); err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// readRecords is readBatch for repeating columns: the assembler takes
// levels page piece by page piece, up to the end of the batch's last
// record, which may continue on later pages.
func (l *leafReader) readRecords(numRows int) (int, error) {
	for {
		if l.pagePos == l.pageLen {
			if err := l.nextDataPage(); err == io.EOF {
				break
			} else if err != nil {
				return l.asm.NumRows(), err
			}
			continue
		}
		before := l.asm.NumValues()
		n, err := l.asm.AppendRecords(l.pageDef[l.pagePos:l.pageLen], l.pageRep[l.pagePos:l.pageLen], numRows)
		if err != nil {
			return l.asm.NumRows(), l.wrap(err)
		}
		l.pagePos += n
		l.numLevels += n
		if numValues := l.asm.NumValues() - before; numValues > 0 {
			if err := l.values.decode(l, &l.dense, numValues); err != nil {
				return l.asm.NumRows(), l.wrap(err)
			}
		}
		if l.pagePos < l.pageLen {
			break // the next level starts the next batch's first record
		}
	}
	return l.asm.NumRows(), nil
}

// take moves levels [start, end) of the page into the batch and decodes
// the values they carry (columns without repetition).
func (l *leafReader) take(start, end int) error {
	n := end - start
	numValues := n
	if l.flat {
		l.valid = growBits(l.valid, l.numLevels+n)
		nulls, err := l.defDec.DecodeValidity(l.valid, l.numLevels, n)
		if err != nil {
			return l.wrap(err)
		}
		l.nullCount += nulls
		numValues = n - nulls
	} else if l.col.MaxDef > 0 {
		def := l.pageDef[start:end]
		l.def = append(l.def, def...)
		numValues = 0
		maxDef := l.col.MaxDef
		for _, d := range def {
			if d == maxDef {
				numValues++
			}
		}
	}
	l.pagePos = end
	l.numLevels += n
	if numValues > 0 {
		var err error
		if l.conv != nil {
			err = l.decodeConverted(numValues)
		} else {
			err = l.values.decode(l, &l.dense, numValues)
		}
		if err != nil {
			return l.wrap(err)
		}
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
