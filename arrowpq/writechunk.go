package arrowpq

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Pages and column chunks: a finished page is compressed and appended to
// the chunk's buffer (memory from WriteOptions.Allocator) with its page
// index entry; at the end of the row group the chunk is written, its
// dictionary page first, and its ColumnMetaData and page indexes built.

// reserve makes room for n more bytes of pages in the buffer from mem.
func (ch *chunkState) reserve(mem memory.Allocator, n int) {
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
func (ch *chunkState) adopt(mem memory.Allocator, before []byte) {
	if cap(ch.pages) == cap(before) {
		return
	}
	grownPages := ch.pages
	ch.pages = before
	ch.reserve(mem, len(grownPages)-len(before))
	ch.pages = append(ch.pages, grownPages[len(before):]...)
}

// free returns the page buffer to mem.
func (ch *chunkState) free(mem memory.Allocator) {
	if cap(ch.pages) > 0 {
		mem.Free(ch.pages[:cap(ch.pages)])
	}
	ch.pages = nil
}

// flushPage writes the current page, if it has levels, to the chunk.
func (c *columnWriter) flushPage() error {
	if c.pageLevels == 0 {
		return nil
	}
	ch := &c.chunk
	enc := c.cfg.encoding.format()
	c.bodyInPlain = false
	var rep, def []byte
	if c.col.MaxRep > 0 {
		rep = c.repEnc.Finish()
	}
	if c.col.MaxDef > 0 {
		def = c.defEnc.Finish()
	}
	// A DATA_PAGE body is assembled here, levels then values, and
	// compressed as it is; a DATA_PAGE_V2 keeps its levels apart.
	body := c.body[:0]
	if !c.cfg.v2 {
		body = pagecodec.AppendLevelsV1(body, rep, def)
	}
	valuesAt := len(body)
	switch {
	case c.pageValues == 0:
		enc = format.Encoding_PLAIN // nothing to encode: no dictionary needed
	case c.dict:
		enc = format.Encoding_RLE_DICTIONARY
		body = c.dictEnc().AppendIndices(body)
		// After the first page, a dictionary that saves nothing (about as
		// large as the values it has seen: unique values) is given up for
		// the rest of the chunk; hashing every value costs more than the
		// encoding gains (BenchmarkWrite, data=numeric).
		c.dictRaw += c.pageRaw
		if ch.rows == 0 && int64(c.dictSize()) > c.dictRaw*3/4 {
			c.dictGiveUp = true
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
				body = c.plainBody(body, valuesAt)
			}
		}
	}
	if !c.bodyInPlain {
		c.body = body
	}
	values := body[valuesAt:]
	var hdrStats *format.Statistics
	if c.cfg.stats {
		hdrStats = c.pageStats.statistics(c.phys, c.cfg.truncLen, true)
	}
	offset := len(ch.pages)
	ch.reserve(c.mem, len(body)+len(rep)+len(def)+len(body)/4+4096)
	before := ch.pages
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
			Uncompressed: len(values) == 0,
			Encoding:     enc, RepetitionLevels: rep, DefinitionLevels: def, Values: values, Statistics: hdrStats,
		})
	} else {
		ch.pages, wp, err = c.pw.AppendDataPageV1(ch.pages, &pagecodec.DataPageV1{
			NumLevels: c.pageLevels, Encoding: enc, Body: body, Statistics: hdrStats,
		})
	}
	if err != nil {
		return err
	}
	ch.adopt(c.mem, before)
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
	if c.dictGiveUp {
		c.dict = false
	}
	return nil
}

// plainBody returns the body of a PLAIN page whose levels are
// body[:valuesAt]: the levels are written into the gap before the values
// in c.plain and the body is that part of c.plain, or, when they do not
// fit, the values are appended to body (and the gap grown for the next
// pages). A copy of every value was a tenth of BenchmarkWrite
// data=strings SNAPPY.
func (c *columnWriter) plainBody(body []byte, valuesAt int) []byte {
	levels := body[:valuesAt]
	gap := c.plainGap
	if len(levels) <= gap {
		start := gap - len(levels)
		copy(c.plain[start:gap], levels)
		c.bodyInPlain = true
		return c.plain[start:]
	}
	c.plainGap = len(levels) + len(levels)/4 + 64
	return append(body, c.plain[gap:]...)
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
				bf.insert(metadata.XXHash64(g.i96[i][:]))
			}
		}
	case format.Type_BYTE_ARRAY:
		if g.memoMinMax {
			if st.kind != cmpNone {
				st.addBytes(g.memoLo, g.memoHi)
			}
			if bf != nil {
				bf.insertByteArray(g.offs, g.data) // the fresh values
			}
			break
		}
		if g.direct {
			st.updatePlainByteArray(g.data)
			if bf != nil {
				bf.insertPlainByteArray(g.data)
			}
			break
		}
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
	st.nans += g.nanExtra
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
		n += int64(c.dictSize())
	}
	return n
}

// dictPage appends the dictionary page of the chunk to dst, if the chunk
// used its dictionary.
func (c *columnWriter) dictPage(dst []byte) ([]byte, pagecodec.WrittenPage, error) {
	// A chunk without a single value (all null) gets no dictionary page:
	// an empty one would be an empty compressed body, which some readers
	// (hyparquet with LZ4_RAW) cannot decompress.
	if !c.dictUsed {
		return dst, pagecodec.WrittenPage{}, nil
	}
	d := c.dictEnc()
	body, n := d.AppendDictPage(c.body[:0]), d.DictLen()
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
		if ss.UnencodedByteArrayDataBytes != nil || ss.DefinitionLevelHistogram != nil || ss.RepetitionLevelHistogram != nil {
			md.SizeStatistics = ss
		}
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
