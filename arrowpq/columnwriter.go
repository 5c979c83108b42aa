package arrowpq

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

// A columnWriter turns the Arrow arrays of one leaf column into the pages of
// its column chunk. Rows go through in pieces of whole records: the
// Shredder gives their levels and the indices of their non-null values, the
// values are gathered from those indices straight into a typed scratch slice
// of the physical type (converted on the way) and handed to the encoder of
// the page in one call. A page is cut after a piece when it reaches its
// size or row target, so every page starts at a record.
type columnWriter struct {
	col   *metadata.Column
	leaf  *typemap.Field
	conv  typemap.Conversion
	cfg   columnConfig
	phys  format.Type
	width int // FIXED_LEN_BYTE_ARRAY type length

	// fields is the chain of typemap fields from the top-level field to the
	// leaf; childIdx[i] is the index of fields[i+1] in fields[i].Children.
	fields   []*typemap.Field
	childIdx []int
	path     *levels.Path
	shred    *levels.Shredder
	nodes    []levels.NodeData
	nulls    []byte // an all-zero validity bitmap for Null arrays

	// The leaf values of the bound record batch: values is the storage
	// array; dictIdx, when not nil, holds the indices of a dictionary
	// array whose dictionary is values.
	values  arrow.Array
	dictIdx arrow.Array
	memo    dictMemo

	g gathered

	// Page state.
	defEnc, repEnc levels.Encoder
	pageLevels     int
	pageValues     int
	pageRows       int
	pageUnencoded  int64
	pageRaw        int64 // PLAIN bytes of the page's values
	dictRaw        int64 // PLAIN bytes of the values dictionary encoded
	dictGiveUp     bool  // the first page showed the dictionary does not pay
	pageDefHist    []int64
	pageRepHist    []int64
	pageStats      statsAcc
	rawPerRow      float64 // estimated raw bytes per row, for piece sizes

	// Value encoders; dict is true while the chunk is dictionary encoded.
	dict     bool
	dictUsed bool
	d32      pagecodec.DictEncoder32
	d64      pagecodec.DictEncoder64
	d96      pagecodec.DictEncoderInt96
	dba      pagecodec.DictEncoderByteArray
	// plain holds the PLAIN values of the page after plainGap bytes kept
	// free for the levels of a DATA_PAGE, so that the body is compressed
	// where it is (see flushPage).
	plain       []byte
	plainGap    int
	bodyInPlain bool // the page body being written is part of plain
	boolPlain   pagecodec.PlainBooleanEncoder
	boolRLE     pagecodec.RLEBooleanEncoder
	dbp         pagecodec.DeltaBinaryPackedEncoder
	dbpPrev     int64 // last value given to dbp for INT32 (see appendDeltaInt32)
	dbpOrig     int32
	dbpWide     []int64
	dlba        pagecodec.DeltaLengthByteArrayEncoder
	dbae        pagecodec.DeltaByteArrayEncoder
	bss         pagecodec.ByteStreamSplitEncoder
	body        []byte

	pw    *pagecodec.PageWriter
	mem   memory.Allocator
	chunk chunkState
	bloom *bloomFilter
}

// chunkState is what a column chunk accumulates until it is written.
type chunkState struct {
	pages        []byte // data pages, compressed, with headers
	locs         []pageLoc
	rows         int64
	levels       int64
	uncompressed int64
	stats        statsAcc
	unencoded    int64
	defHist      []int64
	repHist      []int64
	encStats     map[[2]int32]int32 // (page type, encoding) -> count
	encodings    []format.Encoding
	indexOK      bool // every page has a usable min/max
}

// pageLoc is one data page of the chunk for the page index.
type pageLoc struct {
	offset    int64 // in chunkState.pages
	size      int32
	firstRow  int64
	nullPage  bool
	min, max  []byte
	nulls     int64
	nans      int64
	unencoded int64
	defHist   []int64
	repHist   []int64
}

func newColumnWriter(col *metadata.Column, leaf *typemap.Field, cfg columnConfig, mem memory.Allocator) (*columnWriter, error) {
	c := &columnWriter{col: col, leaf: leaf, conv: leaf.Conv, cfg: cfg, phys: col.Physical, width: int(col.TypeLength), mem: mem}
	for f := leaf; f != nil; f = f.Parent {
		c.fields = append([]*typemap.Field{f}, c.fields...)
	}
	var reps []levels.Repetition
	addNode := func(n *metadata.Node) {
		switch n.Repetition {
		case metadata.Optional:
			reps = append(reps, levels.Optional)
		case metadata.Repeated:
			reps = append(reps, levels.Repeated)
		default:
			reps = append(reps, levels.Required)
		}
	}
	for i, f := range c.fields {
		addNode(f.Node)
		if f.Kind == typemap.List || f.Kind == typemap.Map {
			addNode(f.Repeated)
		}
		if i+1 < len(c.fields) {
			idx := -1
			for j, ch := range f.Children {
				if ch == c.fields[i+1] {
					idx = j
				}
			}
			c.childIdx = append(c.childIdx, idx)
		}
	}
	p, err := levels.NewPath(reps)
	if err != nil {
		return nil, err
	}
	if p.MaxDef != col.MaxDef || p.MaxRep != col.MaxRep {
		return nil, fmt.Errorf("levels of the Arrow path (%d, %d) differ from the schema's (%d, %d)", p.MaxDef, p.MaxRep, col.MaxDef, col.MaxRep)
	}
	c.path, c.shred = p, levels.NewShredder(p)
	c.nodes = make([]levels.NodeData, len(reps))
	pw, err := pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: cfg.codec, Level: cfg.level, SkipCRC: !cfg.crc})
	if err != nil {
		return nil, err
	}
	c.pw = pw
	kind := statsKind(col)
	c.pageStats.kind, c.chunk.stats.kind = kind, kind
	c.pageDefHist = make([]int64, col.MaxDef+1)
	c.pageRepHist = make([]int64, col.MaxRep+1)
	c.chunk.defHist = make([]int64, col.MaxDef+1)
	c.chunk.repHist = make([]int64, col.MaxRep+1)
	if cfg.bloomNDV > 0 {
		c.bloom = newBloomFilter(bloomFilterBytes(cfg.bloomNDV, cfg.bloomFPP))
	}
	c.startChunk()
	return c, nil
}

// startChunk resets the chunk state for the next row group.
func (c *columnWriter) startChunk() {
	ch := &c.chunk
	ch.pages, ch.locs = ch.pages[:0], ch.locs[:0]
	ch.rows, ch.levels, ch.uncompressed, ch.unencoded = 0, 0, 0, 0
	ch.stats.reset()
	clear(ch.defHist)
	clear(ch.repHist)
	ch.encStats = map[[2]int32]int32{}
	ch.encodings = ch.encodings[:0]
	ch.indexOK = true
	c.dict, c.dictUsed, c.dictRaw, c.dictGiveUp = c.cfg.dictionary, false, 0, false
	if c.dict {
		switch c.phys {
		case format.Type_INT32, format.Type_FLOAT:
			c.d32.Reset(c.cfg.dictPageSize)
		case format.Type_INT64, format.Type_DOUBLE:
			c.d64.Reset(c.cfg.dictPageSize)
		case format.Type_INT96:
			c.d96.Reset(c.cfg.dictPageSize)
		case format.Type_BYTE_ARRAY:
			c.dba.Reset(c.cfg.dictPageSize, 0)
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			c.dba.Reset(c.cfg.dictPageSize, c.width)
		default:
			c.dict = false
		}
	}
	if c.bloom != nil {
		c.bloom.reset()
	}
	c.resetMemo()
	c.resetPage()
}

func (c *columnWriter) resetPage() {
	c.defEnc.Reset(c.col.MaxDef)
	c.repEnc.Reset(c.col.MaxRep)
	c.pageLevels, c.pageValues, c.pageRows, c.pageUnencoded, c.pageRaw = 0, 0, 0, 0, 0
	clear(c.pageDefHist)
	clear(c.pageRepHist)
	c.pageStats.reset()
	if cap(c.plain) < c.plainGap {
		c.plain = make([]byte, c.plainGap, c.plainGap+64<<10)
	}
	c.plain = c.plain[:c.plainGap]
	c.boolPlain.Reset()
	c.boolRLE.Reset()
	c.dbp.Reset()
	c.dbpPrev, c.dbpOrig = 0, 0
	c.dlba.Reset()
	c.dbae.Reset()
	bw := c.width
	switch c.phys {
	case format.Type_INT32, format.Type_FLOAT:
		bw = 4
	case format.Type_INT64, format.Type_DOUBLE:
		bw = 8
	}
	c.bss.Reset(bw)
}

// bind takes the top-level array of this column's field from a record
// batch and fills the node data of the path.
func (c *columnWriter) bind(top arrow.Array) error {
	arr := top
	k := 0
	for i, f := range c.fields {
		if ext, ok := arr.(array.ExtensionArray); ok {
			arr = ext.Storage()
		}
		if f.Kind == typemap.Leaf {
			if d, ok := arr.(*array.Dictionary); ok {
				c.nodes[k] = levels.NodeData{Len: d.Len(), Offset: d.Data().Offset(), Validity: c.validity(d)}
				c.dictIdx, c.values = d.Indices(), d.Dictionary()
				if ext, ok := c.values.(array.ExtensionArray); ok {
					c.values = ext.Storage()
				}
				c.bindMemo(d.Len(), c.values.Len())
			} else {
				c.nodes[k] = levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset(), Validity: c.validity(arr)}
				c.dictIdx, c.values = nil, arr
				c.memo.on = false
			}
			return nil
		}
		c.nodes[k] = levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset(), Validity: c.validity(arr)}
		k++
		switch f.Kind {
		case typemap.Struct:
			s, ok := arr.(*array.Struct)
			if !ok {
				return fmt.Errorf("array of type %s where a struct was expected: %w", arr.DataType(), metadata.ErrUnsupported)
			}
			arr = s.Field(c.childIdx[i])
		case typemap.List, typemap.Map:
			rep := levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset()}
			var child arrow.Array
			switch l := arr.(type) {
			case *array.Map:
				rep.Offsets32 = arrow.Int32Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				entries := l.ListValues().(*array.Struct)
				child = entries.Field(c.childIdx[i])
			case *array.List:
				rep.Offsets32 = arrow.Int32Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				child = l.ListValues()
			case *array.LargeList:
				rep.Offsets64 = arrow.Int64Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				child = l.ListValues()
			case *array.FixedSizeList:
				rep.FixedSize = int(l.DataType().(*arrow.FixedSizeListType).Len())
				child = l.ListValues()
			default:
				return fmt.Errorf("arrays of type %s cannot be written: %w", arr.DataType(), metadata.ErrUnsupported)
			}
			if len(rep.Offsets32) == 0 && len(rep.Offsets64) == 0 && arr.Len() == 0 {
				// No offsets buffer: a list array of length 0.
				if _, ok := arr.(*array.FixedSizeList); !ok {
					rep.Offsets32, rep.Offset = []int32{0}, 0
				}
			}
			c.nodes[k] = rep
			k++
			arr = child
		}
	}
	return nil
}

// unbind drops the references to the arrays of the last bind.
func (c *columnWriter) unbind() {
	c.values, c.dictIdx = nil, nil
	clear(c.nodes)
	g := &c.g
	g.i32, g.i64, g.f32, g.f64, g.fixed, g.offs, g.data, g.bits = nil, nil, nil, nil, nil, nil, nil, nil
}

// validity returns the validity bitmap of arr, nil when it has no nulls.
func (c *columnWriter) validity(arr arrow.Array) []byte {
	if arr.NullN() == 0 {
		return nil
	}
	if b := arr.NullBitmapBytes(); b != nil {
		return b
	}
	// Null arrays have no bitmap: every slot is null.
	n := (arr.Data().Offset() + arr.Len() + 7) / 8
	if cap(c.nulls) < n {
		c.nulls = make([]byte, n)
	}
	c.nulls = c.nulls[:n]
	clear(c.nulls)
	return c.nulls
}

// pieceTarget is the raw value bytes aimed at per piece: small enough for
// page sizes and the dictionary limit to be kept within a few percent,
// large enough for the per-piece overhead not to matter.
const pieceTarget = 64 << 10

// writeRows writes rows [start, start+n) of the bound arrays.
func (c *columnWriter) writeRows(start, n int) error {
	cfg := &c.cfg
	for n > 0 {
		rows := min(n, cfg.maxRowsPerPage-c.pageRows)
		if c.rawPerRow > 0 {
			room := max(float64(cfg.pageSize-c.pageBytes()), 0)
			rows = min(rows, max(1, int(min(pieceTarget, room)/c.rawPerRow)))
		} else {
			rows = min(rows, 1024)
		}
		for {
			if err := c.shred.Shred(c.nodes, start, rows); err != nil {
				return err
			}
			if err := c.gather(); err != nil {
				return err
			}
			// Far more bytes than aimed at (the first piece, or a burst of
			// large values): take fewer rows.
			pageBytes := c.pageBytes()
			if c.g.direct {
				pageBytes -= len(c.g.data) // not the page's yet
			}
			if want := max(pieceTarget, cfg.pageSize-pageBytes); rows > 1 && c.g.rawBytes > 2*int64(want) {
				rows = max(1, int(int64(rows)*int64(want)/c.g.rawBytes))
				continue
			}
			if !c.dict || c.dictFits() {
				break
			}
			if rows > 64 {
				rows /= 2
				continue
			}
			// The dictionary is within a few values of its limit: the rest
			// of the chunk goes in the fallback encoding, gathered again
			// (the memo path gathers distinct values only).
			if err := c.flushPage(); err != nil {
				return err
			}
			c.dict = false
		}
		if err := c.appendPiece(rows); err != nil {
			return err
		}
		raw := float64(c.g.rawBytes+2*int64(len(c.shred.Def())+len(c.shred.Rep()))) / float64(rows)
		if c.rawPerRow == 0 {
			c.rawPerRow = max(raw, 0.125)
		} else {
			c.rawPerRow = max((3*c.rawPerRow+raw)/4, 0.125)
		}
		start += rows
		n -= rows
		if c.pageRows >= cfg.maxRowsPerPage || c.pageBytes() >= cfg.pageSize {
			if err := c.flushPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// dictPages is what the column writer asks of every dictionary encoder
// besides taking values, whose methods are typed.
type dictPages interface {
	DictLen() int
	DictSize() int
	IndicesLen() int
	AddIndices(indices []uint32) bool
	AppendIndices(dst []byte) []byte
	AppendDictPage(dst []byte) []byte
}

// dictEnc returns the dictionary encoder of the column's physical type.
func (c *columnWriter) dictEnc() dictPages {
	switch c.phys {
	case format.Type_INT32, format.Type_FLOAT:
		return &c.d32
	case format.Type_INT64, format.Type_DOUBLE:
		return &c.d64
	case format.Type_INT96:
		return &c.d96
	}
	return &c.dba
}

// dictFits reports whether the gathered values cannot push the dictionary
// past its limit, even if all were new.
func (c *columnWriter) dictFits() bool {
	return int64(c.dictEnc().DictSize())+c.g.dictBytes <= int64(c.cfg.dictPageSize)
}

// dictLen returns the number of values of the dictionary so far.
func (c *columnWriter) dictLen() int { return c.dictEnc().DictLen() }

// dictSize returns the PLAIN size of the dictionary so far.
func (c *columnWriter) dictSize() int { return c.dictEnc().DictSize() }

// pageBytes estimates the size of the current page before compression.
func (c *columnWriter) pageBytes() int {
	n := c.defEnc.Len() + c.repEnc.Len()
	if c.dict {
		return n + c.dictEnc().IndicesLen()
	}
	switch c.cfg.encoding {
	case DeltaBinaryPacked:
		return n + c.dbp.Len()
	case DeltaLengthByteArray:
		return n + c.dlba.Len()
	case DeltaByteArray:
		return n + c.dbae.Len()
	case ByteStreamSplit:
		return n + c.bss.Len()
	case RLE:
		return n + c.boolRLE.Len()
	}
	if c.phys == format.Type_BOOLEAN {
		return n + c.boolPlain.Len()
	}
	return n + len(c.plain) - c.plainGap
}

// appendPiece adds the shredded levels and gathered values of rows rows
// to the page.
func (c *columnWriter) appendPiece(rows int) error {
	def, rep := c.shred.Def(), c.shred.Rep()
	numLevels := rows
	if c.col.MaxDef > 0 {
		numLevels = len(def)
		_ = c.defEnc.Append(def) // levels from the Shredder are in range
		for _, d := range def {
			c.pageDefHist[d]++
		}
	}
	if c.col.MaxRep > 0 {
		numLevels = len(rep)
		_ = c.repEnc.Append(rep)
		for _, r := range rep {
			c.pageRepHist[r]++
		}
	}
	g := &c.g
	c.pageLevels += numLevels
	c.pageValues += g.n
	c.pageRows += rows
	c.pageStats.nulls += int64(numLevels - g.n)
	c.pageUnencoded += g.unencoded
	c.pageRaw += g.rawBytes
	if err := c.encodeValues(); err != nil {
		return err
	}
	c.updateStats()
	g.direct = false // the values are the page's now
	return nil
}

// encodeValues hands the gathered values to the page's encoder.
func (c *columnWriter) encodeValues() error {
	g := &c.g
	if g.n == 0 {
		return nil
	}
	if c.dict {
		c.dictUsed = true
		if g.memo {
			return c.encodeMemo()
		}
		switch c.phys {
		case format.Type_INT32:
			c.d32.AppendInt32(g.i32)
		case format.Type_FLOAT:
			c.d32.AppendFloat(g.f32)
		case format.Type_INT64:
			c.d64.AppendInt64(g.i64)
		case format.Type_DOUBLE:
			c.d64.AppendDouble(g.f64)
		case format.Type_INT96:
			c.d96.AppendInt96(g.i96)
		case format.Type_BYTE_ARRAY:
			c.dba.AppendByteArray(g.offs, g.data)
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			c.dba.AppendFixedLenByteArray(g.fixed)
		}
		return nil
	}
	switch c.phys {
	case format.Type_BOOLEAN:
		if c.cfg.encoding == RLE {
			c.boolRLE.Append(g.bits, g.bitOff, g.n)
		} else {
			c.boolPlain.Append(g.bits, g.bitOff, g.n)
		}
	case format.Type_INT32:
		switch c.cfg.encoding {
		case DeltaBinaryPacked:
			c.appendDeltaInt32(g.i32)
		case ByteStreamSplit:
			c.bss.AppendInt32(g.i32)
		default:
			c.plain = pagecodec.AppendPlainInt32(c.plain, g.i32)
		}
	case format.Type_INT64:
		switch c.cfg.encoding {
		case DeltaBinaryPacked:
			c.dbp.AppendInt64(g.i64)
		case ByteStreamSplit:
			c.bss.AppendInt64(g.i64)
		default:
			c.plain = pagecodec.AppendPlainInt64(c.plain, g.i64)
		}
	case format.Type_FLOAT:
		if c.cfg.encoding == ByteStreamSplit {
			c.bss.AppendFloat(g.f32)
		} else {
			c.plain = pagecodec.AppendPlainFloat(c.plain, g.f32)
		}
	case format.Type_DOUBLE:
		if c.cfg.encoding == ByteStreamSplit {
			c.bss.AppendDouble(g.f64)
		} else {
			c.plain = pagecodec.AppendPlainDouble(c.plain, g.f64)
		}
	case format.Type_INT96:
		c.plain = pagecodec.AppendPlainInt96(c.plain, g.i96)
	case format.Type_BYTE_ARRAY:
		switch c.cfg.encoding {
		case DeltaLengthByteArray:
			c.dlba.AppendByteArray(g.offs, g.data)
		case DeltaByteArray:
			c.dbae.AppendByteArray(g.offs, g.data)
		default:
			if !g.direct {
				c.plain = pagecodec.AppendPlainByteArray(c.plain, g.offs, g.data)
			}
		}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		switch c.cfg.encoding {
		case DeltaByteArray:
			c.dbae.AppendFixedLenByteArray(g.fixed, c.width)
		case ByteStreamSplit:
			c.bss.AppendFixedLenByteArray(g.fixed)
		default:
			c.plain = pagecodec.AppendPlainFixedLenByteArray(c.plain, g.fixed)
		}
	}
	return nil
}

// appendDeltaInt32 adds INT32 values to the DELTA_BINARY_PACKED encoder
// with deltas in 32-bit wrapping arithmetic, as readers such as arrow-rs and
// arrow-go require (min delta and bit widths within 32 bits): the encoder
// computes 64-bit deltas, so it is given a sequence whose 64-bit deltas are
// the wrapped 32-bit ones and whose low 32 bits are the values.
func (c *columnWriter) appendDeltaInt32(vals []int32) {
	c.dbpWide = grown(c.dbpWide, len(vals))
	prev, orig := c.dbpPrev, c.dbpOrig
	for i, v := range vals {
		if c.dbp.Count() == 0 && i == 0 {
			prev = int64(v)
		} else {
			prev += int64(v - orig) // v - orig wraps in 32 bits
		}
		orig = v
		c.dbpWide[i] = prev
	}
	c.dbpPrev, c.dbpOrig = prev, orig
	c.dbp.AppendInt64(c.dbpWide)
}

// rangeError reports a value that its Parquet type cannot hold.
func rangeError(what string, v any) error {
	return fmt.Errorf("%s %v: %w", what, v, errOutOfRange)
}

var _ = math.MaxInt32
