package pagecodec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestV2EmptyDataPage: datapage_v2_empty_datapage.snappy.parquet is one
// null FLOAT whose v2 page has an empty value section under SNAPPY.
func TestV2EmptyDataPage(t *testing.T) {
	testshared.Need(t, testdataDir)
	c := readTestFile(t, "datapage_v2_empty_datapage.snappy.parquet")[0]
	got := decodeFlatColumn(t, c, func() int { return 1 })
	if len(got) != 1 || got[0] != "" {
		t.Fatalf("got %q, want one null", got)
	}
}

// TestARROW17100 reads pyarrow 2.0's v2 pages flagged uncompressed that are
// Snappy: with AssumeV2Compressed, and by the size-mismatch detection.
func TestARROW17100(t *testing.T) {
	testshared.Need(t, testdataDir)
	const name = "../../arrow-testing/data/parquet/ARROW-17100.parquet"
	cols := readTestFile(t, name)
	for _, assume := range []bool{true, false} {
		var pages, flagged int
		for _, c := range cols {
			var r PageReader
			r.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{FileOffset: c.FileOffset, MaxDefinitionLevel: c.MaxDef, AssumeV2Compressed: assume})
			for {
				p, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("assume=%v %s: %v", assume, c.Path, err)
				}
				pages++
				if p.Type == format.PageType_DATA_PAGE_V2 && !p.Header.DataPageHeaderV2.IsCompressed {
					flagged++
				}
			}
		}
		if flagged == 0 {
			t.Fatal("no page flagged uncompressed: wrong test file?")
		}
		// The values decode: 5 rows per column.
		for _, c := range cols {
			if c.Leaf.GetType() == format.Type_BYTE_ARRAY || c.Leaf.GetType() == format.Type_DOUBLE || c.Leaf.GetType() == format.Type_INT32 {
				if got := decodeFlatColumn(t, c, func() int { return 2 }); len(got) != 5 {
					t.Fatalf("%s: %d rows", c.Path, len(got))
				}
			}
		}
	}
}

func TestCodecs(t *testing.T) {
	src := bytes.Repeat([]byte("column chunk bytes, page after page; "), 3000)
	for _, codec := range []format.CompressionCodec{
		format.CompressionCodec_UNCOMPRESSED, format.CompressionCodec_SNAPPY, format.CompressionCodec_GZIP,
		format.CompressionCodec_BROTLI, format.CompressionCodec_LZ4, format.CompressionCodec_LZ4_RAW, format.CompressionCodec_ZSTD,
	} {
		for _, level := range []int{0, 1, 9} {
			t.Run(codec.String(), func(t *testing.T) {
				c, err := NewCompressor(codec, level)
				if err != nil {
					t.Fatal(err)
				}
				var d Decompressor
				for _, in := range [][]byte{src, src[:1], nil} {
					enc, err := c.AppendCompressed([]byte("prefix"), in)
					if err != nil {
						t.Fatal(err)
					}
					if string(enc[:6]) != "prefix" {
						t.Fatal("AppendCompressed lost the prefix")
					}
					enc = enc[6:]
					dst := make([]byte, len(in))
					if err := d.Decompress(codec, dst, enc); err != nil {
						t.Fatalf("%d bytes: %v", len(in), err)
					}
					if !bytes.Equal(dst, in) {
						t.Fatalf("%d bytes: round trip differs", len(in))
					}
					// A header that lies about the size is corrupt input.
					if len(in) > 0 {
						for _, size := range []int{len(in) - 1, len(in) + 1} {
							if err := d.Decompress(codec, make([]byte, size), enc); !errors.Is(err, ErrCorrupt) {
								t.Fatalf("size %d of %d: got %v, want ErrCorrupt", size, len(in), err)
							}
						}
					}
				}
			})
		}
	}
	var d Decompressor
	if err := d.Decompress(format.CompressionCodec_LZO, make([]byte, 4), []byte{1, 2, 3}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("LZO: %v", err)
	}
	if _, err := NewCompressor(format.CompressionCodec_LZO, 0); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("LZO compressor: %v", err)
	}
}

// TestBadDataNoPanic runs the page reader and the test's column decoder
// over every column chunk of parquet-testing's bad_data and of
// arrow-testing's fuzzing corpus whose footer parses: errors are fine,
// panics are not.
func TestBadDataNoPanic(t *testing.T) {
	testshared.Need(t, testdataDir)
	dirs := []string{"../bad_data", "../../arrow-testing/data/parquet/fuzzing"}
	parsed := 0
	defer func() { t.Logf("%d files with a readable footer", parsed) }()
	for _, dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(testdataDir, dir))
		if err != nil {
			t.Fatalf("test data missing: %v", err)
		}
		for _, e := range entries {
			name := filepath.Join(dir, e.Name())
			cols, ok := tryReadTestFile(name)
			if !ok {
				continue
			}
			parsed++
			for _, c := range cols {
				// Also through the test's column decoder when flat.
				if c.MaxRep == 0 {
					func() {
						ft := &fakeT{}
						defer func() {
							if r := recover(); r != nil && !ft.failed {
								t.Fatalf("%s %s: panic %v", name, c.Path, r)
							}
						}()
						decodeFlatColumn(ft, c, func() int { return 100 })
					}()
				}
				var r PageReader
				r.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep, MaxPageSize: 64 << 20})
				for range 10000 {
					_, err := r.Next()
					if err != nil {
						if err != io.EOF {
							checkErr(t, err)
						}
						break
					}
				}
			}
		}
	}
}

// tryReadTestFile is readTestFile that reports a broken footer instead of
// failing.
func tryReadTestFile(name string) (cols []testColumn, ok bool) {
	ft := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { _ = recover() }()
		cols = readTestFile(ft, name)
		ok = !ft.failed
	}()
	<-done
	return cols, ok
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}

// TestPageReaderAllocs: in the steady state reading a page allocates only
// the Thrift header (the PageHeader and its sub-structs).
func TestPageReaderAllocs(t *testing.T) {
	testshared.Need(t, testdataDir)
	c := readTestFile(t, "alltypes_plain.snappy.parquet")[1]
	var r PageReader
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{MaxDefinitionLevel: c.MaxDef})
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	})
	// 2 pages; a header costs the PageHeader, its page-type header and
	// the statistics: at most 4 objects each.
	if allocs > 8 {
		t.Fatalf("%v allocations per chunk", allocs)
	}
	t.Logf("%v allocations per chunk of 2 pages", allocs)
}

// TestDecoderAllocs: decoders allocate nothing once set up and given
// buffers with room.
func TestDecoderAllocs(t *testing.T) {
	i64 := make([]int64, 4096)
	for i := range i64 {
		i64[i] = int64(i * i)
	}
	var e DeltaBinaryPackedEncoder
	e.AppendInt64(i64)
	dbpPage := e.AppendTo(nil)
	var de DictEncoder64
	de.Reset(0)
	de.AppendInt64(i64[:100])
	dictPage := de.AppendIndices(nil)
	offs := []int32{0, 3, 5, 9}
	data := []byte("abcdefghi")
	plainBA := AppendPlainByteArray(nil, offs, data)
	var dbp DeltaBinaryPackedDecoder
	var dix DictIndexDecoder
	var pd PlainDecoder
	outO := make([]int32, 0, 8)
	outD := make([]byte, 0, 64)
	for name, f := range map[string]func(){
		"delta_binary_packed": func() { dbp.Reset(dbpPage); dbp.DecodeInt64(i64) },
		"rle_dictionary":      func() { dix.Reset(dictPage, 100); DecodeDict(&dix, i64[:100], i64[:100]) },
		"plain_byte_array":    func() { pd.Reset(plainBA); pd.DecodeByteArray(outO[:1], outD[:0], 3) },
	} {
		if a := testing.AllocsPerRun(50, f); a != 0 {
			t.Errorf("%s: %v allocations", name, a)
		}
	}
}
