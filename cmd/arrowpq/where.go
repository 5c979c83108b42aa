package main

// --where (cat, head, convert) and the explain command: filtered reads.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func init() {
	register(&command{
		name: "explain",
		summary: "print what a filtered read of a Parquet file would prune, and why: per row group the decision of\n" +
			"its statistics, its bloom filters and its page index, and the rows that would be read",
		usage: "--where FILTER [--columns a,b.c] [--rows START:END] FILE",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			where := fs.String("where", "", `the filter, as for cat --where: l_orderkey BETWEEN 100 AND 200 AND l_shipmode IN ('AIR','MAIL')`)
			columns := fs.String("columns", "", "comma-separated columns the read would project")
			rows := fs.String("rows", "", "restrict to file rows START:END (0-based, END excluded)")
			var rf readFlags
			rf.register(fs)
			return func(args []string, out io.Writer) error {
				if len(args) != 1 {
					return &usageError{"want one FILE"}
				}
				if *where == "" && *rows == "" {
					return &usageError{"want --where or --rows"}
				}
				opts := &arrowpq.ReadOptions{Columns: splitList(*columns)}
				rf.apply(opts)
				if err := setWhere(opts, *where); err != nil {
					return &usageError{err.Error()}
				}
				if *rows != "" {
					var lo, hi int64
					if _, err := fmt.Sscanf(*rows, "%d:%d", &lo, &hi); err != nil || lo < 0 || hi < lo {
						return &usageError{fmt.Sprintf("--rows %q: want START:END with 0 <= START <= END", *rows)}
					}
					opts.Rows = arrowpq.NewRowRanges(arrowpq.RowRange{Start: lo, End: hi})
				}
				return explain(out, args[0], opts)
			}
		},
	})
}

// setWhere parses text (when not empty) into opts.Filter.
func setWhere(opts *arrowpq.ReadOptions, text string) error {
	if text == "" {
		return nil
	}
	p, err := arrowpq.ParseFilter(text)
	if err != nil {
		return fmt.Errorf("--where: %w", err)
	}
	opts.Filter = p
	return nil
}

func explain(out io.Writer, name string, opts *arrowpq.ReadOptions) error {
	r, closeR, err := openReader(context.Background(), name, opts)
	if err != nil {
		return err
	}
	defer closeR()
	plans, err := r.Explain()
	if err != nil {
		return err
	}
	if opts.Filter != nil {
		fmt.Fprintf(out, "filter: %s\n", opts.Filter)
	}
	if opts.Rows != nil {
		fmt.Fprintf(out, "rows: %s\n", opts.Rows)
	}
	var read, rows, readRows int64
	for _, p := range plans {
		rows += p.Rows
		fmt.Fprintf(out, "row group %d (%d rows): ", p.RowGroup, p.Rows)
		var why []string
		switch {
		case !p.ByRows:
			why = append(why, "outside --rows")
		case opts.Filter == nil:
		default:
			why = append(why, "statistics: "+p.ByStatistics.String())
			if p.BloomFiltersRead > 0 {
				why = append(why, fmt.Sprintf("bloom filters (%d read): %s", p.BloomFiltersRead, p.ByBloomFilter))
			}
			if p.PageIndexRead {
				why = append(why, fmt.Sprintf("page index: %s, %d of %d pages skipped", p.ByPageIndex, p.PagesSkipped, p.Pages))
			}
		}
		if n := p.Read.Len(); n == 0 {
			fmt.Fprint(out, "skipped")
		} else {
			read++
			readRows += n
			fmt.Fprintf(out, "read rows %s", p.Read)
			if opts.Filter != nil && !opts.Superset {
				switch all := p.AllMatch.Len(); {
				case all == n:
					fmt.Fprint(out, ", all match (no evaluation)")
				case all > 0:
					fmt.Fprintf(out, ", %d rows match for sure", all)
				}
			}
		}
		if len(why) > 0 {
			fmt.Fprintf(out, " (%s)", strings.Join(why, "; "))
		}
		fmt.Fprintln(out)
		for _, w := range p.Warnings {
			fmt.Fprintf(out, "  warning: %s\n", w)
		}
	}
	fmt.Fprintf(out, "%d of %d row groups read, %d of %d rows\n", read, len(plans), readRows, rows)
	return nil
}

// filterSource applies p to the batches of src, for inputs whose readers
// cannot filter (CSV, JSON, Arrow IPC): every batch is read, evaluated and
// filtered.
func filterSource(src *batchSource, p *arrowpq.Predicate) (*batchSource, error) {
	if p == nil {
		return src, nil
	}
	bp, err := p.Bind(src.schema, nil)
	if err != nil {
		src.close()
		return nil, fmt.Errorf("%s: --where: %w", src.name, err)
	}
	inner, release := src.next, src.release
	src.total, src.release = -1, true
	src.next = func() (arrow.RecordBatch, error) {
		for {
			rec, err := inner()
			if err != nil {
				return nil, err
			}
			sel, err := bp.Evaluate(rec)
			if err != nil {
				if release {
					rec.Release()
				}
				return nil, fmt.Errorf("%s: --where: %w", src.name, err)
			}
			if sel.Count() == 0 {
				if release {
					rec.Release()
				}
				continue
			}
			out, err := arrowpq.FilterBatch(context.Background(), nil, rec, sel)
			if release {
				rec.Release()
			}
			if err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	return src, nil
}
