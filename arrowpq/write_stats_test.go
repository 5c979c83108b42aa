package arrowpq_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// oneColumn builds a single-column record batch from an array.
func oneColumn(name string, arr arrow.Array) arrow.RecordBatch {
	s := arrow.NewSchema([]arrow.Field{{Name: name, Type: arr.DataType(), Nullable: true}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{arr}, int64(arr.Len()))
}

func footerOf(t testing.TB, b []byte) *metadata.File {
	t.Helper()
	f, err := metadata.ReadFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// TestWriteStatistics checks chunk statistics against hand-computed
// values of the sort orders of parquet.thrift's ColumnOrder.
func TestWriteStatistics(t *testing.T) {
	mem := memory.DefaultAllocator
	nan32 := float32(math.NaN())
	negZero := math.Copysign(0, -1)
	dec := func(vals ...int64) arrow.Array {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 20, Scale: 0})
		for _, v := range vals {
			b.Append(decimal128.FromI64(v))
		}
		return b.NewArray()
	}
	long := strings.Repeat("a", 70)
	tests := []struct {
		name             string
		arr              arrow.Array
		min, max         []byte // nil: absent
		minExact, maxExc bool
		nulls            int64
		nans             int64 // -1: no nan_count
	}{
		{"int32", func() arrow.Array {
			b := array.NewInt32Builder(mem)
			b.AppendValues([]int32{3, -5, 7}, nil)
			b.AppendNull()
			return b.NewArray()
		}(), le32(uint32(0xfffffffb)), le32(7), true, true, 1, -1},
		{"uint32 compares unsigned", func() arrow.Array {
			b := array.NewUint32Builder(mem)
			b.AppendValues([]uint32{1, math.MaxUint32, 5}, nil)
			return b.NewArray()
		}(), le32(1), le32(math.MaxUint32), true, true, 0, -1},
		{"uint64 compares unsigned", func() arrow.Array {
			b := array.NewUint64Builder(mem)
			b.AppendValues([]uint64{1 << 63, 2}, nil)
			return b.NewArray()
		}(), le64(2), le64(1 << 63), true, true, 0, -1},
		{"int8 as INT32", func() arrow.Array {
			b := array.NewInt8Builder(mem)
			b.AppendValues([]int8{-128, 127}, nil)
			return b.NewArray()
		}(), le32(uint32(0xffffff80)), le32(127), true, true, 0, -1},
		{"float ignores NaN", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.AppendValues([]float32{nan32, 2.5, -1, nan32}, nil)
			return b.NewArray()
		}(), le32(math.Float32bits(-1)), le32(math.Float32bits(2.5)), true, true, 0, 2},
		{"float zeros: min -0, max +0", func() arrow.Array {
			b := array.NewFloat32Builder(mem)
			b.AppendValues([]float32{0, 0}, nil)
			return b.NewArray()
		}(), le32(math.Float32bits(float32(negZero))), le32(0), true, true, 0, 0},
		{"double -0 max becomes +0", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.AppendValues([]float64{negZero, -3}, nil)
			return b.NewArray()
		}(), le64(math.Float64bits(-3)), le64(0), true, true, 0, 0},
		{"all NaN: no min/max", func() arrow.Array {
			b := array.NewFloat64Builder(mem)
			b.AppendValues([]float64{math.NaN(), math.NaN()}, nil)
			b.AppendNull()
			return b.NewArray()
		}(), nil, nil, false, false, 1, 2},
		{"bool", func() arrow.Array {
			b := array.NewBooleanBuilder(mem)
			b.AppendValues([]bool{true, true}, nil)
			return b.NewArray()
		}(), []byte{1}, []byte{1}, true, true, 0, -1},
		{"strings byte-wise unsigned", func() arrow.Array {
			b := array.NewStringBuilder(mem)
			b.AppendValues([]string{"b", "\u00e9", "a", ""}, nil)
			return b.NewArray()
		}(), []byte{}, []byte("\u00e9"), true, true, 0, -1},
		{"long strings truncated", func() arrow.Array {
			b := array.NewStringBuilder(mem)
			b.AppendValues([]string{long + "x", "b" + long}, nil)
			return b.NewArray()
		}(), []byte(strings.Repeat("a", 64)), []byte("b" + strings.Repeat("a", 62) + "b"), false, false, 0, -1},
		{"truncated max of 0xff bytes: none", func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			b.AppendValues([][]byte{bytes.Repeat([]byte{0xff}, 70), {0}}, nil)
			return b.NewArray()
		}(), []byte{0}, nil, true, false, 0, -1},
		{"truncated max increments the last byte below 0xff", func() arrow.Array {
			b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			v := append(bytes.Repeat([]byte{7}, 62), 0xff, 0xff, 1)
			b.AppendValues([][]byte{v}, nil)
			return b.NewArray()
		}(), append(bytes.Repeat([]byte{7}, 62), 0xff, 0xff), append(bytes.Repeat([]byte{7}, 61), 8), false, false, 0, -1},
		// FIXED_LEN_BYTE_ARRAY(9) decimals compare as signed values.
		{"decimal by value", dec(-2, 1, -300), append(bytes.Repeat([]byte{0xff}, 7), 0xfe, 0xd4), append(make([]byte, 8), 1), true, true, 0, -1},
		{"float16 ignores NaN, min -0", func() arrow.Array {
			b := array.NewFloat16Builder(mem)
			b.AppendValues([]float16.Num{float16.New(0), float16.New(2), float16.NaN()}, nil)
			return b.NewArray()
		}(), []byte{0x00, 0x80}, []byte{0x00, 0x40}, true, true, 0, 1},
		{"interval: no min/max", func() arrow.Array {
			b := array.NewMonthDayNanoIntervalBuilder(mem)
			b.Append(arrow.MonthDayNanoInterval{Months: 1})
			return b.NewArray()
		}(), nil, nil, false, false, 0, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := oneColumn("c", tc.arr)
			defer rec.Release()
			b := writeBytes(t, rec, nil)
			f := footerOf(t, b)
			st := f.Meta.RowGroups[0].Columns[0].MetaData.Statistics
			if st == nil {
				t.Fatal("no statistics")
			}
			if st.Min != nil || st.Max != nil {
				t.Errorf("legacy min/max set: %x %x", st.Min, st.Max)
			}
			if !bytes.Equal(st.MinValue, tc.min) || (st.MinValue == nil) != (tc.min == nil) {
				t.Errorf("min_value %x, want %x", st.MinValue, tc.min)
			}
			if !bytes.Equal(st.MaxValue, tc.max) || (st.MaxValue == nil) != (tc.max == nil) {
				t.Errorf("max_value %x, want %x", st.MaxValue, tc.max)
			}
			if tc.min != nil && (st.IsMinValueExact == nil || *st.IsMinValueExact != tc.minExact) {
				t.Errorf("is_min_value_exact %v, want %v", st.IsMinValueExact, tc.minExact)
			}
			if tc.max != nil && (st.IsMaxValueExact == nil || *st.IsMaxValueExact != tc.maxExc) {
				t.Errorf("is_max_value_exact %v, want %v", st.IsMaxValueExact, tc.maxExc)
			}
			if st.NullCount == nil || *st.NullCount != tc.nulls {
				t.Errorf("null_count %v, want %d", st.NullCount, tc.nulls)
			}
			if tc.nans >= 0 && (st.NanCount == nil || *st.NanCount != tc.nans) {
				t.Errorf("nan_count %v, want %d", st.NanCount, tc.nans)
			}
			if tc.nans < 0 && st.NanCount != nil {
				t.Errorf("nan_count %d on a non-float column", *st.NanCount)
			}
			// The metadata package (written by another hand) must accept them.
			if _, err := metadata.ColumnStats(f, 0, 0); err != nil {
				t.Errorf("metadata.ColumnStats: %v", err)
			}
			for _, co := range f.Meta.ColumnOrders {
				if co.TYPE_ORDER == nil {
					t.Errorf("column order %v, want TYPE_ORDER", co)
				}
			}
		})
	}
}

// TestWriteStatisticsDuckDB reads chunk statistics with DuckDB's
// parquet_metadata and compares them with the values written.
func TestWriteStatisticsDuckDB(t *testing.T) {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{5, -9, 12}, nil)
	ib.AppendNull()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"pear", "apple", "zoo", ""}, []bool{true, true, true, false})
	ub := array.NewUint32Builder(mem)
	ub.AppendValues([]uint32{1, math.MaxUint32, 7, 8}, nil)
	arrs := []arrow.Array{ib.NewArray(), sb.NewArray(), ub.NewArray()}
	s := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrs[0].DataType(), Nullable: true}, {Name: "s", Type: arrs[1].DataType(), Nullable: true}, {Name: "u", Type: arrs[2].DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(s, arrs, 4)
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "stats.parquet")
	if err := os.WriteFile(p, writeBytes(t, rec, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.Need(t)
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("node", filepath.Join(oracle.Dir(), "dump.mjs"), "--engine", "duckdb", "--meta", p).CombinedOutput()
	if err != nil {
		t.Fatalf("dump.mjs: %v: %s", err, out)
	}
	want := map[string][3]string{
		"i": {`"stats_min_value":"-9"`, `"stats_max_value":"12"`, `"stats_null_count":"1"`},
		"s": {`"stats_min_value":"apple"`, `"stats_max_value":"zoo"`, `"stats_null_count":"1"`},
		"u": {`"stats_min_value":"1"`, `"stats_max_value":"4294967295"`, `"stats_null_count":"0"`},
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		for col, w := range want {
			if !strings.Contains(line, `"path":"`+col+`"`) {
				continue
			}
			seen++
			for _, frag := range w {
				if !strings.Contains(line, frag) {
					t.Errorf("column %s: DuckDB metadata lacks %s: %s", col, frag, line)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("DuckDB showed %d of %d columns:\n%s", seen, len(want), out)
	}
}

// checkPageIndexes validates the page indexes of every column chunk of b
// with package metadata and against the pages themselves: one location per
// data page, in file order, and for v2 pages first_row_index steps equal to
// the pages' num_rows. Chunk min/max bound every page's.
func checkPageIndexes(t testing.TB, name string, b []byte) {
	t.Helper()
	f := footerOf(t, b)
	r := bytes.NewReader(b)
	for rg, g := range f.Meta.RowGroups {
		for col, cc := range g.Columns {
			c := f.Schema.Columns[col]
			md := cc.MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset != nil {
				start = *md.DictionaryPageOffset
			}
			oi, err := metadata.ReadOffsetIndex(r, f, rg, col)
			if err != nil {
				t.Errorf("%s: rg %d col %s: offset index: %v", name, rg, c.DottedPath, err)
				continue
			}
			if err := metadata.CheckOffsetIndex(oi, start, start+md.TotalCompressedSize, g.NumRows); err != nil {
				t.Errorf("%s: rg %d col %s: %v", name, rg, c.DottedPath, err)
			}
			if cc.ColumnIndexOffset == nil {
				if st := md.Statistics; st != nil && st.MinValue != nil && md.Type != format.Type_BYTE_ARRAY {
					t.Errorf("%s: rg %d col %s: statistics but no column index", name, rg, c.DottedPath)
				}
				continue
			}
			ci, err := metadata.ReadColumnIndex(r, f, rg, col)
			if err != nil {
				t.Errorf("%s: rg %d col %s: column index: %v", name, rg, c.DottedPath, err)
				continue
			}
			if err := metadata.CheckColumnIndex(c, ci); err != nil {
				t.Errorf("%s: rg %d col %s: %v", name, rg, c.DottedPath, err)
			}
			if len(ci.NullPages) != len(oi.PageLocations) {
				t.Errorf("%s: rg %d col %s: %d column index pages, %d offset index pages", name, rg, c.DottedPath, len(ci.NullPages), len(oi.PageLocations))
			}
			var nulls int64
			for _, n := range ci.NullCounts {
				nulls += n
			}
			if st := md.Statistics; st != nil && st.NullCount != nil && *st.NullCount != nulls {
				t.Errorf("%s: rg %d col %s: page null counts sum to %d, chunk says %d", name, rg, c.DottedPath, nulls, *st.NullCount)
			}
			// Walk the pages: each data page header must sit at its location.
			pos := start
			loc := 0
			for pos < start+md.TotalCompressedSize {
				h := format.NewPageHeader()
				n, err := metadata.Unmarshal(b[pos:], h)
				if err != nil {
					t.Fatalf("%s: page header at %d: %v", name, pos, err)
				}
				if h.Crc == nil {
					t.Errorf("%s: rg %d col %s: page at %d without CRC", name, rg, c.DottedPath, pos)
				} else if got := int32(crc32.ChecksumIEEE(b[pos+int64(n) : pos+int64(n)+int64(h.CompressedPageSize)])); got != *h.Crc {
					t.Errorf("%s: rg %d col %s: page at %d: crc %x, body has %x", name, rg, c.DottedPath, pos, *h.Crc, got)
				}
				if h.Type == format.PageType_DATA_PAGE || h.Type == format.PageType_DATA_PAGE_V2 {
					if loc >= len(oi.PageLocations) || oi.PageLocations[loc].Offset != pos {
						t.Errorf("%s: rg %d col %s: data page %d at %d not in the offset index", name, rg, c.DottedPath, loc, pos)
						break
					}
					if oi.PageLocations[loc].CompressedPageSize != int32(n)+h.CompressedPageSize {
						t.Errorf("%s: page %d size %d, offset index says %d", name, loc, int32(n)+h.CompressedPageSize, oi.PageLocations[loc].CompressedPageSize)
					}
					if v2 := h.DataPageHeaderV2; v2 != nil {
						end := g.NumRows
						if loc+1 < len(oi.PageLocations) {
							end = oi.PageLocations[loc+1].FirstRowIndex
						}
						if int64(v2.NumRows) != end-oi.PageLocations[loc].FirstRowIndex {
							t.Errorf("%s: rg %d col %s page %d: num_rows %d, offset index gives %d", name, rg, c.DottedPath, loc, v2.NumRows, end-oi.PageLocations[loc].FirstRowIndex)
						}
					}
					loc++
				}
				pos += int64(n) + int64(h.CompressedPageSize)
			}
			if loc != len(oi.PageLocations) {
				t.Errorf("%s: rg %d col %s: %d data pages, offset index has %d", name, rg, c.DottedPath, loc, len(oi.PageLocations))
			}
		}
	}
}

// TestWritePageIndex checks the page indexes of nested and flat columns cut
// into many pages, for both page versions.
func TestWritePageIndex(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := genRecord(t, mem, 1000, 3, 9)
	defer rec.Release()
	for _, v2 := range []bool{false, true} {
		b := writeBytes(t, rec, &arrowpq.WriteOptions{DataPageV2: v2, MaxRowsPerPage: 50, RowGroupRows: 400})
		checkPageIndexes(t, "v2="+hex.EncodeToString([]byte{b2i(v2)}), b)
		f := footerOf(t, b)
		if len(f.Meta.RowGroups) != 3 {
			t.Errorf("%d row groups, want 3", len(f.Meta.RowGroups))
		}
		oi, err := metadata.ReadOffsetIndex(bytes.NewReader(b), f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(oi.PageLocations) != 8 {
			t.Errorf("%d pages of 400 rows at 50 rows a page", len(oi.PageLocations))
		}
	}
}

func b2i(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// TestWriteSizeStatistics checks SizeStatistics and the page index level
// histograms of a list<string> column against hand-computed levels:
// rows [["ab", null], null, [], ["c"]] have definition levels 3 2 | 0 | 1 |
// 3 and repetition levels 0 1 | 0 | 0 | 0.
func TestWriteSizeStatistics(t *testing.T) {
	mem := memory.DefaultAllocator
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	lb.Append(true)
	vb.Append("ab")
	vb.AppendNull()
	lb.AppendNull()
	lb.Append(true)
	lb.Append(true)
	vb.Append("c")
	rec := oneColumn("l", lb.NewArray())
	defer rec.Release()
	b := writeBytes(t, rec, nil)
	f := footerOf(t, b)
	md := f.Meta.RowGroups[0].Columns[0].MetaData
	ss := md.SizeStatistics
	if ss == nil || ss.UnencodedByteArrayDataBytes == nil || *ss.UnencodedByteArrayDataBytes != 3 {
		t.Fatalf("size statistics %+v", ss)
	}
	eq := func(a, b []int64) bool { return slices.Equal(a, b) }
	if !eq(ss.DefinitionLevelHistogram, []int64{1, 1, 1, 2}) || !eq(ss.RepetitionLevelHistogram, []int64{4, 1}) {
		t.Errorf("histograms def %v rep %v", ss.DefinitionLevelHistogram, ss.RepetitionLevelHistogram)
	}
	if md.NumValues != 5 {
		t.Errorf("num_values %d, want 5 levels", md.NumValues)
	}
	ci, err := metadata.ReadColumnIndex(bytes.NewReader(b), f, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !eq(ci.DefinitionLevelHistograms, []int64{1, 1, 1, 2}) || !eq(ci.RepetitionLevelHistograms, []int64{4, 1}) || !eq(ci.NullCounts, []int64{3}) {
		t.Errorf("column index %+v", ci)
	}
	oi, err := metadata.ReadOffsetIndex(bytes.NewReader(b), f, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !eq(oi.UnencodedByteArrayDataBytes, []int64{3}) {
		t.Errorf("offset index unencoded bytes %v", oi.UnencodedByteArrayDataBytes)
	}
}

// TestWritePagesStartAtRecords decodes the repetition levels of every data
// page of every nested column, for both page versions: each page starts a
// record (repetition level 0), and the rows it starts agree with the
// offset index.
func TestWritePagesStartAtRecords(t *testing.T) {
	mem := memory.DefaultAllocator
	rec := genRecord(t, mem, 2000, 5, 12)
	defer rec.Release()
	for _, v2 := range []bool{false, true} {
		b := writeBytes(t, rec, &arrowpq.WriteOptions{DataPageV2: v2, DataPageSize: 512, MaxRowsPerPage: 97, RowGroupRows: 900})
		f := footerOf(t, b)
		nested := 0
		for rg, g := range f.Meta.RowGroups {
			for col, cc := range g.Columns {
				c := f.Schema.Columns[col]
				if c.MaxRep == 0 {
					continue
				}
				nested++
				md := cc.MetaData
				start := md.DataPageOffset
				if md.DictionaryPageOffset != nil {
					start = *md.DictionaryPageOffset
				}
				oi, err := metadata.ReadOffsetIndex(bytes.NewReader(b), f, rg, col)
				if err != nil {
					t.Fatal(err)
				}
				var pr pagecodec.PageReader
				pr.Reset(b[start:start+md.TotalCompressedSize], md.Codec, pagecodec.PageReaderOptions{MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep})
				var dec levels.Decoder
				reps := make([]int16, 0, 1024)
				k := 0
				for {
					p, err := pr.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					if p.Type == format.PageType_DICTIONARY_PAGE {
						continue
					}
					if err := dec.ResetRLE(p.RepetitionLevels, c.MaxRep, p.NumLevels); err != nil {
						t.Fatal(err)
					}
					reps = slices.Grow(reps[:0], p.NumLevels)[:p.NumLevels]
					if _, err := dec.Decode(reps); err != nil {
						t.Fatalf("v2=%v rg %d col %s page %d (%d levels, %d bytes): %v", v2, rg, c.DottedPath, k, p.NumLevels, len(p.RepetitionLevels), err)
					}
					rows := 0
					for _, r := range reps {
						if r == 0 {
							rows++
						}
					}
					if reps[0] != 0 {
						t.Errorf("v2=%v rg %d col %s page %d starts with repetition level %d", v2, rg, c.DottedPath, k, reps[0])
					}
					end := g.NumRows
					if k+1 < len(oi.PageLocations) {
						end = oi.PageLocations[k+1].FirstRowIndex
					}
					if int64(rows) != end-oi.PageLocations[k].FirstRowIndex {
						t.Errorf("v2=%v rg %d col %s page %d: %d records, offset index says %d", v2, rg, c.DottedPath, k, rows, end-oi.PageLocations[k].FirstRowIndex)
					}
					k++
				}
				if k < 3 {
					t.Errorf("col %s: only %d pages", c.DottedPath, k)
				}
			}
		}
		if nested < 10 {
			t.Errorf("%d nested column chunks", nested)
		}
	}
}
