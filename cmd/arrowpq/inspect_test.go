package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inspectGolden are the inspection commands run by TestInspectGolden, each
// on a corpus file (path relative to corpusDir); the output goes to
// testdata/golden/<name>.txt.
var inspectGolden = []struct {
	name string
	args []string
}{
	{"rowcount", []string{"rowcount", "alltypes_plain.parquet", "int32_with_null_pages.parquet"}},
	{"alltypes_plain.size", []string{"size", "alltypes_plain.parquet"}},
	{"alltypes_plain.pages.string_col", []string{"pages", "alltypes_plain.parquet", "string_col"}},
	{"alltypes_plain.dictionary.string_col", []string{"dictionary", "alltypes_plain.parquet", "string_col"}},
	{"alltypes_plain.dictionary.timestamp_col", []string{"dictionary", "alltypes_plain.parquet", "timestamp_col"}},
	{"alltypes_plain.dictionary.timestamp_col.limit3", []string{"dictionary", "--limit", "3", "alltypes_plain.parquet", "timestamp_col"}},
	{"alltypes_plain.footer", []string{"footer", "--json", "alltypes_plain.parquet"}},
	{"alltypes_plain.check", []string{"check", "alltypes_plain.parquet"}},
	{"data_index_bloom_encoding_stats.pages.String", []string{"pages", "data_index_bloom_encoding_stats.parquet", "String"}},
	{"data_index_bloom_encoding_stats.column-index.String", []string{"column-index", "data_index_bloom_encoding_stats.parquet", "String"}},
	{"data_index_bloom_encoding_stats.check", []string{"check", "data_index_bloom_encoding_stats.parquet"}},
	{"int32_with_null_pages.pages.int32_field", []string{"pages", "int32_with_null_pages.parquet", "int32_field"}},
	{"int32_with_null_pages.column-index.int32_field", []string{"column-index", "int32_with_null_pages.parquet", "int32_field"}},
	{"int32_with_null_pages.check", []string{"check", "int32_with_null_pages.parquet"}},
	{"nested_structs.rust.size", []string{"size", "nested_structs.rust.parquet"}},
	{"nested_structs.rust.pages", []string{"pages", "nested_structs.rust.parquet", "roll_num.min"}},
	{"nested_structs.rust.check", []string{"check", "nested_structs.rust.parquet"}},
	{"data_index_bloom_encoding_with_length.dictionary.String", []string{"dictionary", "data_index_bloom_encoding_with_length.parquet", "String"}},
}

// TestInspectGolden compares the output of the inspection commands and
// check with testdata/golden (go test -update rewrites them).
// TestInspectMatchesDuckDB checks values in them against DuckDB.
func TestInspectGolden(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, g := range inspectGolden {
		t.Run(g.name, func(t *testing.T) {
			args := append([]string(nil), g.args...)
			for i, a := range args {
				if strings.HasSuffix(a, ".parquet") {
					args[i] = corpusDir + "/" + a
				}
			}
			out, errOut, code := runCLI(args...)
			if code != 0 || errOut != "" {
				t.Fatalf("arrowpq %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
			}
			checkGolden(t, g.name+".txt", strings.ReplaceAll(out, corpusDir+"/", ""))
		})
	}
}

// TestInspectMatchesDuckDB checks lines of the golden files against DuckDB
// 1.5.5's parquet_metadata() (node ../shared/oracle/dump.mjs --engine
// duckdb --meta FILE, run by hand; values copied here) and CATALOG.md.
func TestInspectMatchesDuckDB(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		golden, re, why string
	}{
		// CATALOG.md: alltypes_plain 8 rows; int32_with_null_pages 1000.
		{"rowcount.txt", `^8 alltypes_plain.parquet\n1000 int32_with_null_pages.parquet\n1008 total\n$`, "CATALOG rows"},
		// DuckDB: id compressed 73 uncompressed 73; timestamp_col 139 139; string_col 49 49.
		{"alltypes_plain.size.txt", `(?m)^id +73 +73 `, "DuckDB id sizes"},
		{"alltypes_plain.size.txt", `(?m)^timestamp_col +139 +139 `, "DuckDB timestamp_col sizes"},
		{"alltypes_plain.size.txt", `(?m)^string_col +49 +49 `, "DuckDB string_col sizes"},
		// DuckDB: string_col dictionary_page_offset 840, data_page_offset 863.
		{"alltypes_plain.pages.string_col.txt", `(?m)^ 0 +0 +DICT .* 840$`, "DuckDB dictionary_page_offset"},
		{"alltypes_plain.pages.string_col.txt", `(?m)^ 0 +1 +DATA .* 863$`, "DuckDB data_page_offset"},
		// DuckDB reads string_col as "0" and "1" (0x30, 0x31: no UTF8 annotation).
		{"alltypes_plain.dictionary.string_col.txt", `(?m)^  0  0x30\n  1  0x31\n`, "DuckDB string_col values"},
		// DuckDB: String compressed 152, uncompressed 163, min "Hello", max "today", null count 0.
		{"data_index_bloom_encoding_stats.column-index.String.txt", `(?m)^ +0 +no +0 +"Hello" +"today" +4 `, "DuckDB min/max"},
		// DuckDB: int32_field null count 275 (= the sum of the column index
		// null counts), min -2136906554 (page 6), max 2145722375 (page 7).
		{"int32_with_null_pages.column-index.int32_field.txt", `(?m)^ +6 +no +5 +-2136906554 `, "DuckDB chunk min"},
		{"int32_with_null_pages.column-index.int32_field.txt", `(?m)^ +7 +no +7 +-?\d+ +2145722375 `, "DuckDB chunk max"},
		// CATALOG.md: "at least one page that is entirely null".
		{"int32_with_null_pages.column-index.int32_field.txt", `(?m)^ +2 +yes +100 `, "CATALOG null page"},
		// CATALOG.md: with_length has the same 14 values, dictionary encoded.
		{"data_index_bloom_encoding_with_length.dictionary.String.txt", `14 values`, "CATALOG"},
	} {
		got := read(c.golden)
		if !regexpMatch(c.re, got) {
			t.Errorf("%s does not match %q (%s):\n%s", c.golden, c.re, c.why, got)
		}
	}
	// The null counts of the column index add up to DuckDB's 275.
	sum := 0
	for _, line := range strings.Split(read("int32_with_null_pages.column-index.int32_field.txt"), "\n")[3:] {
		f := strings.Fields(line)
		if len(f) > 3 {
			n := 0
			for _, r := range f[2] {
				n = n*10 + int(r-'0')
			}
			sum += n
		}
	}
	if sum != 275 {
		t.Errorf("column index null counts add up to %d, DuckDB says 275", sum)
	}
}

// TestBloomCorpus asks the parquet-mr bloom filter of
// data_index_bloom_encoding_stats.parquet about its 14 values (DuckDB's
// read of the file) and about 200 absent ones.
func TestBloomCorpus(t *testing.T) {
	needSharedDir(t, corpusDir)
	file := corpusDir + "/data_index_bloom_encoding_stats.parquet"
	for _, v := range []string{"Hello", "This is", "a", "test", "How", "are you", "doing ", "today",
		"the quick", "brown fox", "jumps", "over", "the lazy", "dog"} {
		out, errOut, code := runCLI("bloom", file, "String", v)
		if code != 0 || out != "row group 0: may contain\n" {
			t.Errorf("bloom %q: exit %d, %q %q", v, code, out, errOut)
		}
	}
	absent := 0
	for i := range 200 {
		out, _, code := runCLI("bloom", file, "String", "absent value "+strings.Repeat("x", i%7)+string(rune('A'+i%26))+strings.Repeat("y", i/26))
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if out == "row group 0: definitely not\n" {
			absent++
		}
	}
	if absent < 190 {
		t.Errorf("only %d of 200 absent values are ruled out", absent)
	}
	out, _, _ := runCLI("bloom", corpusDir+"/alltypes_plain.parquet", "id", "3")
	if out != "row group 0: no bloom filter\n" {
		t.Errorf("alltypes_plain id: %q", out)
	}
}

// TestInspectErrors: an unknown column lists the columns; a bad VALUE is a
// usage error; footer without --json says what to add.
func TestInspectErrors(t *testing.T) {
	needSharedDir(t, corpusDir)
	file := corpusDir + "/alltypes_plain.parquet"
	_, errOut, code := runCLI("pages", file, "nope")
	if code != 1 || !strings.Contains(errOut, `has no column "nope"; its columns are id, bool_col,`) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("unknown column: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI("bloom", file, "id", "x")
	if code != 2 || !strings.HasPrefix(errOut, `arrowpq bloom: VALUE "x" for column id: want a 32-bit integer`) {
		t.Errorf("bad value: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI("footer", file)
	if code != 2 || !strings.Contains(errOut, "add --json") {
		t.Errorf("footer without --json: exit %d, %q", code, errOut)
	}
	for _, cmd := range []string{"rowcount", "size", "pages", "dictionary", "column-index", "bloom", "footer", "check"} {
		out, errOut, code := runCLI(cmd, "--help")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: arrowpq "+cmd+" ") {
			t.Errorf("%s --help: exit %d, %q, %q", cmd, code, out, errOut)
		}
	}
}

// TestInspectFitsTerminal: the tables fit an 80-column terminal.
func TestInspectFitsTerminal(t *testing.T) {
	needSharedDir(t, corpusDir)
	fakeTerminal(t, 80)
	for _, args := range [][]string{
		{"pages", corpusDir + "/int32_with_null_pages.parquet", "int32_field"},
		{"pages", corpusDir + "/data_index_bloom_encoding_stats.parquet", "String"},
		{"column-index", corpusDir + "/data_index_bloom_encoding_stats.parquet", "String"},
		{"size", corpusDir + "/nested_structs.rust.parquet"},
		{"dictionary", corpusDir + "/alltypes_plain.parquet", "timestamp_col"},
	} {
		out, errOut, code := runCLI(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		checkFits(t, out, 80)
		if strings.Contains(out, "\x1b") {
			t.Errorf("%v: ANSI escape in the output", args)
		}
	}
}

func regexpMatch(re, s string) bool { return regexp.MustCompile(re).MatchString(s) }

// TestBloomDuckDB asks the bloom filters DuckDB 1.5.5 wrote (one per
// dictionary-encoded chunk) about every present value and 200 absent ones
// of each type. testdata/duckdb_bloom.parquet was written with
// node and @duckdb/node-api from ../shared/oracle:
//
//	COPY (SELECT (x % 200)::INTEGER AS i, (x % 200)::BIGINT * 1000000007 AS b,
//	  DATE '2024-01-01' + (x % 200)::INTEGER AS d, ((x % 200) * 1.25)::DECIMAL(9,2) AS dec,
//	  ((x % 200) * 1.25)::DECIMAL(20,3) AS bigdec,
//	  'name-' || (x % 200) AS s, TIMESTAMP '2024-01-01 00:00:00' + to_seconds((x % 200)::BIGINT * 61) AS ts,
//	  ('00000000-0000-0000-0000-' || lpad((x % 200)::VARCHAR, 12, '0'))::UUID AS id,
//	  (x % 200) / 4.0 AS f, (x % 200)::UINTEGER AS u
//	  FROM range(4000) t(x)) TO 'duckdb_bloom.parquet' (FORMAT parquet)
//
// so VALUE parsing (dates, timestamps, UUIDs, decimals, unsigned, doubles) and hashing are
// checked against another writer. bigdec is PLAIN and has no filter.
func TestBloomDuckDB(t *testing.T) {
	const file = "testdata/duckdb_bloom.parquet"
	date := func(days int) string {
		return time.Date(2024, 1, 1+days, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
	}
	dec := func(k int) string { return strconv.FormatFloat(float64(k)*1.25, 'f', 2, 64) }
	for _, c := range []struct {
		col    string
		value  func(k int) string // k in [0, 200) is present, [200, 400) absent
		absent func(k int) string
	}{
		{"i", strconv.Itoa, nil},
		{"b", func(k int) string { return strconv.FormatInt(int64(k)*1000000007, 10) }, nil},
		{"d", date, nil},
		{"dec", dec, nil},
		{"s", func(k int) string { return "name-" + strconv.Itoa(k) }, nil},
		{"ts", func(k int) string {
			return time.Date(2024, 1, 1, 0, 0, k*61, 0, time.UTC).Format(time.RFC3339)
		}, nil},
		{"id", func(k int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", k) }, nil},
		{"f", func(k int) string { return strconv.FormatFloat(float64(k)/4, 'g', -1, 64) }, nil},
		{"u", strconv.Itoa, func(k int) string { return strconv.FormatUint(4_000_000_000+uint64(k), 10) }},
	} {
		t.Run(c.col, func(t *testing.T) {
			absent := c.absent
			if absent == nil {
				absent = c.value
			}
			out := 0
			for k := range 200 {
				got, errOut, code := runCLI("bloom", file, c.col, c.value(k))
				if code != 0 || got != "row group 0: may contain\n" {
					t.Errorf("%s = %s is in the file: exit %d, %q %q", c.col, c.value(k), code, got, errOut)
				}
				got, errOut, code = runCLI("bloom", file, c.col, absent(200+k))
				if code != 0 {
					t.Fatalf("%s = %s: exit %d, %s", c.col, absent(200+k), code, errOut)
				}
				if got == "row group 0: definitely not\n" {
					out++
				}
			}
			if out < 190 {
				t.Errorf("only %d of 200 absent values are ruled out", out)
			}
		})
	}
	if got, _, _ := runCLI("bloom", file, "bigdec", "1.5"); got != "row group 0: no bloom filter\n" {
		t.Errorf("bigdec: %q", got)
	}
	if got, _, code := runCLI("check", file); code != 0 {
		t.Errorf("check of DuckDB's file: exit %d\n%s", code, got)
	}
}
