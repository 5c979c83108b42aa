package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestParseDate compares the fast date parser with time.Parse, the one
// arrow-go's CSV reader uses, over every day of years -1..2401 and some
// invalid strings.
func TestParseDate(t *testing.T) {
	for _, s := range []string{"2024-02-30", "2023-02-29", "2024-13-01", "2024-00-10", "2024-1-01", "20240101xx", "2024/01/01", "2024-01-0a", "+024-01-01", ""} {
		if _, ok := parseDate(s); ok {
			t.Errorf("parseDate(%q) accepted", s)
		}
	}
	for day := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC); day.Year() < 2402; day = day.AddDate(0, 0, 1) {
		s := day.Format("2006-01-02")
		got, ok := parseDate(s)
		if !ok || got != arrow.Date32FromTime(day) {
			t.Fatalf("parseDate(%q) = %d %v, want %d", s, got, ok, arrow.Date32FromTime(day))
		}
	}
}

// FuzzParseDate: the fast parser agrees with time.Parse on any input.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-02-29", "1970-01-01", "0000-01-01", "9999-12-31", "2023-02-29"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDate(s)
		tm, err := time.Parse("2006-01-02", s)
		if ok != (err == nil) || ok && got != arrow.Date32FromTime(tm) {
			t.Fatalf("parseDate(%q) = %d %v; time.Parse: %v %v", s, got, ok, tm, err)
		}
	})
}

// readAllSource drains a source, for the fuzz targets: no panic, and an
// error rather than a hang.
func readAllSource(src *batchSource) error {
	defer src.close()
	for {
		rec, err := src.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if src.release {
			rec.Release()
		}
	}
}

// FuzzCSVInput: hostile CSV (broken quotes, ragged rows, BOMs, bad
// values for the inferred types) gives rows or an error, never a panic.
func FuzzCSVInput(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbfa,b\r\n1,\"x\r\ny\"\r\n2,NA\r\n"))
	f.Add([]byte("a,b\n1,2\n3\n"))
	f.Add([]byte("d\n2024-01-01\n2024-02-30\n"))
	f.Add([]byte("t\n2024-01-01 00:00:00+01:00\nx\n"))
	f.Add([]byte("\"a\nb"))
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := &sourceOptions{text: textOptions{sampleRows: 3, batchRows: 2}}
		src, err := openCSV(bytes.NewReader(b), fmtCSV, opts)
		if err != nil {
			return
		}
		readAllSource(src)
	})
}

// FuzzJSONInput: hostile JSON gives rows or an error, never a panic.
func FuzzJSONInput(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":{"c":[1,2]}}` + "\n" + `{"a":null,"b":{"c":[]}}`))
	f.Add([]byte(`[{"a":"2024-01-01"},{"a":"x"}]`))
	f.Add([]byte(`{"a":1}{"a":"s"}`))
	f.Add([]byte(`[{"a":[[[[1]]]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		opts := &sourceOptions{text: textOptions{sampleRows: 2, batchRows: 2}}
		src, err := openJSON(bytes.NewReader(b), opts)
		if err != nil {
			return
		}
		readAllSource(src)
	})
}

// FuzzSchemaText: any text parses or fails, never panics; what parses
// prints back to text that parses to the same schema.
func FuzzSchemaText(f *testing.F) {
	f.Add("message m { required int32 a; optional group b (LIST) { repeated group list { optional binary element (STRING); } } }")
	f.Add("message m { optional fixed_len_byte_array(16) u (UUID); required int64 t (TIMESTAMP(MICROS,true)) = 3; }")
	f.Add("message m { optional int32 d (DECIMAL(9,2)); optional int64 x (INT_64); }")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := parseSchemaText(text)
		if err != nil {
			return
		}
		again, err := parseSchemaText(s.Text())
		if err != nil {
			t.Fatalf("%q parses, its text %q does not: %v", text, s.Text(), err)
		}
		if again.Text() != s.Text() {
			t.Fatalf("text changed:\n%s\n%s", s.Text(), again.Text())
		}
	})
}

// TestCSVDateErrorNamesColumn: a value that is not a date in an inferred
// (or given) date column names the row and the column.
func TestCSVDateErrorNamesColumn(t *testing.T) {
	in := "id,d\n" + strings.Repeat("1,2024-01-01\n", 5) + "2,2024-02-30\n"
	opts := &sourceOptions{text: textOptions{sampleRows: 3}}
	src, err := openCSV(strings.NewReader(in), fmtCSV, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = readAllSource(src)
	if err == nil || !strings.Contains(err.Error(), `row 6, column "d": "2024-02-30" is not a date`) {
		t.Fatalf("err = %v", err)
	}
}

// TestArrowSchemaJSON reads a schema in the Arrow integration JSON form
// (hand-written from the format's description) and uses it for CSV.
func TestArrowSchemaJSON(t *testing.T) {
	text := `{"fields": [
	  {"name": "id", "nullable": false, "type": {"name": "int", "isSigned": true, "bitWidth": 32}, "children": []},
	  {"name": "price", "nullable": true, "type": {"name": "decimal", "precision": 9, "scale": 2}, "children": []},
	  {"name": "at", "nullable": true, "type": {"name": "timestamp", "unit": "MILLISECOND", "timezone": "UTC"}, "children": []},
	  {"name": "tags", "nullable": true, "type": {"name": "list"}, "children": [
	    {"name": "item", "nullable": true, "type": {"name": "utf8"}, "children": []}]},
	  {"name": "m", "nullable": true, "type": {"name": "map", "keysSorted": false}, "children": [
	    {"name": "entries", "nullable": false, "type": {"name": "struct"}, "children": [
	      {"name": "key", "nullable": false, "type": {"name": "utf8"}, "children": []},
	      {"name": "value", "nullable": true, "type": {"name": "floatingpoint", "precision": "DOUBLE"}, "children": []}]}]}
	]}`
	got, err := loadSchema(text)
	if err != nil {
		t.Fatal(err)
	}
	want := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tags", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64), Nullable: true},
	}, nil)
	if !got.Equal(want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	dir := t.TempDir()
	in := dir + "/in.ndjson"
	os.WriteFile(in, []byte(`{"id":1,"price":"12.30","at":"2024-01-02T03:04:05.006Z","tags":["a"],"m":[{"key":"k","value":1.5}]}`+"\n"), 0o644)
	out := runOut(t, "convert", "--schema", text, in, "--to", "ndjson", "-")
	if want := `{"id":1,"price":"12.30","at":"2024-01-02T03:04:05.006Z","tags":["a"],"m":[{"key":"k","value":1.5}]}` + "\n"; out != want {
		t.Fatalf("got %s want %s", out, want)
	}
	if _, err := loadSchema(`{"fields":[{"name":"x","type":{"name":"int","bitWidth":7}}]}`); err == nil || !strings.Contains(err.Error(), "field x: int bitWidth 7") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzArrowSchemaJSON: any text gives a schema or an error, never a panic.
func FuzzArrowSchemaJSON(f *testing.F) {
	f.Add(`{"fields":[{"name":"a","type":{"name":"map"},"children":[{"name":"e","type":{"name":"struct"},"children":[{"name":"k","type":{"name":"utf8"}},{"name":"v","type":{"name":"bool"}}]}]}]}`)
	f.Add(`{"fields":[{"name":"d","type":{"name":"decimal","precision":40,"scale":2}}]}`)
	f.Add(`{"fields":[{"name":"l","type":{"name":"fixedsizelist","listSize":-1},"children":[{"name":"i","type":{"name":"int","bitWidth":8}}]}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		parseArrowSchemaJSON(text)
	})
}
