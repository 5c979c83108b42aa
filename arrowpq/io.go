package arrowpq

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/objstore"
)

// coalesceGap is the largest hole between two column chunks that is read
// rather than skipped, so that neighbouring chunks cost one read: reading a
// few hundred KiB too many is cheaper than another request on object
// storage, and harmless on a local file.
const coalesceGap = 1 << 20

// maxDictHeaderPad is how far past a column chunk's recorded end a reader
// looks for files written before PARQUET-816, where total_compressed_size
// left out part of the dictionary page (Arrow C++ pads the same way).
const maxDictHeaderPad = 100

// chunkSource has the leaves of a Reader read their column chunks from the
// file a window at a time (column.Chunk.Source, ReadOptions.ChunkWindow)
// rather than from a buffer holding the row group's chunks. A row group
// then costs no read of its own: each leaf reads its chunk as it decodes
// it, on the goroutine decoding it, and the compressed bytes held are a
// window per leaf (lent between leaves: column.BufferCache) instead of the
// row group's chunks (two row groups' with Parallelism > 1).
//
// Chosen for an io.ReaderAt (a local file: a ReadAt is a pread, whose
// cost is the copy out of the page cache, paid once either way) and not
// for a RangeSource, a filtered read or an encrypted file (newReader).
type chunkSource struct {
	src  io.ReaderAt
	file *metadata.File
	pad  bool // needsDictPad
}

// newChunkSource returns the chunk source of a read of file from src, or
// nil when the chunks are read whole.
func newChunkSource(src io.ReaderAt, file *metadata.File, opts *ReadOptions, whole bool) *chunkSource {
	if whole || opts.ChunkWindow < 0 || opts.Filter != nil || opts.Rows != nil {
		return nil
	}
	return &chunkSource{
		src:  &ctxReaderAt{ctx: opts.Context, r: src},
		file: file,
		pad:  needsDictPad(file.CreatedBy()),
	}
}

// size returns the length of the chunk of leaf in row group rg, which
// starts at off (metadata.File.ChunkRange, checked by chunkLayout before
// the leaves start the row group).
func (c *chunkSource) size(rg, leaf int, off int64) int64 {
	o, n, err := c.file.ChunkRange(rg, leaf)
	if err != nil || o != off {
		return 0
	}
	return chunkEnd(c.file, off, n, c.pad) - off
}

// chunkEnd is the end of the chunk of n bytes at off, padded as
// maxDictHeaderPad says for old writers.
func chunkEnd(file *metadata.File, off, n int64, pad bool) int64 {
	end := off + n
	if pad {
		end = min(end+maxDictHeaderPad, file.FooterOffset)
	}
	return end
}

// isRangeSource reports whether src is read through ranged requests
// (NewReaderFromSource), whose chunks are read whole.
func isRangeSource(src io.ReaderAt) bool {
	_, ok := src.(objstore.RangeSource)
	return ok
}

// ctxReaderAt stops reading once its context is done, as readSpan does
// before each read of whole chunks.
type ctxReaderAt struct {
	ctx context.Context
	r   io.ReaderAt
}

func (c *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.ReadAt(p, off)
}

// chunkRange is the byte range of one leaf column chunk.
type chunkRange struct {
	leaf        int // leaf column index
	offset, end int64
}

// span is one ReadAt: a byte range of the file covering one or more
// column chunks.
type span struct{ offset, end int64 }

// chunkLayout returns the byte ranges of the selected leaves of row group
// rg, sorted by offset, and the reads that cover them: ranges whose gaps
// are small share a read.
func (r *Reader) chunkLayout(rg int) ([]chunkRange, []span, int64, error) {
	leaves := r.plan.leaves
	ranges := make([]chunkRange, 0, len(leaves))
	pad := needsDictPad(r.file.CreatedBy())
	for _, leaf := range leaves {
		off, n, err := r.file.ChunkRange(rg, leaf)
		if err != nil {
			return nil, nil, 0, &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath,
				Page: -1, Offset: -1, Err: err}
		}
		ranges = append(ranges, chunkRange{leaf: leaf, offset: off, end: chunkEnd(r.file, off, n, pad)})
	}
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].offset < ranges[j].offset })
	var reads []span
	for _, cr := range ranges {
		if len(reads) > 0 && cr.offset-reads[len(reads)-1].end <= coalesceGap {
			reads[len(reads)-1].end = max(reads[len(reads)-1].end, cr.end)
			continue
		}
		reads = append(reads, span{cr.offset, cr.end})
	}
	var total int64
	for _, s := range reads {
		total += s.end - s.offset
	}
	return ranges, reads, total, nil
}

// readChunks reads the column chunks of the selected leaves of row group
// rg into r.chunkBuf with as few ReadAt calls as the layout allows, and
// returns each leaf's bytes by leaf index.
func (r *Reader) readChunks(rg int) (map[int][]byte, error) {
	if r.ranged != nil {
		return r.readChunksRanged(rg) // source.go
	}
	out, pieces, err := r.placeChunks(rg, &r.chunkBuf, r.rowGroups[r.nextRG:], r.opts.Parallelism)
	if err != nil {
		return nil, err
	}
	if err := r.readPieces(pieces); err != nil {
		return nil, r.pieceError(rg, err)
	}
	return out, nil
}

// placeChunks lays the column chunks of the selected leaves of row group
// rg out in *buf and returns each leaf's bytes by leaf index and the
// ReadAt calls that fill them, each span split split ways (appendPieces).
// When the leaves read their chunks in windows (chunkSource) it only
// checks the chunks' ranges and returns no bytes and no reads: the leaves
// then get nil chunks and read from the file as they decode.
// A *buf too small is replaced by one sized for the largest of rg and the
// row groups ahead, so that it is not reallocated (and the old one left as
// garbage) row group after row group.
func (r *Reader) placeChunks(rg int, buf *[]byte, ahead []int, split int) (map[int][]byte, []readPiece, error) {
	ranges, reads, total, err := r.chunkLayout(rg)
	if err != nil {
		return nil, nil, err
	}
	if r.opts.chunks != nil {
		*buf = nil
		return map[int][]byte{}, nil, nil
	}
	// The ranges were checked against the file size by ChunkRange, so the
	// total is bounded by the file.
	if int64(cap(*buf)) < total {
		size := total
		for _, other := range ahead {
			if _, _, t, err := r.chunkLayout(other); err == nil {
				size = max(size, t)
			}
		}
		*buf = nil
		*buf = make([]byte, size)
	}
	b := (*buf)[:total]
	out := make(map[int][]byte, len(ranges))
	var pos int64
	ri := 0
	var pieces []readPiece
	for _, s := range reads {
		dst := b[pos : pos+(s.end-s.offset)]
		pieces = appendPieces(pieces, dst, s.offset, split)
		for ri < len(ranges) && ranges[ri].offset < s.end {
			cr := ranges[ri]
			out[cr.leaf] = dst[cr.offset-s.offset : cr.end-s.offset : cr.end-s.offset]
			ri++
		}
		pos += s.end - s.offset
	}
	return out, pieces, nil
}

// pieceError is the error of a failed read of row group rg.
func (r *Reader) pieceError(rg int, err *readError) error {
	return &Error{Op: "read", Path: r.path, RowGroup: rg, Page: -1, Offset: err.offset,
		Err: fmt.Errorf("read %d bytes of column chunks: %w", err.n, err.err)}
}

// readPiece is one ReadAt of a row group's read.
type readPiece struct {
	dst    []byte
	offset int64
}

// minParallelRead is the smallest piece a read is split into when reads
// go in parallel: smaller ones cost more in calls than they save.
const minParallelRead = 1 << 20

// appendPieces adds the ReadAt calls that fill dst from offset: one, or
// with parallelism, up to that many pieces of at least minParallelRead, so
// that copying a row group out of the page cache (or fetching it from
// object storage) uses every goroutine the reader may use.
func appendPieces(pieces []readPiece, dst []byte, offset int64, parallelism int) []readPiece {
	n := 1
	if parallelism > 1 {
		n = max(1, min(parallelism, len(dst)/minParallelRead))
	}
	step := (len(dst) + n - 1) / n
	for len(dst) > 0 {
		k := min(step, len(dst))
		pieces = append(pieces, readPiece{dst[:k], offset})
		dst, offset = dst[k:], offset+int64(k)
	}
	return pieces
}

// readError is a failed piece.
type readError struct {
	offset int64
	n      int
	err    error
}

// readPieces runs the ReadAt calls, in parallel when the reader may, and
// returns the failure at the lowest offset.
func (r *Reader) readPieces(pieces []readPiece) *readError {
	errs := make([]*readError, len(pieces))
	if i, _ := forEach(len(pieces), r.opts.Parallelism, func(i int) error {
		if errs[i] = r.readSpan(pieces[i]); errs[i] != nil {
			return errs[i].err
		}
		return nil
	}); i >= 0 {
		return errs[i]
	}
	return nil
}

// readSpan runs one ReadAt.
func (r *Reader) readSpan(p readPiece) *readError {
	if err := r.opts.Context.Err(); err != nil {
		return &readError{p.offset, len(p.dst), err}
	}
	if n, err := r.src.ReadAt(p.dst, p.offset); n < len(p.dst) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &readError{p.offset, len(p.dst), err}
	}
	return nil
}

// needsDictPad reports whether created_by names a writer from before
// PARQUET-816 (parquet-mr before 1.2.9, or parquet-cpp before 1.3.0 on the
// affected line), whose chunk sizes may miss part of the dictionary page.
func needsDictPad(createdBy string) bool {
	app, ver, ok := parseCreatedBy(createdBy)
	if !ok {
		return false
	}
	switch app {
	case "parquet-mr":
		return versionLess(ver, [3]int{1, 2, 9})
	case "parquet-cpp":
		return versionLess(ver, [3]int{1, 3, 0})
	}
	return false
}

// parseCreatedBy splits "<app> version <x.y.z>[-suffix] (build ...)". A
// bare application name (old parquet-mr wrote just "parquet-mr") has
// version 0.0.0, as Arrow C++ reads it.
func parseCreatedBy(s string) (app string, ver [3]int, ok bool) {
	app, rest, found := strings.Cut(s, " version ")
	if !found {
		app = strings.TrimSpace(s)
		if app == "" || strings.ContainsAny(app, " ()") {
			return "", ver, false
		}
		return strings.ToLower(app), ver, true
	}
	rest, _, _ = strings.Cut(rest, " ")
	rest, _, _ = strings.Cut(rest, "-")
	parts := strings.SplitN(rest, ".", 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return app, ver, i > 0
		}
		ver[i] = n
	}
	return strings.ToLower(strings.TrimSpace(app)), ver, true
}

func versionLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
