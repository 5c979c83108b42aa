package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// Formats convert reads and writes.
const (
	fmtParquet = "parquet"
	fmtArrow   = "arrow"  // Arrow IPC file (also .feather, Feather v2)
	fmtArrows  = "arrows" // Arrow IPC stream
)

func init() {
	register(&command{
		name:    "convert",
		summary: "convert between Parquet and Arrow IPC (file or stream)",
		usage:   "[--to parquet|arrow|arrows] [--compression C] [--dictionary=false] [--page-version 1|2] [--row-group-rows N] IN OUT",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			to := fs.String("to", "", "output format: parquet, arrow (IPC file, also .feather) or arrows (IPC stream); default from OUT's extension")
			compression := fs.String("compression", "snappy", "Parquet codec: snappy, zstd, gzip, brotli, lz4_raw, lz4 or none")
			level := fs.Int("compression-level", 0, "Parquet codec level (0: the codec's default; snappy 2: the slower encoder arrow-go uses, smaller on text)")
			dictionary := fs.Bool("dictionary", true, "dictionary-encode Parquet columns")
			pageVersion := fs.Int("page-version", 1, "Parquet data page version: 1 or 2")
			rowGroupRows := fs.Int("row-group-rows", arrowpq.DefaultRowGroupRows, "rows per Parquet row group at most")
			return func(args []string, out io.Writer) error {
				if len(args) != 2 {
					return &usageError{fmt.Sprintf("want IN and OUT, got %d arguments", len(args))}
				}
				in, outPath := args[0], args[1]
				inFmt, err := detectInput(in)
				if err != nil {
					return err
				}
				outFmt := *to
				if outFmt == "" {
					if outFmt = formatOfExt(outPath); outFmt == "" {
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
				wopts := &arrowpq.WriteOptions{
					Compression:      codec,
					CompressionLevel: *level,
					DataPageV2:       *pageVersion == 2,
					RowGroupRows:     *rowGroupRows,
				}
				if !*dictionary {
					wopts.Dictionary = arrowpq.Off
				}
				return convert(in, inFmt, outPath, outFmt, wopts, newProgress(os.Stderr))
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
	switch {
	case n >= 4 && string(head[:4]) == "PAR1":
		return fmtParquet, nil
	case n == 6 && string(head[:6]) == "ARROW1":
		return fmtArrow, nil
	}
	if f := formatOfExt(path); f == fmtArrows || f == "" {
		return fmtArrows, nil // the stream format has no magic
	}
	return "", fmt.Errorf("%s: not a Parquet or Arrow IPC file", path)
}

// batchSource yields the record batches of the input.
type batchSource struct {
	schema  *arrow.Schema
	total   int64 // rows, -1 when unknown
	next    func() (arrow.RecordBatch, error)
	close   func() error
	release bool // batches from next must be released by the caller
}

func openSource(path, format string) (*batchSource, error) {
	switch format {
	case fmtParquet:
		r, err := arrowpq.OpenFile(path, nil)
		if err != nil {
			return nil, err
		}
		return &batchSource{schema: r.Schema(), total: r.NumRows(), close: r.Close, next: func() (arrow.RecordBatch, error) {
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
			return nil, err
		}
		var total int64 = -1
		i := 0
		return &batchSource{schema: fr.Schema(), total: total, release: true,
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
		sr, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<20))
		if err != nil {
			f.Close()
			return nil, err
		}
		return &batchSource{schema: sr.Schema(), total: -1,
			close: func() error { sr.Release(); return f.Close() },
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
}

// batchSink takes record batches and finishes the output.
type batchSink struct {
	write func(arrow.RecordBatch) error
	close func() error
	abort func()
}

func openSink(path, format string, schema *arrow.Schema, opts *arrowpq.WriteOptions) (*batchSink, error) {
	if format == fmtParquet {
		w, err := arrowpq.CreateFile(path, schema, opts)
		if err != nil {
			return nil, err
		}
		return &batchSink{write: w.Write, close: w.Close, abort: func() { w.Abort() }}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp makes it private
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	abort := func() { f.Close(); os.Remove(f.Name()) }
	finish := func(closeWriter func() error) error {
		err := closeWriter()
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return err
	}
	if format == fmtArrow {
		fw, err := ipc.NewFileWriter(bw, ipc.WithSchema(schema))
		if err != nil {
			abort()
			return nil, err
		}
		return &batchSink{write: fw.Write, close: func() error { return finish(fw.Close) }, abort: abort}, nil
	}
	sw := ipc.NewWriter(bw, ipc.WithSchema(schema))
	return &batchSink{write: sw.Write, close: func() error { return finish(sw.Close) }, abort: abort}, nil
}

func convert(in, inFmt, out, outFmt string, opts *arrowpq.WriteOptions, p *progress) error {
	src, err := openSource(in, inFmt)
	if err != nil {
		return err
	}
	defer src.close()
	sink, err := openSink(out, outFmt, src.schema, opts)
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
