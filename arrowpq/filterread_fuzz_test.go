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

// filterFuzzCorpus are files with page indexes (and statistics, bloom
// filters) that FuzzFilteredRead mutates.
var filterFuzzCorpus = []string{"alltypes_tiny_pages.parquet", "data_index_bloom_encoding_stats.parquet",
	"int32_with_null_pages.parquet", "alltypes_plain.parquet"}

var filterFuzzFilters = []string{"id > 3000 AND id < 3100", "String = 'Hello'", "int32_field < 0 OR int32_field IS NULL",
	"id IN (1, 2, 7)", "bool_col = true"}

// FuzzFilteredRead mutates files with page indexes and reads them with a
// filter and a row window: the page index, bloom filters and statistics
// come from the hostile file, so pruning, sparse chunks and SkipRecords
// must give data or an error, never a panic or a hang. The filter byte's
// top bits read strings as views (64) and lists as list views (128):
// layouts that arrow-go's filter kernels lack, which FilterBatch copies
// itself (filtercols.go).
func FuzzFilteredRead(f *testing.F) {
	testshared.Need(f, sharedTestdata)
	var files [][]byte
	for _, name := range filterFuzzCorpus {
		b, err := os.ReadFile(dataFile(name))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, b)
	}
	for i := range files {
		f.Add(uint8(i), uint8(i), uint16(0), uint16(0xffff), []byte{})
		f.Add(uint8(i), uint8(0), uint16(100), uint16(300), []byte{0, 0xff, 0xf0, 0x55, 1, 0xff, 0xf8, 0x00})
		f.Add(uint8(i), uint8(192+i), uint16(0), uint16(0xffff), []byte{})
	}
	f.Fuzz(func(t *testing.T, file, filter uint8, lo, hi uint16, edits []byte) {
		data := applyEdits(files[int(file)%len(files)], edits)
		done := make(chan error, 1)
		go func() {
			opts := &arrowpq.ReadOptions{MaxPageSize: 4 << 20, BatchSize: 37, Parallelism: 1,
				Rows:  arrowpq.NewRowRanges(arrowpq.RowRange{Start: int64(lo), End: int64(hi)}),
				Views: filter&64 != 0, ListViews: filter&128 != 0}
			p, err := arrowpq.ParseFilter(filterFuzzFilters[int(filter)%len(filterFuzzFilters)])
			if err != nil {
				done <- err
				return
			}
			opts.Filter = p
			r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
			if err != nil {
				done <- badError(err)
				return
			}
			defer r.Close()
			for r.Next() {
				if err := array.ValidateRecordFull(r.RecordBatch()); err != nil {
					done <- fmt.Errorf("invalid batch: %w", err)
					return
				}
			}
			done <- badError(r.Err())
		}()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-timer.C:
			t.Fatalf("reading a %d-byte file took more than 10 s", len(data))
		}
	})
}
