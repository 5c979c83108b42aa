package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// writeRows writes a file of n rows (id int64, s string "row-%06d") with
// the library writer, in row groups of rowGroupRows.
func writeRows(t *testing.T, path string, n, rowGroupRows int) {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil)
	w, err := arrowpq.CreateFile(path, sc, &arrowpq.WriteOptions{RowGroupRows: rowGroupRows})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	const batch = 10000
	for start := 0; start < n; start += batch {
		for i := start; i < min(start+batch, n); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row-%06d", i))
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCatLargeFile prints a 150,000-row file with a distinct string per
// row: the table shows the right rows (row 3 is "row-000003", however the
// reader recycles its buffers) and says how many it left out; csv prints
// every row.
func TestCatLargeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.parquet")
	writeRows(t, path, 150000, 50000)
	out := runOut(t, "cat", path)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Box: top rule, names, types, rule, rows..., bottom rule, footer.
	if got, want := lines[4+3], "│     3 │ row-000003 │"; got != want {
		t.Errorf("row 3: %q, want %q", got, want)
	}
	if got, want := lines[len(lines)-3], "│  9999 │ row-009999 │"; got != want {
		t.Errorf("last row shown: %q, want %q", got, want)
	}
	if got, want := lines[len(lines)-1], "150000 rows (10000 shown) × 2 columns"; got != want {
		t.Errorf("footer %q, want %q", got, want)
	}
	if n := len(lines); n != 4+10000+2 {
		t.Errorf("%d lines, want %d", n, 4+10000+2)
	}
	csv := runOut(t, "cat", "--format", "csv", path)
	rows := strings.Split(strings.TrimSuffix(csv, "\n"), "\n")
	if len(rows) != 150001 {
		t.Fatalf("csv: %d lines, want 150001", len(rows))
	}
	for i, line := range rows[1:] {
		if want := fmt.Sprintf("%d,row-%06d", i, i); line != want {
			t.Fatalf("csv line %d: %q, want %q", i+1, line, want)
		}
	}
}

// TestHeadStopsReading corrupts the last page of the last row group:
// head -n 5 (and head of the rows before it) never reads that far and
// succeeds, while cat reaches it and fails there with the hint.
func TestHeadStopsReading(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tail.parquet")
	writeRows(t, path, 3000, 1000)
	r, err := arrowpq.OpenFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Metadata().Meta.RowGroups); n != 3 {
		t.Fatalf("%d row groups, want 3", n)
	}
	md, err := r.Metadata().ColumnChunk(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	// The chunk's last byte is in its last page's body, which has a CRC.
	last := md.DataPageOffset + md.TotalCompressedSize - 1
	if md.DictionaryPageOffset != nil && *md.DictionaryPageOffset < md.DataPageOffset {
		last = *md.DictionaryPageOffset + md.TotalCompressedSize - 1
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[last] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"head", "-n", "5", path},
		{"head", "-n", "5", "--format", "csv", path},
		{"head", "-n", "1500", "--format", "jsonl", path},
	} {
		if _, errOut, code := runCLI(args...); code != 0 {
			t.Errorf("%v: exit %d, %s (read past the rows it prints?)", args, code, errOut)
		}
	}
	_, errOut, code := runCLI("cat", "--format", "csv", path)
	if code != 1 || !strings.Contains(errOut, "row group 2, column s") || !strings.Contains(errOut, "--skip-checksums") {
		t.Errorf("cat: exit %d, %q; want the checksum error in row group 2 with the hint", code, errOut)
	}
}

// TestReadmeMeta runs README's command, "arrowpq meta testdata/sample.parquet".
func TestReadmeMeta(t *testing.T) {
	out := runOut(t, "meta", sampleFile)
	for _, want := range []string{"rows        100\n", "row group 0: ", "row group 1: "} {
		if !strings.Contains(out, want) {
			t.Errorf("meta lacks %q:\n%s", want, out)
		}
	}
}
