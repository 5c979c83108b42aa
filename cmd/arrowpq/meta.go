package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func init() {
	register(&command{
		name:    "meta",
		summary: "print the file metadata: version, writer, rows, key/value metadata, and per column chunk its type, codec, encodings, sizes and statistics",
		usage:   "[--json] [--summary] FILE...",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			asJSON := fs.Bool("json", false, "print JSON (one object per file, with full key/value values) instead of text")
			summary := fs.Bool("summary", false, "one line per file (rows, row groups, columns, size, writer) and the totals, instead of every column chunk")
			return func(args []string, out io.Writer) error {
				names, err := fileArgs(args)
				if err != nil {
					return err
				}
				if *summary {
					return writeMetaSummary(out, names, *asJSON, outputWidth(out))
				}
				for i, name := range names {
					f, err := openFooter(name)
					enc, ierr := inspectEncryption(name) // cryptflags.go
					if err != nil {
						if ierr == nil && enc != nil && enc.Footer == "encrypted" && errors.Is(err, metadata.ErrEncrypted) {
							if i > 0 && !*asJSON {
								io.WriteString(out, "\n")
							}
							if err := metaEncrypted(out, name, enc, *asJSON); err != nil {
								return err
							}
							continue
						}
						return err
					}
					m := describeFile(name, f)
					m.Encryption = enc
					addEncryptedColumns(enc, f)
					if *asJSON {
						enc := json.NewEncoder(out)
						enc.SetIndent("", "  ")
						if err := enc.Encode(m); err != nil {
							return err
						}
						continue
					}
					if i > 0 {
						io.WriteString(out, "\n")
					}
					if err := writeMetaText(out, m, outputWidth(out)); err != nil {
						return err
					}
				}
				return nil
			}
		},
	})
}

// fileSummary is one line of meta --summary.
type fileSummary struct {
	File      string `json:"file"`
	Rows      int64  `json:"num_rows"`
	RowGroups int    `json:"num_row_groups"`
	Columns   int    `json:"num_columns"`
	Size      int64  `json:"size"`
	CreatedBy string `json:"created_by,omitempty"`
}

func writeMetaSummary(w io.Writer, names []string, asJSON bool, width int) error {
	var list []fileSummary
	total := fileSummary{File: "total"}
	for _, name := range names {
		f, err := openFooter(name)
		if err != nil {
			return err
		}
		s := fileSummary{File: name, Rows: f.NumRows(), RowGroups: len(f.Meta.RowGroups), Columns: len(f.Schema.Columns), Size: f.Size, CreatedBy: f.CreatedBy()}
		list = append(list, s)
		total.Rows += s.Rows
		total.RowGroups += s.RowGroups
		total.Size += s.Size
		total.Columns = max(total.Columns, s.Columns)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"files": list, "total": total})
	}
	t := &table{
		header:     []string{"file", "rows", "row groups", "columns", "size", "created_by"},
		rightAlign: []bool{false, true, true, true, true, false},
		shrink:     []int{2, 0, 0, 0, 0, 3},
	}
	for _, s := range append(list, total) {
		t.add(s.File, strconv.FormatInt(s.Rows, 10), strconv.Itoa(s.RowGroups), strconv.Itoa(s.Columns), strconv.FormatInt(s.Size, 10), s.CreatedBy)
	}
	return t.write(w, "", width)
}

// fileMeta is what the meta command reports; its JSON form is the --json
// output.
type fileMeta struct {
	File       string         `json:"file"`
	Size       int64          `json:"size"`
	Version    int32          `json:"version"`
	CreatedBy  string         `json:"created_by,omitempty"`
	NumRows    int64          `json:"num_rows"`
	FooterRows int64          `json:"footer_num_rows"`
	Columns    int            `json:"num_columns"`
	KeyValue   []keyValue     `json:"key_value,omitempty"`
	RowGroups  []rowGroupMeta `json:"row_groups"`
	// Encryption says how the file is encrypted (cryptflags.go).
	Encryption *encryptionMeta `json:"encryption,omitempty"`
}

type keyValue struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

type rowGroupMeta struct {
	Index          int         `json:"index"`
	NumRows        int64       `json:"num_rows"`
	TotalByteSize  int64       `json:"total_byte_size"`
	CompressedSize int64       `json:"total_compressed_size,omitempty"`
	FileOffset     *int64      `json:"file_offset,omitempty"`
	Columns        []chunkMeta `json:"columns"`
}

type chunkMeta struct {
	Path             string   `json:"path"`
	PhysicalType     string   `json:"physical_type"`
	Annotation       string   `json:"annotation,omitempty"`
	Codec            string   `json:"codec"`
	Encodings        []string `json:"encodings"`
	NumValues        int64    `json:"num_values"`
	Compressed       int64    `json:"compressed_size"`
	Uncompressed     int64    `json:"uncompressed_size"`
	DataPageOffset   int64    `json:"data_page_offset"`
	DictionaryOffset *int64   `json:"dictionary_page_offset,omitempty"`
	NullCount        *int64   `json:"null_count,omitempty"`
	DistinctCount    *int64   `json:"distinct_count,omitempty"`
	NaNCount         *int64   `json:"nan_count,omitempty"`
	Min              *string  `json:"min,omitempty"`
	Max              *string  `json:"max,omitempty"`
	ColumnIndex      bool     `json:"column_index"`
	OffsetIndex      bool     `json:"offset_index"`
	BloomFilter      bool     `json:"bloom_filter"`
	Error            string   `json:"error,omitempty"`
}

func describeFile(path string, f *metadata.File) *fileMeta {
	m := &fileMeta{
		File: path, Size: f.Size, Version: f.Meta.Version, CreatedBy: f.CreatedBy(),
		NumRows: f.NumRows(), FooterRows: f.Meta.NumRows, Columns: len(f.Schema.Columns),
	}
	for _, kv := range f.Meta.KeyValueMetadata {
		if kv != nil {
			m.KeyValue = append(m.KeyValue, keyValue{Key: kv.Key, Value: kv.Value})
		}
	}
	for i, rg := range f.Meta.RowGroups {
		r := rowGroupMeta{Index: i, NumRows: rg.NumRows, TotalByteSize: rg.TotalByteSize, FileOffset: rg.FileOffset}
		if rg.TotalCompressedSize != nil {
			r.CompressedSize = *rg.TotalCompressedSize
		}
		for j, col := range f.Schema.Columns {
			r.Columns = append(r.Columns, describeChunk(f, i, j, col))
		}
		m.RowGroups = append(m.RowGroups, r)
	}
	return m
}

func describeChunk(f *metadata.File, rg, col int, c *metadata.Column) chunkMeta {
	cm := chunkMeta{Path: c.DottedPath, PhysicalType: physicalName(c), Annotation: metadata.AnnotationText(c.Node)}
	cc := f.Meta.RowGroups[rg].Columns[col]
	cm.ColumnIndex = cc.ColumnIndexOffset != nil
	cm.OffsetIndex = cc.OffsetIndexOffset != nil
	md, err := f.ColumnChunk(rg, col)
	if err != nil {
		cm.Error = err.Error()
		return cm
	}
	cm.Codec = md.Codec.String()
	for _, e := range md.Encodings {
		cm.Encodings = append(cm.Encodings, e.String())
	}
	cm.NumValues = md.NumValues
	cm.Compressed, cm.Uncompressed = md.TotalCompressedSize, md.TotalUncompressedSize
	cm.DataPageOffset, cm.DictionaryOffset = md.DataPageOffset, md.DictionaryPageOffset
	cm.BloomFilter = md.BloomFilterOffset != nil
	st, err := metadata.ColumnStats(f, rg, col)
	if err != nil {
		cm.Error = err.Error()
		return cm
	}
	if st.HasNullCount {
		cm.NullCount = &st.NullCount
	}
	if st.HasDistinctCount {
		cm.DistinctCount = &st.DistinctCount
	}
	if st.HasNaNCount {
		cm.NaNCount = &st.NaNCount
	}
	if st.HasMin {
		s := st.Min.String()
		cm.Min = &s
	}
	if st.HasMax {
		s := st.Max.String()
		cm.Max = &s
	}
	return cm
}

func physicalName(c *metadata.Column) string {
	if c.Physical == format.Type_FIXED_LEN_BYTE_ARRAY {
		return fmt.Sprintf("FIXED_LEN_BYTE_ARRAY(%d)", c.TypeLength)
	}
	return c.Physical.String()
}

// maxKeyValueText is how much of a key/value entry the text output shows;
// ARROW:schema values alone are often kilobytes of base64.
const maxKeyValueText = 60

func writeMetaText(w io.Writer, m *fileMeta, width int) error {
	var b strings.Builder
	fact := func(k, v string) { fmt.Fprintf(&b, "%-12s%s\n", k, v) }
	// Byte counts in the table are compressed ("size") and uncompressed
	// ("raw size"), page headers included, as the footer states them.
	fact("file", m.File)
	fact("size", fmt.Sprintf("%d bytes", m.Size))
	fact("version", strconv.Itoa(int(m.Version)))
	if m.CreatedBy != "" {
		fact("created_by", m.CreatedBy)
	}
	rows := strconv.FormatInt(m.NumRows, 10)
	if m.FooterRows != m.NumRows {
		rows += fmt.Sprintf(" (the footer says %d; the row groups hold %d)", m.FooterRows, m.NumRows)
	}
	fact("rows", rows)
	fact("leaf cols", strconv.Itoa(m.Columns))
	fact("row groups", strconv.Itoa(len(m.RowGroups)))
	if m.Encryption != nil {
		writeEncryptionText(&b, m.Encryption)
	}
	if len(m.KeyValue) == 0 {
		fact("key/value", "(none)")
	} else {
		kvs := append([]keyValue(nil), m.KeyValue...)
		sort.SliceStable(kvs, func(i, j int) bool { return kvs[i].Key < kvs[j].Key })
		fact("key/value", "")
		for _, kv := range kvs {
			v := "(no value)"
			if kv.Value != nil {
				v = shorten(*kv.Value, maxKeyValueText)
			}
			fmt.Fprintf(&b, "  %s = %s\n", kv.Key, v)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, rg := range m.RowGroups {
		head := fmt.Sprintf("\nrow group %d: %d rows, %d bytes uncompressed", rg.Index, rg.NumRows, rg.TotalByteSize)
		if rg.CompressedSize > 0 {
			head += fmt.Sprintf(", %d compressed", rg.CompressedSize)
		}
		if _, err := fmt.Fprintln(w, head); err != nil {
			return err
		}
		t := &table{
			header:     []string{"column", "type", "codec", "encodings", "values", "nulls", "size", "raw size", "min", "max", "index", "bloom"},
			rightAlign: []bool{false, false, false, false, true, true, true, true},
			// The path goes last: it is what tells the rows apart.
			shrink: []int{1, 2, 0, 3, 0, 0, 0, 0, 3, 3},
		}
		for _, c := range rg.Columns {
			typ := c.PhysicalType
			if c.Annotation != "" {
				typ += " " + c.Annotation
			}
			if c.Error != "" && c.Codec == "" {
				t.add(c.Path, typ, "-", "error: "+c.Error, "", "", "", "", "", "", "", "")
				continue
			}
			index := "-"
			switch {
			case c.ColumnIndex && c.OffsetIndex:
				index = "col+off"
			case c.ColumnIndex:
				index = "col"
			case c.OffsetIndex:
				index = "off"
			}
			minText, maxText := "-", "-"
			if c.Min != nil {
				minText = *c.Min
			}
			if c.Max != nil {
				maxText = *c.Max
			}
			if c.Error != "" {
				minText, maxText = "error: "+c.Error, ""
			}
			nulls := "-"
			if c.NullCount != nil {
				nulls = strconv.FormatInt(*c.NullCount, 10)
			}
			t.add(c.Path, typ, c.Codec, shortEncodings(c.Encodings), strconv.FormatInt(c.NumValues, 10), nulls,
				byteSize(c.Compressed), byteSize(c.Uncompressed), minText, maxText, index, yesNo(c.BloomFilter))
		}
		if err := t.write(w, "  ", width); err != nil {
			return err
		}
	}
	return nil
}

// shortEncodings joins encoding names, shortening the long ones so that
// the table keeps its width; --json has the spec names.
func shortEncodings(encs []string) string {
	short := map[string]string{
		"PLAIN_DICTIONARY": "PLAIN_DICT", "RLE_DICTIONARY": "RLE_DICT", "DELTA_BINARY_PACKED": "DELTA_BP",
		"DELTA_LENGTH_BYTE_ARRAY": "DELTA_LBA", "DELTA_BYTE_ARRAY": "DELTA_BA", "BYTE_STREAM_SPLIT": "BSS",
	}
	out := make([]string, len(encs))
	for i, e := range encs {
		if s, ok := short[e]; ok {
			e = s
		}
		out[i] = e
	}
	return strings.Join(out, ",")
}

// byteSize renders a byte count in binary units with three significant
// digits at most.
func byteSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v := float64(n)
	for _, unit := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= 1024
		if v < 1024 {
			if v < 10 {
				return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + " " + unit
		}
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " PiB"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// shorten cuts s to n runes, saying how long it was.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + fmt.Sprintf("%s (%d bytes)", ellipsis, len(s))
}
