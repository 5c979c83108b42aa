package oracle_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// TestRendererAgreesWithEngines validates the Go rendering and the
// comparison on files that arrow-go's pqarrow reads correctly (per the
// catalog): pqarrow's table rendered by us must match every engine.
func TestRendererAgreesWithEngines(t *testing.T) {
	testshared.Need(t, "../../../shared/testdata/parquet-testing")
	oracle.Need(t)
	pt := "../../../shared/testdata/parquet-testing/data/"
	files := []string{
		// Not alltypes_plain: pqarrow reads its INT96 column with a UTC zone, the
		// engines (and arrowpq) as naive timestamps.
		pt + "nested_maps.snappy.parquet", pt + "list_columns.parquet",
		pt + "nulls.snappy.parquet", pt + "int32_decimal.parquet", pt + "fixed_length_decimal.parquet",
		pt + "byte_array_decimal.parquet", pt + "nested_lists.snappy.parquet", pt + "float16_nonzeros_and_nans.parquet",
		pt + "delta_byte_array.parquet", "../../testdata/sample.parquet",
	}
	ours := make([][]byte, len(files))
	for i, f := range files {
		ours[i] = readWithPqarrow(t, f)
	}
	for _, engine := range []string{"duckdb", "hyparquet"} {
		results, err := oracle.DumpMany(engine, files)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range results {
			if r.Err != "" {
				t.Errorf("%s %s: %s", engine, filepath.Base(files[i]), r.Err)
				continue
			}
			if err := oracle.Compare(ours[i], r.Rows, oracle.AllowancesFor(engine)); err != nil {
				t.Errorf("%s %s: %v", engine, filepath.Base(files[i]), err)
			}
		}
	}
}

func readWithPqarrow(t *testing.T, path string) []byte {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	pf, err := file.NewParquetReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	out, err := oracle.RenderTable(tbl)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}
