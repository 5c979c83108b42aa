package column

import (
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// SkipRecords steps over the next n records (rows) of the chunk and
// returns how many it skipped: n, or fewer at the end of the chunk.
//
// Between pages, a page whose rows all fall in the skip is stepped over
// without reading its body (no checksum, no decompression, no decoding)
// when its row count is known before its body: from the offset index
// given in [Chunk.OffsetIndex], or, for columns without repetition, from
// the page header's level count (one level per row). A dictionary page is
// always read, so that later pages can use it. Inside a page, the skipped
// levels and values are decoded and dropped: repeated columns need their
// repetition levels to tell where records end.
//
// A record starts at a repetition level 0; a repeated column's skip ends
// just before the first level of record n+1, so that the next read
// starts at a record boundary.
func (r *Reader) SkipRecords(n int) (skipped int, err error) {
	if n <= 0 {
		return 0, nil
	}
	r.handOff()
	for {
		if r.pagePos == r.pageLen {
			if skipped == n {
				if r.col.MaxRep == 0 || r.locs != nil {
					return skipped, nil // pages start at record boundaries
				}
				// The last record skipped may go on in the next page.
				if _, err := r.Remaining(); err == io.EOF {
					return skipped, nil
				} else if err != nil {
					return skipped, err
				}
				continue
			}
			rows, err := r.skipPages(n - skipped)
			skipped += rows
			if err == io.EOF {
				return skipped, nil
			}
			if err != nil {
				return skipped, err
			}
			continue
		}
		if err := r.fillLevels(); err != nil {
			return skipped, err
		}
		if r.col.MaxRep == 0 {
			k := min(r.levelsReady(), n-skipped)
			if err := r.dropLevels(k); err != nil {
				return skipped, err
			}
			skipped += k
			if skipped == n {
				return skipped, nil
			}
			continue
		}
		// Repeated: consume levels up to the start of record n+1.
		_, rep := r.windowLevels()
		k := 0
		done := false
		for ; k < len(rep); k++ {
			if rep[k] == 0 {
				if skipped == n {
					done = true
					break
				}
				skipped++
			}
		}
		if err := r.dropLevels(k); err != nil {
			return skipped, err
		}
		if done {
			return skipped, nil
		}
	}
}

// skipPages steps over whole data pages that hold at most want rows, and
// loads the first page it cannot skip. It returns the rows of the pages
// skipped, and io.EOF at the end of the chunk.
func (r *Reader) skipPages(want int) (rows int, err error) {
	if r.err != nil {
		return 0, r.err
	}
	for {
		start := r.pages.Offset()
		if k, next, ok := r.indexedPage(start); ok && k <= want-rows {
			// The offset index says where the page ends: step over it
			// without its header, whose bytes a filtered read may not
			// have fetched.
			if err := r.pages.SkipTo(next); err != nil {
				r.err = err
				return rows, err
			}
			r.dataPage++
			r.page = nil
			r.pageLen, r.pagePos = 0, 0
			rows += k
			if rows == want {
				return rows, nil
			}
			continue
		}
		h, err := r.pages.NextHeader()
		if err != nil {
			if err != io.EOF {
				r.err = err
			} else {
				r.endChunk()
			}
			r.page = nil
			return rows, err
		}
		r.nextSize = int(h.UncompressedPageSize)
		switch h.Type {
		case format.PageType_DATA_PAGE, format.PageType_DATA_PAGE_V2:
		case format.PageType_DICTIONARY_PAGE:
			// Read by nextDataPage below, which then loads the page after
			// it: step back so that the loop sees that page's header.
			if err := r.readDictionaryPage(); err != nil {
				return rows, err
			}
			continue
		default:
			r.pages.Skip()
			continue
		}
		if err := r.checkLocation(start); err != nil {
			return rows, r.fail(err)
		}
		k := r.pageRows(h)
		if k < 0 || k > want-rows {
			// Read this page: its header is pending in the page reader.
			r.dataPage++
			return rows, r.readPendingPage()
		}
		r.pages.Skip()
		r.dataPage++
		r.page = nil
		r.pageLen, r.pagePos = 0, 0
		rows += k
		if rows == want {
			return rows, nil
		}
	}
}

// indexedPage reports, when the offset index places data page r.dataPage at
// chunk position start, its rows and the chunk position where it ends (the
// next page's offset, which must equal start plus its compressed size).
func (r *Reader) indexedPage(start int) (rows, next int, ok bool) {
	if r.locs == nil || r.dataPage >= len(r.locs) {
		return 0, 0, false
	}
	loc := r.locs[r.dataPage]
	if loc == nil || loc.Offset != r.popts.FileOffset+int64(start) || loc.CompressedPageSize < 0 || loc.CompressedPageSize == 0 && !r.sparse {
		return 0, 0, false
	}
	end := r.numRows
	if r.dataPage+1 < len(r.locs) {
		nl := r.locs[r.dataPage+1]
		if nl == nil || nl.Offset != loc.Offset+int64(loc.CompressedPageSize) {
			return 0, 0, false
		}
		end = nl.FirstRowIndex
	}
	if end < loc.FirstRowIndex || loc.FirstRowIndex < 0 {
		return 0, 0, false
	}
	next = start + int(loc.CompressedPageSize)
	if next > r.chunkLen {
		return 0, 0, false
	}
	return int(end - loc.FirstRowIndex), next, true
}

// pageRows returns the rows of the data page with header h, the next in
// the chunk, when they are known without its body; -1 otherwise.
func (r *Reader) pageRows(h *format.PageHeader) int {
	if r.locs != nil {
		first := r.locs[r.dataPage].FirstRowIndex
		end := r.numRows
		if r.dataPage+1 < len(r.locs) {
			if r.locs[r.dataPage+1] == nil {
				return -1
			}
			end = r.locs[r.dataPage+1].FirstRowIndex
		}
		if end < first || first < 0 {
			return -1
		}
		return int(end - first)
	}
	if r.col.MaxRep == 0 {
		switch {
		case h.DataPageHeader != nil && h.Type == format.PageType_DATA_PAGE:
			return int(h.DataPageHeader.NumValues)
		case h.DataPageHeaderV2 != nil:
			return int(h.DataPageHeaderV2.NumValues)
		}
	}
	return -1
}

// readDictionaryPage reads the dictionary page whose header is pending.
func (r *Reader) readDictionaryPage() error {
	if r.hasDict || r.pages.Codec() == format.CompressionCodec_UNCOMPRESSED || !viewsDictionary(r.col.Physical) {
		p, err := r.readPage()
		if err != nil {
			return err
		}
		_, err = r.useDictionaryPage(p, nil)
		return err
	}
	// A fixed-width dictionary decompresses into a buffer of its own, kept
	// from chunk to chunk, and is used there (decodeDictionary). Not into
	// the page buffer: in the next row group a page buffer lent by the
	// cache (sized by another leaf's data pages) was too small for the
	// dictionary page and grew, a dictionary's size per leaf and row group.
	r.takeDictBuffer()
	r.borrowBuffer()
	pageBuf := r.pages.SwapBuffer(r.dictBuf)
	p, err := r.readPage()
	r.dictBuf = r.pages.SwapBuffer(pageBuf)
	if err != nil {
		return err
	}
	_, err = r.useDictionaryPage(p, r.dictBuf)
	return err
}

// useDictionaryPage decodes dictionary page p, the current page, which
// may lie in buf (decodeDictionary).
func (r *Reader) useDictionaryPage(p *pagecodec.Page, buf []byte) (viewed bool, err error) {
	if r.hasDict {
		return false, r.fail(fmt.Errorf("a second dictionary page: %w", errCorrupt))
	}
	viewed, err = r.decodeDictionary(p, buf)
	if err != nil {
		return false, r.fail(err)
	}
	r.hasDict = true
	r.page = nil
	return viewed, nil
}

// readPendingPage reads and loads the data page whose header is pending.
func (r *Reader) readPendingPage() error {
	p, err := r.readPage()
	if err != nil {
		return err
	}
	return r.startDataPage(p)
}

// readPage reads the body of the page whose header is pending and makes
// it the current page; a failure is sticky.
func (r *Reader) readPage() (*pagecodec.Page, error) {
	r.borrowBuffer()
	p, err := r.pages.Read()
	if err != nil {
		r.page = nil
		r.err = err
		return nil, err
	}
	if r.win.src != nil && r.pages.Codec() != format.CompressionCodec_UNCOMPRESSED && p.Type != format.PageType_DATA_PAGE_V2 {
		// The page is in the page buffer, not in the window.
		r.win.park(r.pages.Offset())
	}
	r.pagesRead++
	r.page = p
	return p, nil
}

// dropScratch holds the levels and values SkipRecords decodes and drops.
type dropScratch struct {
	values Values
	bits   []byte
}

// dropLevels consumes the next k levels of the page and decodes and drops
// the values they carry.
func (r *Reader) dropLevels(k int) error {
	if k == 0 {
		return nil
	}
	if r.drop == nil {
		r.drop = new(dropScratch)
	}
	nv := k
	switch {
	case r.flat:
		r.drop.bits = levels.GrowBitmap(r.drop.bits[:0], k)
		nulls, err := r.pd.def.DecodeValidity(r.drop.bits, 0, k)
		if err != nil {
			return r.fail(err)
		}
		nv = k - nulls
	case r.col.MaxDef > 0:
		def, _ := r.windowLevels()
		nv = countEqual(def[:k], r.col.MaxDef)
	}
	r.pagePos += k
	return r.dropValues(nv)
}

// dropValues decodes and drops the next n values of the page, in runs that
// keep the scratch small; dictionary pages decode only their indices.
func (r *Reader) dropValues(n int) error {
	const run = 4096
	for n > 0 {
		k := min(n, run)
		d := &r.drop.values
		if r.dec.dict != nil {
			d.Indices = growInt32(d.Indices, k)
			if err := r.DecodeIndices(d.Indices); err != nil {
				return r.fail(err)
			}
		} else {
			d.Reset(r.col)
			d.IndexMode = false
			if err := r.DecodeValues(d, k); err != nil {
				return r.fail(err)
			}
		}
		n -= k
	}
	return nil
}
