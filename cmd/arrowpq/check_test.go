package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// checkedFile writes 1,000 rows (a: int64 0..999 with every 7th null, s:
// "v0".."v999") with page index, page CRCs, bloom filters, no dictionary,
// uncompressed, 100 rows per page; check passes it.
func checkedFile(t *testing.T) []byte { return writeChecked(t, arrowpq.Off, arrowpq.Uncompressed) }

// writeChecked is checkedFile with the dictionary and codec given.
func writeChecked(t *testing.T, dict arrowpq.Toggle, codec arrowpq.Compression) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range 1000 {
		if i%7 == 0 {
			b.Field(0).(*array.Int64Builder).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(1).(*array.StringBuilder).Append("v" + strconv.Itoa(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, sc, &arrowpq.WriteOptions{
		Compression: codec, Dictionary: dict, PageIndex: arrowpq.On,
		PageChecksums: arrowpq.On, MaxRowsPerPage: 100,
		Columns: map[string]arrowpq.ColumnOptions{"a": {BloomFilterNDV: 1000}, "s": {BloomFilterNDV: 1000}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// runCheck writes data to a file and runs check on it.
func runCheck(t *testing.T, data []byte) (string, int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI("check", path)
	return out + errOut, code
}

// footerOf parses the footer of data.
func footerOf(t *testing.T, data []byte) *metadata.File {
	t.Helper()
	f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// withFooter replaces the footer of data by md, after appending extra
// bytes (a new page index) to the data part.
func withFooter(t *testing.T, data []byte, f *metadata.File, extra []byte) []byte {
	t.Helper()
	out := append(append([]byte(nil), data[:f.FooterOffset]...), extra...)
	out, err := metadata.AppendFooter(out, f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func colIndex(f *metadata.File, name string) int { return f.Schema.ColumnByPath(name).Index }

// TestCheckFindsCorruption corrupts one thing at a time in a file written
// by arrowpq and checks that check names it, where it is, and exits 1.
func TestCheckFindsCorruption(t *testing.T) {
	good := checkedFile(t)
	if out, code := runCheck(t, good); code != 0 || !strings.Contains(out, "ok (1000 rows, 1 row group, 2 columns, 20 pages checked)") {
		t.Fatalf("the uncorrupted file: exit %d\n%s", code, out)
	}
	for _, c := range []struct {
		name    string
		corrupt func(t *testing.T, data []byte) []byte
		want    []string // substrings of one finding line
	}{
		{"flipped bit in a page", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			oi, err := metadata.ReadOffsetIndex(bytes.NewReader(data), f, 0, colIndex(f, "s"))
			if err != nil {
				t.Fatal(err)
			}
			loc := oi.PageLocations[3]
			d := append([]byte(nil), data...)
			d[loc.Offset+int64(loc.CompressedPageSize)-2] ^= 0x10 // inside the last value of page 3
			return d
		}, []string{"row group 0, column s, page 3 at offset ", ": page CRC-32 is "}},
		{"chunk min above the data", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			st := f.Meta.RowGroups[0].Columns[colIndex(f, "a")].MetaData.Statistics
			st.MinValue = binary.LittleEndian.AppendUint64(nil, 5) // the data starts at 1
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column a: column chunk statistics: min 5 is above the smallest value 1"}},
		{"chunk max below the data", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			st := f.Meta.RowGroups[0].Columns[colIndex(f, "s")].MetaData.Statistics
			st.MaxValue = []byte("v98")
			return withFooter(t, data, f, nil)
		}, []string{`row group 0, column s: column chunk statistics: max "v98" is below the largest value "v999"`}},
		{"null count off", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			st := f.Meta.RowGroups[0].Columns[colIndex(f, "a")].MetaData.Statistics
			n := *st.NullCount + 1 // 143 nulls: 0, 7, ..., 994
			st.NullCount = &n
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column a: column chunk statistics: null_count is 144, the data has 143 nulls"}},
		{"offset index off by one", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			col := colIndex(f, "a")
			oi, err := metadata.ReadOffsetIndex(bytes.NewReader(data), f, 0, col)
			if err != nil {
				t.Fatal(err)
			}
			oi.PageLocations[4].Offset++ // still inside the chunk, in order
			oi.PageLocations[4].CompressedPageSize--
			return withIndex(t, data, f, col, oi)
		}, []string{"row group 0, column a, page 4 at offset ", "offset index entry 4 says offset "}},
		{"offset index overlapping pages", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			col := colIndex(f, "a")
			oi, err := metadata.ReadOffsetIndex(bytes.NewReader(data), f, 0, col)
			if err != nil {
				t.Fatal(err)
			}
			oi.PageLocations[4].Offset++
			return withIndex(t, data, f, col, oi)
		}, []string{"row group 0, column a: offset index: page 5 at offset ", "does not follow the previous page"}},
		{"offset index first row", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			col := colIndex(f, "s")
			oi, err := metadata.ReadOffsetIndex(bytes.NewReader(data), f, 0, col)
			if err != nil {
				t.Fatal(err)
			}
			oi.PageLocations[2].FirstRowIndex = 250
			return withIndex(t, data, f, col, oi)
		}, []string{"row group 0, column s, page 2 at offset ", "offset index entry 2 says first_row_index 250, the page starts at row 200"}},
		{"column index null count", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			col := colIndex(f, "a")
			ci, err := metadata.ReadColumnIndex(bytes.NewReader(data), f, 0, col)
			if err != nil {
				t.Fatal(err)
			}
			ci.NullCounts[1] = 3 // rows 100..199 hold 14 multiples of 7
			return withColumnIndex(t, data, f, col, ci)
		}, []string{"row group 0, column a, page 1 at offset ", "column index says null_counts[1] = 3, the page has 14 nulls"}},
		{"column index max", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			col := colIndex(f, "a")
			ci, err := metadata.ReadColumnIndex(bytes.NewReader(data), f, 0, col)
			if err != nil {
				t.Fatal(err)
			}
			ci.MaxValues[9] = binary.LittleEndian.AppendUint64(nil, 990)
			return withColumnIndex(t, data, f, col, ci)
		}, []string{"row group 0, column a, page 9 at offset ", "column index max_values[9] = 990 is below the largest value 999"}},
		{"bloom filter misses a value", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			md := f.Meta.RowGroups[0].Columns[colIndex(f, "s")].MetaData
			bf, err := metadata.ReadBloomFilter(bytes.NewReader(data), f, 0, colIndex(f, "s"))
			if err != nil {
				t.Fatal(err)
			}
			// Clear the bit of word 0 that "v500" needs (BloomFilter.md).
			h := metadata.XXHash64([]byte("v500"))
			z := uint64(len(bf.Bitset) / 32)
			blk := ((h >> 32) * z) >> 32
			bit := (uint32(h) * 0x47b6137b) >> 27
			start := *md.BloomFilterOffset + int64(*md.BloomFilterLength) - int64(len(bf.Bitset))
			d := append([]byte(nil), data...)
			word := start + int64(blk)*32
			v := binary.LittleEndian.Uint32(d[word:]) &^ (1 << bit)
			binary.LittleEndian.PutUint32(d[word:], v)
			return d
		}, []string{"row group 0, column s: the bloom filter rules out ", ` present in the chunk, the first `}},
		{"chunk outside the file", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			f.Meta.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column a: ", "lies outside the data of the file"}},
		{"overlapping chunks", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			a := f.Meta.RowGroups[0].Columns[colIndex(f, "a")].MetaData
			s := f.Meta.RowGroups[0].Columns[colIndex(f, "s")].MetaData
			s.DataPageOffset = a.DataPageOffset + a.TotalCompressedSize - 10
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column s: the column chunk at offset ", "overlaps the one of row group 0, column a, which ends at "}},
		{"uncompressed size", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			f.Meta.RowGroups[0].Columns[1].MetaData.TotalUncompressedSize += 3
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column s: total_uncompressed_size is ", "the pages take "}},
		{"num_values", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			f.Meta.RowGroups[0].Columns[1].MetaData.NumValues = 999
			return withFooter(t, data, f, nil)
		}, []string{"row group 0, column s: num_values is 999, the pages hold 1000"}},
		{"ARROW:schema", func(t *testing.T, data []byte) []byte {
			f := footerOf(t, data)
			// The Arrow schema of a file with one int32 column.
			other := footerOf(t, oneInt32File(t))
			for _, kv := range f.Meta.KeyValueMetadata {
				if kv.Key == "ARROW:schema" {
					for _, o := range other.Meta.KeyValueMetadata {
						if o.Key == "ARROW:schema" {
							kv.Value = o.Value
						}
					}
				}
			}
			return withFooter(t, data, f, nil)
		}, []string{"file: ARROW:schema does not match the Parquet schema"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, code := runCheck(t, c.corrupt(t, good))
			t.Logf("check:\n%s", out)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			found := false
			for _, line := range strings.Split(out, "\n") {
				all := true
				for _, w := range c.want {
					all = all && strings.Contains(line, w)
				}
				found = found || all
			}
			if !found {
				t.Errorf("no line has %q:\n%s", c.want, out)
			}
		})
	}
}

func oneInt32File(t *testing.T) []byte {
	sc := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(1)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withIndex appends oi after the data and points column col's
// offset_index_offset at it.
func withIndex(t *testing.T, data []byte, f *metadata.File, col int, oi *format.OffsetIndex) []byte {
	b, err := metadata.Marshal(nil, oi)
	if err != nil {
		t.Fatal(err)
	}
	cc := f.Meta.RowGroups[0].Columns[col]
	off, n := f.FooterOffset, int32(len(b))
	cc.OffsetIndexOffset, cc.OffsetIndexLength = &off, &n
	return withFooter(t, data, f, b)
}

func withColumnIndex(t *testing.T, data []byte, f *metadata.File, col int, ci *format.ColumnIndex) []byte {
	b, err := metadata.Marshal(nil, ci)
	if err != nil {
		t.Fatal(err)
	}
	cc := f.Meta.RowGroups[0].Columns[col]
	off, n := f.FooterOffset, int32(len(b))
	cc.ColumnIndexOffset, cc.ColumnIndexLength = &off, &n
	return withFooter(t, data, f, b)
}

// checkCorpusExpect are the files of parquet-testing/data that check does
// not pass, with why (CATALOG.md).
var checkCorpusExpect = map[string]string{
	"datapage_v1-corrupt-checksum.parquet":           "page CRC-32 is", // CATALOG: column a page 0 and column b page 1 carry a wrong CRC
	"rle-dict-uncompressed-corrupt-checksum.parquet": "page CRC-32 is", // CATALOG: the dictionary pages carry a wrong CRC
}

// TestCheckCorpus runs check on every Parquet file of parquet-testing/data:
// the valid ones pass (exit 0, maybe with warnings about known writer
// bugs), the two with wrong CRCs fail naming them.
func TestCheckCorpus(t *testing.T) {
	needSharedDir(t, corpusDir)
	files, err := filepath.Glob(corpusDir + "/*.parquet")
	if err != nil || len(files) < 50 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			if name == "large_string_map.brotli.parquet" {
				t.Skip("two 1 GiB pages (CATALOG.md: needs ~4 GiB of memory)")
			}
			out, errOut, code := runCLI("check", path)
			if want, bad := checkCorpusExpect[name]; bad {
				if code != 1 || !strings.Contains(out, want) {
					t.Errorf("exit %d, want 1 with %q:\n%s%s", code, want, out, errOut)
				}
				return
			}
			if code != 0 || !strings.Contains(out, ": ok (") {
				t.Errorf("exit %d:\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestCheckBadFiles runs check on the files that must fail cleanly
// (parquet-testing/bad_data, testdata/hostile): one line per finding,
// exit 1, no panic. ARROW-GH-43605 is readable (CATALOG.md: "only needs
// to not crash"; DuckDB and arrow-go read its 21186 rows).
func TestCheckBadFiles(t *testing.T) {
	dirs := []string{"../../../shared/testdata/parquet-testing/bad_data", "../../../shared/testdata/hostile"}
	for _, dir := range dirs {
		needSharedDir(t, dir)
		files, err := filepath.Glob(dir + "/*.parquet")
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %d files, %v", dir, len(files), err)
		}
		for _, path := range files {
			name := filepath.Base(path)
			t.Run(name, func(t *testing.T) {
				out, errOut, code := runCLI("check", path)
				if name == "ARROW-GH-43605.parquet" {
					if code != 0 {
						t.Errorf("exit %d:\n%s%s", code, out, errOut)
					}
					return
				}
				if code != 1 || out == "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "problem") {
					t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
				}
				for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if !strings.HasPrefix(line, "row group ") && !strings.HasPrefix(line, "file: ") &&
						!strings.HasPrefix(line, "column ") && !strings.HasPrefix(line, "warning: ") {
						t.Errorf("finding without a location: %q", line)
					}
				}
			})
		}
	}
}

// TestCheckNeverPanics runs check and the inspection commands on copies of
// checkedFile with one byte changed at a random place, or cut short
// (seeded; the seed is logged): they must report errors or pass, never
// panic.
func TestCheckNeverPanics(t *testing.T) {
	files := [][]byte{checkedFile(t), writeChecked(t, arrowpq.On, arrowpq.Snappy)}
	if out, code := runCheck(t, files[1]); code != 0 {
		t.Fatalf("the dictionary-encoded Snappy file: exit %d\n%s", code, out)
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	dir := t.TempDir()
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := range n {
		good := files[i%2]
		d := append([]byte(nil), good...)
		what := ""
		if i%5 == 4 {
			d = d[:rng.IntN(len(d))]
			what = fmt.Sprintf("cut to %d bytes", len(d))
		} else {
			at := rng.IntN(len(d))
			// Half the changes hit the footer, where the structure is.
			if i%4 < 2 {
				at = len(d) - 8 - rng.IntN(min(len(d)-8, 3000))
			}
			d[at] ^= byte(1 + rng.IntN(255))
			what = fmt.Sprintf("byte %d changed", at)
		}
		path := filepath.Join(dir, "f.parquet")
		if err := os.WriteFile(path, d, 0o644); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic: %v", what, r)
				}
			}()
			runCLI("check", path)
			for _, col := range []string{"a", "s"} {
				runCLI("pages", path, col)
				runCLI("dictionary", path, col)
				runCLI("column-index", path, col)
				runCLI("bloom", path, col, "7")
			}
			runCLI("size", path)
			runCLI("footer", "--json", path)
		}()
	}
}

// TestCheckPageValueLimits lowers the bounds on the values of one page
// that check materializes: a page beyond them is a located finding, not a
// decode. checkedFile's pages hold 100 levels: column a 85 or 86 INT64
// values (up to 688 bytes), column s 100 strings "vN" of 2 to 4 bytes.
func TestCheckPageValueLimits(t *testing.T) {
	data := checkedFile(t)
	defer func(v, b int) { maxValues, maxValueBytes = v, b }(maxValues, maxValueBytes)
	for _, tc := range []struct {
		name          string
		values, bytes int
		want          []string
	}{
		{"values", 50, 1 << 20, []string{"row group 0, column a, page 0 at offset 4: more than 50 values", "column s, page 0 at offset"}},
		{"bytes", 1 << 20, 200, []string{"row group 0, column a, page 0 at offset 4: more than 1048576 values or 200 bytes", "row group 0, column s, page 0 at offset"}},
		{"enough", 100, 688, nil},
		{"one-short", 100, 687, []string{"column a, page 1 at offset"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			maxValues, maxValueBytes = tc.values, tc.bytes
			out, code := runCheck(t, data)
			if tc.want == nil {
				if code != 0 {
					t.Errorf("exit %d, want 0:\n%s", code, out)
				}
				return
			}
			if code != 1 {
				t.Errorf("exit %d, want 1:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in:\n%s", w, out)
				}
			}
		})
	}
}

// TestCheckEmptyDataPage puts a data page of no values first in a chunk
// with a column index (its entry included: a null page): column.Reader
// steps over such a page, and check must still count it where the column
// index does, or it would misplace every later entry. (An offset index
// cannot hold it: metadata requires first_row_index to increase.)
func TestCheckEmptyDataPage(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range 200 {
		b.Append(int64(i))
	}
	arr := b.NewArray()
	defer arr.Release()
	rec := array.NewRecordBatch(sc, []arrow.Array{arr}, 200)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, sc, &arrowpq.WriteOptions{
		Compression: arrowpq.Uncompressed, Dictionary: arrowpq.Off, PageIndex: arrowpq.On, MaxRowsPerPage: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	f := footerOf(t, data)
	ci, err := metadata.ReadColumnIndex(bytes.NewReader(data), f, 0, 0)
	if err != nil || ci == nil || len(ci.NullPages) != 2 {
		t.Fatalf("column index %v, %v; want 2 pages", ci, err)
	}
	md := f.Meta.RowGroups[0].Columns[0].MetaData
	start, end := md.DataPageOffset, md.DataPageOffset+md.TotalCompressedSize

	empty, err := metadata.Marshal(nil, &format.PageHeader{
		Type: format.PageType_DATA_PAGE,
		DataPageHeader: &format.DataPageHeader{NumValues: 0, Encoding: format.Encoding_PLAIN,
			DefinitionLevelEncoding: format.Encoding_RLE, RepetitionLevelEncoding: format.Encoding_RLE},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := int64(len(empty))
	out := append(append(append([]byte(nil), data[:start]...), empty...), data[start:end]...)
	ci.NullPages = append([]bool{true}, ci.NullPages...)
	ci.MinValues = append([][]byte{{}}, ci.MinValues...)
	ci.MaxValues = append([][]byte{{}}, ci.MaxValues...)
	if ci.NullCounts != nil {
		ci.NullCounts = append([]int64{0}, ci.NullCounts...)
	}
	ib, err := metadata.Marshal(nil, ci)
	if err != nil {
		t.Fatal(err)
	}
	cc := f.Meta.RowGroups[0].Columns[0]
	ioff, ilen := int64(len(out)), int32(len(ib))
	cc.ColumnIndexOffset, cc.ColumnIndexLength = &ioff, &ilen
	cc.OffsetIndexOffset, cc.OffsetIndexLength = nil, nil
	md.TotalCompressedSize += k
	md.TotalUncompressedSize += k
	if rg := f.Meta.RowGroups[0]; rg.TotalCompressedSize != nil {
		*rg.TotalCompressedSize += k
	}
	f.Meta.RowGroups[0].TotalByteSize += k
	out, err = metadata.AppendFooter(append(out, ib...), f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	if out, code := runCheck(t, out); code != 0 || !strings.Contains(out, "3 pages checked") {
		t.Errorf("exit %d, want 0 with 3 pages checked:\n%s", code, out)
	}
}
