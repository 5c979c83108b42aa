package arrowpq_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// FuzzReadFile mutates small valid Parquet files and reads them to the end
// with every column: the reader must return data or an error, never panic,
// and stay within the page size limit it is given.
func FuzzReadFile(f *testing.F) {
	for _, name := range []string{"alltypes_plain.parquet", "alltypes_dictionary.parquet", "nested_maps.snappy.parquet",
		"nullable.impala.parquet", "datapage_v2.snappy.parquet", "delta_length_byte_array.parquet",
		"byte_stream_split.zstd.parquet", "rle_boolean_encoding.parquet", "list_columns.parquet",
		"fixed_length_decimal.parquet", "int32_with_null_pages.parquet", "null_list.parquet"} {
		if !testshared.Has(f, sharedTestdata) {
			break
		}
		b, err := os.ReadFile(dataFile(name))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hostile file must not hang the reader: each read gets a few
		// seconds.
		done := make(chan error, 1)
		go func() { done <- readFully(data) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("reading a %d-byte file took more than 10 s", len(data))
		}
	})
}

// readFully reads data as a Parquet file to the end and reports a batch
// that is not well formed (read errors are fine: hostile input).
func readFully(data []byte) error {
	opts := &arrowpq.ReadOptions{MaxPageSize: 4 << 20, BatchSize: 37, Parallelism: 1}
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil
	}
	defer r.Close()
	for r.Next() {
		if err := array.ValidateRecordFull(r.RecordBatch()); err != nil {
			return fmt.Errorf("invalid batch: %w", err)
		}
	}
	return nil
}
