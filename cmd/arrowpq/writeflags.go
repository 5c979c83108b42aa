package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// writeFlags are the flags of every command that writes Parquet; apply
// maps them onto arrowpq.WriteOptions.
type writeFlags struct {
	compression   string
	level         int
	dictionary    toggleFlag
	dictPageSize  sizeFlag
	encoding      string
	pageVersion   int
	pageSize      sizeFlag
	pageRows      int
	rowGroupRows  int
	rowGroupSize  sizeFlag
	pageIndex     toggleFlag
	statistics    toggleFlag
	statsTruncate int
	sizeStats     toggleFlag
	checksums     toggleFlag
	arrowSchema   toggleFlag
	noSync        bool
	blooms        listFlag     // COL[:NDV[:FPP]]
	columns       listFlag     // COL:key=value,...
	encrypt       encryptFlags // cryptflags.go
}

func (wf *writeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&wf.compression, "compression", "snappy", "Parquet codec: snappy, zstd, gzip, brotli, lz4_raw, lz4 or none")
	fs.IntVar(&wf.level, "compression-level", 0, "codec level (0: the codec's default, for zstd 1 as parquet-cpp and arrow-rs write)\n"+
		"zstd 3 is DuckDB's default: 2-4% smaller on text for 15-35% more CPU; snappy 2 is the slower\n"+
		"encoder arrow-go uses, smaller on text")
	fs.Var(&wf.dictionary, "dictionary", "dictionary-encode columns: on (default) or off")
	fs.Var(&wf.dictPageSize, "dictionary-page-size", "largest dictionary page before falling back to --encoding, like 1MiB (default 1MiB)")
	fs.StringVar(&wf.encoding, "encoding", "", "encoding of values not dictionary encoded: plain, delta_binary_packed, delta_length_byte_array, delta_byte_array, byte_stream_split, rle (each column must allow it; per column with --column)")
	fs.IntVar(&wf.pageVersion, "page-version", 1, "data page version: 1 or 2")
	fs.Var(&wf.pageSize, "page-size", "target data page size before compression, like 1MiB (default 1MiB)")
	fs.IntVar(&wf.pageRows, "page-rows", 0, fmt.Sprintf("rows per data page at most (0: %d)", arrowpq.DefaultMaxRowsPerPage))
	fs.IntVar(&wf.rowGroupRows, "row-group-rows", arrowpq.DefaultRowGroupRows, "rows per row group at most")
	fs.Var(&wf.rowGroupSize, "row-group-size", "compressed bytes per row group at most, like 128MiB (default 128MiB)")
	fs.Var(&wf.pageIndex, "page-index", "write the column index and offset index: on (default) or off")
	fs.Var(&wf.statistics, "statistics", "write chunk and page statistics: on (default) or off")
	fs.IntVar(&wf.statsTruncate, "stats-truncate", 0, fmt.Sprintf("longest byte array min/max in statistics (0: %d, -1: no limit)", arrowpq.DefaultStatsTruncateLen))
	fs.Var(&wf.sizeStats, "size-statistics", "write SizeStatistics and level histograms: on (default) or off")
	fs.Var(&wf.checksums, "checksums", "write page CRCs: on (default) or off")
	fs.Var(&wf.arrowSchema, "arrow-schema", "write the ARROW:schema footer entry: on (default) or off. Off makes files some readers accept\n"+
		"(polars 0.26 refuses arrow.uuid and arrow.json extension types in it) but readers then see only the\n"+
		"Parquet types: large strings and binaries come back as plain ones, durations as int64, extension\n"+
		"types (uuid, json) as their storage or logical type, timestamp time zones as UTC, dictionary and\n"+
		"view types as plain arrays, unsigned and small integers as their Parquet logical type only")
	fs.BoolVar(&wf.noSync, "no-sync", false, "for scratch output: do not sync the output file and its directory to disk before and after renaming\n"+
		"it into place (faster; the rename stays atomic for other programs, but after a power loss or an\n"+
		"operating system crash the output may be empty or partial)")
	fs.Var(&wf.blooms, "bloom", "write a bloom filter for column `COL[:NDV[:FPP]]` (NDV: distinct values, default 1000000; FPP: false-positive probability, default 0.01); repeat for more columns")
	wf.encrypt.register(fs)
	fs.Var(&wf.columns, "column", "options of one column: `COL:key=value[,key=value...]` with keys compression, level, dictionary (on/off), encoding, statistics (on/off), page-index (on/off), bloom (NDV), bloom-fpp; COL is a dotted leaf path or a top-level name; repeat for more columns")
}

// apply builds the write options the flags stand for.
func (wf *writeFlags) apply() (*arrowpq.WriteOptions, error) {
	codec, err := arrowpq.ParseCompression(wf.compression)
	if err != nil {
		return nil, &usageError{strings.TrimPrefix(err.Error(), "arrowpq: ")}
	}
	if wf.pageVersion != 1 && wf.pageVersion != 2 {
		return nil, &usageError{fmt.Sprintf("--page-version %d: want 1 or 2", wf.pageVersion)}
	}
	if wf.rowGroupRows <= 0 || wf.pageRows < 0 {
		return nil, &usageError{"--row-group-rows and --page-rows must be positive"}
	}
	o := &arrowpq.WriteOptions{
		Compression:         codec,
		CompressionLevel:    wf.level,
		Dictionary:          arrowpq.Toggle(wf.dictionary),
		DictionaryPageSize:  int(wf.dictPageSize),
		DataPageV2:          wf.pageVersion == 2,
		DataPageSize:        int(wf.pageSize),
		MaxRowsPerPage:      wf.pageRows,
		RowGroupRows:        wf.rowGroupRows,
		RowGroupBytes:       int64(wf.rowGroupSize),
		PageIndex:           arrowpq.Toggle(wf.pageIndex),
		Statistics:          arrowpq.Toggle(wf.statistics),
		StatsTruncateLength: wf.statsTruncate,
		SizeStatistics:      arrowpq.Toggle(wf.sizeStats),
		PageChecksums:       arrowpq.Toggle(wf.checksums),
		ArrowSchema:         arrowpq.Toggle(wf.arrowSchema),
		NoSync:              wf.noSync,
	}
	if o.Encryption, err = wf.encrypt.options(); err != nil {
		return nil, err
	}
	if wf.encoding != "" {
		if o.Encoding, err = arrowpq.ParseEncoding(wf.encoding); err != nil {
			return nil, &usageError{"--encoding: " + strings.TrimPrefix(err.Error(), "arrowpq: ")}
		}
	}
	col := func(name string) arrowpq.ColumnOptions {
		if o.Columns == nil {
			o.Columns = map[string]arrowpq.ColumnOptions{}
		}
		return o.Columns[name]
	}
	for _, b := range wf.blooms {
		parts := strings.Split(b, ":")
		if len(parts) > 3 || parts[0] == "" {
			return nil, &usageError{fmt.Sprintf("--bloom %q: want COL[:NDV[:FPP]]", b)}
		}
		co := col(parts[0])
		co.BloomFilterNDV = 1_000_000
		if len(parts) > 1 {
			if co.BloomFilterNDV, err = strconv.ParseInt(parts[1], 10, 64); err != nil || co.BloomFilterNDV <= 0 {
				return nil, &usageError{fmt.Sprintf("--bloom %q: NDV must be a positive number", b)}
			}
		}
		if len(parts) > 2 {
			if co.BloomFilterFPP, err = strconv.ParseFloat(parts[2], 64); err != nil || !(co.BloomFilterFPP > 0 && co.BloomFilterFPP < 1) {
				return nil, &usageError{fmt.Sprintf("--bloom %q: FPP must be between 0 and 1", b)}
			}
		}
		o.Columns[parts[0]] = co
	}
	for _, c := range wf.columns {
		name, settings, ok := strings.Cut(c, ":")
		if !ok || name == "" || settings == "" {
			return nil, &usageError{fmt.Sprintf("--column %q: want COL:key=value[,key=value...]", c)}
		}
		co := col(name)
		for _, kv := range strings.Split(settings, ",") {
			k, v, _ := strings.Cut(kv, "=")
			bad := func(err error) error {
				return &usageError{fmt.Sprintf("--column %s: %s=%s: %s", name, k, v, strings.TrimPrefix(err.Error(), "arrowpq: "))}
			}
			switch k {
			case "compression":
				cc, err := arrowpq.ParseCompression(v)
				if err != nil {
					return nil, bad(err)
				}
				co.Compression = &cc
			case "level":
				if co.CompressionLevel, err = strconv.Atoi(v); err != nil {
					return nil, bad(err)
				}
			case "dictionary":
				if co.Dictionary, err = arrowpq.ParseToggle(v); err != nil {
					return nil, bad(err)
				}
			case "encoding":
				if co.Encoding, err = arrowpq.ParseEncoding(v); err != nil {
					return nil, bad(err)
				}
			case "statistics":
				if co.Statistics, err = arrowpq.ParseToggle(v); err != nil {
					return nil, bad(err)
				}
			case "page-index":
				if co.PageIndex, err = arrowpq.ParseToggle(v); err != nil {
					return nil, bad(err)
				}
			case "bloom":
				if co.BloomFilterNDV, err = strconv.ParseInt(v, 10, 64); err != nil || co.BloomFilterNDV <= 0 {
					return nil, bad(fmt.Errorf("want a positive number of distinct values"))
				}
			case "bloom-fpp":
				if co.BloomFilterFPP, err = strconv.ParseFloat(v, 64); err != nil || !(co.BloomFilterFPP > 0 && co.BloomFilterFPP < 1) {
					return nil, bad(fmt.Errorf("want a probability between 0 and 1"))
				}
			default:
				return nil, &usageError{fmt.Sprintf("--column %s: unknown key %q (want compression, level, dictionary, encoding, statistics, page-index, bloom or bloom-fpp)", name, k)}
			}
		}
		o.Columns[name] = co
	}
	return o, nil
}

// toggleFlag is an on/off flag whose zero value means the library's
// default; "--flag" alone means on.
type toggleFlag arrowpq.Toggle

func (t *toggleFlag) String() string {
	if t == nil || *t == 0 {
		return ""
	}
	return map[toggleFlag]string{1: "on", 2: "off"}[*t]
}

func (t *toggleFlag) Set(s string) error {
	v, err := arrowpq.ParseToggle(s)
	if err != nil {
		return fmt.Errorf("want on or off")
	}
	*t = toggleFlag(v)
	return nil
}

// IsBoolFlag lets "--flag" stand for "--flag=on".
func (t *toggleFlag) IsBoolFlag() bool { return true }
