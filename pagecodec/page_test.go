package pagecodec

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestReadAllPages reads every page of every unencrypted file of
// parquet-testing/data and checks the page accounting against the column
// metadata: the sum of the data pages' num_values is the chunk's num_values.
func TestReadAllPages(t *testing.T) {
	testshared.Need(t, testdataDir)
	files := []string{
		"alltypes_dictionary.parquet", "alltypes_plain.parquet", "alltypes_plain.snappy.parquet",
		"alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet", "binary.parquet",
		"byte_array_decimal.parquet", "byte_stream_split.zstd.parquet", "byte_stream_split_extended.gzip.parquet",
		"column_chunk_key_value_metadata.parquet", "concatenated_gzip_members.parquet",
		"data_index_bloom_encoding_stats.parquet", "data_index_bloom_encoding_with_length.parquet",
		"datapage_v1-snappy-compressed-checksum.parquet", "datapage_v1-uncompressed-checksum.parquet",
		"datapage_v2.snappy.parquet", "datapage_v2_empty_datapage.snappy.parquet",
		"delta_binary_packed.parquet", "delta_byte_array.parquet", "delta_encoding_optional_column.parquet",
		"delta_encoding_required_column.parquet", "delta_length_byte_array.parquet", "dict-page-offset-zero.parquet",
		"fixed_length_byte_array.parquet", "fixed_length_decimal.parquet", "fixed_length_decimal_legacy.parquet",
		"float16_nonzeros_and_nans.parquet", "float16_zeros_and_nans.parquet", "hadoop_lz4_compressed.parquet",
		"hadoop_lz4_compressed_larger.parquet", "int32_decimal.parquet", "int32_with_null_pages.parquet",
		"int64_decimal.parquet", "int96_from_spark.parquet",
		"list_columns.parquet", "lz4_raw_compressed.parquet", "lz4_raw_compressed_larger.parquet",
		"nested_lists.snappy.parquet", "nested_maps.snappy.parquet", "nested_structs.rust.parquet",
		"non_hadoop_lz4_compressed.parquet", "nonnullable.impala.parquet", "null_list.parquet",
		"nullable.impala.parquet", "nulls.snappy.parquet", "page_v2_empty_compressed.parquet",
		"plain-dict-uncompressed-checksum.parquet", "rle-dict-snappy-checksum.parquet",
		"rle_boolean_encoding.parquet", "single_nan.parquet",
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			for _, c := range readTestFile(t, name) {
				if c.Meta.NumValues == 0 {
					continue // column_chunk_key_value_metadata: empty chunks
				}
				r := readerFor(c)
				var levels int64
				var pages int
				for {
					p, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s: %v", c.Path, err)
					}
					pages++
					if p.Type != format.PageType_DICTIONARY_PAGE {
						levels += int64(p.NumLevels)
					}
					if p.Offset < c.FileOffset || p.Offset >= c.FileOffset+int64(len(c.Chunk)) {
						t.Fatalf("%s: page offset %d outside the chunk", c.Path, p.Offset)
					}
				}
				if levels != c.Meta.NumValues {
					t.Errorf("%s: pages hold %d values, column metadata says %d", c.Path, levels, c.Meta.NumValues)
				}
			}
		})
	}
}

// TestPageCRC checks the corrupt-checksum files fail with ErrChecksum naming
// the page, that SkipCRC reads them, and that good checksums pass.
func TestPageCRC(t *testing.T) {
	testshared.Need(t, testdataDir)
	for _, name := range []string{"datapage_v1-corrupt-checksum.parquet", "rle-dict-uncompressed-corrupt-checksum.parquet"} {
		t.Run(name, func(t *testing.T) {
			var bad int
			for _, c := range readTestFile(t, name) {
				r := readerFor(c)
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						var pe *PageError
						if !errors.As(err, &pe) || !errors.Is(err, ErrChecksum) {
							t.Fatalf("%s: got %v, want a *PageError wrapping ErrChecksum", c.Path, err)
						}
						if pe.Offset < c.FileOffset || !strings.Contains(err.Error(), "page ") {
							t.Errorf("error does not locate the page: %v", err)
						}
						t.Logf("%s: %v", c.Path, err)
						bad++
						break
					}
				}
				// With SkipCRC the same chunk reads to the end.
				r.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{FileOffset: c.FileOffset, MaxDefinitionLevel: c.MaxDef, SkipCRC: true})
				for {
					_, err := r.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("SkipCRC: %v", err)
					}
				}
			}
			if bad == 0 {
				t.Fatal("no checksum error reported")
			}
		})
	}
}

// TestMaxPageSize checks the 1 GiB pages of large_string_map.brotli.parquet
// are refused by the default limit before anything is allocated.
func TestMaxPageSize(t *testing.T) {
	testshared.Need(t, testdataDir)
	c := readTestFile(t, "large_string_map.brotli.parquet")[0]
	r := readerFor(c)
	var err error
	for err == nil {
		_, err = r.Next()
	}
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("got %v, want ErrLimit", err)
	}
	var pe *PageError
	if !errors.As(err, &pe) || pe.Offset != c.FileOffset {
		t.Fatalf("got %v, want a *PageError at offset %d", err, c.FileOffset)
	}
}
