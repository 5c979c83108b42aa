package main

// check, a Parquet fsck. It reads every column chunk page by page with
// pagecodec and levels (not through the Arrow reader, because statistics,
// the page index and bloom filters are per page and per chunk), recomputes
// what the footer, the page headers, the page index and the bloom filters
// claim, and reports each disagreement with its location. Finally it reads
// the whole file with arrowpq, so that anything the reader rejects is a
// finding too.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

func init() {
	register(&command{
		name: "check",
		summary: "verify a Parquet file: checksums, statistics, page index, sizes, bloom filters, ARROW:schema\n\n" +
			"check recomputes from the data what the file claims about it and prints every\n" +
			"disagreement on one line with where it is (row group, column, page, offset):\n" +
			"  * page CRCs, where present;\n" +
			"  * column chunk and page header statistics (min/max cover the values, null counts);\n" +
			"  * the column index (null_pages, null_counts, min/max) and the offset index (page\n" +
			"    offsets and sizes, first_row_index) against the pages;\n" +
			"  * footer offsets and sizes: chunks inside the file, total sizes and value counts equal\n" +
			"    the sum over the pages, row counts add up;\n" +
			"  * bloom filters contain every value of their chunk;\n" +
			"  * ARROW:schema matches the Parquet schema;\n" +
			"  * the whole file reads with arrowpq.\n" +
			"Exit status 1 when anything is wrong; 0 with a one-line summary when all is well.",
		usage: "[--progress | --quiet] FILE",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			var pf progressFlags
			pf.register(fs)
			return func(args []string, out io.Writer) error {
				if len(args) != 1 {
					return &usageError{fmt.Sprintf("want one FILE, got %d arguments", len(args))}
				}
				path, cleanup, err := inputPath(args[0])
				if err != nil {
					return err
				}
				defer cleanup()
				ck := &checker{p: pf.open(os.Stderr, false)}
				ck.file(path)
				ck.p.finish()
				var b strings.Builder
				for _, f := range ck.findings {
					b.WriteString(f.String())
					b.WriteByte('\n')
				}
				n := ck.problems()
				if n == 0 {
					warns := ""
					if w := len(ck.findings); w > 0 {
						warns = ", " + plural(int64(w), "warning")
					}
					fmt.Fprintf(&b, "%s: ok (%s%s)\n", args[0], ck.summary, warns)
				}
				if _, err := io.WriteString(out, b.String()); err != nil {
					return err
				}
				if n > 0 {
					return &checkFailed{file: args[0], n: n}
				}
				return nil
			}
		},
	})
}

// checkFailed is the error of a check that found problems: they are on
// stdout already; stderr gets the count.
type checkFailed struct {
	file string
	n    int
}

func (e *checkFailed) Error() string {
	return fmt.Sprintf("%s: %s", e.file, plural(int64(e.n), "problem"))
}

// finding is one problem with where it is; -1 (or "") leaves a part out.
type finding struct {
	// warn marks a defect that readers are known to work around (an old
	// writer's bug): it is printed but does not fail the check.
	warn     bool
	rowGroup int
	column   string
	page     int
	offset   int64
	msg      string
}

func (f finding) String() string {
	s := f.text()
	if f.warn {
		return "warning: " + s
	}
	return s
}

func (f finding) text() string {
	var where []string
	if f.rowGroup >= 0 {
		where = append(where, fmt.Sprintf("row group %d", f.rowGroup))
	}
	if f.column != "" {
		where = append(where, "column "+f.column)
	}
	p := ""
	if f.page >= 0 {
		p = fmt.Sprintf("page %d", f.page)
	}
	if f.offset >= 0 {
		if p != "" {
			p += " "
		}
		p += fmt.Sprintf("at offset %d", f.offset)
	}
	if p != "" {
		where = append(where, p)
	}
	if len(where) == 0 {
		return "file: " + oneLine(f.msg)
	}
	return strings.Join(where, ", ") + ": " + oneLine(f.msg)
}

// maxFindingsPerChunk keeps a broken chunk from flooding the output.
const maxFindingsPerChunk = 20

type checker struct {
	findings []finding
	summary  string
	p        *progress // drawn per column chunk: rows of the row groups done, bytes of the chunks done
}

func (ck *checker) add(rg int, col string, page int, off int64, format string, args ...any) {
	ck.findings = append(ck.findings, finding{false, rg, col, page, off, fmt.Sprintf(format, args...)})
}

func (ck *checker) warn(rg int, col string, page int, off int64, format string, args ...any) {
	ck.findings = append(ck.findings, finding{true, rg, col, page, off, fmt.Sprintf(format, args...)})
}

// problems counts the findings that are not warnings.
func (ck *checker) problems() int {
	n := 0
	for _, f := range ck.findings {
		if !f.warn {
			n++
		}
	}
	return n
}

func (ck *checker) file(path string) {
	p, err := openParquet(path)
	if err != nil {
		ck.add(-1, "", -1, -1, "%v", strings.TrimPrefix(err.Error(), path+": "))
		return
	}
	defer p.Close()
	f := p.meta
	ck.schema(f)
	var rows, pages, doneBytes int64
	ck.overlaps(f)
	ck.p.start(f.NumRows(), f.Size)
	for rg, g := range f.Meta.RowGroups {
		rows += g.NumRows
		if g.NumRows < 0 {
			ck.add(rg, "", -1, -1, "num_rows %d is negative", g.NumRows)
		}
		var comp int64
		for col, c := range f.Schema.Columns {
			if rg >= len(f.Meta.RowGroups) || col >= len(g.Columns) {
				ck.add(rg, "", -1, -1, "%d column chunks for %d columns", len(g.Columns), len(f.Schema.Columns))
				break
			}
			before := len(ck.findings)
			n, size := ck.chunk(p, rg, c, g.NumRows)
			pages += int64(n)
			comp += size
			doneBytes += size
			ck.p.update(rows, doneBytes)
			if len(ck.findings)-before > maxFindingsPerChunk {
				extra := len(ck.findings) - before - maxFindingsPerChunk
				ck.findings = ck.findings[:before+maxFindingsPerChunk]
				ck.add(rg, c.DottedPath, -1, -1, "and %d more problems in this column chunk", extra)
			}
		}
		if g.TotalCompressedSize != nil && *g.TotalCompressedSize != comp && comp > 0 {
			ck.add(rg, "", -1, -1, "total_compressed_size is %d, its column chunks take %d", *g.TotalCompressedSize, comp)
		}
	}
	if rows != f.Meta.NumRows && f.Meta.NumRows == 0 {
		ck.warn(-1, "", -1, -1, "num_rows is 0, the row groups hold %d (parquet-rs 0.3 wrote 0; readers count the row groups)", rows)
	} else if rows != f.Meta.NumRows {
		ck.add(-1, "", -1, -1, "num_rows is %d, the row groups hold %d", f.Meta.NumRows, rows)
	}
	// A FIXED_LEN_BYTE_ARRAY wider than the file cannot hold a value.
	sane := true
	for _, c := range f.Schema.Columns {
		if c.Physical == format.Type_FIXED_LEN_BYTE_ARRAY && (c.TypeLength <= 0 || int64(c.TypeLength) > f.Size) {
			ck.add(-1, c.DottedPath, -1, -1, "FIXED_LEN_BYTE_ARRAY(%d) is wider than the %d-byte file", c.TypeLength, f.Size)
			sane = false
		}
	}
	// The full read runs only on a file the checks above found sound: on
	// a broken one it would repeat their findings, and the reader of
	// 2026-11 still panics or runs out of memory on two files of
	// testdata/hostile (a 1 GiB FIXED_LEN_BYTE_ARRAY, a chunk claiming
	// exabytes uncompressed).
	if sane && ck.problems() == 0 {
		ck.readAll(path)
	}
	ck.summary = fmt.Sprintf("%s, %s, %s, %s checked", plural(rows, "row"), plural(int64(len(f.Meta.RowGroups)), "row group"),
		plural(int64(len(f.Schema.Columns)), "column"), plural(pages, "page"))
}

// schema checks that ARROW:schema, when present, fits the Parquet schema.
func (ck *checker) schema(f *metadata.File) {
	m, err := typemap.ToArrow(f.Schema, f.Meta.KeyValueMetadata, typemap.ReadOptions{})
	switch {
	case err != nil:
		ck.add(-1, "", -1, -1, "schema: %v", err)
	case m.OriginErr != nil:
		ck.add(-1, "", -1, -1, "ARROW:schema does not match the Parquet schema: %v", m.OriginErr)
	}
}

// readAll reads every row with arrowpq and reports the first error.
func (ck *checker) readAll(path string) {
	// Milliseconds take every INT96 date (Spark writes year 9999 and
	// later, past the nanosecond range); the unit is not what is checked.
	r, closeR, err := openReader(context.Background(), path, &arrowpq.ReadOptions{SkipChecksums: true, MaxPageSize: 1 << 30, Int96Unit: arrow.Millisecond})
	if err != nil {
		ck.add(-1, "", -1, -1, "read: %s", errorText(err))
		return
	}
	defer closeR()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		ck.add(-1, "", -1, -1, "read: %s", errorText(err))
	}
}

// chunkTotals is what the pages of a chunk add up to.
type chunkTotals struct {
	values, nulls, rows int64
	leafNulls           int64
	min, max            metadata.Value
	hasMinMax           bool
	dictOffset          int64
	firstData           int64
}

// chunk checks one column chunk and returns its page count and size.
func (ck *checker) chunk(p *parquetFile, rg int, c *metadata.Column, numRows int64) (int, int64) {
	f := p.meta
	path := c.DottedPath
	md, err := f.ColumnChunk(rg, c.Index)
	if err != nil {
		ck.add(rg, path, -1, -1, "%s", localText(err, rg, path))
		return 0, 0
	}
	if numRows == 0 && md.NumValues == 0 {
		return 0, md.TotalCompressedSize // an empty chunk: nothing to check (writers leave its offsets 0)
	}
	chunk, off, _, err := p.chunkBytes(rg, c.Index)
	if err != nil {
		ck.add(rg, path, -1, -1, "%s", localText(err, rg, path))
		return 0, md.TotalCompressedSize
	}
	short := parquet816(p, rg, c, md, chunk, off)
	if short > 0 {
		ck.warn(rg, path, -1, -1, "total_compressed_size %d leaves out %d bytes of the last page (PARQUET-816: old parquet-mr did not count the dictionary page header; readers pad the chunk)",
			md.TotalCompressedSize, short)
		chunk, _, _, _ = p.chunkBytesPad(rg, c.Index, short)
	}
	order := metadata.ColumnOrder(f, c.Index)
	comparable := metadata.SortOrder(c) != metadata.OrderUndefined
	ci, cierr := metadata.ReadEncryptedColumnIndex(p.fh, f, rg, c.Index, p.indexDecryptor(rg, c.Index))
	if cierr != nil {
		ck.add(rg, path, -1, -1, "%s", localText(cierr, rg, path))
	}
	oi, oierr := metadata.ReadEncryptedOffsetIndex(p.fh, f, rg, c.Index, p.indexDecryptor(rg, c.Index))
	if oierr != nil {
		ck.add(rg, path, -1, -1, "%s", localText(oierr, rg, path))
	}
	bf, bferr := metadata.ReadEncryptedBloomFilter(p.fh, f, rg, c.Index, p.indexDecryptor(rg, c.Index))
	if bferr != nil {
		if !errors.Is(bferr, metadata.ErrNoBloomFilter) {
			ck.add(rg, path, -1, -1, "%s", localText(bferr, rg, path))
		}
		bf = nil
	}
	bloomMissing, bloomFirst := 0, ""

	// First the page headers: CRCs, sizes, where the dictionary page is.
	// The pages' levels and values come next, through column.Reader,
	// which reports a header that does not parse at its page.
	var tot chunkTotals
	tot.dictOffset, tot.firstData = -1, -1
	var uncompressed int64
	type pageSpan struct {
		h        *format.PageHeader
		off, end int64 // file offsets of the header and of the end of the body
	}
	var spans []pageSpan
	dec := p.pageDecryptor(rg, c.Index)
	r := pageReader(c, md, chunk, off, dec)
	for {
		h, err := r.NextHeader()
		if err != nil {
			break
		}
		ord := len(spans)
		hdrOff := off + int64(r.Offset())
		r.Skip()
		end := r.Offset()
		spans = append(spans, pageSpan{h, hdrOff, off + int64(end)})
		hdrLen := int64(end) - int64(h.CompressedPageSize) - (hdrOff - off)
		uncompressed += hdrLen + int64(h.UncompressedPageSize)
		if h.Crc != nil {
			body := chunk[end-int(h.CompressedPageSize) : end]
			if got := crc32.ChecksumIEEE(body); got != uint32(*h.Crc) {
				ck.add(rg, path, ord, hdrOff, "page CRC-32 is %08x, the header says %08x", got, uint32(*h.Crc))
			}
		}
		switch h.Type {
		case format.PageType_DICTIONARY_PAGE:
			if tot.dictOffset >= 0 || tot.firstData >= 0 {
				ck.add(rg, path, ord, hdrOff, "a dictionary page that is not the first page of the chunk")
			}
			tot.dictOffset = hdrOff
		case format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2:
			if tot.firstData < 0 {
				tot.firstData = hdrOff
			}
		}
	}
	pages := len(spans)
	dataPage := 0 // index of the next data page in the page index
	dp := newDataPages(c, md, chunk, off, true, dec)
	for {
		pd, err := dp.nextWithEmpty(func(ord int) bool {
			if ord >= len(spans) {
				return false
			}
			t := spans[ord].h.Type
			return t == format.PageType_DATA_PAGE || t == format.PageType_DATA_PAGE_V2
		}, len(spans))
		if err == io.EOF {
			break
		}
		if err != nil {
			ck.pageError(rg, path, err)
			return pages, md.TotalCompressedSize
		}
		if pd.ordinal >= len(spans) {
			ck.add(rg, path, pd.ordinal, pd.offset, "a data page the header walk did not find")
			return pages, md.TotalCompressedSize
		}
		pd.offset = spans[pd.ordinal].off
		ord, hdrOff, h := pd.ordinal, pd.offset, spans[pd.ordinal].h
		end := int(spans[pd.ordinal].end - off)
		// A chunk starts with a row; a page that starts inside a row
		// cannot be found through the offset index, and a DATA_PAGE_V2
		// must not (it counts num_rows).
		if pd.firstRep != 0 && (dataPage == 0 || h.Type == format.PageType_DATA_PAGE_V2 || oi != nil) {
			ck.add(rg, path, ord, hdrOff, "the page starts inside a row (first repetition level %d)", pd.firstRep)
		}
		tot.values += int64(pd.numLevels)
		tot.nulls += int64(pd.nulls)
		tot.leafNulls += int64(pd.leafNulls)
		var pmin, pmax metadata.Value
		hasMinMax := false
		if comparable {
			pmin, pmax, hasMinMax = minMax(c, &pd.values)
			if hasMinMax {
				if !tot.hasMinMax || metadata.CompareValues(pmin, tot.min) < 0 {
					tot.min = pmin
				}
				if !tot.hasMinMax || metadata.CompareValues(pmax, tot.max) > 0 {
					tot.max = pmax
				}
				tot.hasMinMax = true
			}
		}
		if bf != nil {
			for i := range pd.values.len() {
				if !bf.MayContain(metadata.XXHash64(pd.values.at(i))) {
					if bloomMissing == 0 {
						bloomFirst = valueText(c, pd.values.at(i))
					}
					bloomMissing++
				}
			}
		}
		// The page header: v2 counts, statistics.
		var st *format.Statistics
		if v2 := h.DataPageHeaderV2; h.Type == format.PageType_DATA_PAGE_V2 && v2 != nil {
			st = v2.Statistics
			if int(v2.NumNulls) != pd.nulls {
				ck.add(rg, path, ord, hdrOff, "num_nulls in the page header is %d, the page has %d nulls", v2.NumNulls, pd.nulls)
			}
			if int(v2.NumRows) != pd.rows {
				ck.add(rg, path, ord, hdrOff, "num_rows in the page header is %d, the page has %d rows", v2.NumRows, pd.rows)
			}
		} else if h.DataPageHeader != nil {
			st = h.DataPageHeader.Statistics
		}
		if st != nil {
			s, err := metadata.DecodeStats(c, order, st)
			if err != nil {
				ck.add(rg, path, ord, hdrOff, "page statistics: %v", err)
			} else {
				ck.stats(rg, path, ord, hdrOff, "page statistics", s, nullCounts{int64(pd.nulls), int64(pd.leafNulls)}, pmin, pmax, hasMinMax)
			}
		}
		// The page index entry of this data page.
		if ci != nil && cierr == nil {
			if dataPage < len(ci.NullPages) {
				ck.columnIndexPage(rg, path, ord, hdrOff, c, ci, dataPage, pd, pmin, pmax, hasMinMax, comparable)
			}
		}
		if oi != nil && oierr == nil && dataPage < len(oi.PageLocations) {
			if loc := oi.PageLocations[dataPage]; loc != nil {
				size := int64(end) - (hdrOff - off)
				if loc.Offset != hdrOff || int64(loc.CompressedPageSize) != size {
					ck.add(rg, path, ord, hdrOff, "offset index entry %d says offset %d and size %d, the page is at %d with %d bytes (header included)",
						dataPage, loc.Offset, loc.CompressedPageSize, hdrOff, size)
				}
				if loc.FirstRowIndex != tot.rows {
					ck.add(rg, path, ord, hdrOff, "offset index entry %d says first_row_index %d, the page starts at row %d",
						dataPage, loc.FirstRowIndex, tot.rows)
				}
			}
		}
		tot.rows += int64(pd.rows)
		dataPage++
	}
	at := func(format string, args ...any) { ck.add(rg, path, -1, -1, format, args...) }
	if ci != nil && cierr == nil && len(ci.NullPages) != dataPage {
		at("the column index has %d pages, the chunk %d data pages", len(ci.NullPages), dataPage)
	}
	if oi != nil && oierr == nil && len(oi.PageLocations) != dataPage {
		at("the offset index has %d pages, the chunk %d data pages", len(oi.PageLocations), dataPage)
	}
	if tot.values != md.NumValues {
		at("num_values is %d, the pages hold %d", md.NumValues, tot.values)
	}
	if tot.rows != numRows {
		at("the pages hold %d rows, the row group %d", tot.rows, numRows)
	}
	if uncompressed != md.TotalUncompressedSize && uncompressed != md.TotalUncompressedSize+short {
		at("total_uncompressed_size is %d, the pages take %d (headers included)", md.TotalUncompressedSize, uncompressed)
	}
	// Many writers point data_page_offset at the dictionary page when they
	// leave dictionary_page_offset out; readers start at the smaller one.
	if tot.firstData >= 0 && md.DataPageOffset != tot.firstData && md.DataPageOffset != tot.dictOffset {
		at("data_page_offset is %d, the first data page is at %d", md.DataPageOffset, tot.firstData)
	}
	if d := md.DictionaryPageOffset; tot.dictOffset >= 0 && d != nil && *d != 0 && *d != tot.dictOffset {
		at("dictionary_page_offset is %d, the dictionary page is at %d", *d, tot.dictOffset)
	}
	if bloomMissing > 0 {
		at("the bloom filter rules out %s present in the chunk, the first %s", plural(int64(bloomMissing), "value"), bloomFirst)
	}
	if s, err := metadata.ColumnStats(f, rg, c.Index); err != nil {
		at("statistics: %s", localText(err, rg, path))
	} else {
		ck.stats(rg, path, -1, -1, "column chunk statistics", s, nullCounts{tot.nulls, tot.leafNulls}, tot.min, tot.max, tot.hasMinMax)
	}
	return pages, md.TotalCompressedSize
}

func (ck *checker) pageError(rg int, path string, err error) {
	var pe *pagecodec.PageError
	if errors.As(err, &pe) {
		ck.add(rg, path, pe.Page, pe.Offset, "%s", strings.TrimPrefix(pe.Err.Error(), "pagecodec: "))
		return
	}
	ck.add(rg, path, -1, -1, "%v", err)
}

// stats compares decoded statistics with what the data holds.
func (ck *checker) stats(rg int, path string, page int, off int64, what string, s metadata.Stats, nulls nullCounts, dmin, dmax metadata.Value, has bool) {
	if s.HasNullCount && s.NullCount != nulls.all && s.NullCount != nulls.leaf {
		ck.add(rg, path, page, off, "%s: null_count is %d, the data has %d nulls", what, s.NullCount, nulls.all)
	}
	if !has {
		return
	}
	if s.HasMin && comparableKinds(s.Min, dmin) && metadata.CompareValues(s.Min, dmin) > 0 {
		ck.add(rg, path, page, off, "%s: min %s is above the smallest value %s", what, s.Min, dmin)
	}
	if s.HasMax && comparableKinds(s.Max, dmax) && metadata.CompareValues(s.Max, dmax) < 0 {
		ck.add(rg, path, page, off, "%s: max %s is below the largest value %s", what, s.Max, dmax)
	}
}

func (ck *checker) columnIndexPage(rg int, path string, ord int, off int64, c *metadata.Column, ci *format.ColumnIndex, i int,
	pd *pageData, pmin, pmax metadata.Value, has, comparable bool) {
	nonNull := pd.values.len()
	if ci.NullPages[i] && nonNull > 0 && len(ci.MinValues[i]) == 0 && len(ci.MaxValues[i]) == 0 {
		ck.warn(rg, path, ord, off, "column index says null_pages[%d] = true with no min/max, but the page has %d non-null values (a writer without statistics; a reader filtering on the page index would skip the page)", i, nonNull)
	} else if ci.NullPages[i] != (nonNull == 0) {
		ck.add(rg, path, ord, off, "column index says null_pages[%d] = %v, the page has %d non-null values", i, ci.NullPages[i], nonNull)
	}
	if i < len(ci.NullCounts) && ci.NullCounts[i] >= 0 && ci.NullCounts[i] != int64(pd.nulls) && ci.NullCounts[i] != int64(pd.leafNulls) {
		ck.add(rg, path, ord, off, "column index says null_counts[%d] = %d, the page has %d nulls", i, ci.NullCounts[i], pd.nulls)
	}
	if !comparable || !has || ci.NullPages[i] {
		return
	}
	lo, err1 := metadata.DecodeValue(c, ci.MinValues[i])
	hi, err2 := metadata.DecodeValue(c, ci.MaxValues[i])
	if err := errors.Join(err1, err2); err != nil {
		ck.add(rg, path, ord, off, "column index entry %d: %v", i, err)
		return
	}
	if comparableKinds(lo, pmin) && metadata.CompareValues(lo, pmin) > 0 {
		ck.add(rg, path, ord, off, "column index min_values[%d] = %s is above the smallest value %s", i, lo, pmin)
	}
	if comparableKinds(hi, pmax) && metadata.CompareValues(hi, pmax) < 0 {
		ck.add(rg, path, ord, off, "column index max_values[%d] = %s is below the largest value %s", i, hi, pmax)
	}
}

// minMax returns the smallest and largest value of vals (NaN left out).
func minMax(c *metadata.Column, vals *plainValues) (lo, hi metadata.Value, ok bool) {
	for i := range vals.len() {
		v, err := metadata.DecodeValue(c, vals.at(i))
		if err != nil || v.Kind == metadata.KindFloat && math.IsNaN(v.Float) {
			continue
		}
		if !ok || metadata.CompareValues(v, lo) < 0 {
			lo = v
		}
		if !ok || metadata.CompareValues(v, hi) > 0 {
			hi = v
		}
		ok = true
	}
	return lo, hi, ok
}

func comparableKinds(a, b metadata.Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case metadata.KindNone, metadata.KindInt96:
		return false
	case metadata.KindFloat:
		return !math.IsNaN(a.Float) && !math.IsNaN(b.Float)
	case metadata.KindDecimal:
		return a.Unscaled != nil && b.Unscaled != nil
	}
	return true
}

// nullCounts is a null count in the two conventions writers use: every
// level below the max definition level, or only null leaf values.
type nullCounts struct{ all, leaf int64 }

// parquet816 returns how many bytes the last page of a chunk runs past
// total_compressed_size when that is at most a page header's worth (the
// PARQUET-816 bug), or 0.
func parquet816(p *parquetFile, rg int, c *metadata.Column, md *format.ColumnMetaData, chunk []byte, off int64) int64 {
	const slack = 256 // a dictionary page header is well under this
	r := pageReader(c, md, chunk, off, p.pageDecryptor(rg, c.Index))
	for {
		_, err := r.NextHeader()
		if err == io.EOF {
			return 0
		}
		if err != nil {
			break
		}
	}
	padded, _, _, err := p.chunkBytesPad(rg, c.Index, slack)
	if err != nil || len(padded) <= len(chunk) {
		return 0
	}
	r = pageReader(c, md, padded, off, p.pageDecryptor(rg, c.Index))
	for {
		_, err := r.NextHeader()
		if err != nil {
			return 0
		}
		r.Skip()
		if end := r.Offset(); end >= len(chunk) {
			return int64(end - len(chunk))
		}
	}
}

// localText is the text of a metadata error without the package prefix and
// the location the finding already names.
func localText(err error, rg int, path string) string {
	s := err.Error()
	for {
		t := strings.TrimPrefix(s, "metadata: ")
		t = strings.TrimPrefix(t, fmt.Sprintf("row group %d: ", rg))
		t = strings.TrimPrefix(t, fmt.Sprintf("row group %d, column %s: ", rg, path))
		t = strings.TrimPrefix(t, fmt.Sprintf("column %s: ", path))
		if t == s {
			return s
		}
		s = t
	}
}

// overlaps reports column chunks whose byte ranges overlap.
func (ck *checker) overlaps(f *metadata.File) {
	type span struct {
		start, end int64
		rg         int
		path       string
	}
	var spans []span
	for rg := range f.Meta.RowGroups {
		for _, c := range f.Schema.Columns {
			off, n, err := f.ChunkRange(rg, c.Index)
			if err != nil || n == 0 {
				continue // reported with the chunk
			}
			spans = append(spans, span{off, off + n, rg, c.DottedPath})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if a, b := spans[i-1], spans[i]; b.start < a.end {
			ck.add(b.rg, b.path, -1, -1, "the column chunk at offset %d overlaps the one of row group %d, column %s, which ends at %d",
				b.start, a.rg, a.path, a.end)
		}
	}
}
