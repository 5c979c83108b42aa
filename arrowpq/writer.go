package arrowpq

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

// Version is the version of this module, written into created_by.
const Version = "0.1.0-dev"

// CreatedBy is the created_by string of the files this package writes.
const CreatedBy = "arrowpq version " + Version

// errClosed is returned by calls on a closed Writer.
var errClosed = errors.New("writer is closed")

// errAborted is returned by calls on an aborted Writer.
var errAborted = errors.New("writer was aborted")

// Writer writes Arrow record batches as a Parquet file. Rows are buffered
// as compressed pages until a row group is complete, then written column
// chunk after column chunk; the page indexes and the footer follow on
// [Writer.Close]. A Writer keeps the first error it meets and returns it
// from every later call. It is not safe for concurrent use.
type Writer struct {
	out    *countWriter
	schema *arrow.Schema
	// plain is schema with list views as lists and run-end encoded types
	// as their values (plainLayoutSchema), what the columns are written
	// as; nil when schema has neither.
	plain    *arrow.Schema
	manifest *typemap.WriteManifest
	opts     WriteOptions
	cols     []*columnWriter
	top      []int // per column writer: its top-level field
	mem      memory.Allocator

	rowGroups   []*format.RowGroup
	indexes     []chunkIndex
	rgRows      int64
	buffered    int64   // bytes buffered for the row group
	bytesPerRow float64 // buffered bytes per row, for step sizes
	numRows     int64
	scratch     []byte
	err         error
	closed      bool

	// CreateFile's output, committed by Close and aborted on failure;
	// filePath is the path as given, for errors.
	file     committer
	filePath string

	// fenc encrypts the file (WriteOptions.Encryption), else nil;
	// chunkEnc are the encryptors of the current row group's chunks
	// (encrypt.go).
	fenc     *encryption.FileEncryptor
	chunkEnc []*encryption.ChunkEncryptor
}

// chunkIndex is a column chunk's page index, written before the footer;
// enc encrypts it when the chunk is encrypted.
type chunkIndex struct {
	cc  *format.ColumnChunk
	ci  *format.ColumnIndex
	oi  *format.OffsetIndex
	enc *encryption.ChunkEncryptor
}

// countWriter buffers writes and counts the bytes written.
type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) write(b []byte) error {
	_, err := c.Write(b)
	return err
}

// Write is io.Writer's, for the column writers.
func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// NewWriter returns a Writer of Parquet data with the given Arrow schema to
// w. opts may be nil for the defaults. An Arrow type that Parquet cannot
// store is an error naming the field. Output is buffered: w sees the
// row groups as they complete and the rest on Close, which does not close
// w.
func NewWriter(w io.Writer, schema *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	wr, err := newWriter(w, schema, opts)
	if err != nil {
		return nil, err
	}
	return wr, nil
}

func newWriter(w io.Writer, schema *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	if opts == nil {
		opts = &WriteOptions{}
	}
	plain, layouts := plainLayoutSchema(schema)
	topts := typemap.WriteOptions{
		IgnoreArrowSchema: !opts.ArrowSchema.or(true),
		Int96Timestamps:   opts.Int96Timestamps,
		RootName:          opts.RootName,
	}
	if layouts {
		// ARROW:schema keeps the layouts, for readers to restore.
		topts.ArrowSchema = schema
	}
	m, err := typemap.FromArrow(plain, topts)
	if err != nil {
		return nil, writeError(err)
	}
	if err := opts.checkColumns(m.Schema); err != nil {
		return nil, writeError(err)
	}
	wr := &Writer{out: &countWriter{w: bufio.NewWriterSize(w, 1<<20)}, schema: schema, manifest: m, opts: *opts, mem: opts.Allocator}
	if wr.mem == nil {
		wr.mem = memory.DefaultAllocator
	}
	if layouts {
		wr.plain = plain
	}
	for i, col := range m.Schema.Columns {
		cfg, err := opts.resolve(col)
		if err != nil {
			return nil, writeError(err)
		}
		cw, err := newColumnWriter(col, m.Leaves[i], cfg, wr.mem)
		if err != nil {
			e := writeError(err)
			e.Column = col.DottedPath
			return nil, e
		}
		wr.cols = append(wr.cols, cw)
		top := -1
		for j, f := range m.Fields {
			if f == cw.fields[0] {
				top = j
			}
		}
		wr.top = append(wr.top, top)
	}
	if err := wr.startEncryption(); err != nil { // encrypt.go
		return nil, writeError(err)
	}
	if err := wr.out.write([]byte(wr.magic())); err != nil {
		return nil, writeError(err)
	}
	return wr, nil
}

func writeError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return newError("write", err)
}

// CreateFile creates the Parquet file path and returns a Writer to it,
// through [CreateOutputFile]: an existing file is replaced only by a
// complete file, when Close succeeds; on any error, on [Writer.Abort], or
// when Close is never reached, it stays byte for byte as it was. Symbolic
// links, named pipes and devices are handled as CreateOutputFile says; a
// directory is an error here, before anything is written. Close syncs the
// file to stable storage before the rename unless opts.NoSync is set.
func CreateFile(path string, schema *arrow.Schema, opts *WriteOptions) (*Writer, error) {
	out, err := CreateOutputFile(path)
	if err != nil {
		e := newError("write", err)
		e.Path = path
		return nil, e
	}
	w, err := newWriter(out, schema, opts)
	if err != nil {
		out.Abort()
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return nil, err
	}
	out.noSync = opts != nil && opts.NoSync
	w.file, w.filePath = out, path
	return w, nil
}

// fail records the first error and returns it.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		e := writeError(err)
		if e.Path == "" {
			e.Path = w.filePath
		}
		w.err = e
	}
	return w.err
}

// Write writes the rows of rec, whose schema must equal the Writer's
// (field metadata aside). Rows are cut into row groups as the options say;
// rec may be released once Write returns. Every column is checked first as
// [ValidateArray] does: a malformed array is an *Error naming the column
// (and the child in it) that wraps ErrInvalidArray, and nothing of the
// batch is written.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return newError("write", errClosed)
	}
	if !rec.Schema().Equal(w.schema) {
		return w.fail(fmt.Errorf("record batch schema %s differs from the writer's %s", rec.Schema(), w.schema))
	}
	return w.writeColumns(rec.Columns(), int(rec.NumRows()))
}

// WriteTable writes every row of tbl, chunk after chunk.
func (w *Writer) WriteTable(tbl arrow.Table) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return newError("write", errClosed)
	}
	if !tbl.Schema().Equal(w.schema) {
		return w.fail(fmt.Errorf("table schema %s differs from the writer's %s", tbl.Schema(), w.schema))
	}
	tr := arrowTableReader(tbl)
	defer tr.Release()
	for tr.Next() {
		rec := tr.RecordBatch()
		if err := w.writeColumns(rec.Columns(), int(rec.NumRows())); err != nil {
			return err
		}
	}
	if err := tr.Err(); err != nil {
		return w.fail(err)
	}
	return nil
}

// rowStep bounds the rows written before the row group byte limit is
// checked again.
const rowStep = 64 << 10

func (w *Writer) writeColumns(cols []arrow.Array, numRows int) error {
	// Every array is checked before any is read: the encoders trust
	// offsets, lengths and indices, and a malformed array from a caller
	// or a Flight client must get an error, not a panic on a worker
	// goroutine.
	if len(cols) != w.schema.NumFields() {
		return w.fail(fmt.Errorf("%d columns for the %d fields of the schema: %w", len(cols), w.schema.NumFields(), ErrInvalidArray))
	}
	for i, col := range cols {
		if err := validateColumn(col, w.schema.Field(i), numRows); err != nil {
			e := newError("write", err)
			e.RowGroup = len(w.rowGroups)
			e.Column = w.schema.Field(i).Name
			var ae *arrayError
			if errors.As(err, &ae) && ae.path != "" {
				e.Column += "." + ae.path
				e.Err = &arrayError{msg: ae.msg, cause: ae.cause}
			}
			return w.fail(e)
		}
	}
	if w.plain != nil {
		plain, err := w.plainColumns(cols)
		if err != nil {
			return w.fail(err)
		}
		defer func() {
			for _, c := range plain {
				c.Release()
			}
		}()
		cols = plain
	}
	for i, cw := range w.cols {
		if err := cw.bind(cols[w.top[i]]); err != nil {
			return w.colFail(cw, err)
		}
	}
	maxRows := int64(w.opts.RowGroupRows)
	if maxRows <= 0 {
		maxRows = DefaultRowGroupRows
	}
	maxBytes := w.opts.RowGroupBytes
	if maxBytes <= 0 {
		maxBytes = DefaultRowGroupBytes
	}
	// The arrays belong to the caller once Write returns.
	defer func() {
		for _, cw := range w.cols {
			cw.unbind()
		}
	}()
	for start := 0; start < numRows; {
		n := int(min(int64(numRows-start), maxRows-w.rgRows, rowStep))
		// Steps end near the byte limit, by the bytes per row so far.
		if w.bytesPerRow > 0 {
			n = min(n, max(1, int(float64(maxBytes-w.buffered)/w.bytesPerRow)+1))
		} else {
			n = min(n, 1024)
		}
		if err := w.writeRowsAll(start, n); err != nil {
			return err
		}
		start += n
		w.rgRows += int64(n)
		var buffered int64
		for _, cw := range w.cols {
			buffered += cw.cw.BufferedBytes()
		}
		w.buffered = buffered
		w.bytesPerRow = float64(buffered) / float64(w.rgRows)
		if w.rgRows >= maxRows || buffered >= maxBytes {
			w.buffered = 0
			if err := w.flushRowGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeRowsAll writes rows [start, start+n) of every column, spreading the
// columns over up to Parallelism goroutines. Each column writer has its own
// state, and the chunks are written in column order at the end of the row
// group, so the file does not depend on the schedule.
func (w *Writer) writeRowsAll(start, n int) error {
	par := w.opts.Parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	if i, err := forEach(len(w.cols), par, func(i int) error { return w.cols[i].writeRows(start, n) }); err != nil {
		return w.colFail(w.cols[i], err)
	}
	return nil
}

func (w *Writer) colFail(cw *columnWriter, err error) error {
	e := newError("write", err)
	e.RowGroup = len(w.rowGroups)
	e.Column = cw.col.DottedPath
	return w.fail(e)
}

// flushRowGroup writes the buffered row group.
func (w *Writer) flushRowGroup() error {
	if w.rgRows == 0 {
		return nil
	}
	rg := &format.RowGroup{NumRows: w.rgRows, Ordinal: ptrTo(int16(len(w.rowGroups)))}
	start := w.out.n
	blooms := make([]*metadata.BloomFilter, len(w.cols))
	for i, cw := range w.cols {
		res, scratch, err := cw.cw.Finish(w.out, w.out.n, w.scratch)
		w.scratch = scratch
		if err != nil {
			return w.colFail(cw, err)
		}
		cc := res.Chunk
		if cc.MetaData.NumValues == 0 && w.rgRows > 0 {
			return w.colFail(cw, fmt.Errorf("column chunk without values"))
		}
		rg.Columns = append(rg.Columns, cc)
		rg.TotalByteSize += cc.MetaData.TotalUncompressedSize
		if res.ColumnIndex != nil || res.OffsetIndex != nil {
			w.indexes = append(w.indexes, chunkIndex{cc: cc, ci: res.ColumnIndex, oi: res.OffsetIndex, enc: w.chunkEncryptor(i)})
		}
		blooms[i] = res.Bloom
	}
	rg.FileOffset = ptrTo(start)
	rg.TotalCompressedSize = ptrTo(w.out.n - start)
	// Bloom filters follow the row group's column chunks.
	for i, bf := range blooms {
		if bf == nil {
			continue
		}
		off := w.out.n
		b, err := w.appendBloom(w.scratch[:0], bf, i) // encrypt.go
		w.scratch = b
		if err != nil {
			return w.colFail(w.cols[i], err)
		}
		if err := w.out.write(b); err != nil {
			return w.fail(err)
		}
		md := rg.Columns[i].MetaData
		md.BloomFilterOffset, md.BloomFilterLength = ptrTo(off), ptrTo(int32(len(b)))
	}
	if err := w.encryptColumnChunks(rg); err != nil { // encrypt.go
		return w.fail(err)
	}
	w.rowGroups = append(w.rowGroups, rg)
	w.numRows += w.rgRows
	w.rgRows = 0
	for _, cw := range w.cols {
		cw.startChunk()
	}
	w.encryptChunks()
	return nil
}

// Close writes the last row group, the page indexes and the footer, and
// flushes the output. With CreateFile it closes the file and renames it
// into place. It returns the Writer's first error, if any; calling it again
// returns the same result.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	err := w.finish()
	for _, cw := range w.cols {
		cw.cw.Free()
	}
	if w.file != nil {
		if err != nil {
			w.file.Abort()
		} else if cerr := w.file.Commit(); cerr != nil {
			err = w.fail(cerr)
		}
	}
	return err
}

// Abort ends the Writer without completing the file: no footer is
// written and, with CreateFile, the temporary file is removed so that the
// target is left as it was. Data already passed to the io.Writer of
// NewWriter, or to a pipe or device CreateFile writes straight through,
// stays there; it is not a Parquet file. Abort after Close (or a
// second Abort) does nothing and returns nil.
func (w *Writer) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err == nil {
		w.err = newError("write", errAborted)
	}
	for _, cw := range w.cols {
		cw.cw.Free()
	}
	if w.file != nil {
		if err := w.file.Abort(); err != nil {
			return newError("abort", err)
		}
	}
	return nil
}

func (w *Writer) finish() error {
	if w.err != nil {
		return w.err
	}
	if err := w.flushRowGroup(); err != nil {
		return err
	}
	var err error
	for _, x := range w.indexes {
		if x.ci == nil {
			continue
		}
		off := w.out.n
		if w.scratch, err = w.appendIndex(w.scratch[:0], x, x.ci); err != nil { // encrypt.go
			return w.fail(err)
		}
		if err := w.out.write(w.scratch); err != nil {
			return w.fail(err)
		}
		x.cc.ColumnIndexOffset, x.cc.ColumnIndexLength = ptrTo(off), ptrTo(int32(w.out.n-off))
	}
	for _, x := range w.indexes {
		if x.oi == nil {
			continue
		}
		off := w.out.n
		if w.scratch, err = w.appendIndex(w.scratch[:0], x, x.oi); err != nil {
			return w.fail(err)
		}
		if err := w.out.write(w.scratch); err != nil {
			return w.fail(err)
		}
		x.cc.OffsetIndexOffset, x.cc.OffsetIndexLength = ptrTo(off), ptrTo(int32(w.out.n-off))
	}
	md := &format.FileMetaData{
		Version:   2,
		Schema:    w.manifest.Elements,
		NumRows:   w.numRows,
		RowGroups: w.rowGroups,
		CreatedBy: ptrTo(CreatedBy),
	}
	if md.RowGroups == nil {
		md.RowGroups = []*format.RowGroup{}
	}
	for _, cw := range w.cols {
		order := &format.ColumnOrder{TYPE_ORDER: &format.TypeDefinedOrder{}}
		if cw.cfg.totalOrder {
			order = metadata.TotalOrderColumnOrder()
		}
		md.ColumnOrders = append(md.ColumnOrders, order)
	}
	keys := make([]string, 0, len(w.opts.KeyValueMetadata))
	for k := range w.opts.KeyValueMetadata {
		if k != typemap.ArrowSchemaKey {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := w.opts.KeyValueMetadata[k]
		md.KeyValueMetadata = append(md.KeyValueMetadata, &format.KeyValue{Key: k, Value: &v})
	}
	if w.manifest.KeyValue != nil {
		md.KeyValueMetadata = append(md.KeyValueMetadata, w.manifest.KeyValue)
	}
	if w.scratch, err = w.appendFooter(w.scratch[:0], md); err != nil { // encrypt.go
		return w.fail(err)
	}
	if err := w.out.write(w.scratch); err != nil {
		return w.fail(err)
	}
	if err := w.out.w.Flush(); err != nil {
		return w.fail(err)
	}
	return nil
}

// WriteTable writes tbl as a complete Parquet file to w.
func WriteTable(w io.Writer, tbl arrow.Table, opts *WriteOptions) error {
	pw, err := NewWriter(w, tbl.Schema(), opts)
	if err != nil {
		return err
	}
	if err := pw.WriteTable(tbl); err != nil {
		pw.Close()
		return err
	}
	return pw.Close()
}

func ptrTo[T any](v T) *T { return &v }

func arrowTableReader(tbl arrow.Table) *array.TableReader {
	return array.NewTableReader(tbl, -1)
}
