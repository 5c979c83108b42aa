package arrowpq

// Filtered reads: ReadOptions.Filter and ReadOptions.Rows in the Reader.
//
// Per row group, in this order, each step only when the one before could
// not decide: column statistics (no I/O), bloom filters of the columns
// compared with = or IN (one range read each), then the ColumnIndex and
// OffsetIndex of the predicate's columns (Prune turns them into the row
// ranges that may match). Those ranges, intersected with ReadOptions.Rows,
// are the rows read. The offset index of every leaf read then says which
// of its pages hold them: only those pages (and the dictionary page) are
// fetched, and the column readers step over the others with SkipRecords
// without touching their bytes.
//
// The rows are read in pieces of at most BatchSize rows. In exact mode a
// piece is first decoded for the predicate's fields only and evaluated
// (late materialization); the other projected fields are then decoded only
// for the rows that matched, range by range, skipping the rest, unless the
// predicate kept most rows or scattered them, where decoding the piece
// whole and filtering it costs less (sparseSelection).

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// filterRead is the state of a Reader with a Filter or Rows.
type filterRead struct {
	// prune is the predicate bound to the whole file (Arrow and Parquet
	// schemas), for pruning; eval the same predicate bound to evalSchema,
	// the schema of the batches it is evaluated on. Both nil without a
	// Filter.
	prune, eval *BoundPredicate
	evalSchema  *arrow.Schema
	// evalPlan decodes the predicate's fields when the projection does not
	// hold them whole; otherwise evalFields are their indices among the
	// projected fields and restFields the other projected fields.
	evalPlan   *readPlan
	evalFields []int
	restFields []int

	rgStart []int64 // first file row of each row group
	pieces  []rowPiece
	rgRows  int64 // rows of the current row group
	warned  map[string]bool
}

// rowPiece is a range of rows of the current row group to read as one
// batch; all means every row of it matches (no evaluation).
type rowPiece struct {
	start, end int64
	all        bool
}

// byteCounter counts the bytes read through it (Reader.Stats).
type byteCounter struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *byteCounter) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// Stats returns what the read has done so far: row groups and pages
// considered and pruned, bytes fetched, rows decoded and returned, and the
// warnings about metadata that was ignored. Pages are counted for the
// column chunks whose offset index was read (filtered reads).
func (r *Reader) Stats() Stats {
	s := r.stats
	s.Warnings = slices.Clone(s.Warnings)
	if r.counter != nil {
		s.BytesRead = r.counter.n.Load()
	}
	return s
}

// newFilterRead binds the filter and plans how it is evaluated.
func newFilterRead(r *Reader) (*filterRead, error) {
	f := &filterRead{warned: map[string]bool{}}
	var start int64
	for _, rg := range r.file.Meta.RowGroups {
		f.rgStart = append(f.rgStart, start)
		start += rg.NumRows
	}
	for _, rr := range r.opts.Rows {
		if rr.Start < 0 {
			return nil, fmt.Errorf("ReadOptions.Rows: negative row %d", rr.Start)
		}
	}
	if r.opts.Filter == nil {
		return f, nil
	}
	full := r.plan.manifest.Schema
	var err error
	if f.prune, err = r.opts.Filter.Bind(full, r.file.Schema); err != nil {
		return nil, err
	}
	if r.opts.Superset {
		return f, nil
	}
	// Decode the predicate's fields from the projection when it holds them
	// whole, else with a plan of their own.
	var names []string
	inProjection := true
	for _, i := range f.prune.Fields() {
		fd := full.Field(i)
		names = append(names, fd.Name)
		idx := r.plan.schema.FieldIndices(fd.Name)
		if len(idx) != 1 || !arrow.TypeEqual(r.plan.schema.Field(idx[0]).Type, fd.Type) {
			inProjection = false
			continue
		}
		f.evalFields = append(f.evalFields, idx[0])
	}
	if inProjection {
		sort.Ints(f.evalFields)
		fields := make([]arrow.Field, len(f.evalFields))
		for k, i := range f.evalFields {
			fields[k] = r.plan.schema.Field(i)
		}
		f.evalSchema = arrow.NewSchema(fields, nil)
		for i := range r.plan.fields {
			if !slices.Contains(f.evalFields, i) {
				f.restFields = append(f.restFields, i)
			}
		}
	} else {
		o := r.opts
		o.Columns = names
		if f.evalPlan, err = newReadPlan(r.file, &o); err != nil {
			return nil, err
		}
		f.evalSchema = f.evalPlan.schema
		f.evalFields = nil
		for i := range r.plan.fields {
			f.restFields = append(f.restFields, i)
		}
	}
	if f.eval, err = r.opts.Filter.Bind(f.evalSchema, nil); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *filterRead) release() {
	if f.evalPlan != nil {
		f.evalPlan.release()
	}
}

// warn records a warning once.
func (r *Reader) warn(msgs ...string) {
	for _, m := range msgs {
		if !r.filt.warned[m] {
			r.filt.warned[m] = true
			r.stats.Warnings = append(r.stats.Warnings, m)
		}
	}
}

// nextFiltered is Next for filtered reads.
func (r *Reader) nextFiltered() bool {
	f := r.filt
	for {
		if err := r.opts.Context.Err(); err != nil {
			r.err = err
			return false
		}
		if len(f.pieces) == 0 {
			if r.nextRG >= len(r.rowGroups) {
				return false
			}
			rg := r.rowGroups[r.nextRG]
			r.nextRG++
			if err := r.loadFiltered(rg); err != nil {
				r.err = err
				return false
			}
			continue
		}
		p := f.pieces[0]
		f.pieces = f.pieces[1:]
		batch, err := r.readPiece(p)
		if err != nil {
			var full *column.BatchFullError
			if p.end-p.start > 1 && errors.As(err, &full) {
				// Byte array data beyond 32-bit offsets: restart the row
				// group and read the piece in halves (bigbatch.go).
				if err := r.restartFiltered(); err != nil {
					r.err = err
					return false
				}
				mid := p.start + (p.end-p.start)/2
				r.plan.batchCap = int(mid - p.start)
				f.pieces = append([]rowPiece{{p.start, mid, p.all}, {mid, p.end, p.all}}, f.pieces...)
				continue
			}
			r.err = err
			return false
		}
		if batch == nil {
			continue
		}
		r.cur = batch
		r.stats.RowsReturned += batch.NumRows()
		return true
	}
}

// RowGroupPlan is what a filtered read decides for one row group, and why
// ([Reader.Explain]).
type RowGroupPlan struct {
	RowGroup int
	Rows     int64 // rows of the row group
	// ByRows is false when ReadOptions.Rows selects none of its rows.
	ByRows bool
	// ByStatistics is the decision from column statistics; ByBloomFilter
	// the decision once bloom filters were read (BloomFiltersRead of them;
	// MayMatch when none was); ByPageIndex once the page index was read
	// (PageIndexRead), with Pages of the predicate's columns of which
	// PagesSkipped hold no row that may match.
	ByStatistics, ByBloomFilter, ByPageIndex Decision
	BloomFiltersRead                         int
	PageIndexRead                            bool
	Pages, PagesSkipped                      int
	// Read holds the rows (0 = the row group's first) that are read and
	// evaluated; AllMatch those returned without evaluation. Empty when
	// the row group is skipped.
	Read, AllMatch RowRanges
	Warnings       []string
}

// Explain returns the pruning decisions of the read for every row group it
// would read, without reading any page: statistics, bloom filters and page
// indexes are read as the read would read them. It is meant for tools (the
// CLI's explain); call it before Next.
func (r *Reader) Explain() ([]RowGroupPlan, error) {
	if r.filt == nil {
		f, err := newFilterRead(r)
		if err != nil {
			return nil, err
		}
		r.filt = f
	}
	var out []RowGroupPlan
	for _, rg := range r.rowGroups {
		plan, _ := r.pruneRowGroup(rg)
		out = append(out, plan)
	}
	return out, nil
}

// pruneRowGroup decides which rows of row group rg to read: Rows, then
// statistics, bloom filters and the page index, each consulted only when
// the ones before leave rows that may match. It returns the offset indexes
// it read.
func (r *Reader) pruneRowGroup(rg int) (RowGroupPlan, map[int]*format.OffsetIndex) {
	f := r.filt
	numRows := r.file.Meta.RowGroups[rg].NumRows
	plan := RowGroupPlan{RowGroup: rg, Rows: numRows, ByRows: true}
	if numRows == 0 {
		plan.Read = RowRanges{}
		return plan, nil
	}
	sel := NewRowRanges(RowRange{0, numRows})
	if r.opts.Rows != nil {
		start := f.rgStart[rg]
		sel = r.opts.Rows.Intersect(NewRowRanges(RowRange{start, start + numRows})).Shift(-start)
		if len(sel) == 0 {
			plan.ByRows = false
			plan.Read = RowRanges{}
			return plan, nil
		}
	}
	if f.prune == nil {
		plan.Read, plan.AllMatch = sel, sel
		return plan, nil
	}
	warn := func(ws []string) {
		plan.Warnings = append(plan.Warnings, ws...)
		r.warn(ws...)
	}
	var indexes map[int]*format.OffsetIndex
	in := PruneInput{File: r.file, RowGroup: rg}
	res := f.prune.Prune(in)
	plan.ByStatistics, plan.ByBloomFilter, plan.ByPageIndex = res.ByStatistics, res.Decision, res.Decision
	if res.ByStatistics == CannotMatch {
		r.stats.RowGroupsPrunedByStatistics++
		plan.Read = RowRanges{}
		return plan, nil
	}
	if cols := f.prune.BloomColumns(); len(cols) > 0 && res.Decision == MayMatch {
		in.BloomFilters = map[int]*metadata.BloomFilter{}
		for _, c := range cols {
			if cc := r.file.Meta.RowGroups[rg].Columns[c]; cc.MetaData == nil || cc.MetaData.BloomFilterOffset == nil {
				continue
			}
			bf, err := metadata.ReadBloomFilter(r.src, r.file, rg, c)
			r.stats.BloomFiltersRead++
			plan.BloomFiltersRead++
			if err != nil {
				warn([]string{fmt.Sprintf("row group %d, column %s: bloom filter not used: %v", rg, r.file.Schema.Columns[c].DottedPath, err)})
				continue
			}
			in.BloomFilters[c] = bf
		}
		res = f.prune.Prune(in)
		warn(res.Warnings)
		plan.ByBloomFilter, plan.ByPageIndex = res.Decision, res.Decision
		if res.Decision == CannotMatch {
			r.stats.RowGroupsPrunedByBloomFilter++
			plan.Read = RowRanges{}
			return plan, nil
		}
	}
	if cols := f.prune.IndexColumns(); len(cols) > 0 && res.Decision == MayMatch {
		in.ColumnIndexes, in.OffsetIndexes = r.readPageIndexes(rg, cols, true)
		res = f.prune.Prune(in)
		warn(res.Warnings)
		indexes = in.OffsetIndexes
		plan.PageIndexRead = len(in.ColumnIndexes) > 0
		plan.ByPageIndex = res.Decision
		plan.Pages, plan.PagesSkipped = res.Pages, res.PagesSkipped
	}
	sel = sel.Intersect(res.MayMatch)
	plan.Read = sel
	plan.AllMatch = sel.Intersect(res.AllMatch)
	if r.opts.Superset {
		plan.AllMatch = sel
	}
	if len(sel) == 0 {
		r.stats.Pages += res.Pages
		r.stats.PagesSkippedByPageIndex += res.PagesSkipped
	}
	return plan, indexes
}

// loadFiltered prunes row group rg and, when rows of it remain, reads the
// pages that hold them and queues the pieces to read.
func (r *Reader) loadFiltered(rg int) error {
	f := r.filt
	r.rg = rg
	numRows := r.file.Meta.RowGroups[rg].NumRows
	f.rgRows = numRows
	plan, indexes := r.pruneRowGroup(rg)
	sel, all := plan.Read, plan.AllMatch
	if len(sel) == 0 {
		return nil
	}
	// The leaves to read: the projection's and the predicate plan's.
	leaves := slices.Clone(r.plan.leaves)
	if f.evalPlan != nil {
		leaves = append(leaves, f.evalPlan.leaves...)
		slices.Sort(leaves)
		leaves = slices.Compact(leaves)
	}
	whole := len(sel) == 1 && sel[0] == RowRange{0, numRows}
	locs := map[int][]*format.PageLocation{}
	if !whole {
		var missing []int
		for _, l := range leaves {
			if _, ok := indexes[l]; !ok {
				missing = append(missing, l)
			}
		}
		if len(missing) > 0 {
			_, more := r.readPageIndexes(rg, missing, false)
			if indexes == nil {
				indexes = map[int]*format.OffsetIndex{}
			}
			for l, oi := range more {
				indexes[l] = oi
			}
		}
		for _, l := range leaves {
			if oi := indexes[l]; oi != nil {
				if err := r.checkPageLayout(rg, l, oi); err != nil {
					r.warn(fmt.Sprintf("row group %d, column %s: offset index not used to skip pages: %v", rg, r.file.Schema.Columns[l].DottedPath, err))
					continue
				}
				locs[l] = oi.PageLocations
			}
		}
	}
	chunks, sparse, err := r.readSelectedChunks(rg, leaves, locs, sel, numRows)
	if err != nil {
		return err
	}
	for _, p := range []*readPlan{r.plan, f.evalPlan} {
		if p == nil {
			continue
		}
		for _, fd := range p.fields {
			if fr, ok := fd.(*fieldReader); ok {
				for leaf, lr := range fr.leaves {
					lr.sparse = sparse[leaf]
					lr.locs = nil
					if lr.sparse != nil {
						lr.locs = lr.sparse.locs
					}
				}
			}
		}
		if err := p.startRowGroup(r, rg, chunks); err != nil {
			return err
		}
		p.orderByWork(r.file, rg)
	}
	// Pieces of at most a batch, cut where all-match ranges begin and end.
	size := int64(r.opts.BatchSize)
	if r.plan.batchCap > 0 {
		size = min(size, int64(r.plan.batchCap))
	}
	f.pieces = f.pieces[:0]
	for _, s := range sel {
		for _, part := range cutAt(s, all) {
			isAll := NewRowRanges(part).Intersect(all).Len() == part.End-part.Start
			for a := part.Start; a < part.End; a += size {
				f.pieces = append(f.pieces, rowPiece{a, min(a+size, part.End), isAll})
			}
		}
	}
	return nil
}

// cutAt splits s where the ranges of all start or end.
func cutAt(s RowRange, all RowRanges) []RowRange {
	out := []RowRange{s}
	for _, a := range all {
		for _, b := range []int64{a.Start, a.End} {
			last := &out[len(out)-1]
			if b > last.Start && b < last.End {
				end := last.End
				last.End = b
				out = append(out, RowRange{b, end})
			}
		}
	}
	return out
}

// checkPageLayout accepts an offset index for skipping pages unfetched only
// when its pages tile the column chunk: the first at the first data page,
// each ending where the next begins, the last at the chunk's end. An index
// that passes CheckOffsetIndex but not this is not trusted to say where
// pages are.
func (r *Reader) checkPageLayout(rg, leaf int, oi *format.OffsetIndex) error {
	off, n, err := r.file.ChunkRange(rg, leaf)
	if err != nil {
		return err
	}
	md, err := r.file.ColumnChunk(rg, leaf)
	if err != nil {
		return err
	}
	if err := metadata.CheckOffsetIndex(oi, off, off+n, r.file.Meta.RowGroups[rg].NumRows); err != nil {
		return err
	}
	locs := oi.PageLocations
	if len(locs) == 0 {
		return errors.New("no pages")
	}
	if locs[0].Offset != md.DataPageOffset {
		return fmt.Errorf("first page at %d, data_page_offset is %d", locs[0].Offset, md.DataPageOffset)
	}
	for i := 1; i < len(locs); i++ {
		if locs[i-1].Offset+int64(locs[i-1].CompressedPageSize) != locs[i].Offset {
			return fmt.Errorf("page %d does not start where page %d ends", i, i-1)
		}
	}
	if last := locs[len(locs)-1]; last.Offset+int64(last.CompressedPageSize) != off+n {
		return fmt.Errorf("the last page ends at %d, the chunk at %d", last.Offset+int64(last.CompressedPageSize), off+n)
	}
	return nil
}

// readPageIndexes reads the offset indexes (and with columnIndexes, the
// column indexes) of cols in row group rg, with one read when they lie
// close together, as writers put them. An index that cannot be read is
// left out with a warning.
func (r *Reader) readPageIndexes(rg int, cols []int, columnIndexes bool) (map[int]*format.ColumnIndex, map[int]*format.OffsetIndex) {
	var lo, hi, need int64 = -1, -1, 0
	add := func(off *int64, n *int32) {
		if off == nil || n == nil || *n <= 0 || *off < 0 {
			return
		}
		if lo < 0 || *off < lo {
			lo = *off
		}
		hi = max(hi, *off+int64(*n))
		need += int64(*n)
	}
	for _, c := range cols {
		cc := r.file.Meta.RowGroups[rg].Columns[c]
		if columnIndexes {
			add(cc.ColumnIndexOffset, cc.ColumnIndexLength)
		}
		add(cc.OffsetIndexOffset, cc.OffsetIndexLength)
	}
	var src io.ReaderAt = r.src
	if lo >= 0 && hi <= r.file.FooterOffset && hi-lo <= max(4*need, 1<<20) {
		buf := make([]byte, hi-lo)
		if _, err := r.src.ReadAt(buf, lo); err == nil {
			src = &bufferedAt{base: lo, buf: buf, src: r.src}
		}
	}
	cis := map[int]*format.ColumnIndex{}
	ois := map[int]*format.OffsetIndex{}
	for _, c := range cols {
		cc := r.file.Meta.RowGroups[rg].Columns[c]
		if cc.OffsetIndexOffset == nil {
			continue
		}
		path := r.file.Schema.Columns[c].DottedPath
		oi, err := metadata.ReadOffsetIndex(src, r.file, rg, c)
		if err != nil {
			r.warn(fmt.Sprintf("row group %d, column %s: offset index not used: %v", rg, path, err))
			continue
		}
		if oi != nil {
			ois[c] = oi
		}
		if columnIndexes && cc.ColumnIndexOffset != nil {
			ci, err := metadata.ReadColumnIndex(src, r.file, rg, c)
			if err != nil {
				r.warn(fmt.Sprintf("row group %d, column %s: column index not used: %v", rg, path, err))
				continue
			}
			if ci != nil {
				cis[c] = ci
			}
		}
	}
	return cis, ois
}

// bufferedAt serves reads inside buf (the file bytes at base) from memory
// and the rest from src.
type bufferedAt struct {
	base int64
	buf  []byte
	src  io.ReaderAt
}

func (b *bufferedAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= b.base && off+int64(len(p)) <= b.base+int64(len(b.buf)) {
		return copy(p, b.buf[off-b.base:]), nil
	}
	return b.src.ReadAt(p, off)
}

// readSelectedChunks reads the column chunks of leaves in row group rg:
// whole for leaves without locs, else only the bytes before the first data
// page (the dictionary page) and the pages that hold rows of sel, packed
// into a sparse chunk (column.Chunk.Sparse) whose offset index it sets on
// the leaf readers (sparse): the pages left out cost neither a read nor
// memory. Reads of neighbouring byte ranges are merged.
func (r *Reader) readSelectedChunks(rg int, leaves []int, locs map[int][]*format.PageLocation, sel RowRanges, numRows int64) (map[int][]byte, map[int]*sparseChunk, error) {
	ranges, _, _, err := r.layout(rg, leaves)
	if err != nil {
		return nil, nil, err
	}
	// The pieces of each chunk to fetch, in file order, and where they go.
	type fetch struct{ off, end, pos int64 }
	var fetches []fetch
	sparse := map[int]*sparseChunk{}
	var total int64
	bounds := map[int][2]int64{} // leaf -> [start, end) in the buffer
	for _, cr := range ranges {
		start := total
		pl := locs[cr.leaf]
		if pl == nil {
			fetches = append(fetches, fetch{cr.offset, cr.end, total})
			total += cr.end - cr.offset
			bounds[cr.leaf] = [2]int64{start, total}
			continue
		}
		sc := &sparseChunk{fileStart: cr.offset}
		prefix := pl[0].Offset - cr.offset
		fetches = append(fetches, fetch{cr.offset, pl[0].Offset, total})
		sc.segs = append(sc.segs, segment{0, cr.offset, prefix})
		total += prefix
		for i, loc := range pl {
			end := numRows
			if i+1 < len(pl) {
				end = pl[i+1].FirstRowIndex
			}
			r.stats.Pages++
			nl := &format.PageLocation{Offset: cr.offset + total - start, FirstRowIndex: loc.FirstRowIndex}
			if len(sel.Intersect(NewRowRanges(RowRange{loc.FirstRowIndex, end}))) == 0 {
				r.stats.PagesSkippedByPageIndex++
			} else {
				n := int64(loc.CompressedPageSize)
				nl.CompressedPageSize = loc.CompressedPageSize
				fetches = append(fetches, fetch{loc.Offset, loc.Offset + n, total})
				sc.segs = append(sc.segs, segment{total - start, loc.Offset, n})
				total += n
			}
			sc.locs = append(sc.locs, nl)
		}
		sparse[cr.leaf] = sc
		bounds[cr.leaf] = [2]int64{start, total}
	}
	if int64(cap(r.chunkBuf)) < total {
		r.chunkBuf = nil
		r.chunkBuf = make([]byte, total)
	}
	buf := r.chunkBuf[:total]
	out := make(map[int][]byte, len(ranges))
	for leaf, b := range bounds {
		out[leaf] = buf[b[0]:b[1]:b[1]]
	}
	sort.Slice(fetches, func(i, j int) bool { return fetches[i].off < fetches[j].off })
	var merged []fetch
	for _, fe := range fetches {
		if fe.end <= fe.off {
			continue
		}
		if k := len(merged) - 1; k >= 0 && fe.off == merged[k].end && fe.pos == merged[k].pos+merged[k].end-merged[k].off {
			merged[k].end = fe.end
			continue
		}
		merged = append(merged, fe)
	}
	var pieces []readPiece
	for _, m := range merged {
		pieces = appendPieces(pieces, buf[m.pos:m.pos+m.end-m.off], m.off, r.opts.Parallelism)
	}
	if err := r.readPieces(pieces); err != nil {
		return nil, nil, &Error{Op: "read", Path: r.path, RowGroup: rg, Page: -1, Offset: err.offset,
			Err: fmt.Errorf("read %d bytes of column chunks: %w", err.n, err.err)}
	}
	return out, sparse, nil
}

// sparseChunk is a column chunk read in part: its offset index rewritten
// for the packed bytes, and where each packed byte range lies in the file
// (for error offsets).
type sparseChunk struct {
	fileStart int64
	locs      []*format.PageLocation
	segs      []segment
}

// segment maps packed bytes [pos, pos+n) to the file bytes at off.
type segment struct{ pos, off, n int64 }

// fileOffset turns an offset in the packed chunk's offset space
// (fileStart + position) into the file offset.
func (s *sparseChunk) fileOffset(off int64) int64 {
	p := off - s.fileStart
	for _, g := range s.segs {
		if p >= g.pos && p < g.pos+g.n {
			return g.off + p - g.pos
		}
	}
	return off
}

// layout is chunkLayout for the given leaves.
func (r *Reader) layout(rg int, leaves []int) ([]chunkRange, []span, int64, error) {
	saved := r.plan.leaves
	r.plan.leaves = leaves
	defer func() { r.plan.leaves = saved }()
	return r.chunkLayout(rg)
}

// restartFiltered starts the current row group's decoders over (after a
// batch overflowed 32-bit offsets); pieces skip to their rows themselves.
func (r *Reader) restartFiltered() error {
	for _, p := range []*readPlan{r.plan, r.filt.evalPlan} {
		if p == nil {
			continue
		}
		for _, fd := range p.fields {
			if fr, ok := fd.(*fieldReader); ok {
				for _, lr := range fr.leaves {
					if lr.asm != nil {
						lr.asm.Reset()
					}
				}
			}
		}
		if err := p.startRowGroup(r, r.rg, r.plan.chunks); err != nil {
			return err
		}
	}
	return nil
}

// decodeRange decodes rows [start, end) of the current row group for the
// given fields of p, skipping the rows before start.
func (r *Reader) decodeRange(p *readPlan, fields []int, start, end int64) ([]arrow.Array, error) {
	cols := make([]arrow.Array, len(fields))
	errs := make([]error, len(fields))
	forEach(len(fields), r.opts.Parallelism, func(k int) error {
		fr := p.fields[fields[k]].(*fieldReader)
		errs[k] = call(func(int) error {
			if skip := start - (r.filt.rgRows - fr.rows); skip > 0 {
				if err := fr.skipRows(int(skip)); err != nil {
					return err
				}
			} else if skip < 0 {
				return fmt.Errorf("internal: field %s is past row %d", fr.name(), start)
			}
			var err error
			cols[k], err = fr.next(int(end - start))
			return err
		}, k)
		return errs[k]
	})
	for k, err := range errs {
		if err != nil {
			releaseArrays(cols)
			return nil, r.locate(err, p.fields[fields[k]])
		}
	}
	return cols, nil
}

func releaseArrays(cols []arrow.Array) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// allFields returns 0…n-1.
func allFields(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// sparseSelection reports whether decoding only the selected ranges of a
// piece of n rows beats decoding it whole and filtering: when the
// predicate dropped at least half the rows and the rows kept come in runs
// long enough (64 rows on average) that a decode call per run is cheap.
func sparseSelection(n, count int64, ranges int) bool {
	return count*2 <= n && int64(ranges)*64 <= count
}

// readPiece reads piece p of the current row group as a batch of the
// projected schema: every row (all-match, Superset, Rows alone) or the
// rows the predicate selects. It returns nil when no row is selected.
func (r *Reader) readPiece(p rowPiece) (arrow.RecordBatch, error) {
	f := r.filt
	n := p.end - p.start
	r.stats.RowsDecoded += n
	if p.all {
		cols, err := r.decodeRange(r.plan, allFields(len(r.plan.fields)), p.start, p.end)
		if err != nil {
			return nil, err
		}
		return r.newBatch(cols, n), nil
	}
	// Late materialization: the predicate's fields first.
	evalPlan := f.evalPlan
	evalFields := f.evalFields
	if evalPlan == nil {
		evalPlan = r.plan
	} else {
		evalFields = allFields(len(evalPlan.fields))
	}
	ev, err := r.decodeRange(evalPlan, evalFields, p.start, p.end)
	if err != nil {
		return nil, err
	}
	evBatch := array.NewRecordBatch(f.evalSchema, ev, n)
	releaseArrays(ev)
	defer evBatch.Release()
	sel, err := f.eval.Evaluate(evBatch)
	if err != nil {
		return nil, &Error{Op: "read", Path: r.path, RowGroup: r.rg, Page: -1, Offset: -1, Err: err}
	}
	count := int64(sel.Count())
	if count == 0 {
		return nil, nil
	}
	ranges := sel.Ranges()
	out := make([]arrow.Array, len(r.plan.fields))
	defer releaseArrays(out)
	if f.evalPlan == nil {
		// The predicate's fields are projected: keep their selected rows.
		kept, err := FilterBatch(r.opts.Context, r.opts.Allocator, evBatch, sel)
		if err != nil {
			return nil, err
		}
		for k, i := range f.evalFields {
			out[i] = kept.Column(k)
			out[i].Retain()
		}
		kept.Release()
	}
	if len(f.restFields) > 0 {
		if sparseSelection(n, count, len(ranges)) {
			parts := make([][]arrow.Array, len(f.restFields))
			for _, rr := range ranges {
				cols, err := r.decodeRange(r.plan, f.restFields, p.start+rr.Start, p.start+rr.End)
				if err != nil {
					for _, ps := range parts {
						releaseArrays(ps)
					}
					return nil, err
				}
				for k := range cols {
					parts[k] = append(parts[k], cols[k])
				}
			}
			for k, i := range f.restFields {
				if len(parts[k]) == 1 {
					out[i] = parts[k][0]
					continue
				}
				c, err := array.Concatenate(parts[k], r.opts.Allocator)
				releaseArrays(parts[k])
				if err != nil {
					for _, ps := range parts[k+1:] {
						releaseArrays(ps)
					}
					return nil, err
				}
				out[i] = c
			}
		} else {
			cols, err := r.decodeRange(r.plan, f.restFields, p.start, p.end)
			if err != nil {
				return nil, err
			}
			fields := make([]arrow.Field, len(f.restFields))
			for k, i := range f.restFields {
				fields[k] = r.plan.schema.Field(i)
			}
			rest := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
			releaseArrays(cols)
			kept, err := FilterBatch(r.opts.Context, r.opts.Allocator, rest, sel)
			rest.Release()
			if err != nil {
				return nil, err
			}
			for k, i := range f.restFields {
				out[i] = kept.Column(k)
				out[i].Retain()
			}
			kept.Release()
		}
	}
	return array.NewRecordBatch(r.plan.schema, out, count), nil
}

// newBatch makes the projected batch of cols and releases them.
func (r *Reader) newBatch(cols []arrow.Array, n int64) arrow.RecordBatch {
	b := array.NewRecordBatch(r.plan.schema, cols, n)
	releaseArrays(cols)
	return b
}
