package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func init() {
	for _, name := range []string{"cat", "head"} {
		summary := "print the rows of files as a table, JSON lines or CSV (FILE - reads stdin)\n\n" +
			"FILE is Parquet, Arrow IPC, CSV/TSV or JSON/NDJSON (see convert --help for how the format\n" +
			"is found and CSV/JSON types are inferred). Several files, a directory (its *.parquet) or a\n" +
			"glob are read as one table: columns united by name, a missing column is null.\n\n" +
			"The table fits the terminal: long cells are cut with …, and columns that do\n" +
			"not fit are left out from the middle (a … column marks where); the footer\n" +
			"counts rows and columns. Output to a file or pipe is never cut. NULL is a\n" +
			"null; strings print as they are (--format jsonl tells a null from \"NULL\").\n" +
			"A table shows at most 10000 rows; jsonl and csv print every row."
		defLimit := int64(-1)
		if name == "head" {
			summary = "print the first rows of files (cat -n 10)\n\n" + summary[strings.Index(summary, "FILE is"):]
			defLimit = 10
		}
		register(&command{
			name:    name,
			summary: summary,
			usage:   "[-n N] [--columns a,b.c] [--format table|jsonl|csv] [--wide | --max-width N] [input flags] FILE...",
			setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
				columns := fs.String("columns", "", "comma-separated columns to print, in this order: top-level names or dotted paths (a leaf inside a struct, list or map keeps its parents)")
				limit := fs.Int64("limit", defLimit, "print at most N rows (-1: all)")
				fs.Int64Var(limit, "n", defLimit, "same as --limit")
				format := fs.String("format", "table", "output format: table, jsonl or csv")
				wide := fs.Bool("wide", false, "table: do not fit the terminal (nothing cut or left out)")
				maxWidth := fs.Int("max-width", 0, "table: fit this many characters, terminal or not (0: the terminal's width)")
				var inf inputFlags
				inf.register(fs, false)
				var pf progressFlags
				pf.register(fs)
				return func(args []string, out io.Writer) error {
					if len(args) == 0 {
						return &usageError{"want at least one FILE"}
					}
					if *limit < -1 {
						return &usageError{fmt.Sprintf("--limit %d: want N >= 0, or -1 for all", *limit)}
					}
					if *maxWidth < 0 {
						return &usageError{fmt.Sprintf("--max-width %d: want N >= 0", *maxWidth)}
					}
					if *wide && *maxWidth > 0 {
						return &usageError{"--wide and --max-width go against each other; pick one"}
					}
					width := outputWidth(out)
					switch {
					case *wide:
						width = 0
					case *maxWidth > 0:
						width = *maxWidth
					}
					if *format != "table" && *format != "jsonl" && *format != "csv" {
						return &usageError{fmt.Sprintf("unknown --format %q: want table, jsonl or csv", *format)}
					}
					sopts, err := inf.options()
					if err != nil {
						return err
					}
					sopts.read.Columns = splitList(*columns)
					names, err := expandInputs(args)
					if err != nil {
						return err
					}
					bw := bufio.NewWriterSize(out, 64<<10)
					p := pf.open(os.Stderr, true)
					err = catFiles(names, sopts, *limit, *format, width, bw, p)
					p.finish()
					if err != nil {
						return err
					}
					return bw.Flush()
				}
			},
		})
	}
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// catFiles prints the rows of the inputs. It stops reading as soon as it
// has the rows it prints (limit, or the table's row cap), so that head
// reads one batch of limit rows however large the file is.
func catFiles(names []string, opts *sourceOptions, limit int64, format string, width int, out io.Writer, p *progress) error {
	want := limit // rows to read, -1: all
	if format == "table" && (want < 0 || want > defaultTableRows) {
		want = defaultTableRows
	}
	if want >= 0 && want < int64(arrowpq.DefaultBatchSize) {
		opts.read.BatchSize = int(max(want, 1))
		opts.text.batchRows = int(max(want, 1))
	}
	src, err := openSources(context.Background(), names, opts)
	if err != nil {
		return err
	}
	defer func() { src.close() }()
	p.start(src.total, src.size)
	return printRows(&sourceReader{src: src, p: p}, opts.read.Columns, src.total, want, format, width, out)
}

// sourceReader reads a batchSource as a batchReader, and draws progress.
type sourceReader struct {
	src  *batchSource
	p    *progress
	cur  arrow.RecordBatch
	err  error
	rows int64
}

func (s *sourceReader) Schema() *arrow.Schema          { return s.src.schema }
func (s *sourceReader) RecordBatch() arrow.RecordBatch { return s.cur }
func (s *sourceReader) Err() error                     { return s.err }

func (s *sourceReader) Next() bool {
	if s.cur != nil && s.src.release {
		s.cur.Release()
	}
	s.cur = nil
	rec, err := s.src.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			s.err = err
		}
		return false
	}
	s.cur = rec
	s.rows += rec.NumRows()
	var done int64
	if s.src.done != nil {
		done = s.src.done()
	}
	s.p.update(s.rows, done)
	return true
}

// batchReader is what printRows reads: an arrowpq.Reader or a
// pqflight.Reader.
type batchReader interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
}

// printRows prints up to want rows of r (-1: all) in format, with the
// columns in the order of asked; total is the number of rows r has (-1:
// unknown), for the table's footer.
func printRows(r batchReader, asked []string, total, want int64, format string, width int, out io.Writer) error {
	order := columnOrder(r.Schema(), asked)
	sc := reorderSchema(r.Schema(), order)
	var rw recordWriter
	switch format {
	case "table":
		if want < 0 || want > defaultTableRows {
			want = defaultTableRows
		}
		bx := newBoxWriter(out, width, int(want), total)
		bx.setSchema(sc)
		rw = bx
	case "jsonl":
		rw = &jsonlWriter{w: out}
	case "csv":
		rw = newCSVWriter(out, sc, false, textOutput{})
	default:
		return &usageError{fmt.Sprintf("unknown --format %q: want table, jsonl or csv", format)}
	}
	left := want
	for left != 0 && r.Next() {
		rec := reorder(r.RecordBatch(), sc, order)
		if left > 0 && rec.NumRows() > left {
			cut := rec.NewSlice(0, left)
			rec.Release()
			rec = cut
		}
		err := rw.write(rec)
		if left > 0 {
			left -= rec.NumRows()
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return rw.flush()
}

// columnOrder returns, for the fields of sc, the order in which the
// --columns list asked for them: the library returns the selected fields
// in file order. A name is a top-level field or a dotted path inside one
// (whose top-level name may itself contain dots: the longest match wins).
// nil means sc is in the asked order already.
func columnOrder(sc *arrow.Schema, asked []string) []int {
	if len(asked) == 0 {
		return nil
	}
	var order []int
	seen := make([]bool, sc.NumFields())
	for _, name := range asked {
		best := -1
		for i, f := range sc.Fields() {
			if (name == f.Name || strings.HasPrefix(name, f.Name+".")) && (best < 0 || len(f.Name) > len(sc.Field(best).Name)) {
				best = i
			}
		}
		if best >= 0 && !seen[best] {
			seen[best] = true
			order = append(order, best)
		}
	}
	for i := range seen {
		if !seen[i] {
			order = append(order, i)
		}
	}
	for k, i := range order {
		if k != i {
			return order
		}
	}
	return nil
}

func reorderSchema(sc *arrow.Schema, order []int) *arrow.Schema {
	if order == nil {
		return sc
	}
	fields := make([]arrow.Field, len(order))
	for k, i := range order {
		fields[k] = sc.Field(i)
	}
	md := sc.Metadata()
	return arrow.NewSchema(fields, &md)
}

// reorder returns rec with its columns in order; the caller releases the
// result (rec itself stays the reader's).
func reorder(rec arrow.RecordBatch, sc *arrow.Schema, order []int) arrow.RecordBatch {
	if order == nil {
		rec.Retain()
		return rec
	}
	cols := make([]arrow.Array, len(order))
	for k, i := range order {
		cols[k] = rec.Column(i)
	}
	return array.NewRecordBatch(sc, cols, rec.NumRows())
}

// stdin is what "-" reads; tests replace it.
var stdin io.Reader = os.Stdin
