package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/internal/arrowjson"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

var updateGolden = flag.Bool("update", false, "rewrite cmd/arrowpq/testdata/golden from the current output")

// corpusDir is the parquet-testing corpus in ../shared beside the
// repository (three levels up from cmd/arrowpq).
const corpusDir = "../../../shared/testdata/parquet-testing/data"

// needSharedDir skips the test when dir (from ../shared) is missing, or
// fails it when ARROWPQ_REQUIRE_SHARED=1 says the corpus must be there.
func needSharedDir(t *testing.T, dir string) {
	t.Helper()
	testshared.Need(t, dir)
}

// runCLI runs the tool with args and returns its stdout, stderr and exit
// status.
func runCLI(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// fakeTerminal makes the tool see stdout as a terminal of cols columns
// ($COLUMNS), as an interactive shell would.
func fakeTerminal(t *testing.T, cols int) {
	old := isTTY
	isTTY = func(io.Writer) bool { return true }
	t.Cleanup(func() { isTTY = old })
	t.Setenv("COLUMNS", strconv.Itoa(cols))
}

// checkGolden compares got with testdata/golden/name, or writes it there
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/arrowpq -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// goldenFiles are the corpus files of the golden tests, with the flags
// each needs to be read.
var goldenFiles = []struct {
	file  string
	flags []string
}{
	{"alltypes_plain.parquet", nil},                              // flat, every physical type, INT96 in ns range
	{"nested_structs.rust.parquet", nil},                         // 36 wide structs, 216 leaves
	{"int96_from_spark.parquet", []string{"--int96-unit", "us"}}, // dates past 2262
	{"nested_maps.snappy.parquet", nil},                          // map of maps with null and empty maps
	{"fixed_length_decimal.parquet", nil},                        // DECIMAL(25,2) in FLBA(11)
}

// TestGolden prints schema, meta, head and cat (csv, jsonl) of five
// corpus files and compares them with testdata/golden. The output goes to
// a buffer, not a terminal, so nothing is cut. TestGoldenMatchesDuckDB
// checks values in these files against DuckDB.
func TestGolden(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, g := range goldenFiles {
		path := corpusDir + "/" + g.file
		base := strings.TrimSuffix(g.file, ".parquet")
		for _, c := range []struct {
			name string
			args []string
		}{
			{"schema", []string{"schema", path}},
			{"meta", []string{"meta", path}},
			{"head", append([]string{"head", path}, g.flags...)},
			{"cat.csv", append([]string{"cat", "--format", "csv", path}, g.flags...)},
			{"cat.jsonl", append([]string{"cat", "--format", "jsonl", path}, g.flags...)},
		} {
			t.Run(base+"/"+c.name, func(t *testing.T) {
				out, errOut, code := runCLI(c.args...)
				if code != 0 || errOut != "" {
					t.Fatalf("arrowpq %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errOut)
				}
				checkGolden(t, base+"."+c.name+".txt", out)
			})
		}
	}
}

// TestGoldenMatchesDuckDB checks lines of the golden files against what
// DuckDB 1.5.5 reads from the same files (node
// ../shared/oracle/dump.mjs --engine duckdb FILE, run by hand; the values
// are copied here), so that the golden files are not only our own
// output.
func TestGoldenMatchesDuckDB(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct {
		golden, want, duckdb string
	}{
		// DuckDB: {"id":"5","bool_col":false,...,"float_col":1.100000023841858,"double_col":10.1,
		// "date_string_col":"0x30332f30312f3039","string_col":"0x31","timestamp_col":"ts:1235865660000000000ns"}
		// (1235865660 s = 2009-03-01T00:01:00Z; 0x30332f30312f3039 = "03/01/09"; float32 1.1)
		{"alltypes_plain.cat.csv.txt", "5,false,1,1,1,10,1.1,10.1,03/01/09,1,2009-03-01T00:01:00\n", `"id":"5"`},
		// DuckDB: {"id":"1",...,"timestamp_col":"ts:1230768060000000000ns"} = 2009-01-01T00:01:00Z, the last row.
		{"alltypes_plain.cat.csv.txt", "1,false,1,1,1,10,1.1,10.1,01/01/09,1,2009-01-01T00:01:00\n", `"id":"1"`},
		// DuckDB (ns): 1704141296123456000 = 2024-01-01T20:34:56.123456Z; 253402225200000000000 =
		// 9999-12-31T03:00:00Z; row 5 null. CATALOG.md: the last value is 9089380393200000000 us, year 290000.
		{"int96_from_spark.cat.jsonl.txt", `{"a":"2024-01-01T20:34:56.123456"}` + "\n", "ts:1704141296123456000ns"},
		{"int96_from_spark.cat.jsonl.txt", `{"a":"9999-12-31T03:00:00"}` + "\n" + `{"a":"2024-12-30T23:00:00"}` + "\n" + `{"a":null}` + "\n", "ts:253402225200000000000ns"},
		// DuckDB: {"a":[["a",[["1",true],["2",false]]]],"b":"1","c":1} and {"a":[["c",null]],...}, {"a":[["d",[]]],...}
		{"nested_maps.snappy.cat.jsonl.txt", `{"a":[{"key":"a","value":[{"key":1,"value":true},{"key":2,"value":false}]}],"b":1,"c":1}` + "\n", "map a"},
		{"nested_maps.snappy.cat.jsonl.txt", `{"a":[{"key":"c","value":null}],"b":1,"c":1}` + "\n" + `{"a":[{"key":"d","value":[]}],"b":1,"c":1}` + "\n", "null and empty inner maps"},
		// DuckDB: {"value":"1.00"} ... {"value":"24.00"}
		{"fixed_length_decimal.cat.csv.txt", "value\n1.00\n2.00\n", `"value":"1.00"`},
		{"fixed_length_decimal.cat.csv.txt", "\n24.00\n", `"value":"24.00"`},
		// DuckDB: roll_num.min = 190406409000602, PC_CUR.min = 115 (first fields of the first two structs).
		{"nested_structs.rust.cat.jsonl.txt", `{"roll_num":{"min":190406409000602,`, "roll_num.min"},
		{"nested_structs.rust.cat.jsonl.txt", `"PC_CUR":{"min":115,`, "PC_CUR.min"},
		// DuckDB: ul_observation_date.min = "ts:1608822900000000000us" (nanoseconds stored as µs:
		// 18620635 days and 10 hours after the epoch, year 52951; JSON
		// holds a year past 9999 as the number of units, which reads back).
		{"nested_structs.rust.cat.jsonl.txt", `"ul_observation_date":{"min":1608822900000000000,`, "ts:1608822900000000000us"},
	} {
		if got := read(c.golden); !strings.Contains(got, c.want) {
			t.Errorf("%s lacks %q (DuckDB: %s)", c.golden, c.want, c.duckdb)
		}
	}
	// The table view shows the same values as csv, nulls as NULL.
	if got := read("int96_from_spark.head.txt"); !strings.Contains(got, "│ 290000-12-30T23:00:00      │") || !strings.Contains(got, "│ NULL                       │") {
		t.Errorf("int96_from_spark.head.txt:\n%s", got)
	}
}

// TestInt96Unit reads int96_from_spark.parquet, whose dates past 2262 do
// not fit nanoseconds, at microseconds: the values CATALOG.md lists.
func TestInt96Unit(t *testing.T) {
	needSharedDir(t, corpusDir)
	path := corpusDir + "/int96_from_spark.parquet"
	out, errOut, code := runCLI("cat", "--int96-unit", "us", "--format", "csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// CATALOG.md: 1704141296123456, 1704070800000000, 253402225200000000,
	// 1735599600000000, null, 9089380393200000000 (µs since the epoch).
	want := "a\n2024-01-01T20:34:56.123456\n2024-01-01T01:00:00\n9999-12-31T03:00:00\n2024-12-30T23:00:00\n\n290000-12-30T23:00:00\n"
	if out != want {
		t.Errorf("cat --int96-unit us:\n%s\nwant:\n%s", out, want)
	}
	// The default table format shows the same values, the null as NULL.
	table := runOut(t, "cat", "--int96-unit", "us", path)
	for _, v := range []string{"2024-01-01T20:34:56.123456", "2024-01-01T01:00:00", "9999-12-31T03:00:00", "2024-12-30T23:00:00", "NULL", "290000-12-30T23:00:00", "6 rows × 1 column"} {
		if !strings.Contains(table, v) {
			t.Errorf("cat --int96-unit us (table) lacks %q:\n%s", v, table)
		}
	}
	// Milliseconds drop the microseconds of the first value.
	out, _, _ = runCLI("cat", "--int96-unit", "ms", "--format", "csv", path)
	if !strings.HasPrefix(out, "a\n2024-01-01T20:34:56.123\n") {
		t.Errorf("cat --int96-unit ms:\n%s", out)
	}
}

// TestHelp asks every command for help in each way: the usage is printed
// once, on stdout, with exit status 0 and nothing on stderr.
func TestHelp(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {"help", name}, {name, "x", "--help"}} {
			t.Run(strings.Join(args, "_"), func(t *testing.T) {
				out, errOut, code := runCLI(args...)
				if code != 0 || errOut != "" {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				if !strings.HasPrefix(out, "usage: arrowpq "+name+" ") || strings.Count(out, "usage: arrowpq "+name) != 1 {
					t.Errorf("want the usage once on stdout, got:\n%s", out)
				}
				// Long flags are shown with two dashes, as they are typed.
				if strings.Contains(out, "\n  -") && !strings.Contains(out, "\n  --") {
					t.Errorf("flags shown with one dash:\n%s", out)
				}
			})
		}
	}
	out, errOut, code := runCLI("help")
	if code != 0 || errOut != "" || !strings.Contains(out, "commands:") {
		t.Errorf("help: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// One line per command (and version) between "commands:" and the hint.
	list := out[strings.Index(out, "commands:\n")+len("commands:\n"):]
	list = list[:strings.Index(list, "\n\n")]
	if n := strings.Count(list, "\n") + 1; n != len(commands)+1 {
		t.Errorf("help lists %d lines for %d commands:\n%s", n, len(commands), list)
	}
	if !strings.Contains(runOut(t, "convert", "--help"), "key/value metadata is kept") {
		t.Error("convert --help does not say it keeps key/value metadata")
	}
}

func runOut(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(args...)
	if code != 0 {
		t.Fatalf("arrowpq %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return out
}

// TestErrors checks the error lines: one "arrowpq <command>:" prefix, one
// line, exit status 1 for a failure and 2 for a mistake in the call, and
// the flag that would help named when there is one.
func TestErrors(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"missing file", []string{"head", "nope.parquet"}, 1, []string{"arrowpq head: open nope.parquet: no such file or directory\n"}},
		{"int96 past ns", []string{"head", corpusDir + "/int96_from_spark.parquet"}, 1,
			[]string{"arrowpq head: read ", "row group 0, column a, page 1", "does not fit a timestamp", " (use --int96-unit us)\n"}},
		{"int96 explicit ns", []string{"cat", "--int96-unit", "ns", corpusDir + "/int96_from_spark.parquet"}, 1, []string{"(use --int96-unit us)"}},
		{"checksum", []string{"cat", corpusDir + "/datapage_v1-corrupt-checksum.parquet"}, 1,
			[]string{"arrowpq cat: read ", "column a, page 0 at offset 4", "CRC-32", " (use --skip-checksums to read it anyway)\n"}},
		{"checksum dictionary page", []string{"head", corpusDir + "/rle-dict-uncompressed-corrupt-checksum.parquet"}, 1,
			[]string{"(use --skip-checksums to read it anyway)"}},
		{"checksum in convert", []string{"convert", corpusDir + "/datapage_v1-corrupt-checksum.parquet", filepath.Join(t.TempDir(), "x.parquet")}, 1,
			[]string{"arrowpq convert: read ", "(use --skip-checksums to read it anyway)"}},
		// The page header says 1073741828 bytes, 4 over the 1 GiB default.
		{"page size", []string{"head", corpusDir + "/large_string_map.brotli.parquet"}, 1,
			[]string{"page of 1073741828 bytes", " (use --max-page-size 2GiB to accept it)\n"}},
		{"page size below limit", []string{"head", "--max-page-size", "64MiB", corpusDir + "/large_string_map.brotli.parquet"}, 1,
			[]string{"above the maximum of 67108864", "(use --max-page-size 2GiB to accept it)"}},
		{"unknown flag", []string{"head", "--bogus", "x.parquet"}, 2,
			[]string{"arrowpq head: flag provided but not defined: -bogus\nusage: arrowpq head ", "(see 'arrowpq head --help')\n"}},
		{"bad size", []string{"cat", "--max-page-size", "12XB", "x.parquet"}, 2, []string{`unknown unit "XB"`}},
		{"seconds", []string{"cat", "--int96-unit", "s", "x.parquet"}, 2, []string{"seconds are not available for INT96; use ms"}},
		{"two files, first missing", []string{"head", "a", "b"}, 1, []string{"arrowpq head: open a: no such file or directory\n"}},
		{"unknown command", []string{"frobnicate"}, 2, []string{"arrowpq: unknown command \"frobnicate\""}},
		{"bad format", []string{"cat", "--format", "xml", "x"}, 2, []string{"unknown --format \"xml\""}},
		{"negative limit", []string{"head", "-n", "-5", "x"}, 2, []string{"--limit -5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
			if strings.Contains(errOut, "arrowpq: arrowpq") || strings.Count(errOut, ": arrowpq: ") > 0 {
				t.Errorf("repeated prefix: %q", errOut)
			}
			if c.code == 1 && strings.Count(errOut, "\n") != 1 {
				t.Errorf("want one line, got %q", errOut)
			}
		})
	}
	// The flags the hints name do read the files.
	out := runOut(t, "cat", "--skip-checksums", "--format", "csv", corpusDir+"/datapage_v1-corrupt-checksum.parquet")
	if n := strings.Count(out, "\n"); n != 5121 {
		t.Errorf("cat --skip-checksums: %d lines, want 5121 (header and 5120 rows)", n)
	}
	out = runOut(t, "cat", "--skip-checksums", "--format", "csv", corpusDir+"/rle-dict-uncompressed-corrupt-checksum.parquet")
	if n := strings.Count(out, "\n"); n != 1001 {
		t.Errorf("cat --skip-checksums: %d lines, want 1001", n)
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"64MiB", 64 << 20}, {"64mib", 64 << 20}, {"2GiB", 2 << 30}, {"2G", 2 << 30},
		{"512k", 512 << 10}, {"1.5GiB", 3 << 29}, {"64MB", 64e6}, {"1KB", 1000}, {"4GiB", 4 << 30},
		{"", -1}, {"MiB", -1}, {"5XB", -1}, {"0", -1}, {"5GiB", -1}, {"1.5", -1}, {"-1", -1}, {"1e9", -1},
	} {
		got, err := parseSize(c.in)
		if c.want < 0 {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

// TestColumnsOrder asks for columns out of file order: they come back in
// the order asked, in every format.
func TestColumnsOrder(t *testing.T) {
	needSharedDir(t, corpusDir)
	path := corpusDir + "/alltypes_plain.parquet"
	out := runOut(t, "head", "-n", "2", "--columns", "string_col,id,bool_col", "--format", "csv", path)
	if want := "string_col,id,bool_col\n0,4,true\n1,5,false\n"; out != want {
		t.Errorf("csv:\n%s\nwant:\n%s", out, want)
	}
	out = runOut(t, "head", "-n", "1", "--columns", "string_col,id", "--format", "jsonl", path)
	if want := `{"string_col":"MA==","id":4}` + "\n"; out != want {
		t.Errorf("jsonl: %s want %s", out, want)
	}
	out = runOut(t, "head", "-n", "1", "--columns", "timestamp_col,id", path)
	if !strings.Contains(out, "│    timestamp_col    │  id   │") {
		t.Errorf("table:\n%s", out)
	}
	// A dotted path keeps its top-level field, placed where it was asked.
	out = runOut(t, "head", "-n", "1", "--columns", "c,a.key_value.key", "--format", "csv", corpusDir+"/nested_maps.snappy.parquet")
	if !strings.HasPrefix(out, "c,a\n1,") {
		t.Errorf("dotted path:\n%s", out)
	}
}

// checkFits asserts that every line of a table is at most width runes and
// returns the lines.
func checkFits(t *testing.T, out string, width int) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > width {
			t.Errorf("line of %d runes > %d: %s", n, width, l)
		}
	}
	return lines
}

// TestTableFitsTerminal prints tables in terminals of 60, 80 and 200
// columns ($COLUMNS): no line is wider, the first and last columns are
// shown with a … column for the ones left out, headers are readable, and
// the footer counts rows and columns.
func TestTableFitsTerminal(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, c := range []struct {
		file       string
		width      int
		shownCols  int
		headers    []string // must appear whole
		footer     string
		noEllipsis bool
	}{
		{"alltypes_plain.parquet", 60, 4, []string{"id", "bool_col", "string_col", "timestamp_col"}, "8 rows × 11 columns (4 shown)", false},
		{"alltypes_plain.parquet", 80, 5, []string{"id", "bool_col", "tinyint_col", "string_col", "timestamp_col"}, "8 rows × 11 columns (5 shown)", false},
		{"alltypes_plain.parquet", 200, 11, []string{"smallint_col", "date_string_col", "timestamp_col"}, "8 rows × 11 columns", true},
		{"nested_structs.rust.parquet", 60, 1, []string{"roll_num"}, "1 row × 36 columns (1 shown)", false},
		{"nested_structs.rust.parquet", 80, 2, []string{"roll_num", "ul_tz_offset_minutes_ul_observation_date"}, "1 row × 36 columns (2 shown)", false},
		{"nested_structs.rust.parquet", 200, 7, []string{"roll_num", "PC_CUR", "ul_tz_offset_minutes_ul_observation_date"}, "1 row × 36 columns (7 shown)", false},
	} {
		name := fmt.Sprintf("%s/w%d", strings.TrimSuffix(c.file, ".parquet"), c.width)
		t.Run(name, func(t *testing.T) {
			fakeTerminal(t, c.width)
			out := runOut(t, "head", corpusDir+"/"+c.file)
			checkGolden(t, strings.ReplaceAll(name, "/", ".head.")+".txt", out)
			lines := checkFits(t, out, c.width)
			if got := lines[len(lines)-1]; got != c.footer {
				t.Errorf("footer %q, want %q", got, c.footer)
			}
			for _, h := range c.headers {
				if !strings.Contains(lines[1], " "+h+" ") {
					t.Errorf("header %q not whole in %q", h, lines[1])
				}
			}
			if hasEllipsisCol := strings.Contains(lines[1], "│ … │") || strings.HasSuffix(lines[1], "│ … │"); hasEllipsisCol == c.noEllipsis {
				t.Errorf("… column: %v, want %v: %q", hasEllipsisCol, !c.noEllipsis, lines[1])
			}
			if n := strings.Count(lines[0], "┬") + 1; n != c.shownCols+btoi(!c.noEllipsis) {
				t.Errorf("%d columns drawn, want %d shown and the … column", n, c.shownCols)
			}
			if strings.Contains(out, "\x1b[") {
				t.Error("ANSI escape in the table")
			}
		})
	}
	// Timestamps stay whole at 80 columns (the issue saw "2009-…").
	fakeTerminal(t, 80)
	if out := runOut(t, "head", corpusDir+"/alltypes_plain.parquet"); !strings.Contains(out, "2009-03-01T00:00:00") {
		t.Errorf("timestamps cut:\n%s", out)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTableWidthFlags checks --max-width (fit without a terminal) and
// --wide (no fitting in a terminal), and that output to a file or pipe is
// not cut even when $COLUMNS is set.
func TestTableWidthFlags(t *testing.T) {
	needSharedDir(t, corpusDir)
	path := corpusDir + "/nested_structs.rust.parquet"
	t.Setenv("COLUMNS", "80")
	whole := runOut(t, "head", path) // not a terminal: nothing cut
	if !strings.Contains(whole, `{"min":0,"max":0,"mean":0,"count":0,"sum":0,"variance":0}`) || !strings.Contains(whole, "1 row × 36 columns\n") {
		t.Errorf("output to a buffer was cut:\n%.400s", whole)
	}
	checkFits(t, runOut(t, "head", "--max-width", "100", path), 100)
	fakeTerminal(t, 80)
	if wide := runOut(t, "head", "--wide", path); wide != whole {
		t.Errorf("--wide in a terminal differs from the uncut output")
	}
	if _, errOut, code := runCLI("head", "--wide", "--max-width", "50", path); code != 2 {
		t.Errorf("--wide --max-width: exit %d, %q", code, errOut)
	}
}

// TestTableRendering checks the box renderer on hand-made batches: NULL
// versus the string "null", escaped control characters, right-aligned
// numbers, headers cut in the middle only when a column cannot be wider.
func TestTableRendering(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{7, 12345, 0}, []bool{true, true, false})
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"null", "a\tb\nc", ""}, []bool{true, true, false})
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	bw := newBoxWriter(&out, 0, 10, 3)
	if err := bw.write(rec); err != nil {
		t.Fatal(err)
	}
	if err := bw.flush(); err != nil {
		t.Fatal(err)
	}
	want := `┌───────┬─────────┐
│   n   │    s    │
│ int64 │  utf8   │
├───────┼─────────┤
│     7 │ null    │
│ 12345 │ a\tb\nc │
│  NULL │ NULL    │
└───────┴─────────┘
3 rows × 2 columns
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, c := range []struct {
		digits string
		scale  int32
		want   string
	}{
		{"100", 2, "1.00"}, {"-5", 3, "-0.005"}, {"0", 2, "0.00"}, {"12", -2, "1200"}, {"-123456789012345678901234567890", 10, "-12345678901234567890.1234567890"},
	} {
		n, _ := new(big.Int).SetString(c.digits, 10)
		if got := arrowjson.DecimalText(n, c.scale); got != c.want {
			t.Errorf("decimalText(%s, %d) = %s, want %s", c.digits, c.scale, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"timestamp_col", 9, "time…_col"}, {"timestamp_col", 13, "timestamp_col"}, {"abc", 1, "…"},
		{"東京都_tokyo", 7, "東…okyo"}, {"東京都_tokyo", 8, "東京…kyo"},
	} {
		if got := cutMiddle(c.in, c.n); got != c.want {
			t.Errorf("cutMiddle(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	// Wide characters take two cells, combining marks none: the borders
	// line up in a terminal.
	for _, c := range []struct {
		in    string
		width int
		cut5  string
	}{
		{"abc", 3, "abc"}, {"日本語テキスト", 14, "日本…"}, {"e\u0301te\u0301", 3, "e\u0301te\u0301"}, {"한국어", 6, "한국…"}, {"ab🙂cd", 6, "ab🙂…"},
	} {
		if got := textWidth(c.in); got != c.width {
			t.Errorf("textWidth(%q) = %d, want %d", c.in, got, c.width)
		}
		if got := cutEnd(c.in, 5); got != c.cut5 || textWidth(got) > 5 {
			t.Errorf("cutEnd(%q, 5) = %q, want %q", c.in, got, c.cut5)
		}
	}
}

// TestTableFitsCorpus prints head of every readable corpus file in
// terminals of 30, 60 and 120 columns: no line is wider than the
// terminal.
func TestTableFitsCorpus(t *testing.T) {
	needSharedDir(t, corpusDir)
	files, err := filepath.Glob(corpusDir + "/*.parquet")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	for _, width := range []int{30, 60, 120} {
		fakeTerminal(t, width)
		read := 0
		for _, f := range files {
			out, _, code := runCLI("head", f)
			if code != 0 {
				continue // unreadable without flags, or not meant to be read
			}
			read++
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("%s at %d columns: line of %d: %s", filepath.Base(f), width, n, l)
				}
			}
		}
		if read < 50 {
			t.Errorf("only %d corpus files read", read)
		}
	}
}
