package arrowpq_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

// matrixCase is one file of the write matrix.
type matrixCase struct {
	name    string
	codec   arrowpq.Compression
	level   int
	dict    string // "off", "on", "fallback" (a dictionary limit small enough to overflow)
	enc     string // "plain", "delta", "bss"
	v2      bool
	paged   bool // small pages and row groups
	sliced  bool
	hasBSSi bool // BYTE_STREAM_SPLIT on INT32/INT64/FLBA (DuckDB cannot read it)
}

var matrixCodecs = []arrowpq.Compression{arrowpq.Snappy, arrowpq.Uncompressed, arrowpq.Gzip, arrowpq.Zstd, arrowpq.Brotli, arrowpq.LZ4Raw, arrowpq.LZ4}

func matrixCases() []matrixCase {
	var cases []matrixCase
	k := 0
	for _, dict := range []string{"off", "on", "fallback"} {
		for _, enc := range []string{"plain", "delta", "bss"} {
			for _, v2 := range []bool{false, true} {
				for rep := range 2 {
					c := matrixCase{codec: matrixCodecs[(k+3*rep)%len(matrixCodecs)], dict: dict, enc: enc, v2: v2, paged: k%2 == 0, sliced: (k+rep)%3 != 0}
					cases = append(cases, c)
					k++
				}
			}
		}
	}
	for _, codec := range matrixCodecs {
		cases = append(cases, matrixCase{codec: codec, dict: "on", enc: "plain"})
	}
	// SNAPPY level 2: klauspost's "better" encoder, with 4-byte copy
	// offsets, for every engine's Snappy decoder.
	cases = append(cases, matrixCase{codec: arrowpq.Snappy, level: 2, dict: "off", enc: "plain", v2: true})
	cases = append(cases, matrixCase{codec: arrowpq.Snappy, level: 2, dict: "on", enc: "plain"})
	// ZSTD level 3 (klauspost's SpeedDefault, DuckDB's default and ours
	// before level 1 became the default) and the best level.
	cases = append(cases, matrixCase{codec: arrowpq.Zstd, level: 3, dict: "on", enc: "plain"})
	cases = append(cases, matrixCase{codec: arrowpq.Zstd, level: 19, dict: "fallback", enc: "plain", v2: true})
	for i := range cases {
		c := &cases[i]
		c.hasBSSi = c.enc == "bss"
		v := 1
		if c.v2 {
			v = 2
		}
		c.name = fmt.Sprintf("codec=%s/dict=%s/enc=%s/page=v%d/paged=%v/sliced=%v", c.codec, c.dict, c.enc, v, c.paged, c.sliced)
		if c.level != 0 {
			c.name = fmt.Sprintf("codec=%s-%d/dict=%s/enc=%s/page=v%d/paged=%v/sliced=%v", c.codec, c.level, c.dict, c.enc, v, c.paged, c.sliced)
		}
	}
	return cases
}

// matrixOptions returns the write options of c for schema s: the
// encoding variant picks, per leaf, an encoding its physical type allows.
func matrixOptions(t testing.TB, c matrixCase, s *arrow.Schema) *arrowpq.WriteOptions {
	m, err := typemap.FromArrow(s, typemap.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := &arrowpq.WriteOptions{Compression: c.codec, CompressionLevel: c.level, DataPageV2: c.v2, Columns: map[string]arrowpq.ColumnOptions{}}
	switch c.dict {
	case "off":
		o.Dictionary = arrowpq.Off
	case "fallback":
		o.DictionaryPageSize = 100
	}
	if c.paged {
		o.MaxRowsPerPage = 37
		o.RowGroupRows = 128
	}
	for i, col := range m.Schema.Columns {
		var e arrowpq.Encoding
		switch c.enc {
		case "delta":
			switch col.Physical {
			case format.Type_INT32, format.Type_INT64:
				e = arrowpq.DeltaBinaryPacked
			case format.Type_BYTE_ARRAY:
				e = arrowpq.DeltaLengthByteArray
				if i%2 == 0 {
					e = arrowpq.DeltaByteArray
				}
			case format.Type_FIXED_LEN_BYTE_ARRAY:
				e = arrowpq.DeltaByteArray
			case format.Type_BOOLEAN:
				e = arrowpq.RLE
			}
		case "bss":
			switch col.Physical {
			case format.Type_INT32, format.Type_INT64, format.Type_FLOAT, format.Type_DOUBLE, format.Type_FIXED_LEN_BYTE_ARRAY:
				e = arrowpq.ByteStreamSplit
			case format.Type_BYTE_ARRAY:
				e = arrowpq.DeltaByteArray
			case format.Type_BOOLEAN:
				e = arrowpq.RLE
			}
		}
		if e != arrowpq.DefaultEncoding {
			o.Columns[col.DottedPath] = arrowpq.ColumnOptions{Encoding: e}
		}
	}
	return o
}

// readPqarrow reads b with arrow-go's pqarrow.
func readPqarrow(b []byte) (tbl arrow.Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pqarrow panicked: %v", r)
		}
	}()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	return fr.ReadTable(context.Background())
}

// renderPqarrow reads b with pqarrow, leaving out the top-level fields in
// skip, and renders the rows.
func renderPqarrow(b []byte, skip map[string]string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pqarrow panicked: %v", r)
		}
	}()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	var leaves []int
	for i := range pf.MetaData().Schema.NumColumns() {
		top := strings.SplitN(pf.MetaData().Schema.Column(i).Path(), ".", 2)[0]
		if _, ok := skip[top]; !ok {
			leaves = append(leaves, i)
		}
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	for rr.Next() {
		if out, err = oracle.RenderRecord(out, rr.RecordBatch()); err != nil {
			return nil, err
		}
	}
	return out, rr.Err()
}

// pqarrowMissing lists the columns pqarrow (arrow-go v18.8) reads
// differently from the Arrow data written, and why; they are dropped from
// the pqarrow comparison. Every other column must match exactly.
var pqarrowMissing = map[string]string{
	"dur_ms": "pqarrow cannot read Duration from ARROW:schema (no support for reading columns of type: duration)",
	"json":   "pqarrow reads the JSON extension as binary",
	"mdn":    "pqarrow reads INTERVAL as fixed_size_binary[12] whatever ARROW:schema says",
	"ym":     "pqarrow reads INTERVAL as fixed_size_binary[12] whatever ARROW:schema says",
	"dt":     "pqarrow reads INTERVAL as fixed_size_binary[12] whatever ARROW:schema says",
}

// engineSkips says which columns an engine cannot read, from the oracle
// README's limits; they are dropped from the comparison with that engine.
var engineSkips = map[string]map[string]string{
	"duckdb":      {},
	"hyparquet":   {},
	"parquetwasm": {},
}

// dropColumns removes the named keys from every JSON line of rendering.
func dropColumns(t testing.TB, rows []byte, names map[string]string) []byte {
	if len(names) == 0 {
		return rows
	}
	var out []byte
	for _, line := range bytes.Split(bytes.TrimSuffix(rows, []byte("\n")), []byte("\n")) {
		var kv []string
		s := string(line)
		// Top-level keys are quoted names followed by ':' at depth 1.
		depth, inStr, start := 0, false, 1
		for i := 0; i < len(s); i++ {
			ch := s[i]
			switch {
			case inStr:
				if ch == '\\' {
					i++
				} else if ch == '"' {
					inStr = false
				}
			case ch == '"':
				inStr = true
			case ch == '{' || ch == '[':
				depth++
			case ch == '}' || ch == ']':
				depth--
				if depth == 0 {
					kv = append(kv, s[start:i])
				}
			case ch == ',' && depth == 1:
				kv = append(kv, s[start:i])
				start = i + 1
			}
		}
		var keep []string
		for _, p := range kv {
			name := p[1 : strings.Index(p[1:], `"`)+1]
			if _, drop := names[name]; !drop {
				keep = append(keep, p)
			}
		}
		out = append(out, '{')
		out = append(out, strings.Join(keep, ",")...)
		out = append(out, '}', '\n')
	}
	return out
}

// TestWriteMatrix writes every supported Arrow type under each codec,
// dictionary mode, encoding family and page version, and checks that our
// reader, arrow-go's pqarrow and three independent engines (DuckDB,
// arrow-rs in parquet-wasm, hyparquet) read back the source values.
func TestWriteMatrix(t *testing.T) {
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	cases := matrixCases()
	var paths []string
	var wants [][]byte
	for i, c := range cases {
		off := 0
		if c.sliced {
			off = 11
		}
		rec := genRecord(t, mem, 300, off, uint64(i))
		want := renderRec(t, rec)
		opts := matrixOptions(t, c, rec.Schema())
		b := writeBytes(t, rec, opts)
		// arrow-rs cannot read MonthDayNano from ARROW:schema: parquet-wasm
		// reads a copy without it, which tests the Parquet types alone.
		opts.ArrowSchema = arrowpq.Off
		bare := writeBytes(t, rec, opts)
		schema := rec.Schema()
		rec.Release()

		checkPageIndexes(t, c.name, b)
		tbl := readOurs(t, b)
		if err := oracle.Compare(renderTbl(t, tbl), want, oracle.Allowances{}); err != nil {
			t.Errorf("%s: our reader: %v", c.name, err)
		}
		if !tbl.Schema().Equal(schema) {
			t.Errorf("%s: our reader's schema %s", c.name, tbl.Schema())
		}
		tbl.Release()

		if c.codec == arrowpq.LZ4 || c.enc == "delta" {
			// arrow-go implements neither the Hadoop LZ4 codec nor
			// DELTA_BYTE_ARRAY on FIXED_LEN_BYTE_ARRAY (it panics).
		} else if got, err := renderPqarrow(b, pqarrowMissing); err != nil {
			t.Errorf("%s: pqarrow: %v", c.name, err)
		} else if err := oracle.Compare(got, dropColumns(t, want, pqarrowMissing), oracle.Allowances{}); err != nil {
			t.Errorf("%s: pqarrow: %s", c.name, shortDiff(err))
		}
		p := filepath.Join(dir, fmt.Sprintf("m%03d.parquet", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		wants = append(wants, want)
		if err := os.WriteFile(p+".bare", bare, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oracle.Need(t)
	for _, engine := range oracle.Engines {
		var files []string
		var idx []int
		for i, c := range cases {
			if engine == "duckdb" && (c.codec == arrowpq.LZ4 || c.hasBSSi) {
				continue // README: DuckDB reads neither LZ4 nor BYTE_STREAM_SPLIT on INT32/INT64/FLBA
			}
			if engine == "parquetwasm" {
				files = append(files, paths[i]+".bare")
			} else {
				files = append(files, paths[i])
			}
			idx = append(idx, i)
		}
		res, err := oracle.DumpMany(engine, files)
		if errors.Is(err, oracle.ErrNotInstalled) {
			t.Fatal(err)
		}
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		ok := 0
		for k, r := range res {
			c := cases[idx[k]]
			if r.Err != "" {
				t.Errorf("%s: %s: %s", engine, c.name, firstLine(r.Err))
				continue
			}
			skip := engineSkips[engine]
			if err := oracle.Compare(dropColumns(t, r.Rows, skip), dropColumns(t, wants[idx[k]], skip), oracle.AllowancesFor(engine)); err != nil {
				t.Errorf("%s: %s: %s", engine, c.name, shortDiff(err))
				continue
			}
			ok++
		}
		t.Logf("%s: %d of %d files agree", engine, ok, len(files))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// shortDiff cuts a Compare error to the differing value of each line.
func shortDiff(err error) string {
	msg := err.Error()
	i := strings.Index(msg, " differs at .")
	if i < 0 {
		return msg
	}
	rest := msg[i+len(" differs at ."):]
	key := rest[:strings.IndexAny(rest, ":.[")]
	out := msg[:i] + " differs at " + key
	for _, line := range strings.Split(rest, "\n")[1:] {
		if j := strings.Index(line, `"`+key+`":`); j >= 0 {
			v := line[j:]
			if len(v) > 160 {
				v = v[:160]
			}
			out += "\n    " + strings.TrimSpace(line[:strings.Index(line, "{")]) + " " + v
		}
	}
	return out
}
