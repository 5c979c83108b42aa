package metadata

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	pqmeta "github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// wideFooter builds the serialized footer of a flat file with numCols
// optional columns (INT64, DOUBLE and STRING in turn) and numRowGroups row
// groups, every column chunk carrying statistics (min/max, null count),
// encodings, encoding stats and page index locations, as a current writer
// produces them.
func wideFooter(tb testing.TB, numCols, numRowGroups int) []byte {
	tb.Helper()
	types := []format.Type{format.Type_INT64, format.Type_DOUBLE, format.Type_BYTE_ARRAY}
	md := &format.FileMetaData{
		Version:   2,
		Schema:    []*format.SchemaElement{{Name: "schema", NumChildren: ptr(int32(numCols))}},
		NumRows:   int64(numRowGroups) * 100_000,
		CreatedBy: ptr("arrowpq benchmark"),
	}
	for c := range numCols {
		el := &format.SchemaElement{Name: fmt.Sprintf("column_%04d", c), Type: ptr(types[c%3]), RepetitionType: ptr(Optional)}
		if types[c%3] == format.Type_BYTE_ARRAY {
			el.ConvertedType = ptr(format.ConvertedType_UTF8)
			el.LogicalType = &format.LogicalType{STRING: &format.StringType{}}
		}
		md.Schema = append(md.Schema, el)
		md.ColumnOrders = append(md.ColumnOrders, &format.ColumnOrder{TYPE_ORDER: &format.TypeDefinedOrder{}})
	}
	offset := int64(4)
	for rg := range numRowGroups {
		g := &format.RowGroup{NumRows: 100_000, FileOffset: ptr(offset), Ordinal: ptr(int16(rg))}
		for c := range numCols {
			typ := types[c%3]
			var lo, hi []byte
			switch typ {
			case format.Type_INT64:
				lo = binary.LittleEndian.AppendUint64(nil, uint64(rg*1000+c))
				hi = binary.LittleEndian.AppendUint64(nil, uint64(rg*1000+c+99_999))
			case format.Type_DOUBLE:
				lo = binary.LittleEndian.AppendUint64(nil, math.Float64bits(-float64(c)/3))
				hi = binary.LittleEndian.AppendUint64(nil, math.Float64bits(float64(rg)*1e6+float64(c)))
			default:
				lo = fmt.Appendf(nil, "aardvark-%d-%d", rg, c)
				hi = fmt.Appendf(nil, "zebra-%d-%d", rg, c)
			}
			size := int64(200_000 + c)
			cm := &format.ColumnMetaData{
				Type:                  typ,
				Encodings:             []format.Encoding{format.Encoding_PLAIN, format.Encoding_RLE, format.Encoding_RLE_DICTIONARY},
				PathInSchema:          []string{md.Schema[c+1].Name},
				Codec:                 format.CompressionCodec_SNAPPY,
				NumValues:             100_000,
				TotalUncompressedSize: size * 2,
				TotalCompressedSize:   size,
				DataPageOffset:        offset + 1000,
				DictionaryPageOffset:  ptr(offset),
				Statistics: &format.Statistics{
					NullCount: ptr(int64(c % 17)), MinValue: lo, MaxValue: hi,
					IsMinValueExact: ptr(true), IsMaxValueExact: ptr(true),
				},
				EncodingStats: []*format.PageEncodingStats{
					{PageType: format.PageType_DICTIONARY_PAGE, Encoding: format.Encoding_PLAIN, Count: 1},
					{PageType: format.PageType_DATA_PAGE, Encoding: format.Encoding_RLE_DICTIONARY, Count: 20},
				},
			}
			g.Columns = append(g.Columns, &format.ColumnChunk{
				FileOffset: 0, MetaData: cm,
				OffsetIndexOffset: ptr(int64(1 << 40)), OffsetIndexLength: ptr(int32(300)),
				ColumnIndexOffset: ptr(int64(1<<40 + 1<<20)), ColumnIndexLength: ptr(int32(500)),
			})
			offset += size
			g.TotalByteSize += size * 2
		}
		md.RowGroups = append(md.RowGroups, g)
	}
	b, err := Marshal(nil, md)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkParseFooter parses the footer of a wide file (1,000 columns, 20
// row groups, statistics on every chunk): impl=arrowpq is ParseFileMetaData
// + NewSchema, impl=compact the hand-written reader of compact.go +
// NewSchema, impl=arrow-go metadata.NewFileMetaData, which also builds its
// schema. SetBytes is the footer size. cpu-ns/op is process CPU time (GC
// included), steadier than ns/op on a shared machine.
func BenchmarkParseFooter(b *testing.B) {
	footer := wideFooter(b, 1000, 20)
	b.Run("impl=arrowpq/cols=1000/rowgroups=20", func(b *testing.B) {
		b.SetBytes(int64(len(footer)))
		b.ReportAllocs()
		cpu := cpuNanos()
		defer func() { b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			md, err := ParseFileMetaData(footer)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := NewSchema(md.Schema); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=compact/cols=1000/rowgroups=20", func(b *testing.B) {
		b.SetBytes(int64(len(footer)))
		b.ReportAllocs()
		cpu := cpuNanos()
		defer func() { b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			md, err := parseFileMetaDataCompact(footer)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := NewSchema(md.Schema); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=arrow-go/cols=1000/rowgroups=20", func(b *testing.B) {
		b.SetBytes(int64(len(footer)))
		b.ReportAllocs()
		cpu := cpuNanos()
		defer func() { b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op") }()
		for b.Loop() {
			if _, err := pqmeta.NewFileMetaData(footer, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkColumnStats decodes the statistics of every column chunk of the
// wide footer; SetBytes is the footer size.
func BenchmarkColumnStats(b *testing.B) {
	footer := wideFooter(b, 1000, 20)
	md, err := ParseFileMetaData(footer)
	if err != nil {
		b.Fatal(err)
	}
	f, err := NewFile(md, 1<<50)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(footer)))
	b.ReportAllocs()
	for b.Loop() {
		for rg := range f.Meta.RowGroups {
			for c := range f.Schema.Columns {
				if _, err := ColumnStats(f, rg, c); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

// TestWideFooter checks the benchmark input against arrow-go, so that both
// benchmarks parse the same, valid footer.
func TestWideFooter(t *testing.T) {
	footer := wideFooter(t, 30, 3)
	theirs, err := pqmeta.NewFileMetaData(footer, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, err := ParseFileMetaData(footer)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFile(md, 1<<50)
	if err != nil {
		t.Fatal(err)
	}
	if theirs.NumRowGroups() != 3 || theirs.NumColumns() != 30 || len(f.Schema.Columns) != 30 {
		t.Fatalf("arrow-go: %d row groups, %d columns", theirs.NumRowGroups(), theirs.NumColumns())
	}
	cc, err := theirs.RowGroup(2).ColumnChunk(4)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := cc.Statistics()
	if err != nil || ts == nil {
		t.Fatalf("arrow-go statistics: %v", err)
	}
	st, err := ColumnStats(f, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := ts.(*pqmeta.Float64Statistics); !ok || s.Min() != st.Min.Float || s.Max() != st.Max.Float || st.Max.Float != 2e6+4 {
		t.Errorf("ours %v..%v, arrow-go %T %v", st.Min, st.Max, ts, ts)
	}
}
