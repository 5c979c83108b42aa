package main

// The inspection commands: rowcount, size, pages, dictionary, column-index
// and footer. bloom is in bloom.go, check in check.go.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func init() {
	register(&command{
		name:    "rowcount",
		summary: "print the number of rows of each file (from the footer), and their total",
		usage:   "FILE...",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return func(args []string, out io.Writer) error {
				args, err := fileArgs(args)
				if err != nil {
					return err
				}
				var total int64
				var b strings.Builder
				for _, a := range args {
					f, err := withFile(a, func(p *parquetFile) error { return nil })
					if err != nil {
						return err
					}
					n := f.NumRows()
					total += n
					if len(args) == 1 {
						fmt.Fprintf(&b, "%d\n", n)
					} else {
						fmt.Fprintf(&b, "%d %s\n", n, a)
					}
				}
				if len(args) > 1 {
					fmt.Fprintf(&b, "%d total\n", total)
				}
				_, err = io.WriteString(out, b.String())
				return err
			}
		},
	})
	register(&command{
		name: "size",
		summary: "print the compressed and uncompressed size of each column and of the file\n\n" +
			"Sizes are summed over the row groups and include the page headers, as the footer states them.\n" +
			"With several files (or a directory, or a glob) the sizes are summed over the files, by column path.",
		usage: "FILE...",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return func(args []string, out io.Writer) error {
				names, err := fileArgs(args)
				if err != nil {
					return err
				}
				files := make([]*metadata.File, len(names))
				for i, n := range names {
					if files[i], err = withFile(n, func(p *parquetFile) error { return nil }); err != nil {
						return err
					}
				}
				return writeSize(out, files, outputWidth(out))
			}
		},
	})
	register(&command{
		name: "pages",
		summary: "print every page of column COL in every row group\n\n" +
			"Per page: row group, page number in the chunk, type, encoding, size (compressed, without\n" +
			"the header), raw size (uncompressed), values (num_values: level slots, nulls included),\n" +
			"nulls and rows (when the header says them), min/max of the page header statistics and\n" +
			"the file offset of the page header.",
		usage: "FILE COL",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return columnCommand(func(p *parquetFile, c *metadata.Column, out io.Writer) error {
				return writePages(out, p, c, outputWidth(out))
			})
		},
	})
	register(&command{
		name:    "dictionary",
		summary: "print the dictionary of column COL in each row group: sizes, count and values",
		usage:   "[--limit N] FILE COL",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			limit := fs.Int("limit", 0, "print at most `N` values per dictionary (0: all)")
			fs.IntVar(limit, "n", 0, "same as --limit")
			return columnCommand(func(p *parquetFile, c *metadata.Column, out io.Writer) error {
				if *limit < 0 {
					return &usageError{"--limit must not be negative"}
				}
				return writeDictionary(out, p, c, *limit, outputWidth(out))
			})
		},
	})
	register(&command{
		name: "column-index",
		summary: "print the column index and offset index of column COL in each row group\n\n" +
			"Per page: null_pages, null_counts, min/max (column index); offset, compressed size and\n" +
			"first_row_index (offset index).",
		usage: "FILE COL",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return columnCommand(func(p *parquetFile, c *metadata.Column, out io.Writer) error {
				return writeColumnIndex(out, p, c, outputWidth(out))
			})
		},
	})
	register(&command{
		name:    "footer",
		summary: "print the Thrift FileMetaData of the footer as JSON\n\nField names are those of parquet.thrift; binary fields (statistics, key metadata) are base64.",
		usage:   "--json FILE",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			asJSON := fs.Bool("json", false, "print JSON (required: the only format; meta prints the footer as text)")
			return func(args []string, out io.Writer) error {
				if !*asJSON {
					return &usageError{"footer prints JSON only: add --json (meta prints the footer as text)"}
				}
				if len(args) != 1 {
					return &usageError{fmt.Sprintf("want one FILE, got %d arguments", len(args))}
				}
				f, err := withFile(args[0], func(*parquetFile) error { return nil })
				if err != nil {
					return err
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(f.Meta)
			}
		},
	})
}

// withFile opens the FILE argument ("-" is stdin), runs fn and closes it.
func withFile(arg string, fn func(*parquetFile) error) (*metadata.File, error) {
	p, err := openParquet(arg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	p.path = arg
	return p.meta, fn(p)
}

// columnCommand is the runner of a command with arguments FILE COL.
func columnCommand(fn func(p *parquetFile, c *metadata.Column, out io.Writer) error) func([]string, io.Writer) error {
	return func(args []string, out io.Writer) error {
		if len(args) != 2 {
			return &usageError{fmt.Sprintf("want FILE and COL, got %d arguments", len(args))}
		}
		_, err := withFile(args[0], func(p *parquetFile) error {
			c, err := p.column(args[1])
			if err != nil {
				return err
			}
			return fn(p, c, out)
		})
		return err
	}
}

func writeSize(w io.Writer, files []*metadata.File, width int) error {
	t := &table{
		header:     []string{"column", "compressed", "uncompressed", "ratio", "share"},
		rightAlign: []bool{false, true, true, true, true},
		shrink:     []int{1},
	}
	// Columns by dotted path, in the order first seen.
	var paths []string
	index := map[string]int{}
	var comp, raw []int64
	var tc, tr, size, footers int64
	for _, f := range files {
		for _, c := range f.Schema.Columns {
			if _, ok := index[c.DottedPath]; !ok {
				index[c.DottedPath] = len(paths)
				paths = append(paths, c.DottedPath)
				comp, raw = append(comp, 0), append(raw, 0)
			}
		}
		for rg := range f.Meta.RowGroups {
			for i, c := range f.Schema.Columns {
				md, err := f.ColumnChunk(rg, i)
				if err != nil {
					return err
				}
				k := index[c.DottedPath]
				comp[k] += md.TotalCompressedSize
				raw[k] += md.TotalUncompressedSize
				tc += md.TotalCompressedSize
				tr += md.TotalUncompressedSize
			}
		}
		size += f.Size
		footers += int64(f.FooterLength) + 8
	}
	for i, p := range paths {
		t.add(p, strconv.FormatInt(comp[i], 10), strconv.FormatInt(raw[i], 10), ratio(raw[i], comp[i]), percent(comp[i], tc))
	}
	t.add("total", strconv.FormatInt(tc, 10), strconv.FormatInt(tr, 10), ratio(tr, tc), percent(tc, tc))
	if err := t.write(w, "", width); err != nil {
		return err
	}
	what := "file"
	if len(files) > 1 {
		what = fmt.Sprintf("%d files", len(files))
	}
	// "other" is the magic, the page index and the bloom filters.
	_, err := fmt.Fprintf(w, "\n%s %d bytes: column chunks %d, footer %d, other %d\n",
		what, size, tc, footers, size-tc-footers)
	return err
}

func ratio(raw, comp int64) string {
	if comp <= 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(raw)/float64(comp), 'f', 2, 64) + "x"
}

func percent(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// pageTypeName shortens the page type names for the pages table.
func pageTypeName(t format.PageType) string {
	switch t {
	case format.PageType_DATA_PAGE:
		return "DATA"
	case format.PageType_DATA_PAGE_V2:
		return "DATA_V2"
	case format.PageType_DICTIONARY_PAGE:
		return "DICT"
	case format.PageType_INDEX_PAGE:
		return "INDEX"
	}
	return t.String()
}

func writePages(w io.Writer, p *parquetFile, c *metadata.Column, width int) error {
	t := &table{
		header:     []string{"rg", "page", "type", "encoding", "size", "raw size", "values", "nulls", "rows", "min", "max", "offset"},
		rightAlign: []bool{true, true, false, false, true, true, true, true, true, false, false, true},
		shrink:     []int{0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 3, 0},
	}
	order := metadata.ColumnOrder(p.meta, c.Index)
	var errs []string
	for rg := range p.meta.Meta.RowGroups {
		chunk, off, md, err := p.chunkBytes(rg, c.Index)
		if err != nil {
			errs = append(errs, fmt.Sprintf("row group %d: %v", rg, err))
			continue
		}
		r := pageReader(c, md, chunk, off, p.pageDecryptor(rg, c.Index))
		for i := 0; ; i++ {
			h, err := r.NextHeader()
			if err == io.EOF {
				break
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("row group %d: %v", rg, err))
				break
			}
			enc, values, nulls, rows := "-", "-", "-", "-"
			var st *format.Statistics
			switch {
			case h.DataPageHeader != nil && h.Type == format.PageType_DATA_PAGE:
				d := h.DataPageHeader
				enc, values, st = shortEncodings([]string{d.Encoding.String()}), strconv.Itoa(int(d.NumValues)), d.Statistics
			case h.DataPageHeaderV2 != nil && h.Type == format.PageType_DATA_PAGE_V2:
				d := h.DataPageHeaderV2
				enc, values, st = shortEncodings([]string{d.Encoding.String()}), strconv.Itoa(int(d.NumValues)), d.Statistics
				nulls, rows = strconv.Itoa(int(d.NumNulls)), strconv.Itoa(int(d.NumRows))
			case h.DictionaryPageHeader != nil && h.Type == format.PageType_DICTIONARY_PAGE:
				d := h.DictionaryPageHeader
				enc, values = shortEncodings([]string{d.Encoding.String()}), strconv.Itoa(int(d.NumValues))
			}
			minText, maxText := "-", "-"
			if st != nil {
				s, err := metadata.DecodeStats(c, order, st)
				if err == nil {
					if s.HasNullCount && nulls == "-" {
						nulls = strconv.FormatInt(s.NullCount, 10)
					}
					if s.HasMin {
						minText = s.Min.String()
					}
					if s.HasMax {
						maxText = s.Max.String()
					}
				} else {
					minText = "error: " + err.Error()
				}
			}
			t.add(strconv.Itoa(rg), strconv.Itoa(i), pageTypeName(h.Type), enc,
				strconv.Itoa(int(h.CompressedPageSize)), strconv.Itoa(int(h.UncompressedPageSize)),
				values, nulls, rows, minText, maxText, strconv.FormatInt(off+int64(r.Offset()), 10))
		}
	}
	if err := t.write(w, "", width); err != nil {
		return err
	}
	for _, e := range errs {
		fmt.Fprintf(w, "error: %s\n", oneLine(e))
	}
	if len(errs) > 0 {
		return errors.New(oneLine(errs[0]))
	}
	return nil
}

// valueText renders a value given as its PLAIN bytes.
func valueText(c *metadata.Column, b []byte) string {
	v, err := metadata.DecodeValue(c, b)
	if err != nil {
		return "0x" + fmt.Sprintf("%x", b)
	}
	return v.String()
}

func writeDictionary(w io.Writer, p *parquetFile, c *metadata.Column, limit, width int) error {
	for rg := range p.meta.Meta.RowGroups {
		chunk, off, md, err := p.chunkBytes(rg, c.Index)
		if err != nil {
			return fmt.Errorf("row group %d, column %s: %w", rg, c.DottedPath, err)
		}
		r := pageReader(c, md, chunk, off, p.pageDecryptor(rg, c.Index))
		h, err := r.NextHeader()
		if err == io.EOF || err == nil && h.Type != format.PageType_DICTIONARY_PAGE {
			fmt.Fprintf(w, "row group %d: no dictionary page\n", rg)
			continue
		}
		if err != nil {
			return fmt.Errorf("row group %d, column %s: %w", rg, c.DottedPath, err)
		}
		pageOff := off + int64(r.Offset())
		r.Skip()
		vals, err := readDictionary(c, md, chunk, off, r.Offset(), p.pageDecryptor(rg, c.Index))
		if err != nil {
			return fmt.Errorf("row group %d, column %s: %w", rg, c.DottedPath, err)
		}
		fmt.Fprintf(w, "row group %d: dictionary page at offset %d, %d values\n", rg, pageOff, vals.len())
		fmt.Fprintf(w, "  %d bytes, %d uncompressed (%s), %s\n", h.CompressedPageSize, h.UncompressedPageSize, md.Codec, h.GetDictionaryPageHeader().GetEncoding())
		digits := len(strconv.Itoa(max(vals.len()-1, 0)))
		for i := range vals.len() {
			if limit > 0 && i == limit {
				fmt.Fprintf(w, "  … %d more\n", vals.len()-limit)
				break
			}
			line := fmt.Sprintf("  %*d  %s", digits, i, escapeControl(valueText(c, vals.at(i))))
			if width > 0 {
				line = cut(line, width)
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

func writeColumnIndex(w io.Writer, p *parquetFile, c *metadata.Column, width int) error {
	for rg, g := range p.meta.Meta.RowGroups {
		ci, cerr := metadata.ReadEncryptedColumnIndex(p.fh, p.meta, rg, c.Index, p.indexDecryptor(rg, c.Index))
		oi, oerr := metadata.ReadEncryptedOffsetIndex(p.fh, p.meta, rg, c.Index, p.indexDecryptor(rg, c.Index))
		fmt.Fprintf(w, "row group %d, %s\n", rg, plural(g.NumRows, "row"))
		var head string
		switch {
		case ci == nil && cerr == nil:
			head = "no column index"
		case cerr != nil:
			head = "column index error: " + oneLine(cerr.Error())
		default:
			head = fmt.Sprintf("column index: %s, %s", plural(int64(len(ci.NullPages)), "page"), ci.BoundaryOrder)
		}
		switch {
		case oi == nil && oerr == nil:
			head += "; no offset index"
		case oerr != nil:
			head += "; offset index error: " + oneLine(oerr.Error())
		default:
			head += fmt.Sprintf("; offset index: %s", plural(int64(len(oi.PageLocations)), "page"))
		}
		if width > 0 {
			head = cut(head, width-2)
		}
		fmt.Fprintln(w, "  "+head)
		n := 0
		if ci != nil {
			n = len(ci.NullPages)
		}
		if oi != nil {
			n = max(n, len(oi.PageLocations))
		}
		if n == 0 {
			continue
		}
		t := &table{
			header:     []string{"page", "null page", "nulls", "min", "max", "offset", "size", "first row"},
			rightAlign: []bool{true, false, true, false, false, true, true, true},
			shrink:     []int{0, 0, 0, 3, 3},
		}
		for i := range n {
			nullPage, nulls, minText, maxText := "-", "-", "-", "-"
			if ci != nil && i < len(ci.NullPages) {
				nullPage = yesNo(ci.NullPages[i])
				if i < len(ci.NullCounts) && ci.NullCounts[i] >= 0 {
					nulls = strconv.FormatInt(ci.NullCounts[i], 10)
				}
				if !ci.NullPages[i] && i < len(ci.MinValues) && i < len(ci.MaxValues) {
					minText, maxText = valueText(c, ci.MinValues[i]), valueText(c, ci.MaxValues[i])
				}
			}
			offset, size, first := "-", "-", "-"
			if oi != nil && i < len(oi.PageLocations) && oi.PageLocations[i] != nil {
				l := oi.PageLocations[i]
				offset, size, first = strconv.FormatInt(l.Offset, 10), strconv.Itoa(int(l.CompressedPageSize)), strconv.FormatInt(l.FirstRowIndex, 10)
			}
			t.add(strconv.Itoa(i), nullPage, nulls, escapeControl(minText), escapeControl(maxText), offset, size, first)
		}
		if err := t.write(w, "  ", width); err != nil {
			return err
		}
	}
	return nil
}
