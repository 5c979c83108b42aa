package arrowpq

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/localfile"
	"github.com/arrowpq/arrowpq/metadata"
)

// Reader reads a Parquet file as a stream of Arrow record batches. It
// implements array.RecordReader: call Next until it returns false, use
// RecordBatch for the current batch, then check Err. A Reader is not safe
// for concurrent use; it decodes the columns of a batch in parallel itself
// when ReadOptions.Parallelism allows.
//
// Memory: a Reader holds a window of each column chunk being read
// (ReadOptions.ChunkWindow; the compressed chunks of one row group when
// reading whole chunks, two with Parallelism > 1) and the batch being
// built; with Parallelism > 1 also the batch after the one Next returns
// (for a field that is most of the read, up to Parallelism-1 batches after
// it: see docs/design/reader.md). The batch returned by RecordBatch is owned by the
// Reader and released by the next call to Next or by Release/Close; Retain
// it to keep it longer.
type Reader struct {
	refs   atomic.Int64
	src    io.ReaderAt
	closer io.Closer
	path   string
	file   *metadata.File
	opts   ReadOptions
	plan   *readPlan

	rowGroups []int
	nextRG    int   // index into rowGroups of the next row group to load
	rg        int   // the row group being read, -1 before the first
	rowsLeft  int64 // rows of rg not yet returned
	chunkBuf  []byte
	pool      *bufferPool // with ReadOptions.RecycleBuffers, else nil
	cur       arrow.RecordBatch
	err       error
	closed    bool
	pipe      *pipeline                 // Parallelism > 1: the batches decoded ahead (parallel.go)
	ranged    *rangedRead               // NewReaderFromSource: reads through a RangeSource
	dec       *encryption.FileDecryptor // nil: the file is not encrypted
	// maxBatchData, when not zero, is the byte array data one batch of one
	// leaf may hold (a test hook: SetMaxBatchData); twins of the pipeline's
	// split fields follow it.
	maxBatchData int

	// Filtered reads (filterread.go) and Stats.
	filt    *filterRead
	stats   Stats
	counter *byteCounter
}

// OpenFile opens the Parquet file at path. Close the Reader to close the
// file. opts may be nil.
func OpenFile(path string, opts *ReadOptions) (*Reader, error) {
	f, size, err := localfile.Open(path)
	if errors.Is(err, localfile.ErrIsDir) {
		return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1, Err: localfile.ErrIsDir}
	}
	if err != nil {
		return nil, err
	}
	r, err := newReader(f, size, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewReader reads the Parquet file of the given size from r. opts may be
// nil. The footer is read and checked here; pages are read by Next. An r
// that is an [objstore.RangeSource] of that size is read as
// [NewReaderFromSource] does.
func NewReader(r io.ReaderAt, size int64, opts *ReadOptions) (*Reader, error) {
	if rs := asRangeSource(r, size); rs != nil {
		return NewReaderFromSource(rs, opts) // source.go
	}
	return newReader(r, size, "", opts)
}

func newReader(src io.ReaderAt, size int64, path string, o *ReadOptions) (*Reader, error) {
	opts, err := o.normalized()
	if err != nil {
		return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1, Err: fmt.Errorf("options: %w", err)}
	}
	pool, _ := opts.Allocator.(*bufferPool) // set by normalized with RecycleBuffers
	orig := src
	counter := &byteCounter{r: src}
	src = counter
	file, dec, err := readFooter(src, size, &opts) // decrypt.go
	if err != nil {
		return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1, Err: err}
	}
	if dec == nil {
		opts.adoptRetired() // retired.go
	}
	opts.chunks = newChunkSource(src, file, &opts, dec != nil || isRangeSource(orig))
	plan, err := newReadPlan(file, &opts)
	if err != nil {
		return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1, Err: err}
	}
	r := &Reader{src: src, path: path, file: file, opts: opts, plan: plan, rg: -1, pool: pool, dec: dec, counter: counter}
	r.refs.Store(1)
	if opts.RowGroups == nil {
		r.rowGroups = make([]int, len(file.Meta.RowGroups))
		for i := range r.rowGroups {
			r.rowGroups[i] = i
		}
	} else {
		for _, rg := range opts.RowGroups {
			if rg < 0 || rg >= len(file.Meta.RowGroups) {
				return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1,
					Err: fmt.Errorf("row group %d does not exist: the file has %d", rg, len(file.Meta.RowGroups))}
			}
		}
		r.rowGroups = append([]int(nil), opts.RowGroups...)
	}
	r.stats.RowGroups = len(r.rowGroups)
	if opts.Filter != nil || opts.Rows != nil {
		if r.filt, err = newFilterRead(r); err != nil {
			return nil, &Error{Op: "open", Path: path, RowGroup: -1, Page: -1, Offset: -1, Err: err}
		}
	}
	return r, nil
}

// Metadata returns the parsed footer of the file.
func (r *Reader) Metadata() *metadata.File { return r.file }

// Schema returns the Arrow schema of the batches, projection applied.
func (r *Reader) Schema() *arrow.Schema { return r.plan.schema }

// NumRows returns the number of rows of the selected row groups: the rows
// the Reader returns without ReadOptions.Filter and Rows, an upper bound
// with them (Stats().RowsReturned counts what came back).
func (r *Reader) NumRows() int64 {
	var n int64
	for _, rg := range r.rowGroups {
		n += r.file.Meta.RowGroups[rg].NumRows
	}
	return n
}

// Retain adds a reference to the Reader.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one closes the Reader.
func (r *Reader) Release() {
	if r.refs.Add(-1) == 0 {
		r.Close()
	}
}

// Close releases the current batch and the decoders' buffers and closes
// the file when the Reader opened it. It is safe to call more than once.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.ranged != nil {
		r.ranged.close()
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.pipe != nil {
		r.pipe.shutdown()
	}
	r.plan.release()
	if r.opts.prefetch != nil {
		r.opts.prefetch.wait()
	}
	if r.filt != nil {
		r.filt.release()
	}
	r.chunkBuf = nil
	r.retireBuffers() // retired.go: after every task above has ended
	if r.pool != nil {
		r.pool.close()
	}
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// Err returns the error that ended Next, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// RecordBatch returns the current batch, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: Use [Reader.RecordBatch].
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Next reads the next batch and reports whether there is one.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.closed {
		return false
	}
	if err := r.opts.Context.Err(); err != nil {
		r.err = err
		if r.pipe != nil {
			r.pipe.shutdown()
		}
		return false
	}
	if r.filt != nil {
		return r.nextFiltered() // filterread.go
	}
	if r.pipe == nil && r.rowsLeft == 0 && r.usePipeline() {
		r.pipe = newPipeline(r)
	}
	if r.pipe != nil {
		if ok, done := r.nextPipelined(); done {
			return ok
		}
		// A batch outgrew 32-bit offsets: the rest is read batch by batch.
	}
	for r.rowsLeft == 0 {
		if r.nextRG >= len(r.rowGroups) {
			return false
		}
		rg := r.rowGroups[r.nextRG]
		r.nextRG++
		if err := r.loadRowGroup(rg); err != nil {
			r.err = err
			return false
		}
	}
	n := int64(r.opts.BatchSize)
	if n > r.rowsLeft {
		n = r.rowsLeft
	}
	cols, got, err := r.decodeFitting(int(n))
	if err != nil {
		r.err = err
		return false
	}
	n = int64(got)
	r.setBatch(cols, n)
	r.rowsLeft -= n
	return true
}

// setBatch makes cols, whose references it takes over, the current batch.
func (r *Reader) setBatch(cols []arrow.Array, n int64) {
	r.cur = array.NewRecordBatch(r.plan.schema, cols, n)
	if r.pool != nil {
		// Room in the pool for this batch once it is released, so that
		// the next batch is built from its buffers.
		var size int64
		for _, c := range cols {
			size += heldBytes(c.Data())
		}
		r.pool.grow(int(size + size/4))
	}
	for _, c := range cols {
		c.Release()
	}
	r.opts.scratch.endBatch()
	r.stats.RowsDecoded += n
	r.stats.RowsReturned += n
}

// nextPipelined is Next on the pipeline. done is false when the batch
// Next waits for outgrew 32-bit offsets: the pipeline is then stopped and
// the Reader set to read the rest of the row group batch by batch,
// restarted with half the batch size, as decodeFitting does.
func (r *Reader) nextPipelined() (ok, done bool) {
	p := r.pipe
	if p.want >= len(p.batches) {
		p.shutdown()
		return false, true
	}
	b := p.batches[p.want]
	cols, g, field, err := p.take()
	r.rg = g.rg
	if err != nil {
		var full *column.BatchFullError
		if field >= 0 && b.rows > 1 && errors.As(err, &full) {
			if err := r.leavePipeline(g); err != nil {
				r.err = err
				return false, true
			}
			return false, false
		}
		p.shutdown()
		if field >= 0 {
			err = r.locate(err, r.plan.fields[field])
		}
		r.err = err
		return false, true
	}
	r.plan.chunks, r.plan.order = g.chunks, g.order
	r.setBatch(cols, int64(b.rows))
	return true, true
}

// leavePipeline stops the pipeline at batch p.want, in group g, and
// restarts g for the batch-by-batch read with half the batch size.
func (r *Reader) leavePipeline(g *pipeGroup) error {
	p := r.pipe
	p.shutdown()
	r.pipe = nil
	var left int64
	for _, b := range p.batches[p.want:] {
		if b.group == g {
			left += int64(b.rows)
		}
	}
	r.rg, r.rowsLeft, r.nextRG = g.rg, left, g.pos+1
	r.chunkBuf = p.slots[g.index%2]
	r.plan.chunks = g.chunks
	r.plan.order = g.order
	r.plan.batchCap = (p.batches[p.want].rows + 1) / 2
	return r.restartRowGroup()
}

// heldBytes is the memory held by the buffers of d and its children.
func heldBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Cap())
		}
	}
	for _, c := range d.Children() {
		n += heldBytes(c)
	}
	return n
}

// loadRowGroup reads the compressed column chunks of the selected leaves
// of row group rg and hands them to the decoders.
func (r *Reader) loadRowGroup(rg int) error {
	r.rg = rg
	r.rowsLeft = r.file.Meta.RowGroups[rg].NumRows
	if r.rowsLeft == 0 {
		return nil
	}
	chunks, err := r.readChunks(rg)
	if err != nil {
		return err
	}
	if err := r.plan.startRowGroup(r, rg, chunks); err != nil {
		return err
	}
	r.plan.orderByWork(r.file, rg)
	return nil
}

// decodeBatch decodes numRows rows of every selected top-level field, in
// parallel when allowed, and returns one array per field.
func (r *Reader) decodeBatch(numRows int) ([]arrow.Array, error) {
	fields := r.plan.fields
	cols := make([]arrow.Array, len(fields))
	errs := make([]error, len(fields))
	// Fields are taken up largest first (plan.order); a failure is reported
	// for the first failing field in schema order, whatever the schedule.
	forEach(len(fields), r.opts.Parallelism, func(k int) error {
		i := r.plan.order[k]
		// call, so that a panic is this field's error (ErrInternal).
		errs[i] = call(func(int) error {
			var err error
			cols[i], err = fields[i].next(numRows)
			return err
		}, i)
		return errs[i]
	})
	for i, err := range errs {
		if err != nil {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
			return nil, r.locate(err, fields[i])
		}
	}
	return cols, nil
}

// locate wraps err from decoding field f in an *Error that says where.
func (r *Reader) locate(err error, f fieldDecoder) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Path == "" {
			e.Path = r.path
		}
		if e.RowGroup < 0 {
			e.RowGroup = r.rg
		}
		return e
	}
	e = &Error{Op: "read", Path: r.path, RowGroup: r.rg, Page: -1, Offset: -1, Err: err}
	if n, ok := f.(interface{ name() string }); ok {
		e.Column = n.name()
	}
	return e
}

// ReadTable reads the whole file (or the row groups and columns opts
// selects) into a table. opts may be nil; ctx overrides opts.Context.
func ReadTable(ctx context.Context, r io.ReaderAt, size int64, opts *ReadOptions) (arrow.Table, error) {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	o.Context = ctx
	rd, err := NewReader(r, size, &o)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return ReadAll(rd)
}
