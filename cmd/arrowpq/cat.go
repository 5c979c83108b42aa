package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func init() {
	for _, name := range []string{"cat", "head"} {
		name := name
		summary := "print the rows of a file as a table, JSON lines or CSV"
		defLimit := int64(-1)
		if name == "head" {
			summary = "print the first rows of a file (cat --limit 10)"
			defLimit = 10
		}
		register(&command{
			name:    name,
			summary: summary,
			usage:   "[--columns a,b.c] [--limit N] [--format table|jsonl|csv] FILE",
			setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
				columns := fs.String("columns", "", "comma-separated columns to print: top-level names or dotted paths (a leaf inside a struct, list or map keeps its parents)")
				limit := fs.Int64("limit", defLimit, "print at most N rows (-1: all)")
				format := fs.String("format", "table", "output format: table (fits the terminal, long cells cut), jsonl or csv")
				return func(args []string, out io.Writer) error {
					if len(args) != 1 {
						return &usageError{fmt.Sprintf("want one FILE, got %d arguments", len(args))}
					}
					var rw recordWriter
					bw := bufio.NewWriterSize(out, 64<<10)
					switch *format {
					case "table":
						rw = &tableWriter{w: bw, width: outputWidth(out)}
					case "jsonl":
						rw = &jsonlWriter{w: bw}
					case "csv":
						rw = &csvWriter{w: csv.NewWriter(bw)}
					default:
						return &usageError{fmt.Sprintf("unknown --format %q: want table, jsonl or csv", *format)}
					}
					opts := &arrowpq.ReadOptions{}
					if *columns != "" {
						for _, c := range strings.Split(*columns, ",") {
							if c = strings.TrimSpace(c); c != "" {
								opts.Columns = append(opts.Columns, c)
							}
						}
					}
					if *limit >= 0 && *limit < int64(arrowpq.DefaultBatchSize) {
						opts.BatchSize = int(max(*limit, 1))
					}
					if err := catFile(args[0], opts, *limit, rw); err != nil {
						return err
					}
					return bw.Flush()
				}
			},
		})
	}
}

func catFile(path string, opts *arrowpq.ReadOptions, limit int64, rw recordWriter) error {
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	left := limit
	for left != 0 && r.Next() {
		rec := r.RecordBatch()
		if left > 0 && rec.NumRows() > left {
			rec = rec.NewSlice(0, left)
			err := rw.write(rec)
			rec.Release()
			if err != nil {
				return err
			}
			left = 0
			break
		}
		if err := rw.write(rec); err != nil {
			return err
		}
		if left > 0 {
			left -= rec.NumRows()
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	if rw, ok := rw.(*tableWriter); ok && rw.t == nil {
		// No rows: still show the columns.
		sc := r.Schema()
		rw.t = &table{}
		for _, f := range sc.Fields() {
			rw.t.header = append(rw.t.header, f.Name)
		}
	}
	return rw.flush()
}

var _ arrow.RecordBatch // the writers take record batches
