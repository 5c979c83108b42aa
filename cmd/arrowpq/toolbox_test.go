package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// readRendered reads a Parquet file with arrowpq and renders it in the
// oracle's canonical form (the values, independent of how they print).
func readRendered(t *testing.T, path string) (string, *arrow.Schema) {
	t.Helper()
	r, err := arrowpq.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []byte
	for r.Next() {
		if out, err = oracle.RenderRecord(out, r.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return string(out), r.Schema()
}

// writeDataset writes rows of a benchmark dataset to a Parquet file.
func writeDataset(t *testing.T, d benchmarks.Dataset, rows int, path string) {
	t.Helper()
	rec := d.Build(memory.DefaultAllocator, rows)
	defer rec.Release()
	w, err := arrowpq.CreateFile(path, rec.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

var convertFormats = []struct{ name, ext string }{
	{fmtParquet, ".parquet"}, {fmtArrow, ".arrow"}, {fmtArrows, ".arrows"},
	{fmtCSV, ".csv"}, {fmtTSV, ".tsv"}, {fmtJSON, ".json"}, {fmtNDJSON, ".ndjson"},
}

// TestConvertEveryPair converts each benchmark dataset (300 rows) from
// Parquet to every format A, then A to every format B, then B back to
// Parquet, and compares the values with the original. CSV and JSON are
// read back with --schema (the original file), so that types are the
// original's; inference is tested against DuckDB separately. Nested data
// to CSV fails with an error naming the column.
func TestConvertEveryPair(t *testing.T) {
	for _, d := range benchmarks.Datasets {
		t.Run(d.Name, func(t *testing.T) {
			dir := t.TempDir()
			orig := filepath.Join(dir, "orig.parquet")
			writeDataset(t, d, 300, orig)
			want, sc := readRendered(t, orig)
			if strings.Count(want, "\n") != 300 {
				t.Fatalf("the original renders %d lines", strings.Count(want, "\n"))
			}
			nested := false
			for _, f := range sc.Fields() {
				nested = nested || !csvType(f.Type)
			}
			for _, a := range convertFormats {
				pathA := filepath.Join(dir, "a"+a.ext)
				_, errOut, code := runCLI("convert", orig, pathA)
				if nested && (a.name == fmtCSV || a.name == fmtTSV) {
					if code != 1 || !strings.Contains(errOut, "CSV cannot hold nested values") || !strings.Contains(errOut, `column "`) {
						t.Fatalf("nested to %s: exit %d, stderr %q", a.name, code, errOut)
					}
					continue
				}
				if code != 0 {
					t.Fatalf("parquet -> %s: %s", a.name, errOut)
				}
				for _, b := range convertFormats {
					if nested && (b.name == fmtCSV || b.name == fmtTSV) {
						continue
					}
					pathB := filepath.Join(dir, "b"+b.ext)
					back := filepath.Join(dir, "back.parquet")
					if _, errOut, code := runCLI("convert", "--schema", orig, pathA, pathB); code != 0 {
						t.Fatalf("%s -> %s: %s", a.name, b.name, errOut)
					}
					if _, errOut, code := runCLI("convert", "--schema", orig, pathB, back); code != 0 {
						t.Fatalf("%s -> parquet: %s", b.name, errOut)
					}
					got, _ := readRendered(t, back)
					if got != want {
						t.Fatalf("parquet -> %s -> %s -> parquet changed the values:\n%s", a.name, b.name, firstDiff(got, want))
					}
				}
			}
		})
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// TestConvertCorpusRoundTrip converts corpus files to Arrow, NDJSON and
// back to Parquet (JSON with --schema): values equal.
func TestConvertCorpusRoundTrip(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, f := range []string{"alltypes_plain.parquet", "nested_structs.rust.parquet", "nested_maps.snappy.parquet", "nullable.impala.parquet", "fixed_length_decimal.parquet", "data_index_bloom_encoding_stats.parquet"} {
		t.Run(f, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(corpusDir, f)
			// The reference: the file as arrowpq reads it, written by us.
			ref := filepath.Join(dir, "ref.parquet")
			if _, errOut, code := runCLI("convert", src, ref); code != 0 {
				t.Fatal(errOut)
			}
			want, _ := readRendered(t, ref)
			for _, ext := range []string{".arrow", ".arrows", ".ndjson", ".json"} {
				mid := filepath.Join(dir, "mid"+ext)
				back := filepath.Join(dir, "back.parquet")
				if _, errOut, code := runCLI("convert", ref, mid); code != 0 {
					t.Fatalf("-> %s: %s", ext, errOut)
				}
				if _, errOut, code := runCLI("convert", "--schema", ref, mid, back); code != 0 {
					t.Fatalf("%s ->: %s", ext, errOut)
				}
				if got, _ := readRendered(t, back); got != want {
					t.Fatalf("via %s: %s", ext, firstDiff(got, want))
				}
			}
		})
	}
}

// duckTypeName is DuckDB's name of the type we infer.
func duckTypeName(dt arrow.DataType) string {
	switch dt := dt.(type) {
	case *arrow.Int64Type:
		return "BIGINT"
	case *arrow.Float64Type:
		return "DOUBLE"
	case *arrow.BooleanType:
		return "BOOLEAN"
	case *arrow.Date32Type:
		return "DATE"
	case *arrow.StringType:
		return "VARCHAR"
	case *arrow.TimestampType:
		if dt.TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE"
		}
		if dt.Unit == arrow.Nanosecond {
			return "TIMESTAMP_NS"
		}
		return "TIMESTAMP"
	}
	return dt.String()
}

// messyCSV builds the inference test file: a BOM, CRLF line ends, quoted
// fields with newlines and delimiters, NA and empty nulls mixed in, and
// wide columns (2000 more, alternating ints and words).
func messyCSV(extra int) string {
	var b strings.Builder
	b.WriteString("\xef\xbb\xbf")
	head := []string{"id", "qty", "price", "flag", "day", "at", "at_tz", "note", "empty", "hhmm", "mixed_num_text", "big"}
	for i := 0; i < extra; i++ {
		head = append(head, fmt.Sprintf("w%d", i))
	}
	b.WriteString(strings.Join(head, ",") + "\r\n")
	for r := 0; r < 200; r++ {
		qty := fmt.Sprint(r * 3)
		if r%7 == 0 {
			qty = "NA"
		} else if r%11 == 0 {
			qty = ""
		}
		price := fmt.Sprintf("%d.%02d", r, r%100)
		if r%13 == 0 {
			price = "NA"
		}
		flag := []string{"true", "false", ""}[r%3]
		day := fmt.Sprintf("2024-%02d-%02d", r%12+1, r%28+1)
		at := fmt.Sprintf("2024-01-02 %02d:%02d:%02d.%03d", r%24, r%60, r%60, r)
		atTZ := fmt.Sprintf("2024-01-02T%02d:00:00+0%d:00", r%24, r%9)
		note := fmt.Sprintf("\"line %d\r\nsecond, with comma and \"\"quotes\"\"\"", r)
		mixed := fmt.Sprint(r)
		if r == 150 {
			mixed = "n/a-ish"
		}
		row := []string{fmt.Sprint(r), qty, price, flag, day, at, atTZ, note, "", fmt.Sprintf("%02d:%02d:00", r%24, r%60), mixed, fmt.Sprint(int64(r) * 100000000000)}
		for i := 0; i < extra; i++ {
			if i%2 == 0 {
				row = append(row, fmt.Sprint(r+i))
			} else {
				row = append(row, fmt.Sprintf("word%d", (r+i)%5))
			}
		}
		b.WriteString(strings.Join(row, ",") + "\r\n")
	}
	return b.String()
}

// knownInferenceDifferences are the columns where our inference and
// DuckDB's read_csv differ on purpose (docs/cli.md says why).
var knownInferenceDifferences = map[string]string{
	"hhmm": "DuckDB infers TIME; arrowpq has no TIME inference (string)",
}

// TestCSVInferenceMatchesDuckDB infers the types of the messy file and
// compares them with DuckDB's read_csv (nullstr ” and NA) column by
// column; values of the narrow columns are compared too.
func TestCSVInferenceMatchesDuckDB(t *testing.T) {
	oracle.Need(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "messy.csv")
	if err := os.WriteFile(in, []byte(messyCSV(2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "messy.parquet")
	if _, errOut, code := runCLI("convert", "--null", "", "--null", "NA", in, out); code != 0 {
		t.Fatal(errOut)
	}
	_, ours := readRendered(t, out)
	rows, err := oracle.DuckDBSQL(fmt.Sprintf("DESCRIBE SELECT * FROM read_csv('%s', nullstr=['', 'NA'])", in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != ours.NumFields() {
		t.Fatalf("DuckDB sees %d columns, we %d", len(rows), ours.NumFields())
	}
	var differ []string
	for i, row := range rows {
		name, duck := row["column_name"].(string), row["column_type"].(string)
		f := ours.Field(i)
		if f.Name != name {
			t.Fatalf("column %d: DuckDB names it %q, we %q", i, name, f.Name)
		}
		if got := duckTypeName(f.Type); got != duck {
			if why, ok := knownInferenceDifferences[name]; ok {
				t.Logf("column %s: ours %s, DuckDB %s (known: %s)", name, got, duck, why)
				continue
			}
			differ = append(differ, fmt.Sprintf("%s: ours %s, DuckDB %s", name, got, duck))
		}
	}
	if len(differ) > 0 {
		t.Errorf("%d columns differ from DuckDB:\n%s", len(differ), strings.Join(differ, "\n"))
	}
}

// TestDuckDBReadsOurText has DuckDB read the CSV and NDJSON that convert
// writes from the lineitem dataset, and compares its values with ours
// through DuckDB itself: DuckDB reads the original Parquet file and the
// text, and the two queries must return the same rows.
func TestDuckDBReadsOurText(t *testing.T) {
	oracle.Need(t)
	dir := t.TempDir()
	d, _ := benchmarks.DatasetByName("lineitem")
	orig := filepath.Join(dir, "orig.parquet")
	writeDataset(t, d, 500, orig)
	for _, tc := range []struct{ ext, reader string }{
		{".csv", "read_csv('%s')"},
		{".json", "read_json('%s')"},
		{".ndjson", "read_json('%s', format='newline_delimited')"},
	} {
		text := filepath.Join(dir, "ours"+tc.ext)
		if _, errOut, code := runCLI("convert", orig, text); code != 0 {
			t.Fatal(errOut)
		}
		// Differences both ways, with the text cast to the Parquet types.
		q := fmt.Sprintf(`WITH p AS (FROM '%s'), x AS (SELECT * FROM `+tc.reader+`),
			xc AS (SELECT `+castList(t, orig)+` FROM x)
			SELECT (SELECT count(*) FROM (FROM p EXCEPT ALL FROM xc)) AS missing,
			       (SELECT count(*) FROM (FROM xc EXCEPT ALL FROM p)) AS extra,
			       (SELECT count(*) FROM x) AS n`, orig, text)
		rows, err := oracle.DuckDBSQL(q)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(rows[0]["missing"]) != "0" || fmt.Sprint(rows[0]["extra"]) != "0" || fmt.Sprint(rows[0]["n"]) != "500" {
			t.Errorf("%s: DuckDB reads other values than the Parquet file holds: %v", tc.ext, rows[0])
		}
	}
}

// castList casts each column of the text to the type DuckDB gives the
// Parquet column, by name.
func castList(t *testing.T, parquetPath string) string {
	t.Helper()
	rows, err := oracle.DuckDBSQL(fmt.Sprintf("DESCRIBE FROM '%s'", parquetPath))
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, r := range rows {
		cols = append(cols, fmt.Sprintf(`CAST("%s" AS %s) AS "%s"`, r["column_name"], r["column_type"], r["column_name"]))
	}
	return strings.Join(cols, ", ")
}

// TestWeReadDuckDBText has DuckDB write CSV and JSON of the lineitem
// dataset; we convert them to Parquet (inferring types, then with
// --schema) and DuckDB finds the same rows as in the original.
func TestWeReadDuckDBText(t *testing.T) {
	oracle.Need(t)
	dir := t.TempDir()
	d, _ := benchmarks.DatasetByName("lineitem")
	orig := filepath.Join(dir, "orig.parquet")
	writeDataset(t, d, 500, orig)
	for _, tc := range []struct{ ext, opts string }{
		{".csv", "(HEADER, DELIMITER ',')"},
		{".tsv", "(FORMAT csv, HEADER, DELIMITER '\t')"},
		{".ndjson", "(FORMAT json)"},
		{".json", "(FORMAT json, ARRAY true)"},
	} {
		text := filepath.Join(dir, "duck"+tc.ext)
		if _, err := oracle.DuckDBSQL(fmt.Sprintf("COPY (FROM '%s') TO '%s' %s", orig, text, tc.opts)); err != nil {
			t.Fatal(err)
		}
		for _, schema := range []bool{false, true} {
			back := filepath.Join(dir, "back.parquet")
			args := []string{"convert", text, back}
			if schema {
				args = []string{"convert", "--schema", orig, text, back}
			}
			if _, errOut, code := runCLI(args...); code != 0 {
				t.Fatalf("%s (schema %v): %s", tc.ext, schema, errOut)
			}
			q := fmt.Sprintf(`WITH p AS (FROM '%s'), b AS (SELECT `+castList(t, orig)+` FROM '%s')
				SELECT (SELECT count(*) FROM (FROM p EXCEPT ALL FROM b)) AS missing,
				       (SELECT count(*) FROM (FROM b EXCEPT ALL FROM p)) AS extra`, orig, back)
			rows, err := oracle.DuckDBSQL(q)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rows[0]["missing"]) != "0" || fmt.Sprint(rows[0]["extra"]) != "0" {
				t.Errorf("%s (schema %v): our Parquet holds other values than DuckDB wrote: %v", tc.ext, schema, rows[0])
			}
		}
	}
}

// TestManyInputs: a directory, a glob and a list are read as one table
// under the union of the schemas; a missing column is null; a type
// conflict names both files and both types.
func TestManyInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.csv", "id,x\n1,one\n2,two\n")
	b := write("b.csv", "id,y\n3,true\n")
	c := write("c.csv", "id,x\n4,4.5\n")
	sub := filepath.Join(dir, "pq")
	os.Mkdir(sub, 0o755)
	for i, in := range []string{a, b} {
		if _, errOut, code := runCLI("convert", in, filepath.Join(sub, fmt.Sprintf("part%d.parquet", i))); code != 0 {
			t.Fatal(errOut)
		}
	}
	out := runOut(t, "cat", "--format", "jsonl", sub)
	want := `{"id":1,"x":"one","y":null}
{"id":2,"x":"two","y":null}
{"id":3,"x":null,"y":true}
`
	if out != want {
		t.Errorf("cat DIR:\n%s\nwant\n%s", out, want)
	}
	if got := runOut(t, "cat", "--format", "jsonl", filepath.Join(sub, "part*.parquet")); got != want {
		t.Errorf("cat GLOB:\n%s", got)
	}
	if got := runOut(t, "rowcount", filepath.Join(sub, "*")); got != fmt.Sprintf("2 %s\n1 %s\n3 total\n", filepath.Join(sub, "part0.parquet"), filepath.Join(sub, "part1.parquet")) {
		t.Errorf("rowcount GLOB: %q", got)
	}
	merged := filepath.Join(dir, "merged.parquet")
	runOut(t, "convert", a, b, merged)
	if got := runOut(t, "cat", "--format", "jsonl", merged); got != want {
		t.Errorf("convert A B merged:\n%s", got)
	}
	_, errOut, code := runCLI("convert", a, c, filepath.Join(dir, "x.parquet"))
	if code != 1 || !strings.Contains(errOut, `column "x" has type utf8 in `+a+` but float64 in `+c) {
		t.Errorf("conflict: exit %d, %q", code, errOut)
	}
	if _, errOut, code := runCLI("cat", filepath.Join(dir, "nothing*.parquet")); code != 1 || !strings.Contains(errOut, "no file matches") {
		t.Errorf("empty glob: exit %d, %q", code, errOut)
	}
}

// TestWriterFlags checks that convert's writer flags reach the file, as
// DuckDB's parquet_metadata and parquet_kv_metadata see it.
func TestWriterFlags(t *testing.T) {
	oracle.Need(t)
	dir := t.TempDir()
	d, _ := benchmarks.DatasetByName("strings")
	orig := filepath.Join(dir, "orig.parquet")
	writeDataset(t, d, 2000, orig)
	out := filepath.Join(dir, "out.parquet")
	runOut(t, "convert", "--compression", "zstd", "--column", "description:compression=gzip,dictionary=off,encoding=delta_length_byte_array",
		"--bloom", "unique_id:5000:0.001", "--statistics=off", "--arrow-schema=off", "--row-group-rows", "500", "--page-version", "2", orig, out)
	rows, err := oracle.DuckDBSQL(fmt.Sprintf(`SELECT row_group_id, path_in_schema, compression, encodings, stats_min IS NULL AS nostats,
		bloom_filter_offset IS NOT NULL AS bloom FROM parquet_metadata('%s') ORDER BY row_group_id, column_id`, out))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4*3 {
		t.Fatalf("want 4 row groups x 3 columns, got %d chunks", len(rows))
	}
	for _, r := range rows {
		path := fmt.Sprint(r["path_in_schema"])
		wantCodec := "ZSTD"
		if path == "description" {
			wantCodec = "GZIP"
			if enc := fmt.Sprint(r["encodings"]); strings.Contains(enc, "DICTIONARY") || !strings.Contains(enc, "DELTA_LENGTH_BYTE_ARRAY") {
				t.Errorf("description encodings %s", enc)
			}
		}
		if r["compression"] != wantCodec {
			t.Errorf("%s: codec %v, want %s", path, r["compression"], wantCodec)
		}
		if r["nostats"] != true {
			t.Errorf("%s: statistics written with --statistics=off", path)
		}
		if (path == "unique_id") != (r["bloom"] == true) {
			t.Errorf("%s: bloom filter %v", path, r["bloom"])
		}
	}
	kv, err := oracle.DuckDBSQL(fmt.Sprintf(`SELECT count(*) AS n FROM parquet_kv_metadata('%s') WHERE decode(key) = 'ARROW:schema'`, out))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(kv[0]["n"]) != "0" {
		t.Errorf("ARROW:schema written with --arrow-schema=off")
	}
	if _, errOut, code := runCLI("convert", "--column", "nope", orig, out); code != 2 || !strings.Contains(errOut, "want COL:key=value") {
		t.Errorf("bad --column: exit %d %q", code, errOut)
	}
}

// TestSchemaText parses the schema text that 'arrowpq schema' prints for
// corpus files back into the same Arrow schema.
func TestSchemaText(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, f := range []string{"alltypes_plain.parquet", "nested_maps.snappy.parquet", "fixed_length_decimal.parquet", "nested_structs.rust.parquet", "nullable.impala.parquet"} {
		path := filepath.Join(corpusDir, f)
		text := runOut(t, "schema", path)
		got, err := loadSchema(text)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f, err, text)
		}
		want, err := loadSchema(path)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			t.Errorf("%s: schema text gives\n%s\nwant\n%s", f, got, want)
		}
	}
}

// TestToolboxGolden: golden outputs of the new commands and flags.
func TestToolboxGolden(t *testing.T) {
	needSharedDir(t, corpusDir)
	dir := t.TempDir()
	csvIn := filepath.Join(dir, "in.csv")
	os.WriteFile(csvIn, []byte("\xef\xbb\xbfid,name,when,ok\r\n1,\"a, b\",2024-01-02 03:04:05,true\r\n2,,2024-01-03T00:00:00,false\r\n"), 0o644)
	alltypes := corpusDir + "/alltypes_plain.parquet"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"completion.bash", []string{"completion", "bash"}},
		{"completion.zsh", []string{"completion", "zsh"}},
		{"completion.fish", []string{"completion", "fish"}},
		{"convert.help", []string{"convert", "--help"}},
		{"cat.help", []string{"cat", "--help"}},
		{"meta.summary", []string{"meta", "--summary", alltypes, corpusDir + "/alltypes_plain.snappy.parquet"}},
		{"size.two", []string{"size", alltypes, corpusDir + "/alltypes_plain.snappy.parquet"}},
		{"csv.cat.jsonl", []string{"cat", "--format", "jsonl", csvIn}},
		{"alltypes.convert.ndjson", []string{"convert", alltypes, "--to", "ndjson", "-"}},
		{"alltypes.convert.csv", []string{"convert", alltypes, "--to", "csv", "-"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(c.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("arrowpq %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errOut)
			}
			out = strings.ReplaceAll(out, corpusDir, "CORPUS")
			checkGolden(t, c.name+".txt", out)
		})
	}
}

// TestCompletionBash sources the bash script and completes a command, a
// flag and a flag value through COMP_WORDS, as bash does on TAB.
func TestCompletionBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := buildCLI(t)
	script := `source <("$BIN" completion bash); complete -p arrowpq
COMP_WORDS=(arrowpq con); COMP_CWORD=1; _arrowpq; echo "1:${COMPREPLY[*]}"
COMP_WORDS=(arrowpq convert --compr); COMP_CWORD=2; _arrowpq; echo "2:${COMPREPLY[*]}"
COMP_WORDS=(arrowpq convert --to nd); COMP_CWORD=3; _arrowpq; echo "3:${COMPREPLY[*]}"
COMP_WORDS=(arrowpq completion f); COMP_CWORD=2; _arrowpq; echo "4:${COMPREPLY[*]}"`
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "complete -o filenames -F _arrowpq arrowpq\n1:convert\n2:--compression --compression-level\n3:ndjson\n4:fish\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	for _, sh := range []string{"zsh", "fish"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s not installed: its script is checked by the golden file only", sh)
			continue
		}
		cmd := exec.Command(sh, "-n")
		cmd.Stdin = strings.NewReader(runOut(t, "completion", sh))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v %s", sh, err, out)
		}
	}
}

// TestNoSyncFlag: --no-sync reaches WriteOptions.NoSync (which
// arrowpq.TestCreateFileNoSync shows skips the syncs); without it the
// output is synced.
func TestNoSyncFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--no-sync"}, true}} {
		var wf writeFlags
		fs := flag.NewFlagSet("convert", flag.ContinueOnError)
		wf.register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		o, err := wf.apply()
		if err != nil {
			t.Fatal(err)
		}
		if o.NoSync != tc.want {
			t.Errorf("%q: NoSync %v, want %v", tc.args, o.NoSync, tc.want)
		}
	}
	out := filepath.Join(t.TempDir(), "out.parquet")
	runOut(t, "convert", "--no-sync", "../../testdata/sample.parquet", out)
	if got, want := runOut(t, "rowcount", out), runOut(t, "rowcount", "../../testdata/sample.parquet"); got != want {
		t.Errorf("rowcount after convert --no-sync: %q, want %q", got, want)
	}
}
