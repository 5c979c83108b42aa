package pagecodec

import (
	"encoding/hex"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// TestAgainstArrowGo decodes every flat column of many parquet-testing files
// with our decoders (in random-size batches) and compares each row with
// arrow-go's column reader, an independent implementation.
func TestAgainstArrowGo(t *testing.T) {
	testshared.Need(t, testdataDir)
	files := []string{
		"alltypes_plain.parquet", "alltypes_plain.snappy.parquet", "alltypes_dictionary.parquet",
		"alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet", "binary.parquet",
		"byte_array_decimal.parquet", "byte_stream_split.zstd.parquet", "byte_stream_split_extended.gzip.parquet",
		"concatenated_gzip_members.parquet", "data_index_bloom_encoding_stats.parquet",
		"data_index_bloom_encoding_with_length.parquet", "datapage_v1-uncompressed-checksum.parquet",
		"datapage_v1-snappy-compressed-checksum.parquet", "datapage_v2.snappy.parquet", "dict-page-offset-zero.parquet",
		"fixed_length_byte_array.parquet", "fixed_length_decimal.parquet", "fixed_length_decimal_legacy.parquet",
		"float16_nonzeros_and_nans.parquet", "float16_zeros_and_nans.parquet", "int32_decimal.parquet", "int32_with_null_pages.parquet",
		"int64_decimal.parquet", "int96_from_spark.parquet", "lz4_raw_compressed.parquet",
		"lz4_raw_compressed_larger.parquet", "nulls.snappy.parquet",
		"plain-dict-uncompressed-checksum.parquet", "rle-dict-snappy-checksum.parquet", "rle_boolean_encoding.parquet",
		"single_nan.parquet", "page_v2_empty_compressed.parquet", "overflow_i16_page_cnt.parquet",
		"nested_structs.rust.parquet", "delta_length_byte_array.parquet",
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			cols := readTestFile(t, name)
			rd, err := file.OpenParquetFile(filepath.Join(testdataDir, name), false)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			ncol := rd.MetaData().Schema.NumColumns()
			checked := 0
			for i, c := range cols {
				if c.MaxRep != 0 {
					continue
				}
				want := oracleColumn(t, rd, i/ncol, i%ncol, c)
				got := decodeFlatColumn(t, c, func() int { return 1 + rng.IntN(100) })
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, arrow-go %d", c.Path, len(got), len(want))
				}
				for r := range got {
					if got[r] != want[r] {
						t.Fatalf("%s row %d: got %q, arrow-go %q", c.Path, r, got[r], want[r])
					}
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no flat column")
			}
		})
	}
}

func oracleColumn(t *testing.T, rd *file.Reader, rg, col int, c testColumn) []string {
	t.Helper()
	cr, err := rd.RowGroup(rg).Column(col)
	if err != nil {
		t.Fatal(err)
	}
	n := int(c.Meta.NumValues)
	def := make([]int16, n)
	var vals []string
	var read int64
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		v := make([]bool, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, strconv.FormatBool(x))
		}
	case *file.Int32ColumnChunkReader:
		v := make([]int32, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, strconv.FormatInt(int64(x), 10))
		}
	case *file.Int64ColumnChunkReader:
		v := make([]int64, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, strconv.FormatInt(x, 10))
		}
	case *file.Float32ColumnChunkReader:
		v := make([]float32, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, strconv.FormatFloat(float64(x), 'g', -1, 32))
		}
	case *file.Float64ColumnChunkReader:
		v := make([]float64, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, strconv.FormatFloat(x, 'g', -1, 64))
		}
	case *file.Int96ColumnChunkReader:
		v := make([]parquet.Int96, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, hex.EncodeToString(x[:]))
		}
	case *file.ByteArrayColumnChunkReader:
		v := make([]parquet.ByteArray, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, string(x))
		}
	case *file.FixedLenByteArrayColumnChunkReader:
		v := make([]parquet.FixedLenByteArray, n)
		var m int
		read, m, err = r.ReadBatch(int64(n), v, def, nil)
		for _, x := range v[:m] {
			vals = append(vals, hex.EncodeToString(x))
		}
	default:
		t.Fatalf("reader %T", cr)
	}
	if err != nil {
		t.Fatalf("arrow-go: %v", err)
	}
	rows := make([]string, 0, read)
	k := 0
	for i := 0; i < int(read); i++ {
		if c.MaxDef == 0 || def[i] == c.MaxDef {
			rows = append(rows, vals[k])
			k++
		} else {
			rows = append(rows, "")
		}
	}
	return rows
}

// TestLZ4AgainstLZ4Raw: arrow-go cannot read codec LZ4, but the LZ4 files of
// parquet-testing hold the same rows as the LZ4_RAW ones, which it reads.
// The Hadoop files must take the Hadoop path and the non-Hadoop file the
// raw-block fallback.
func TestLZ4AgainstLZ4Raw(t *testing.T) {
	testshared.Need(t, testdataDir)
	for _, tc := range []struct {
		file, oracle string
		hadoop       bool
	}{
		{"hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet", true},
		{"hadoop_lz4_compressed_larger.parquet", "lz4_raw_compressed_larger.parquet", true},
		{"non_hadoop_lz4_compressed.parquet", "lz4_raw_compressed.parquet", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			cols := readTestFile(t, tc.file)
			oracleCols := readTestFile(t, tc.oracle)
			rd, err := file.OpenParquetFile(filepath.Join(testdataDir, tc.oracle), false)
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			for i, c := range cols {
				want := oracleColumn(t, rd, 0, i, oracleCols[i])
				got := decodeFlatColumn(t, c, func() int { return 1000 })
				if len(got) != len(want) {
					t.Fatalf("%s: %d rows, want %d", c.Path, len(got), len(want))
				}
				for r := range got {
					if got[r] != want[r] {
						t.Fatalf("%s row %d: %q, want %q", c.Path, r, got[r], want[r])
					}
				}
				// Which path the first page takes.
				var pr PageReader
				pr.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{})
				h, err := pr.NextHeader()
				if err != nil {
					t.Fatal(err)
				}
				body := c.Chunk[pr.bodyPos : pr.bodyPos+int(h.CompressedPageSize)]
				if got := decompressHadoopLZ4(make([]byte, h.UncompressedPageSize), body); got != tc.hadoop {
					t.Fatalf("Hadoop framing detected: %v, want %v", got, tc.hadoop)
				}
			}
		})
	}
}
