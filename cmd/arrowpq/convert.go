package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
)

func init() {
	register(&command{
		name: "convert",
		summary: "convert between Parquet and Arrow IPC (file or stream)\n\n" +
			"The footer's key/value metadata is kept: Parquet to Parquet as it is, Parquet\n" +
			"to Arrow as schema metadata, Arrow to Parquet from the schema metadata. The\n" +
			"ARROW:schema entry is not copied: the writer builds its own from the schema.\n\n" +
			"OUT is written to a temporary file renamed over OUT at the end, so a failed\n" +
			"convert leaves an existing OUT as it was. OUT - writes to stdout (Parquet\n" +
			"unless --to says otherwise); a FIFO or device is written straight through;\n" +
			"a symlink is followed and the link kept. IN - reads stdin.",
		usage: "[--to parquet|arrow|arrows] [--compression C] [--dictionary=false] [--page-version 1|2] [--row-group-rows N] [--int96-unit us] [--skip-checksums] [--max-page-size SIZE] IN OUT",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			to := fs.String("to", "", "output format: parquet, arrow (IPC file, also .feather) or arrows (IPC stream); default from OUT's extension")
			compression := fs.String("compression", "snappy", "Parquet codec: snappy, zstd, gzip, brotli, lz4_raw, lz4 or none")
			level := fs.Int("compression-level", 0, "Parquet codec level (0: the codec's default; snappy 2: the slower encoder arrow-go uses, smaller on text)")
			dictionary := fs.Bool("dictionary", true, "dictionary-encode Parquet columns")
			pageVersion := fs.Int("page-version", 1, "Parquet data page version: 1 or 2")
			rowGroupRows := fs.Int("row-group-rows", arrowpq.DefaultRowGroupRows, "rows per Parquet row group at most")
			var rf readFlags
			rf.register(fs)
			return func(args []string, out io.Writer) error {
				if len(args) != 2 {
					return &usageError{fmt.Sprintf("want IN and OUT, got %d arguments", len(args))}
				}
				in, outPath := args[0], args[1]
				outFmt := *to
				if outFmt == "" {
					if outPath == "-" {
						outFmt = fmtParquet
					} else if outFmt = formatOfExt(outPath); outFmt == "" {
						return &usageError{fmt.Sprintf("cannot tell the format of %s from its extension: use --to", outPath)}
					}
				}
				if outFmt == "feather" {
					outFmt = fmtArrow
				}
				if outFmt != fmtParquet && outFmt != fmtArrow && outFmt != fmtArrows {
					return &usageError{fmt.Sprintf("unknown --to %q: want parquet, arrow or arrows", outFmt)}
				}
				codec, err := arrowpq.ParseCompression(*compression)
				if err != nil {
					return &usageError{err.Error()}
				}
				if *pageVersion != 1 && *pageVersion != 2 {
					return &usageError{fmt.Sprintf("--page-version %d: want 1 or 2", *pageVersion)}
				}
				if outPath == "-" && isTTY(out) {
					return fmt.Errorf("not writing binary %s data to a terminal: redirect stdout or name a file", outFmt)
				}
				if outPath != "-" {
					if st, err := os.Stat(outPath); err == nil && st.IsDir() {
						return fmt.Errorf("%s is a directory: OUT names the file to write", outPath)
					}
				}
				wopts := &arrowpq.WriteOptions{
					Compression:      codec,
					CompressionLevel: *level,
					DataPageV2:       *pageVersion == 2,
					RowGroupRows:     *rowGroupRows,
				}
				if !*dictionary {
					wopts.Dictionary = arrowpq.Off
				}
				var ropts arrowpq.ReadOptions
				rf.apply(&ropts)
				src, err := openSource(in, &ropts)
				if err != nil {
					return err
				}
				defer src.close()
				return convert(src, outPath, outFmt, wopts, out, newProgress(os.Stderr))
			}
		},
	})
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
	}
	return ""
}

// detectInput tells the input format by its first bytes (Parquet and the
// IPC file format start with magic), else by extension.
func detectInput(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var head [6]byte
	n, _ := io.ReadFull(f, head[:])
	if format := formatOfMagic(head[:n]); format != "" {
		return format, nil
	}
	if f := formatOfExt(path); f == fmtArrows || f == "" {
		return fmtArrows, nil // the stream format has no magic
	}
	return "", fmt.Errorf("%s: not a Parquet or Arrow IPC file", path)
}

// formatOfMagic returns the format whose magic head starts with, or "".
func formatOfMagic(head []byte) string {
	switch {
	case len(head) >= 4 && string(head[:4]) == "PAR1":
		return fmtParquet
	case len(head) >= 6 && string(head[:6]) == "ARROW1":
		return fmtArrow
	}
	return ""
}

// batchSource yields the record batches of the input.
type batchSource struct {
	schema  *arrow.Schema
	kv      map[string]string // key/value metadata to carry over
	total   int64             // rows, -1 when unknown
	next    func() (arrow.RecordBatch, error)
	close   func() error
	release bool // batches from next must be released by the caller
}

// openSource opens the input path ("-": stdin). A Parquet or IPC file on
// stdin is copied to a temporary file first, since both are read from
// their end; an IPC stream is read as it comes.
func openSource(path string, ropts *arrowpq.ReadOptions) (*batchSource, error) {
	if path != "-" {
		format, err := detectInput(path)
		if err != nil {
			return nil, err
		}
		return openFileSource(path, format, ropts)
	}
	br := bufio.NewReaderSize(stdin, 1<<20)
	head, _ := br.Peek(6)
	format := formatOfMagic(head)
	if format == "" {
		return openStream(br, func() error { return nil })
	}
	f, err := os.CreateTemp("", "arrowpq-stdin-*")
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(f, br)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("copy stdin: %w", err)
	}
	src, err := openFileSource(f.Name(), format, ropts)
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	closeFile := src.close
	src.close = func() error {
		err := closeFile()
		os.Remove(f.Name())
		return err
	}
	return src, nil
}

func openFileSource(path, format string, ropts *arrowpq.ReadOptions) (*batchSource, error) {
	switch format {
	case fmtParquet:
		r, err := arrowpq.OpenFile(path, ropts)
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
		return &batchSource{schema: r.Schema(), kv: kv, total: r.NumRows(), close: r.Close, next: func() (arrow.RecordBatch, error) {
			if r.Next() {
				return r.RecordBatch(), nil
			}
			if err := r.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}}, nil
	case fmtArrow:
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fr, err := ipc.NewFileReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		i := 0
		return &batchSource{schema: fr.Schema(), kv: schemaKV(fr.Schema()), total: -1, release: true,
			close: func() error { fr.Close(); return f.Close() },
			next: func() (arrow.RecordBatch, error) {
				if i >= fr.NumRecords() {
					return nil, io.EOF
				}
				rec, err := fr.RecordBatchAt(i)
				i++
				return rec, err
			}}, nil
	default:
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		src, err := openStream(bufio.NewReaderSize(f, 1<<20), f.Close)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return src, nil
	}
}

// openStream reads an Arrow IPC stream from r; closeFn closes what r
// reads.
func openStream(r io.Reader, closeFn func() error) (*batchSource, error) {
	sr, err := ipc.NewReader(r)
	if err != nil {
		return nil, err
	}
	return &batchSource{schema: sr.Schema(), kv: schemaKV(sr.Schema()), total: -1,
		close: func() error { sr.Release(); return closeFn() },
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

// batchSink takes record batches and finishes the output.
type batchSink struct {
	write func(arrow.RecordBatch) error
	close func() error
	abort func()
}

// openSink opens the output: path, or stdout for "-". Parquet files go
// through arrowpq.CreateFile (temporary file, renamed on Close, removed
// by Abort); IPC files through createOutput, which does the same in the
// CLI.
func openSink(path, format string, src *batchSource, opts *arrowpq.WriteOptions, stdout io.Writer) (*batchSink, error) {
	if format == fmtParquet {
		opts.KeyValueMetadata = src.kv
		var w *arrowpq.Writer
		var err error
		if path == "-" {
			w, err = arrowpq.NewWriter(stdout, src.schema, opts)
		} else {
			w, err = arrowpq.CreateFile(path, src.schema, opts)
		}
		if err != nil {
			return nil, err
		}
		return &batchSink{write: w.Write, close: w.Close, abort: func() { w.Abort() }}, nil
	}
	var (
		dst    io.Writer
		commit = func() error { return nil }
		abort  = func() {}
	)
	if path == "-" {
		dst = stdout
	} else {
		o, err := createOutput(path)
		if err != nil {
			return nil, err
		}
		dst, commit, abort = o, o.Commit, func() { o.Abort() }
	}
	bw := bufio.NewWriterSize(dst, 1<<20)
	schema := withKV(src.schema, src.kv)
	finish := func(closeWriter func() error) error {
		err := closeWriter()
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			abort()
			return err
		}
		return commit()
	}
	// The batches carry the input's schema; the writer's has the
	// metadata added, so each batch is re-labelled (no data is copied).
	relabel := func(write func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
		if schema == src.schema {
			return write
		}
		return func(rec arrow.RecordBatch) error {
			r := array.NewRecordBatch(schema, rec.Columns(), rec.NumRows())
			defer r.Release()
			return write(r)
		}
	}
	if format == fmtArrow {
		fw, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema))
		if err != nil {
			abort()
			return nil, err
		}
		return &batchSink{write: relabel(fw.Write), close: func() error { return finish(fw.Close) }, abort: abort}, nil
	}
	sw := ipc.NewWriter(bw, ipc.WithSchema(schema))
	return &batchSink{write: relabel(sw.Write), close: func() error { return finish(sw.Close) }, abort: abort}, nil
}

func convert(src *batchSource, out, outFmt string, opts *arrowpq.WriteOptions, stdout io.Writer, p *progress) error {
	sink, err := openSink(out, outFmt, src, opts, stdout)
	if err != nil {
		return err
	}
	var rows int64
	for {
		rec, err := src.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			sink.abort()
			return err
		}
		werr := sink.write(rec)
		rows += rec.NumRows()
		if src.release {
			rec.Release()
		}
		if werr != nil {
			sink.abort()
			return werr
		}
		p.update(rows, src.total)
	}
	if err := sink.close(); err != nil {
		return err
	}
	p.done(rows)
	return nil
}

// progress prints a progress line on a terminal, and nothing otherwise.
type progress struct {
	w     io.Writer // nil: silent
	start time.Time
	last  time.Time
}

func newProgress(f *os.File) *progress {
	p := &progress{start: time.Now()}
	if isTerminal(f) {
		p.w = f
	}
	return p
}

func (p *progress) update(rows, total int64) {
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	if total > 0 {
		fmt.Fprintf(p.w, "\r%d of %d rows (%.0f%%)\x1b[K", rows, total, 100*float64(rows)/float64(total))
	} else {
		fmt.Fprintf(p.w, "\r%d rows\x1b[K", rows)
	}
}

func (p *progress) done(rows int64) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r%d rows in %.1fs\x1b[K\n", rows, time.Since(p.start).Seconds())
}
