package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/typemap"
)

// Formats convert reads and writes.
const (
	fmtParquet = "parquet"
	fmtArrow   = "arrow"  // Arrow IPC file (also .feather, Feather v2)
	fmtArrows  = "arrows" // Arrow IPC stream
	fmtCSV     = "csv"
	fmtTSV     = "tsv"
	fmtJSON    = "json"   // one JSON array of objects (reads NDJSON too)
	fmtNDJSON  = "ndjson" // one JSON object per line (also jsonl)
)

var formatNames = []string{fmtParquet, fmtArrow, fmtArrows, fmtCSV, fmtTSV, fmtJSON, fmtNDJSON}

// parseFormat checks a --from/--to value; "" stays "" (from the name).
func parseFormat(flagName, s string) (string, error) {
	switch s = strings.ToLower(s); s {
	case "":
		return "", nil
	case "feather", "ipc":
		return fmtArrow, nil
	case "jsonl":
		return fmtNDJSON, nil
	}
	for _, f := range formatNames {
		if s == f {
			return s, nil
		}
	}
	return "", &usageError{fmt.Sprintf("unknown --%s %q: want %s", flagName, s, strings.Join(formatNames, ", "))}
}

// formatOfExt returns the format named by the extension of path, or "".
func formatOfExt(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return fmtParquet
	case ".arrow", ".feather", ".ipc":
		return fmtArrow
	case ".arrows":
		return fmtArrows
	case ".csv":
		return fmtCSV
	case ".tsv", ".tab":
		return fmtTSV
	case ".json":
		return fmtJSON
	case ".ndjson", ".jsonl":
		return fmtNDJSON
	}
	return ""
}

// formatOfMagic returns the format whose magic head starts with, or "".
func formatOfMagic(head []byte) string {
	switch {
	case len(head) >= 4 && (string(head[:4]) == "PAR1" || string(head[:4]) == "PARE"): // PARE: encrypted footer
		return fmtParquet
	case len(head) >= 6 && string(head[:6]) == "ARROW1":
		return fmtArrow
	}
	return ""
}

// sniffFormat tells the format of an input from its first bytes when
// neither a magic number nor an extension says it: an IPC stream starts
// with the continuation marker, JSON with { or [, anything else is CSV.
func sniffFormat(head []byte) string {
	if f := formatOfMagic(head); f != "" {
		return f
	}
	if len(head) >= 4 && string(head[:4]) == "\xff\xff\xff\xff" {
		return fmtArrows
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return fmtJSON
	}
	return fmtCSV
}

// batchSource yields the record batches of the input.
type batchSource struct {
	name    string
	schema  *arrow.Schema
	kv      map[string]string // key/value metadata to carry over
	total   int64             // rows, -1 when unknown
	size    int64             // bytes of input, -1 when unknown
	done    func() int64      // bytes of input consumed so far (estimate)
	next    func() (arrow.RecordBatch, error)
	close   func() error
	release bool // batches from next must be released by the caller
}

// sourceOptions are how inputs are read.
type sourceOptions struct {
	from   string // format, "" to detect
	read   arrowpq.ReadOptions
	text   textOptions
	schema *arrow.Schema // --schema: the columns of CSV and JSON input
}

// openSource opens the input called name in its format: opts.from, else
// the magic number, else the extension, else a sniff of the first bytes.
func openSource(ctx context.Context, name string, opts *sourceOptions) (*batchSource, error) {
	format := opts.from
	if format == "" && name != "-" {
		format = formatOfExt(name)
	}
	switch format {
	case fmtArrows, fmtCSV, fmtTSV, fmtJSON, fmtNDJSON:
		in, err := openInput(ctx, name, false)
		if err != nil {
			return nil, err
		}
		return openStreamSource(in, format, opts)
	}
	// Parquet, IPC file or unknown: look at the magic number. A stream on
	// stdin is not copied to a temporary file unless it is a file format.
	in, err := openInput(ctx, name, false)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(in.rd, 1<<20)
	head, _ := br.Peek(64)
	magic := formatOfMagic(head)
	if magic == "" {
		if format != "" && format != fmtArrows {
			in.close()
			return nil, fmt.Errorf("%s: not a %s file (no magic number)", name, format)
		}
		in.rd = br
		return openStreamSource(in, sniffFormat(head), opts)
	}
	if in.ra == nil {
		// stdin holding a file format, read from its end.
		if err := in.spool(br); err != nil {
			return nil, err
		}
	}
	if magic == fmtParquet {
		src, err := openParquetSource(ctx, in, opts)
		if err != nil {
			in.close()
		}
		return src, err
	}
	src, err := openIPCFile(in)
	if err != nil {
		in.close()
		return nil, err
	}
	if src, err = filterSource(src, opts.read.Filter); err != nil {
		return nil, err
	}
	return selectColumns(src, opts.read.Columns)
}

// selectColumns keeps the top-level columns of src that cols names (a
// name, or a dotted path inside it), for the formats whose readers cannot
// select columns themselves; the Parquet reader does it while reading.
func selectColumns(src *batchSource, cols []string) (*batchSource, error) {
	if len(cols) == 0 {
		return src, nil
	}
	var keep []int
	for i, f := range src.schema.Fields() {
		for _, c := range cols {
			if c == f.Name || strings.HasPrefix(c, f.Name+".") {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == 0 {
		src.close()
		return nil, fmt.Errorf("%s: none of the columns %s is in the input", src.name, strings.Join(cols, ", "))
	}
	fields := make([]arrow.Field, len(keep))
	for k, i := range keep {
		fields[k] = src.schema.Field(i)
	}
	md := src.schema.Metadata()
	schema := arrow.NewSchema(fields, &md)
	inner := src.next
	release := src.release
	src.schema, src.release = schema, true
	src.next = func() (arrow.RecordBatch, error) {
		rec, err := inner()
		if err != nil {
			return nil, err
		}
		cols := make([]arrow.Array, len(keep))
		for k, i := range keep {
			cols[k] = rec.Column(i)
		}
		out := array.NewRecordBatch(schema, cols, rec.NumRows())
		if release {
			rec.Release()
		}
		return out, nil
	}
	return src, nil
}

// openStreamSource reads the formats that are read front to back.
func openStreamSource(in *input, format string, opts *sourceOptions) (*batchSource, error) {
	var (
		src *batchSource
		err error
	)
	cr := &countingReader{r: in.rd}
	switch format {
	case fmtCSV, fmtTSV:
		src, err = openCSV(cr, format, opts)
	case fmtJSON, fmtNDJSON:
		src, err = openJSON(cr, opts)
	default:
		src, err = openStream(bufio.NewReaderSize(cr, 1<<20))
	}
	if err != nil {
		in.close()
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	src.name = in.name
	next := src.next
	src.next = func() (arrow.RecordBatch, error) {
		rec, err := next()
		if err != nil && err != io.EOF {
			err = fmt.Errorf("%s: %w", in.name, err)
			if opts.schema == nil && format != fmtArrows && !errors.Is(err, csv.ErrFieldCount) {
				err = fmt.Errorf("%w (the column types were inferred from the first %d rows: raise --sample-rows or give --schema)", err, max(opts.text.sampleRows, 1))
			}
		}
		return rec, err
	}
	src.size = -1
	if in.ra != nil {
		src.size = in.size
	}
	src.done = func() int64 { return cr.n }
	if src, err = filterSource(src, opts.read.Filter); err != nil {
		in.close()
		return nil, err
	}
	if src, err = selectColumns(src, opts.read.Columns); err != nil {
		in.close()
		return nil, err
	}
	inner := src.close
	src.close = func() error {
		err := inner()
		if cerr := in.close(); err == nil {
			err = cerr
		}
		return err
	}
	return src, nil
}

// countingReader counts the bytes read through it, for progress.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func openParquetSource(ctx context.Context, in *input, opts *sourceOptions) (*batchSource, error) {
	ropts := opts.read
	var (
		r   *arrowpq.Reader
		err error
	)
	if in.name != "-" && in.path != "" {
		// OpenFile names the file in every error, also of later reads.
		r, err = arrowpq.OpenFile(in.path, &ropts)
		if err == nil {
			in.close()
			in.close = func() error { return nil }
		}
	} else {
		r, err = arrowpq.NewReader(in.ra, in.size, &ropts)
	}
	if err != nil {
		return nil, err
	}
	kv := map[string]string{}
	for _, e := range r.Metadata().Meta.KeyValueMetadata {
		if e != nil && e.Key != typemap.ArrowSchemaKey {
			v := ""
			if e.Value != nil {
				v = *e.Value
			}
			kv[e.Key] = v
		}
	}
	total := r.NumRows()
	if ropts.Filter != nil || ropts.Rows != nil {
		total = -1 // known once read
	}
	var rows int64
	return &batchSource{name: in.name, schema: r.Schema(), kv: kv, total: total, size: in.size,
		done: func() int64 {
			if total <= 0 {
				return 0
			}
			return int64(float64(in.size) * float64(rows) / float64(total))
		},
		close: func() error { r.Close(); return in.close() },
		next: func() (arrow.RecordBatch, error) {
			if r.Next() {
				rows += r.RecordBatch().NumRows()
				return r.RecordBatch(), nil
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}}, nil
}

func openIPCFile(in *input) (*batchSource, error) {
	fr, err := ipc.NewFileReader(io.NewSectionReader(in.ra, 0, in.size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	i := 0
	return &batchSource{name: in.name, schema: fr.Schema(), kv: schemaKV(fr.Schema()), total: -1, size: in.size, release: true,
		done: func() int64 {
			if fr.NumRecords() == 0 {
				return 0
			}
			return in.size * int64(i) / int64(fr.NumRecords())
		},
		close: func() error { fr.Close(); return in.close() },
		next: func() (arrow.RecordBatch, error) {
			if i >= fr.NumRecords() {
				return nil, io.EOF
			}
			rec, err := fr.RecordBatchAt(i)
			i++
			return rec, err
		}}, nil
}

// openStream reads an Arrow IPC stream from r.
func openStream(r io.Reader) (*batchSource, error) {
	sr, err := ipc.NewReader(r)
	if err != nil {
		return nil, err
	}
	return &batchSource{schema: sr.Schema(), kv: schemaKV(sr.Schema()), total: -1,
		close: func() error { sr.Release(); return nil },
		next: func() (arrow.RecordBatch, error) {
			if sr.Next() {
				return sr.RecordBatch(), nil
			}
			if err := sr.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}}, nil
}

// schemaKV is the schema metadata of an Arrow input as Parquet key/value
// metadata.
func schemaKV(sc *arrow.Schema) map[string]string {
	md := sc.Metadata()
	kv := make(map[string]string, md.Len())
	for i, k := range md.Keys() {
		if k != typemap.ArrowSchemaKey {
			kv[k] = md.Values()[i]
		}
	}
	return kv
}

// withKV returns sc with the key/value metadata added to its schema
// metadata (keys sc has already keep their values).
func withKV(sc *arrow.Schema, kv map[string]string) *arrow.Schema {
	if len(kv) == 0 {
		return sc
	}
	md := sc.Metadata()
	keys, values := append([]string(nil), md.Keys()...), append([]string(nil), md.Values()...)
	extra := make([]string, 0, len(kv))
	for k := range kv {
		if md.FindKey(k) < 0 {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		keys, values = append(keys, k), append(values, kv[k])
	}
	nmd := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(sc.Fields(), &nmd)
}
