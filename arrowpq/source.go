package arrowpq

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/objstore"
)

// OpenURL opens the Parquet file at url for reading: s3://bucket/key
// (credentials, region and endpoint as the AWS SDKs find them; see
// package objstore), http(s)://… (a server that answers Range requests),
// file:///path or a plain local path (read as [OpenFile] does). Remote
// files are read through an [objstore.Source]: the footer with one
// request for the file's tail, the column chunks of each row group in
// coalesced, concurrent requests, the next row groups fetched while the
// current one decodes (see [NewReaderFromSource]).
//
// ctx bounds the opening; the reads use opts.Context, or ctx when that is
// nil. opts and sopts may be nil. Close the Reader to release the source.
func OpenURL(ctx context.Context, url string, opts *ReadOptions, sopts *objstore.Options) (*Reader, error) {
	loc, err := objstore.ParseURL(url)
	if err != nil {
		return nil, &Error{Op: "open", Path: url, RowGroup: -1, Page: -1, Offset: -1, Err: err}
	}
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.Context == nil {
		o.Context = ctx
	}
	if loc.Scheme == "file" {
		return OpenFile(loc.Path, &o)
	}
	var so objstore.Options
	if sopts != nil {
		so = *sopts
	}
	if so.HeadSize == 0 {
		so.HeadSize = 4 // the magic ReadFooter checks, fetched beside the tail
	}
	src, err := objstore.Open(ctx, url, &so)
	if err != nil {
		return nil, &Error{Op: "open", Path: url, RowGroup: -1, Page: -1, Offset: -1, Err: err}
	}
	r, err := NewReaderFromSource(src, &o)
	if err != nil {
		src.Close()
		return nil, err
	}
	r.closer = src
	return r, nil
}

// NewReaderFromSource reads the Parquet file of src ([NewReader] does the
// same when its io.ReaderAt is a RangeSource). Rather than one ReadAt per
// span of column chunks, it asks for the column chunks of each row group
// with one ReadRanges call (which an [objstore.Source]
// coalesces, splits and runs concurrently) and prefetches the row groups
// to come, [objstore.Options.Prefetch] ahead of the one being decoded, so
// that on object storage the latency of a request is paid about once, not
// once per row group. Memory: up to Prefetch+1 row groups of compressed
// column chunks. opts may be nil.
func NewReaderFromSource(src objstore.RangeSource, opts *ReadOptions) (*Reader, error) {
	path := ""
	if u, ok := src.(interface{ URL() string }); ok {
		path = u.URL()
	}
	r, err := newReader(src, src.Size(), path, opts)
	if err != nil {
		return nil, err
	}
	r.ranged = &rangedRead{src: src}
	return r, nil
}

// asRangeSource returns r as a RangeSource when it is one of the given
// size, else nil.
func asRangeSource(r io.ReaderAt, size int64) objstore.RangeSource {
	if rs, ok := r.(objstore.RangeSource); ok && rs.Size() == size {
		return rs
	}
	return nil
}

// rangedRead is the state of a Reader reading through a RangeSource: the
// prefetch of the row groups to read, in order.
type rangedRead struct {
	src   objstore.RangeSource
	pf    *objstore.Prefetch
	order []int // the row groups pf fetches, in order
	pos   int   // index into order of the next one pf returns
}

func (rr *rangedRead) close() {
	if rr.pf != nil {
		rr.pf.Close()
		rr.pf = nil
	}
}

// readChunksRanged is readChunks through the RangeSource. The first call
// plans the row groups left to read (those with rows: loadRowGroup skips
// the others) and starts their prefetch; each call takes the next one.
func (r *Reader) readChunksRanged(rg int) (map[int][]byte, error) {
	rr := r.ranged
	if rr.pf == nil && rr.order == nil && r.nextRG > 0 && r.rowGroups[r.nextRG-1] == rg {
		var sets [][]objstore.Range
		for _, g := range r.rowGroups[r.nextRG-1:] {
			if r.file.Meta.RowGroups[g].NumRows == 0 {
				continue
			}
			set, err := r.chunkSet(g)
			if err != nil {
				break // reported when that row group is reached, by the direct read
			}
			rr.order = append(rr.order, g)
			sets = append(sets, set)
		}
		rr.pf = objstore.NewPrefetch(r.opts.Context, rr.src, sets, objstore.PrefetchDepth(rr.src))
	}
	ranges, _, _, err := r.chunkLayout(rg)
	if err != nil {
		return nil, err
	}
	var bufs [][]byte
	if rr.pf != nil && rr.pos < len(rr.order) && rr.order[rr.pos] == rg {
		rr.pos++
		bufs, err = rr.pf.Next()
	} else {
		set, _ := r.chunkSet(rg)
		bufs, err = rr.src.ReadRanges(r.opts.Context, set)
	}
	if err != nil {
		off := int64(-1)
		var oe *objstore.Error
		if errors.As(err, &oe) {
			off = oe.Off
		}
		return nil, &Error{Op: "read", Path: r.path, RowGroup: rg, Page: -1, Offset: off,
			Err: fmt.Errorf("read column chunks: %w", err)}
	}
	if len(bufs) != len(ranges) {
		return nil, &Error{Op: "read", Path: r.path, RowGroup: rg, Page: -1, Offset: -1,
			Err: fmt.Errorf("range source returned %d ranges for %d column chunks", len(bufs), len(ranges))}
	}
	out := make(map[int][]byte, len(ranges))
	for i, cr := range ranges {
		if int64(len(bufs[i])) != cr.end-cr.offset {
			return nil, &Error{Op: "read", Path: r.path, RowGroup: rg, Page: -1, Offset: cr.offset,
				Err: fmt.Errorf("range source returned %d bytes for a column chunk of %d", len(bufs[i]), cr.end-cr.offset)}
		}
		out[cr.leaf] = bufs[i]
	}
	return out, nil
}

// chunkSet is the byte ranges of the selected column chunks of row group
// rg, in chunkLayout's order.
func (r *Reader) chunkSet(rg int) ([]objstore.Range, error) {
	ranges, _, _, err := r.chunkLayout(rg)
	if err != nil {
		return nil, err
	}
	set := make([]objstore.Range, len(ranges))
	for i, cr := range ranges {
		set[i] = objstore.Range{Off: cr.offset, Len: cr.end - cr.offset}
	}
	return set, nil
}

// committer is where a Writer's file goes when it owns it: an
// [OutputFile] (CreateFile) or an [objstore.Upload] (CreateURL).
type committer interface {
	Commit() error
	Abort() error
}

// CreateURL creates the Parquet file at url and returns a Writer to it:
// for s3://bucket/key an [objstore.Upload], a multipart upload that holds
// one part in memory besides the Writer's row group, and that becomes the
// object only when [Writer.Close] succeeds — on any error or
// [Writer.Abort] the upload is aborted, leaving no object and no parts; a
// file:// URL or a plain path is [CreateFile]. ctx bounds the upload's
// requests. opts and sopts may be nil.
func CreateURL(ctx context.Context, url string, schema *arrow.Schema, opts *WriteOptions, sopts *objstore.Options) (*Writer, error) {
	loc, err := objstore.ParseURL(url)
	if err != nil {
		e := newError("write", err)
		e.Path = url
		return nil, e
	}
	if loc.Scheme == "file" {
		return CreateFile(loc.Path, schema, opts)
	}
	up, err := objstore.Create(ctx, url, sopts)
	if err != nil {
		e := newError("write", err)
		e.Path = url
		return nil, e
	}
	w, err := newWriter(up, schema, opts)
	if err != nil {
		up.Abort()
		var e *Error
		if errors.As(err, &e) {
			e.Path = url
		}
		return nil, err
	}
	w.file, w.filePath = up, url
	return w, nil
}
