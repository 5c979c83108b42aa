package arrowpq_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func ExampleCreateFile() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(path, []byte("the previous version"), 0o644); err != nil {
		log.Fatal(err)
	}

	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	defer rec.Release()

	// A write that fails part way: Abort (or a failed Close) leaves the
	// existing file as it was.
	w, err := arrowpq.CreateFile(path, schema, nil)
	if err != nil {
		log.Fatal(err)
	}
	w.Write(rec)
	w.Abort()
	old, _ := os.ReadFile(path)
	fmt.Printf("after Abort: %q\n", old)

	// A write that succeeds replaces it when Close returns.
	w, err = arrowpq.CreateFile(path, schema, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		w.Abort()
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	r, err := arrowpq.OpenFile(path, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	fmt.Println("after Close:", r.NumRows(), "rows")
	// Output:
	// after Abort: "the previous version"
	// after Close: 3 rows
}

func ExampleCreateOutputFile() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	// A failed export: the old file stays as it was.
	o, err := arrowpq.CreateOutputFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(o, "half of the new")
	o.Abort()
	b, _ := os.ReadFile(path)
	fmt.Printf("after Abort: %q\n", b)

	// A complete one replaces it.
	o, err = arrowpq.CreateOutputFile(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintln(o, "new")
	if err := o.Commit(); err != nil {
		log.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	fmt.Printf("after Commit: %q, %d file in the directory\n", b, len(entries))
	// Output:
	// after Abort: "old\n"
	// after Commit: "new\n", 1 file in the directory
}
