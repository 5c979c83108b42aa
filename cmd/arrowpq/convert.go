package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/objstore"
)

func init() {
	register(&command{
		name: "convert",
		summary: "convert between Parquet, Arrow IPC (file or stream), CSV/TSV and JSON/NDJSON\n\n" +
			"Formats come from --from/--to, else from the file extension (.parquet .arrow .feather\n" +
			".arrows .csv .tsv .json .ndjson .jsonl), else from the first bytes of the input. Several\n" +
			"inputs (files, directories of *.parquet, globs) are merged into OUT: columns are united by\n" +
			"name, a column missing from an input is null there, and a column whose type differs\n" +
			"between inputs is an error. CSV and JSON input types are inferred from the first rows\n" +
			"(--sample-rows): booleans, int64, float64, dates, timestamps (with a zone: UTC), else\n" +
			"strings; JSON objects become structs and arrays lists. --schema gives the columns instead.\n" +
			"CSV cannot hold nested columns (struct, list, map): such a column is an error.\n\n" +
			"The footer's key/value metadata is kept: Parquet to Parquet as it is, Parquet to Arrow\n" +
			"as schema metadata, Arrow to Parquet from the schema metadata. The ARROW:schema entry is\n" +
			"not copied: the writer builds its own from the schema.\n\n" +
			"OUT is written to a temporary file renamed over OUT at the end, so a failed convert\n" +
			"leaves an existing OUT as it was. OUT - writes to stdout (Parquet unless --to says\n" +
			"otherwise); a FIFO or device is written straight through; a symlink is followed and the\n" +
			"link kept. IN - reads stdin.",
		usage: "[--from F] [--to F] [CSV/JSON flags] [Parquet writer flags] IN... OUT",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			to := fs.String("to", "", "output format: parquet, arrow (IPC file, also feather), arrows (IPC stream), csv, tsv, json (one array) or ndjson (also jsonl); default from OUT's extension")
			var inf inputFlags
			inf.register(fs, true)
			var wf writeFlags
			wf.register(fs)
			var pf progressFlags
			pf.register(fs)
			return func(args []string, out io.Writer) error {
				if len(args) < 2 {
					return &usageError{fmt.Sprintf("want IN... and OUT, got %d arguments", len(args))}
				}
				ins, outPath := args[:len(args)-1], args[len(args)-1]
				outFmt, err := parseFormat("to", *to)
				if err != nil {
					return err
				}
				if outFmt == "" {
					if outPath == "-" {
						outFmt = fmtParquet
					} else if outFmt = formatOfExt(outPath); outFmt == "" {
						return &usageError{fmt.Sprintf("cannot tell the format of %s from its extension: use --to", outPath)}
					}
				}
				wopts, err := wf.apply()
				if err != nil {
					return err
				}
				sopts, err := inf.options()
				if err != nil {
					return err
				}
				binary := outFmt == fmtParquet || outFmt == fmtArrow || outFmt == fmtArrows
				if outPath == "-" && binary && isTTY(out) {
					return fmt.Errorf("not writing binary %s data to a terminal: redirect stdout or name a file", outFmt)
				}
				if err := checkURLOutput(outPath, outFmt); err != nil {
					return err
				}
				if outPath != "-" {
					if st, err := os.Stat(outPath); err == nil && st.IsDir() {
						return fmt.Errorf("%s is a directory: OUT names the file to write", outPath)
					}
				}
				names, err := expandInputs(ins)
				if err != nil {
					return err
				}
				ctx := context.Background()
				src, err := openSources(ctx, names, sopts)
				if err != nil {
					return err
				}
				defer func() { src.close() }()
				tf := textOutput{delimiter: inf.text.delimiter, noHeader: inf.text.noHeader}
				return convert(src, outPath, outFmt, wopts, tf, out, pf.open(os.Stderr, outPath == "-"))
			}
		},
	})
}

// batchSink takes record batches and finishes the output.
type batchSink struct {
	write func(arrow.RecordBatch) error
	close func() error
	abort func()
}

// textOutput are the options of CSV output.
type textOutput struct {
	delimiter string
	noHeader  bool
}

// openSink opens the output: path, or stdout for "-". Every format goes
// through createOutput (a temporary file renamed over path on success,
// removed on failure).
func openSink(path, format string, src *batchSource, opts *arrowpq.WriteOptions, tf textOutput, stdout io.Writer) (*batchSink, error) {
	switch format {
	case fmtCSV, fmtTSV:
		for _, f := range src.schema.Fields() {
			if !csvType(f.Type) {
				return nil, fmt.Errorf("column %q is %s: CSV cannot hold nested values (write JSON, Parquet or Arrow, or leave the column out)", f.Name, f.Type)
			}
		}
	}
	if format == fmtParquet && objstore.IsURL(path) {
		opts.KeyValueMetadata = src.kv
		w, err := createParquet(path, src.schema, opts) // url.go
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
	// finish closes the writer, then flushes and commits the output, or
	// removes it on the first error.
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
	if format == fmtParquet {
		opts.KeyValueMetadata = src.kv
		w, err := arrowpq.NewWriter(bw, src.schema, opts)
		if err != nil {
			abort()
			return nil, err
		}
		return &batchSink{write: w.Write, close: func() error { return finish(w.Close) },
			abort: func() { w.Abort(); abort() }}, nil
	}
	switch format {
	case fmtCSV, fmtTSV:
		rw := newCSVWriter(bw, src.schema, format == fmtTSV, tf)
		return &batchSink{write: rw.write, close: func() error { return finish(rw.flush) }, abort: abort}, nil
	case fmtJSON, fmtNDJSON:
		rw := &jsonlWriter{w: bw, array: format == fmtJSON}
		return &batchSink{write: rw.write, close: func() error { return finish(rw.flush) }, abort: abort}, nil
	}
	schema := withKV(src.schema, src.kv)
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

func convert(src *batchSource, out, outFmt string, opts *arrowpq.WriteOptions, tf textOutput, stdout io.Writer, p *progress) error {
	sink, err := openSink(out, outFmt, src, opts, tf, stdout)
	if err != nil {
		return err
	}
	p.start(src.total, src.size)
	var rows int64
	for {
		rec, err := src.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.finish()
			sink.abort()
			return err
		}
		werr := sink.write(rec)
		rows += rec.NumRows()
		if src.release {
			rec.Release()
		}
		if werr != nil {
			p.finish()
			sink.abort()
			return werr
		}
		var done int64
		if src.done != nil {
			done = src.done()
		}
		p.update(rows, done)
	}
	p.finish()
	return sink.close()
}
