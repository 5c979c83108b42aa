package arrowpq

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

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

	g gathered

	// Page state.
	defEnc, repEnc levels.Encoder
	pageLevels     int
	pageValues     int
	pageRows       int
	pageUnencoded  int64
	pageDefHist    []int64
	pageRepHist    []int64
	pageStats      statsAcc
	rawPerRow      float64 // estimated raw bytes per row, for piece sizes

	// Value encoders; dict is true while the chunk is dictionary encoded.
	dict      bool
	dictUsed  bool
	d32       pagecodec.DictEncoder32
	d64       pagecodec.DictEncoder64
	d96       pagecodec.DictEncoderInt96
	dba       pagecodec.DictEncoderByteArray
	plain     []byte
	boolPlain pagecodec.PlainBooleanEncoder
	boolRLE   pagecodec.RLEBooleanEncoder
	dbp       pagecodec.DeltaBinaryPackedEncoder
	dbpPrev   int64 // last value given to dbp for INT32 (see appendDeltaInt32)
	dbpOrig   int32
	dbpWide   []int64
	dlba      pagecodec.DeltaLengthByteArrayEncoder
	dbae      pagecodec.DeltaByteArrayEncoder
	bss       pagecodec.ByteStreamSplitEncoder
	body      []byte

	pw    *pagecodec.PageWriter
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

func newColumnWriter(col *metadata.Column, leaf *typemap.Field, cfg columnConfig) (*columnWriter, error) {
	c := &columnWriter{col: col, leaf: leaf, conv: leaf.Conv, cfg: cfg, phys: col.Physical, width: int(col.TypeLength)}
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
	c.dict, c.dictUsed = c.cfg.dictionary, false
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
	c.resetPage()
}

func (c *columnWriter) resetPage() {
	c.defEnc.Reset(c.col.MaxDef)
	c.repEnc.Reset(c.col.MaxRep)
	c.pageLevels, c.pageValues, c.pageRows, c.pageUnencoded = 0, 0, 0, 0
	clear(c.pageDefHist)
	clear(c.pageRepHist)
	c.pageStats.reset()
	c.plain = c.plain[:0]
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
			} else {
				c.nodes[k] = levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset(), Validity: c.validity(arr)}
				c.dictIdx, c.values = nil, arr
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
			rows = min(rows, max(1, int(pieceTarget/c.rawPerRow)))
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
			if !c.dict || c.dictFits() {
				break
			}
			if rows > 64 {
				rows /= 2
				continue
			}
			// The dictionary is within a few values of its limit: the rest
			// of the chunk goes in the fallback encoding.
			if err := c.flushPage(); err != nil {
				return err
			}
			c.dict = false
			break
		}
		c.appendPiece(rows)
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

// dictFits reports whether the gathered values cannot push the dictionary
// past its limit, even if all were new.
func (c *columnWriter) dictFits() bool {
	var size int
	switch c.phys {
	case format.Type_INT32, format.Type_FLOAT:
		size = c.d32.DictSize()
	case format.Type_INT64, format.Type_DOUBLE:
		size = c.d64.DictSize()
	case format.Type_INT96:
		size = c.d96.DictSize()
	default:
		size = c.dba.DictSize()
	}
	return int64(size)+c.g.dictBytes <= int64(c.cfg.dictPageSize)
}

// pageBytes estimates the size of the current page before compression.
func (c *columnWriter) pageBytes() int {
	n := c.defEnc.Len() + c.repEnc.Len()
	if c.dict {
		switch c.phys {
		case format.Type_INT32, format.Type_FLOAT:
			return n + c.d32.IndicesLen()
		case format.Type_INT64, format.Type_DOUBLE:
			return n + c.d64.IndicesLen()
		case format.Type_INT96:
			return n + c.d96.IndicesLen()
		}
		return n + c.dba.IndicesLen()
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
	return n + len(c.plain)
}

// appendPiece adds the shredded levels and gathered values of rows rows
// to the page.
func (c *columnWriter) appendPiece(rows int) {
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
	c.encodeValues()
	c.updateStats()
}

// encodeValues hands the gathered values to the page's encoder.
func (c *columnWriter) encodeValues() {
	g := &c.g
	if g.n == 0 {
		return
	}
	if c.dict {
		c.dictUsed = true
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
		return
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
			c.plain = pagecodec.AppendPlainByteArray(c.plain, g.offs, g.data)
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
}

// updateStats adds the gathered values to the page statistics and the
// bloom filter.
func (c *columnWriter) updateStats() {
	g := &c.g
	if g.n == 0 {
		return
	}
	st := &c.pageStats
	bf := c.bloom
	switch c.phys {
	case format.Type_BOOLEAN:
		st.updateBool(g.bits, g.bitOff, g.n)
	case format.Type_INT32:
		st.updateInt32(g.i32)
		if bf != nil {
			bf.insertInt32(g.i32)
		}
	case format.Type_INT64:
		st.updateInt64(g.i64)
		if bf != nil {
			bf.insertInt64(g.i64)
		}
	case format.Type_FLOAT:
		st.updateFloat(g.f32)
		if bf != nil {
			bf.insertFloat(g.f32)
		}
	case format.Type_DOUBLE:
		st.updateDouble(g.f64)
		if bf != nil {
			bf.insertDouble(g.f64)
		}
	case format.Type_INT96:
		if bf != nil {
			for i := range g.i96 {
				bf.insert(xxhash64(g.i96[i][:]))
			}
		}
	case format.Type_BYTE_ARRAY:
		st.updateByteArray(g.offs, g.data)
		if bf != nil {
			bf.insertByteArray(g.offs, g.data)
		}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		st.updateFixed(g.fixed, c.width)
		if bf != nil {
			bf.insertFixed(g.fixed, c.width)
		}
	}
}

// flushPage writes the current page, if it has levels, to the chunk.
func (c *columnWriter) flushPage() error {
	if c.pageLevels == 0 {
		return nil
	}
	ch := &c.chunk
	enc := c.cfg.encoding.format()
	body := c.body[:0]
	switch {
	case c.pageValues == 0:
		enc = format.Encoding_PLAIN // nothing to encode: no dictionary needed
	case c.dict:
		enc = format.Encoding_RLE_DICTIONARY
		switch c.phys {
		case format.Type_INT32, format.Type_FLOAT:
			body = c.d32.AppendIndices(body)
		case format.Type_INT64, format.Type_DOUBLE:
			body = c.d64.AppendIndices(body)
		case format.Type_INT96:
			body = c.d96.AppendIndices(body)
		default:
			body = c.dba.AppendIndices(body)
		}
	default:
		switch c.cfg.encoding {
		case DeltaBinaryPacked:
			body = c.dbp.AppendTo(body)
		case DeltaLengthByteArray:
			body = c.dlba.AppendTo(body)
		case DeltaByteArray:
			body = c.dbae.AppendTo(body)
		case ByteStreamSplit:
			body = c.bss.AppendTo(body)
		case RLE:
			body = c.boolRLE.AppendTo(body)
		default:
			if c.phys == format.Type_BOOLEAN {
				body = append(body, c.boolPlain.Bytes()...)
			} else {
				body = append(body, c.plain...)
			}
		}
	}
	c.body = body
	var rep, def []byte
	if c.col.MaxRep > 0 {
		rep = c.repEnc.Finish()
	}
	if c.col.MaxDef > 0 {
		def = c.defEnc.Finish()
	}
	var hdrStats *format.Statistics
	if c.cfg.stats {
		hdrStats = c.pageStats.statistics(c.phys, c.cfg.truncLen, true)
	}
	offset := len(ch.pages)
	var wp pagecodec.WrittenPage
	var err error
	pageType := format.PageType_DATA_PAGE
	if c.cfg.v2 {
		pageType = format.PageType_DATA_PAGE_V2
		ch.pages, wp, err = c.pw.AppendDataPageV2(ch.pages, &pagecodec.DataPageV2{
			NumLevels: c.pageLevels, NumNulls: c.pageLevels - c.pageValues, NumRows: c.pageRows,
			// pagecodec marks an empty values section compressed without
			// compressing it; some readers (hyparquet) then fail to
			// decompress zero bytes. Store it uncompressed.
			Uncompressed: len(body) == 0,
			Encoding: enc, RepetitionLevels: rep, DefinitionLevels: def, Values: body, Statistics: hdrStats,
		})
	} else {
		ch.pages, wp, err = c.pw.AppendDataPageV1(ch.pages, &pagecodec.DataPageV1{
			NumLevels: c.pageLevels, Encoding: enc, RepetitionLevels: rep, DefinitionLevels: def, Values: body, Statistics: hdrStats,
		})
	}
	if err != nil {
		return err
	}
	ch.uncompressed += int64(wp.HeaderSize + wp.UncompressedSize)
	ch.encStats[[2]int32{int32(pageType), int32(enc)}]++
	addEncoding(&ch.encodings, enc)
	if c.cfg.pageIndex {
		loc := pageLoc{
			offset: int64(offset), size: int32(wp.HeaderSize + wp.CompressedSize), firstRow: ch.rows,
			nullPage: c.pageValues == 0, nulls: c.pageStats.nulls, nans: c.pageStats.nans, unencoded: c.pageUnencoded,
		}
		if c.col.MaxDef > 0 {
			loc.defHist = append([]int64(nil), c.pageDefHist...)
		}
		if c.col.MaxRep > 0 {
			loc.repHist = append([]int64(nil), c.pageRepHist...)
		}
		if !loc.nullPage {
			lo, hi, _, _ := c.pageStats.encode(c.phys, c.cfg.truncLen)
			if lo == nil || hi == nil {
				ch.indexOK = false
			}
			loc.min, loc.max = lo, hi
		}
		ch.locs = append(ch.locs, loc)
	}
	ch.rows += int64(c.pageRows)
	ch.levels += int64(c.pageLevels)
	ch.unencoded += c.pageUnencoded
	for i, v := range c.pageDefHist {
		ch.defHist[i] += v
	}
	for i, v := range c.pageRepHist {
		ch.repHist[i] += v
	}
	ch.stats.merge(&c.pageStats)
	c.resetPage()
	return nil
}

func addEncoding(list *[]format.Encoding, e format.Encoding) {
	for _, x := range *list {
		if x == e {
			return
		}
	}
	*list = append(*list, e)
}

// bufferedBytes estimates the bytes the chunk will take in the file.
func (c *columnWriter) bufferedBytes() int64 {
	n := int64(len(c.chunk.pages) + c.pageBytes())
	if c.dictUsed {
		switch c.phys {
		case format.Type_INT32, format.Type_FLOAT:
			n += int64(c.d32.DictSize())
		case format.Type_INT64, format.Type_DOUBLE:
			n += int64(c.d64.DictSize())
		case format.Type_INT96:
			n += int64(c.d96.DictSize())
		default:
			n += int64(c.dba.DictSize())
		}
	}
	return n
}

// dictPage appends the dictionary page of the chunk to dst, if the chunk
// used its dictionary.
func (c *columnWriter) dictPage(dst []byte) ([]byte, pagecodec.WrittenPage, error) {
	if !c.dictUsed {
		return dst, pagecodec.WrittenPage{}, nil
	}
	body := c.body[:0]
	var n int
	switch c.phys {
	case format.Type_INT32, format.Type_FLOAT:
		body, n = c.d32.AppendDictPage(body), c.d32.DictLen()
	case format.Type_INT64, format.Type_DOUBLE:
		body, n = c.d64.AppendDictPage(body), c.d64.DictLen()
	case format.Type_INT96:
		body, n = c.d96.AppendDictPage(body), c.d96.DictLen()
	default:
		body, n = c.dba.AppendDictPage(body), c.dba.DictLen()
	}
	c.body = body
	return c.pw.AppendDictionaryPage(dst, &pagecodec.DictionaryPage{NumValues: n, Values: body})
}

// finishChunk flushes the last page and writes the chunk (dictionary page
// first) at file offset off. It returns the ColumnChunk and the page
// indexes (nil when not written).
func (c *columnWriter) finishChunk(w *countWriter, scratch []byte) (*format.ColumnChunk, *format.ColumnIndex, *format.OffsetIndex, []byte, error) {
	if err := c.flushPage(); err != nil {
		return nil, nil, nil, scratch, err
	}
	ch := &c.chunk
	start := w.n
	dict, dwp, err := c.dictPage(scratch[:0])
	if err != nil {
		return nil, nil, nil, dict, err
	}
	if err := w.write(dict); err != nil {
		return nil, nil, nil, dict, err
	}
	dataStart := w.n
	if err := w.write(ch.pages); err != nil {
		return nil, nil, nil, dict, err
	}
	md := &format.ColumnMetaData{
		Type:                  c.phys,
		PathInSchema:          c.col.Path,
		Codec:                 c.cfg.codec,
		NumValues:             ch.levels,
		TotalUncompressedSize: ch.uncompressed,
		TotalCompressedSize:   w.n - start,
		DataPageOffset:        dataStart,
	}
	if len(dict) > 0 {
		md.DictionaryPageOffset = ptrTo(start)
		md.TotalUncompressedSize += int64(dwp.HeaderSize + dwp.UncompressedSize)
		md.Encodings = append(md.Encodings, format.Encoding_PLAIN)
		md.EncodingStats = append(md.EncodingStats, &format.PageEncodingStats{PageType: format.PageType_DICTIONARY_PAGE, Encoding: format.Encoding_PLAIN, Count: 1})
	}
	if c.col.MaxDef > 0 || c.col.MaxRep > 0 {
		md.Encodings = append(md.Encodings, format.Encoding_RLE)
	}
	for _, e := range ch.encodings {
		if !(e == format.Encoding_PLAIN && len(dict) > 0) && !(e == format.Encoding_RLE && (c.col.MaxDef > 0 || c.col.MaxRep > 0)) {
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
	if c.cfg.stats {
		md.Statistics = ch.stats.statistics(c.phys, c.cfg.truncLen, true)
	}
	if c.cfg.sizeStats {
		ss := &format.SizeStatistics{}
		if c.phys == format.Type_BYTE_ARRAY {
			ss.UnencodedByteArrayDataBytes = ptrTo(ch.unencoded)
		}
		if c.col.MaxDef > 0 {
			ss.DefinitionLevelHistogram = append([]int64(nil), ch.defHist...)
		}
		if c.col.MaxRep > 0 {
			ss.RepetitionLevelHistogram = append([]int64(nil), ch.repHist...)
		}
		md.SizeStatistics = ss
	}
	cc := &format.ColumnChunk{FileOffset: start, MetaData: md}
	var ci *format.ColumnIndex
	var oi *format.OffsetIndex
	if c.cfg.pageIndex && len(ch.locs) > 0 {
		oi = &format.OffsetIndex{}
		for _, l := range ch.locs {
			oi.PageLocations = append(oi.PageLocations, &format.PageLocation{Offset: dataStart + l.offset, CompressedPageSize: l.size, FirstRowIndex: l.firstRow})
			if c.phys == format.Type_BYTE_ARRAY && c.cfg.sizeStats {
				oi.UnencodedByteArrayDataBytes = append(oi.UnencodedByteArrayDataBytes, l.unencoded)
			}
		}
		if ch.indexOK && c.pageStats.kind != cmpNone {
			ci = c.columnIndex()
		}
	}
	return cc, ci, oi, dict, nil
}

// columnIndex builds the ColumnIndex of the chunk's pages.
func (c *columnWriter) columnIndex() *format.ColumnIndex {
	ch := &c.chunk
	kind := c.pageStats.kind
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
				if compareEncoded(kind, l.min, prev.min) < 0 || compareEncoded(kind, l.max, prev.max) < 0 {
					asc = false
				}
				if compareEncoded(kind, l.min, prev.min) > 0 || compareEncoded(kind, l.max, prev.max) > 0 {
					desc = false
				}
			}
			prev = l
		}
		if c.cfg.sizeStats {
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
