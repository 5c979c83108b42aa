package main

import (
	"bytes"
	"errors"
	"io"
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
