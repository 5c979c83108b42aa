package main

import (
	"flag"
	"fmt"
)

// inputFlags are the flags of commands that read rows from any format:
// the Parquet read flags and those of CSV and JSON input.
type inputFlags struct {
	from       string
	header     bool
	nulls      listFlag
	sampleRows int
	schema     string
	where      string
	read       readFlags
	text       textOptions // filled by options
}

func (f *inputFlags) register(fs *flag.FlagSet, csvOut bool) {
	fs.StringVar(&f.from, "from", "", "input format: parquet, arrow, arrows, csv, tsv, json or ndjson; default from the extension, the magic number or the first bytes")
	fs.StringVar(&f.text.delimiter, "delimiter", "", `CSV field delimiter, one character (default , and for tsv a tab; \t is a tab)`)
	fs.BoolVar(&f.header, "header", true, "CSV: the first line names the columns (--header=false: it is data, columns are column0, column1, ...)")
	fs.Var(&f.nulls, "null", `CSV: a string read as null; repeat for several (default: only the empty string, as DuckDB; --null NA --null "" for R's)`)
	fs.IntVar(&f.sampleRows, "sample-rows", defaultSampleRows, "CSV and JSON: rows read to infer the column types")
	fs.StringVar(&f.schema, "schema", "", "CSV and JSON: the columns, instead of inferring them: a Parquet schema in the text notation of 'arrowpq schema' or Arrow schema JSON ({\"fields\":[...]}, Arrow's integration-test form), inline or in a file; or a Parquet or Arrow file whose schema to use")
	fs.StringVar(&f.where, "where", "", `keep only the rows where this filter is true, e.g. "l_orderkey BETWEEN 100 AND 200 AND l_shipmode IN ('AIR','MAIL')" (SQL-like: = != < <= > >= BETWEEN IN IS [NOT] NULL LIKE 'prefix%' AND OR NOT); Parquet input skips row groups and pages that cannot match (see explain)`)
	f.read.register(fs)
}

// options returns the source options the flags stand for.
func (f *inputFlags) options() (*sourceOptions, error) {
	from, err := parseFormat("from", f.from)
	if err != nil {
		return nil, err
	}
	if f.sampleRows <= 0 {
		return nil, &usageError{fmt.Sprintf("--sample-rows %d: want N > 0", f.sampleRows)}
	}
	f.text.noHeader = !f.header
	f.text.sampleRows = f.sampleRows
	if len(f.nulls) > 0 {
		f.text.nulls = f.nulls
	}
	o := &sourceOptions{from: from, text: f.text}
	f.read.apply(&o.read)
	if err := setWhere(&o.read, f.where); err != nil {
		return nil, &usageError{err.Error()}
	}
	if f.schema != "" {
		if o.schema, err = loadSchema(f.schema); err != nil {
			return nil, fmt.Errorf("--schema: %w", err)
		}
	}
	return o, nil
}
