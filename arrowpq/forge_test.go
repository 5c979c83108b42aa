package arrowpq_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/forge"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// forgeCorpus are the files FuzzForgeFields forges, by index: the small
// files of parquet-testing (under 40 KB, so that a read takes about a
// millisecond), encrypted ones left out. The order is fixed: the seeds in
// testdata/fuzz/FuzzForgeFields name files by index.
var forgeCorpus = strings.Fields(`rle_boolean_encoding.parquet byte_array_decimal.parquet nan_in_stats.parquet
column_chunk_key_value_metadata.parquet datapage_v2_empty_datapage.snappy.parquet nulls.snappy.parquet
int32_decimal.parquet binary.parquet float16_zeros_and_nans.parquet int96_from_spark.parquet
float16_nonzeros_and_nans.parquet null_list.parquet page_v2_empty_compressed.parquet
fixed_length_decimal_legacy.parquet old_list_structure.parquet int64_decimal.parquet
incorrect_map_schema.parquet dict-page-offset-zero.parquet single_nan.parquet repeated_no_annotation.parquet
fixed_length_decimal.parquet hadoop_lz4_compressed.parquet lz4_raw_compressed.parquet
rle-dict-uncompressed-corrupt-checksum.parquet plain-dict-uncompressed-checksum.parquet
rle-dict-snappy-checksum.parquet map_no_value.parquet nested_lists.snappy.parquet
unknown-logical-type.parquet datapage_v2.snappy.parquet non_hadoop_lz4_compressed.parquet
repeated_primitive_no_list.parquet nested_maps.snappy.parquet sort_columns.parquet
data_index_bloom_encoding_stats.parquet concatenated_gzip_members.parquet alltypes_dictionary.parquet
alltypes_plain.snappy.parquet alltypes_plain.parquet list_columns.parquet nation.dict-malformed.parquet
data_index_bloom_encoding_with_length.parquet binary_truncated_min_max.parquet
delta_length_byte_array.parquet nonnullable.impala.parquet datapage_v1-snappy-compressed-checksum.parquet
int32_with_null_pages.parquet nullable.impala.parquet byte_stream_split.zstd.parquet
large_string_map.brotli.parquet fixed_length_byte_array.parquet floating_orders_nan_count.parquet
delta_encoding_optional_column.parquet delta_encoding_required_column.parquet
byte_stream_split_extended.gzip.parquet`)

var loadForgeCorpus = sync.OnceValues(func() ([]*forge.File, error) {
	var files []*forge.File
	for _, name := range forgeCorpus {
		b, err := os.ReadFile(dataFile(name))
		if err != nil {
			return nil, err
		}
		f, err := forge.Parse(name, b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, f)
	}
	return files, nil
})

// maxForgedAlloc is the most a read of a forged file may allocate. The
// files are under 40 KB; the limits of the reader for what such a file can
// claim (64 MiB fixed-width batches, 1Mi levels, 256 MiB pages from Brotli)
// stay well below it.
const maxForgedAlloc = 1 << 30

// FuzzForgeFields forges fields of the footer and page headers of small
// corpus files (package internal/forge: counts, sizes, offsets, lengths set
// to edge values and re-encoded) and reads each mutant fully with the
// default options. The reader must return data or a clean error: no panic
// (not even one recovered into ErrInternal), no batch that fails
// validation, no allocation beyond maxForgedAlloc, no read over 5 s.
//
// The input is a corpus file index and a plan (the bytes that choose the
// fields and values), so the fuzzer spends its executions on choices, not
// on bytes the footer parser rejects.
func FuzzForgeFields(f *testing.F) {
	testshared.Need(f, dataFile(""))
	files, err := loadForgeCorpus()
	if err != nil {
		f.Fatal(err)
	}
	for i := range files {
		f.Add(uint8(i), []byte{byte(i), 0, 1, 2, 3, 4, 5, 6, 7, 8})
		f.Add(uint8(i), []byte{0, 1, 0, 0, 0, 3, 0, 4})
	}
	f.Fuzz(func(t *testing.T, file uint8, plan []byte) {
		ff := files[int(file)%len(files)]
		m, ok := ff.Mutate(forge.NewPlan(plan))
		if !ok {
			return
		}
		if err := checkForged(m.Data); err != nil {
			t.Fatalf("%s forged (%s): %v", ff.Name, strings.Join(m.What, "; "), err)
		}
	})
}

// checkForged reads data fully with the default options and reports
// anything but data or a clean error.
func checkForged(data []byte) error {
	done := make(chan error, 1)
	go func() {
		before := heapAllocs()
		err := readForged(data)
		if n := heapAllocs() - before; n > maxForgedAlloc && err == nil {
			// A heap allocation past the limit, even one that ended in
			// a clean error.
			err = fmt.Errorf("allocated %d bytes for a %d-byte file", n, len(data))
		}
		done <- err
	}()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return fmt.Errorf("read of a %d-byte file took more than 5 s", len(data))
	}
}

// readForged reads data and returns an error only for what must not
// happen.
func readForged(data []byte) error {
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		return badError(err)
	}
	defer r.Close()
	for r.Next() {
		if err := array.ValidateRecordFull(r.RecordBatch()); err != nil {
			return fmt.Errorf("invalid batch: %w", err)
		}
	}
	return badError(r.Err())
}

// badError returns err if it is a recovered panic (ErrInternal) or does
// not say where it happened, else nil.
func badError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, arrowpq.ErrInternal) {
		return err
	}
	var e *arrowpq.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("not an *arrowpq.Error: %w", err)
	}
	return nil
}

// heapAllocs returns the bytes allocated on the heap so far by the process
// (cumulative; runtime/metrics is cheaper than ReadMemStats, which stops
// the world).
func heapAllocs() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
