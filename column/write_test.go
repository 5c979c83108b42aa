package column_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	pqmeta "github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// The column writer's tests write one optional leaf column with
// column.Writer, wrap the chunk in a file (footer and page index written
// here) and read it back with arrow-go's parquet/file reader, an
// independent implementation: values, levels, statistics, size statistics,
// page index, bloom filter and CRCs are checked against what the test
// computes from the values it wrote.

// physCase is a physical type: how to make values (as their PLAIN bytes,
// one slice per value), give them to the Writer, read them back with
// arrow-go and order them for statistics.
type physCase struct {
	name  string
	typ   format.Type
	width int // FIXED_LEN_BYTE_ARRAY
	encs  []format.Encoding
	gen   func(r *rand.Rand, i int) []byte
	// cmp orders PLAIN values as the column order does; nil: no min/max.
	cmp func(a, b []byte) int
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

var physCases = []physCase{
	{name: "boolean", typ: format.Type_BOOLEAN, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_RLE},
		gen: func(r *rand.Rand, i int) []byte { return []byte{byte(r.IntN(2))} },
		cmp: func(a, b []byte) int { return int(a[0]) - int(b[0]) }},
	{name: "int32", typ: format.Type_INT32, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_DELTA_BINARY_PACKED, format.Encoding_BYTE_STREAM_SPLIT},
		gen: func(r *rand.Rand, i int) []byte { return le32(uint32(int32(r.IntN(2000) - 1000 + i%7*1_000_000))) },
		cmp: func(a, b []byte) int {
			return cmpOrdered(int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b)))
		}},
	{name: "int64", typ: format.Type_INT64, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_DELTA_BINARY_PACKED, format.Encoding_BYTE_STREAM_SPLIT},
		gen: func(r *rand.Rand, i int) []byte { return le64(uint64(r.Int64N(1<<40) - 1<<39)) },
		cmp: func(a, b []byte) int {
			return cmpOrdered(int64(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(b)))
		}},
	{name: "int96", typ: format.Type_INT96, encs: []format.Encoding{format.Encoding_PLAIN},
		gen: func(r *rand.Rand, i int) []byte {
			b := le64(uint64(r.Int64N(86400e9)))
			return binary.LittleEndian.AppendUint32(b, uint32(2440588+r.IntN(1000)))
		}},
	{name: "float", typ: format.Type_FLOAT, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_BYTE_STREAM_SPLIT},
		gen: func(r *rand.Rand, i int) []byte { return le32(math.Float32bits(float32(r.NormFloat64() * 100))) },
		cmp: func(a, b []byte) int {
			return cmpOrdered(math.Float32frombits(binary.LittleEndian.Uint32(a)), math.Float32frombits(binary.LittleEndian.Uint32(b)))
		}},
	{name: "double", typ: format.Type_DOUBLE, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_BYTE_STREAM_SPLIT},
		gen: func(r *rand.Rand, i int) []byte { return le64(math.Float64bits(r.NormFloat64() * 1e6)) },
		cmp: func(a, b []byte) int {
			return cmpOrdered(math.Float64frombits(binary.LittleEndian.Uint64(a)), math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}},
	{name: "byte_array", typ: format.Type_BYTE_ARRAY, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_DELTA_LENGTH_BYTE_ARRAY, format.Encoding_DELTA_BYTE_ARRAY},
		gen: func(r *rand.Rand, i int) []byte {
			return fmt.Appendf(nil, "v%03d-%s", r.IntN(300), bytes.Repeat([]byte{'a' + byte(r.IntN(26))}, r.IntN(12)))
		},
		cmp: bytes.Compare},
	{name: "flba5", typ: format.Type_FIXED_LEN_BYTE_ARRAY, width: 5, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_DELTA_BYTE_ARRAY, format.Encoding_BYTE_STREAM_SPLIT},
		gen: func(r *rand.Rand, i int) []byte {
			b := make([]byte, 5)
			for j := range b {
				b[j] = byte(r.IntN(4) * 60)
			}
			return b
		},
		cmp: bytes.Compare},
}

func cmpOrdered[T int32 | int64 | float32 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// data is a column of rows: valid[i] says whether row i has a value, vals
// holds the values of the valid rows in order.
type data struct {
	valid []bool
	vals  [][]byte
}

func genData(pc physCase, n int, seed uint64) data {
	r := rand.New(rand.NewPCG(seed, 7))
	var d data
	for i := range n {
		ok := r.IntN(7) != 0
		d.valid = append(d.valid, ok)
		if ok {
			d.vals = append(d.vals, pc.gen(r, i))
		}
	}
	return d
}

// toValues makes the column.Batch of PLAIN values of type pc.
func toValues(pc physCase, vals [][]byte) column.Batch {
	var v column.Batch
	switch pc.typ {
	case format.Type_BOOLEAN:
		v.BitOffset = 3 // not byte aligned
		v.Bits = make([]byte, (len(vals)+3+7)/8)
		for i, b := range vals {
			if b[0] == 1 {
				v.Bits[(i+3)/8] |= 1 << ((i + 3) % 8)
			}
		}
		v.NumBits = len(vals)
	case format.Type_INT32:
		for _, b := range vals {
			v.Int32 = append(v.Int32, int32(binary.LittleEndian.Uint32(b)))
		}
	case format.Type_INT64:
		for _, b := range vals {
			v.Int64 = append(v.Int64, int64(binary.LittleEndian.Uint64(b)))
		}
	case format.Type_FLOAT:
		for _, b := range vals {
			v.Float = append(v.Float, math.Float32frombits(binary.LittleEndian.Uint32(b)))
		}
	case format.Type_DOUBLE:
		for _, b := range vals {
			v.Double = append(v.Double, math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case format.Type_INT96:
		for _, b := range vals {
			v.Int96 = append(v.Int96, [12]byte(b))
		}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		v.FixedLenByteArray = []byte{}
		for _, b := range vals {
			v.FixedLenByteArray = append(v.FixedLenByteArray, b...)
		}
	case format.Type_BYTE_ARRAY:
		v.Offsets = []int32{0}
		for _, b := range vals {
			v.Data = append(v.Data, b...)
			v.Offsets = append(v.Offsets, int32(len(v.Data)))
		}
	}
	return v
}

// writeConfig is one way of writing a column.
type writeConfig struct {
	opts column.WriterOptions
	// plainDirect writes BYTE_ARRAY values through PlainBuffer/WritePlain.
	plainDirect bool
	piece       int // rows per piece
}

// written is a column chunk in a file with its footer.
type written struct {
	file []byte
	res  column.ChunkResult
	col  *metadata.Column
}

func leafSchema(pc physCase) []*format.SchemaElement {
	leaf := &format.SchemaElement{Name: "v", Type: &pc.typ, RepetitionType: ptr(format.FieldRepetitionType_OPTIONAL)}
	if pc.width > 0 {
		leaf.TypeLength = ptr(int32(pc.width))
	}
	if pc.typ == format.Type_BYTE_ARRAY {
		leaf.ConvertedType = nil // raw bytes: unsigned byte-wise order
	}
	return []*format.SchemaElement{{Name: "schema", NumChildren: ptr(int32(1))}, leaf}
}

func ptr[T any](v T) *T { return &v }

// writeColumn writes d with cfg and returns the file.
func writeColumn(t *testing.T, pc physCase, d data, cfg writeConfig) written {
	t.Helper()
	schema, err := metadata.NewSchema(leafSchema(pc))
	if err != nil {
		t.Fatal(err)
	}
	col := schema.Column(0)
	w, err := column.NewWriter(col, cfg.opts)
	if err != nil {
		t.Fatal(err)
	}
	next := 0 // next value
	for start := 0; start < len(d.valid); start += cfg.piece {
		end := min(start+cfg.piece, len(d.valid))
		def := make([]int16, 0, end-start)
		for _, ok := range d.valid[start:end] {
			if ok {
				def = append(def, 1)
			} else {
				def = append(def, 0)
			}
		}
		nv := 0
		for _, l := range def {
			nv += int(l)
		}
		vals := d.vals[next : next+nv]
		next += nv
		plainSize := int64(0)
		for _, v := range vals {
			plainSize += int64(len(v))
			if pc.typ == format.Type_BYTE_ARRAY {
				plainSize += 4
			}
		}
		if !w.DictionaryFits(plainSize) {
			if err := w.FallBack(); err != nil {
				t.Fatal(err)
			}
		}
		w.WriteLevels(def, nil, end-start, nv)
		if buf, ok := w.PlainBuffer(); ok && cfg.plainDirect {
			from := len(buf)
			for _, v := range vals {
				buf = binary.LittleEndian.AppendUint32(buf, uint32(len(v)))
				buf = append(buf, v...)
			}
			err = w.WritePlain(buf, from, nv)
		} else {
			v := toValues(pc, vals)
			err = w.Write(&v)
		}
		if err != nil {
			t.Fatal(err)
		}
		if w.PageFull() {
			if err := w.FlushPage(); err != nil {
				t.Fatal(err)
			}
		}
	}
	var out bytes.Buffer
	out.WriteString("PAR1")
	res, _, err := w.Finish(&out, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	cc := res.Chunk
	if res.Bloom != nil {
		off := int64(out.Len())
		b, err := res.Bloom.AppendTo(nil)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		cc.MetaData.BloomFilterOffset, cc.MetaData.BloomFilterLength = ptr(off), ptr(int32(len(b)))
	}
	if res.ColumnIndex != nil {
		off := int64(out.Len())
		b, err := metadata.Marshal(nil, res.ColumnIndex)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		cc.ColumnIndexOffset, cc.ColumnIndexLength = ptr(off), ptr(int32(len(b)))
	}
	if res.OffsetIndex != nil {
		off := int64(out.Len())
		b, err := metadata.Marshal(nil, res.OffsetIndex)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		cc.OffsetIndexOffset, cc.OffsetIndexLength = ptr(off), ptr(int32(len(b)))
	}
	md := &format.FileMetaData{
		Version: 2, Schema: leafSchema(pc), NumRows: int64(len(d.valid)),
		RowGroups: []*format.RowGroup{{
			Columns: []*format.ColumnChunk{cc}, NumRows: int64(len(d.valid)),
			TotalByteSize: cc.MetaData.TotalUncompressedSize,
		}},
		ColumnOrders: []*format.ColumnOrder{{TYPE_ORDER: &format.TypeDefinedOrder{}}},
	}
	foot, err := metadata.AppendFooter(nil, md)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(foot)
	return written{file: out.Bytes(), res: res, col: col}
}

// readBack reads the column with arrow-go: definition levels and the
// values as PLAIN bytes.
func readBack(t *testing.T, pc physCase, file []byte, n int) (def []int16, vals [][]byte) {
	t.Helper()
	pf, err := pqfile.NewParquetReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	cr, err := pf.RowGroup(0).Column(0)
	if err != nil {
		t.Fatal(err)
	}
	if pc.typ == format.Type_FIXED_LEN_BYTE_ARRAY {
		for _, e := range pf.MetaData().RowGroups[0].Columns[0].MetaData.Encodings {
			if e == 7 { // DELTA_BYTE_ARRAY
				return nil, nil
			}
		}
	}
	def = make([]int16, n)
	var got int64
	var nv int
	switch r := cr.(type) {
	case *pqfile.BooleanColumnChunkReader:
		buf := make([]bool, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, b := range buf[:nv] {
			if b {
				vals = append(vals, []byte{1})
			} else {
				vals = append(vals, []byte{0})
			}
		}
	case *pqfile.Int32ColumnChunkReader:
		buf := make([]int32, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, le32(uint32(v)))
		}
	case *pqfile.Int64ColumnChunkReader:
		buf := make([]int64, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, le64(uint64(v)))
		}
	case *pqfile.Int96ColumnChunkReader:
		buf := make([]parquet.Int96, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, append([]byte(nil), v[:]...))
		}
	case *pqfile.Float32ColumnChunkReader:
		buf := make([]float32, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, le32(math.Float32bits(v)))
		}
	case *pqfile.Float64ColumnChunkReader:
		buf := make([]float64, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, le64(math.Float64bits(v)))
		}
	case *pqfile.ByteArrayColumnChunkReader:
		buf := make([]parquet.ByteArray, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, append([]byte(nil), v...))
		}
	case *pqfile.FixedLenByteArrayColumnChunkReader:
		buf := make([]parquet.FixedLenByteArray, n)
		got, nv, err = r.ReadBatch(int64(n), buf, def, nil)
		for _, v := range buf[:nv] {
			vals = append(vals, append([]byte(nil), v...))
		}
	default:
		t.Fatalf("reader %T", cr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(n) {
		t.Fatalf("arrow-go read %d levels of %d", got, n)
	}
	return def, vals
}

// minMax returns the least and greatest of vals under cmp.
func minMax(vals [][]byte, cmp func(a, b []byte) int) (lo, hi []byte) {
	for _, v := range vals {
		if lo == nil || cmp(v, lo) < 0 {
			lo = v
		}
		if hi == nil || cmp(v, hi) > 0 {
			hi = v
		}
	}
	return lo, hi
}

// TestWriterMatrix writes every physical type in every encoding it takes,
// and through the dictionary, in DATA_PAGE and DATA_PAGE_V2, uncompressed
// and with SNAPPY, and checks everything arrow-go reads back.
func TestWriterMatrix(t *testing.T) {
	const n = 3000
	for _, pc := range physCases {
		d := genData(pc, n, uint64(len(pc.name)))
		type variant struct {
			name string
			enc  format.Encoding
			dict bool
		}
		var variants []variant
		for _, e := range pc.encs {
			variants = append(variants, variant{e.String(), e, false})
		}
		if pc.typ != format.Type_BOOLEAN {
			variants = append(variants, variant{"dict", format.Encoding_PLAIN, true})
		}
		for _, v := range variants {
			for _, v2 := range []bool{false, true} {
				for _, codec := range []format.CompressionCodec{format.CompressionCodec_UNCOMPRESSED, format.CompressionCodec_SNAPPY} {
					name := fmt.Sprintf("%s/%s/v2=%v/%s", pc.name, v.name, v2, codec)
					t.Run(name, func(t *testing.T) {
						cfg := writeConfig{piece: 97, plainDirect: v2, opts: column.WriterOptions{
							Codec: codec, Dictionary: v.dict, Encoding: v.enc, DataPageV2: v2,
							Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true,
							PageSize: 2000, MaxRowsPerPage: 700, BloomFilterBytes: 4096,
						}}
						wr := writeColumn(t, pc, d, cfg)
						if n := len(wr.res.OffsetIndex.PageLocations); n < 2 {
							t.Errorf("%d pages: the test wants several", n)
						}
						checkAll(t, pc, d, wr, v.enc, v.dict)
					})
				}
			}
		}
	}
}

// checkAll checks a written column against the data it was given.
func checkAll(t *testing.T, pc physCase, d data, wr written, enc format.Encoding, dict bool) {
	t.Helper()
	n := len(d.valid)
	def, vals := readBack(t, pc, wr.file, n)
	if def == nil {
		// arrow-go cannot decode this combination (it panics with
		// "unimplemented encoding type" for DELTA_BYTE_ARRAY
		// FIXED_LEN_BYTE_ARRAY); arrowpq's write matrix reads those
		// files with DuckDB.
		def, vals = make([]int16, n), d.vals
		for i, ok := range d.valid {
			if ok {
				def[i] = 1
			}
		}
	}
	for i, ok := range d.valid {
		if (def[i] == 1) != ok {
			t.Fatalf("row %d: definition level %d, valid %v", i, def[i], ok)
		}
	}
	if len(vals) != len(d.vals) {
		t.Fatalf("%d values read, %d written", len(vals), len(d.vals))
	}
	for i := range vals {
		if !bytes.Equal(vals[i], d.vals[i]) {
			t.Fatalf("value %d: read %x, wrote %x", i, vals[i], d.vals[i])
		}
	}
	md := wr.res.Chunk.MetaData
	nulls := int64(n - len(d.vals))

	// Encodings: the data pages' as asked.
	wantData := enc
	if dict {
		wantData = format.Encoding_RLE_DICTIONARY
		// Values that are (nearly) all distinct: the first page showed the
		// dictionary does not pay, went PLAIN itself, and the chunk has no
		// dictionary page (TestWriterFirstPageGivesUpDictionary).
		if md.DictionaryPageOffset == nil {
			wantData = format.Encoding_PLAIN
		}
	}
	found := false
	for _, es := range md.EncodingStats {
		if es.PageType != format.PageType_DICTIONARY_PAGE && es.Encoding == wantData {
			found = true
		}
	}
	if !found {
		t.Errorf("no data page in %s: %v", wantData, md.EncodingStats)
	}

	// Chunk statistics, as arrow-go decodes them and as the bytes say.
	st := md.Statistics
	if st == nil || st.NullCount == nil || *st.NullCount != nulls {
		t.Fatalf("statistics %v, want null count %d", st, nulls)
	}
	pf, err := pqfile.NewParquetReader(bytes.NewReader(wr.file))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	ccm, err := pf.MetaData().RowGroup(0).ColumnChunk(0)
	if err != nil {
		t.Fatal(err)
	}
	if pc.cmp != nil {
		lo, hi := minMax(d.vals, pc.cmp)
		if !bytes.Equal(st.MinValue, lo) || !bytes.Equal(st.MaxValue, hi) {
			t.Errorf("min %x max %x, want %x %x", st.MinValue, st.MaxValue, lo, hi)
		}
		ts, err := ccm.Statistics()
		if err != nil || ts == nil || !ts.HasMinMax() {
			t.Fatalf("arrow-go statistics: %v %v", ts, err)
		}
		if !bytes.Equal(ts.EncodeMin(), lo) || !bytes.Equal(ts.EncodeMax(), hi) || ts.NullCount() != nulls {
			t.Errorf("arrow-go statistics min %x max %x nulls %d, want %x %x %d", ts.EncodeMin(), ts.EncodeMax(), ts.NullCount(), lo, hi, nulls)
		}
	} else if st.MinValue != nil || st.MaxValue != nil {
		t.Errorf("min/max %x %x for a type without an order", st.MinValue, st.MaxValue)
	}

	// Size statistics: the definition level histogram and, for
	// BYTE_ARRAY, the value bytes.
	ss := md.SizeStatistics
	if ss == nil || len(ss.DefinitionLevelHistogram) != 2 || ss.DefinitionLevelHistogram[0] != nulls || ss.DefinitionLevelHistogram[1] != int64(len(d.vals)) {
		t.Errorf("size statistics %v, want histogram [%d %d]", ss, nulls, len(d.vals))
	}
	if pc.typ == format.Type_BYTE_ARRAY {
		var total int64
		for _, v := range d.vals {
			total += int64(len(v))
		}
		if ss == nil || ss.UnencodedByteArrayDataBytes == nil || *ss.UnencodedByteArrayDataBytes != total {
			t.Errorf("unencoded bytes %v, want %d", ss, total)
		}
	}

	checkPageIndex(t, pc, d, wr, pf)
	checkBloom(t, pc, d, pf)
	checkCRC(t, wr)
}

// checkPageIndex checks the offset index (read by arrow-go) against the
// pages and the column index against the values of each page's rows.
func checkPageIndex(t *testing.T, pc physCase, d data, wr written, pf *pqfile.Reader) {
	t.Helper()
	pir, err := pf.GetPageIndexReader().RowGroup(0)
	if err != nil {
		t.Fatal(err)
	}
	oi, err := pir.GetOffsetIndex(0)
	if err != nil {
		t.Fatal(err)
	}
	locs := oi.GetPageLocations()
	// Each location is a data page header that parses at that offset.
	for i, l := range locs {
		var r pagecodec.PageReader
		r.Reset(wr.file[l.Offset:l.Offset+int64(l.CompressedPageSize)], wr.res.Chunk.MetaData.Codec, pagecodec.PageReaderOptions{})
		p, err := r.Next()
		if err != nil {
			t.Fatalf("page %d at %d: %v", i, l.Offset, err)
		}
		if p.Type == format.PageType_DICTIONARY_PAGE {
			t.Fatalf("page %d is the dictionary page", i)
		}
	}
	ci := wr.res.ColumnIndex
	if pc.cmp == nil {
		if ci != nil {
			t.Errorf("column index for a type without an order")
		}
		return
	}
	if ci == nil || len(ci.NullPages) != len(locs) {
		t.Fatalf("column index %v for %d pages", ci, len(locs))
	}
	// Per page: rows [first, next first).
	next := 0
	for i, l := range locs {
		end := len(d.valid)
		if i+1 < len(locs) {
			end = int(locs[i+1].FirstRowIndex)
		}
		var pageVals [][]byte
		nulls := int64(0)
		for r := int(l.FirstRowIndex); r < end; r++ {
			if d.valid[r] {
				pageVals = append(pageVals, d.vals[next])
				next++
			} else {
				nulls++
			}
		}
		if ci.NullCounts[i] != nulls {
			t.Errorf("page %d: null count %d, want %d", i, ci.NullCounts[i], nulls)
		}
		if len(pageVals) == 0 {
			if !ci.NullPages[i] {
				t.Errorf("page %d has no values but is not a null page", i)
			}
			continue
		}
		lo, hi := minMax(pageVals, pc.cmp)
		if !bytes.Equal(ci.MinValues[i], lo) || !bytes.Equal(ci.MaxValues[i], hi) {
			t.Errorf("page %d: min %x max %x, want %x %x", i, ci.MinValues[i], ci.MaxValues[i], lo, hi)
		}
		if want := int64(2 * i); len(ci.DefinitionLevelHistograms) < int(want)+2 ||
			ci.DefinitionLevelHistograms[want] != nulls || ci.DefinitionLevelHistograms[want+1] != int64(len(pageVals)) {
			t.Errorf("page %d: definition level histograms %v", i, ci.DefinitionLevelHistograms)
		}
	}
	if next != len(d.vals) {
		t.Errorf("pages cover %d values of %d", next, len(d.vals))
	}
	// arrow-go reads the same column index.
	aci, err := pir.GetColumnIndex(0)
	if err != nil || aci == nil {
		t.Fatalf("arrow-go column index: %v", err)
	}
	if got := aci.GetNullPages(); len(got) != len(ci.NullPages) {
		t.Errorf("arrow-go reads %d null_pages, want %d", len(got), len(ci.NullPages))
	}
}

// checkBloom checks with arrow-go's bloom filter reader and hashing that
// every written value may be present.
func checkBloom(t *testing.T, pc physCase, d data, pf *pqfile.Reader) {
	t.Helper()
	if pc.typ == format.Type_BOOLEAN {
		return // no bloom filter for BOOLEAN in arrow-go's hasher; see writer
	}
	rgr, err := pf.GetBloomFilterReader().RowGroup(0)
	if err != nil {
		t.Fatal(err)
	}
	bf, err := rgr.GetColumnBloomFilter(0)
	if err != nil || bf == nil {
		t.Fatalf("bloom filter: %v", err)
	}
	h := bf.Hasher()
	absent := 0
	for _, v := range d.vals {
		var hash uint64
		switch pc.typ {
		case format.Type_INT32:
			hash = pqmeta.GetHash(h, int32(binary.LittleEndian.Uint32(v)))
		case format.Type_INT64:
			hash = pqmeta.GetHash(h, int64(binary.LittleEndian.Uint64(v)))
		case format.Type_FLOAT:
			hash = pqmeta.GetHash(h, math.Float32frombits(binary.LittleEndian.Uint32(v)))
		case format.Type_DOUBLE:
			hash = pqmeta.GetHash(h, math.Float64frombits(binary.LittleEndian.Uint64(v)))
		case format.Type_INT96:
			hash = pqmeta.GetHash(h, parquet.Int96(v))
		case format.Type_BYTE_ARRAY:
			hash = pqmeta.GetHash(h, parquet.ByteArray(v))
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			hash = pqmeta.GetHash(h, parquet.FixedLenByteArray(v))
		}
		if !bf.CheckHash(hash) {
			absent++
		}
	}
	if absent > 0 {
		t.Errorf("%d of %d written values not in the bloom filter", absent, len(d.vals))
	}
}

// checkCRC checks every page's CRC against crc32 of its body, computed
// here, and that the page reader (which verifies it) reads every page.
func checkCRC(t *testing.T, wr written) {
	t.Helper()
	md := wr.res.Chunk.MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset != nil {
		start = *md.DictionaryPageOffset
	}
	chunk := wr.file[start : start+md.TotalCompressedSize]
	var r pagecodec.PageReader
	r.Reset(chunk, md.Codec, pagecodec.PageReaderOptions{})
	pages := 0
	for {
		h, err := r.NextHeader()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Crc == nil {
			t.Fatalf("page %d has no CRC", pages)
		}
		if _, err := r.Read(); err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		r.Skip()
		end := r.Offset()
		body := chunk[end-int(h.CompressedPageSize) : end]
		if uint32(*h.Crc) != crc32.ChecksumIEEE(body) {
			t.Fatalf("page %d: CRC %#x, crc32 of the body %#x", pages, uint32(*h.Crc), crc32.ChecksumIEEE(body))
		}
		pages++
	}
	if pages == 0 {
		t.Fatal("no pages")
	}
}

// TestWriterDictionaryFallback: a chunk whose first pages pay for a
// dictionary and whose later values overflow it changes to the fallback
// encoding mid-chunk (FallBack when DictionaryFits says no): dictionary
// page, RLE_DICTIONARY pages, then fallback pages, all read back by
// arrow-go with the right values and statistics.
func TestWriterDictionaryFallback(t *testing.T) {
	for _, tc := range []struct {
		pc       physCase
		fallback format.Encoding
	}{
		{physCases[6], format.Encoding_PLAIN},                   // byte_array
		{physCases[6], format.Encoding_DELTA_LENGTH_BYTE_ARRAY}, // byte_array
		{physCases[2], format.Encoding_DELTA_BINARY_PACKED},     // int64
		{physCases[5], format.Encoding_PLAIN},                   // double
	} {
		t.Run(tc.pc.name+"/"+tc.fallback.String(), func(t *testing.T) {
			pc := tc.pc
			d := genData(pc, 6000, 11)
			// The first 1500 rows take 8 distinct values, the rest are
			// (nearly) unique: the dictionary pays on the first page and
			// overflows later.
			r := rand.New(rand.NewPCG(1, 2))
			few := make([][]byte, 8)
			for i := range few {
				few[i] = pc.gen(r, i)
			}
			k := 0
			for i, ok := range d.valid {
				if !ok {
					continue
				}
				if i < 1500 {
					d.vals[k] = few[r.IntN(len(few))]
				} else {
					d.vals[k] = pc.gen(r, i)
					if pc.typ == format.Type_BYTE_ARRAY {
						d.vals[k] = fmt.Appendf(d.vals[k], "-%d", i)
					}
				}
				k++
			}
			wr := writeColumn(t, pc, d, writeConfig{piece: 50, opts: column.WriterOptions{
				Dictionary: true, DictionaryPageSize: 4 << 10, Encoding: tc.fallback,
				Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true,
				PageSize: 4 << 10, BloomFilterBytes: 8192,
			}})
			md := wr.res.Chunk.MetaData
			count := map[format.Encoding]int32{}
			for _, es := range md.EncodingStats {
				if es.PageType != format.PageType_DICTIONARY_PAGE {
					count[es.Encoding] += es.Count
				}
			}
			if count[format.Encoding_RLE_DICTIONARY] == 0 || count[tc.fallback] == 0 || md.DictionaryPageOffset == nil {
				t.Fatalf("data pages by encoding %v, dictionary page at %v: want both encodings and a dictionary page", count, md.DictionaryPageOffset)
			}
			t.Logf("data pages by encoding: %v", count)
			checkAll(t, pc, d, wr, tc.fallback, true)
		})
	}
}

// TestWriterFirstPageGivesUpDictionary: a chunk whose first page shows
// that its dictionary does not pay (unique values) is written as if the
// dictionary were off: the same pages byte for byte as Dictionary false
// (the plain path), no dictionary page, PLAIN encodings only. With few
// distinct values the dictionary stays.
func TestWriterFirstPageGivesUpDictionary(t *testing.T) {
	for _, pc := range physCases {
		if pc.typ == format.Type_BOOLEAN {
			continue
		}
		for _, kind := range []string{"unique", "runs"} {
			for _, v2 := range []bool{false, true} {
				for _, rows := range []int{1, 300, 700, 701, 5000} {
					t.Run(fmt.Sprintf("%s/%s/v2=%v/rows=%d", pc.name, kind, v2, rows), func(t *testing.T) {
						d := genData(pc, rows, uint64(rows))
						// Unique values (key = the value's number), or runs of 1
						// to 7 values of one key, the keys ascending (a sorted
						// key column, lineitem's l_orderkey).
						r := rand.New(rand.NewPCG(uint64(rows), 9))
						keys := make([]uint32, len(d.vals))
						key, left := uint32(0), 0
						for i := range keys {
							if kind == "unique" || left == 0 {
								key, left = key+1, 1+r.IntN(7)
							}
							keys[i] = key
							left--
						}
						for i, v := range d.vals {
							v = bytes.Clone(v)
							n := min(len(v), 4)
							copy(v, le32(keys[i] * 2654435761)[:n])
							d.vals[i] = v
						}
						if pc.typ == format.Type_BYTE_ARRAY {
							for i := range d.vals {
								d.vals[i] = fmt.Appendf(nil, "u%07d", keys[i])
							}
						}
						if pc.typ == format.Type_FIXED_LEN_BYTE_ARRAY {
							for i := range d.vals {
								d.vals[i] = append(le32(keys[i]), 0)
							}
						}
						// Pages cut by rows only, so that both ways cut them alike
						// (a dictionary page holds more rows to the byte).
						opts := column.WriterOptions{Codec: format.CompressionCodec_SNAPPY, DataPageV2: v2, Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true, MaxRowsPerPage: 700, BloomFilterBytes: 4096}
						plain := writeColumn(t, pc, d, writeConfig{piece: 97, opts: opts})
						opts.Dictionary = true
						got := writeColumn(t, pc, d, writeConfig{piece: 97, opts: opts})
						md := got.res.Chunk.MetaData
						if len(d.vals) > 1 {
							if md.DictionaryPageOffset != nil {
								t.Fatalf("dictionary page for unique values: %v", md.EncodingStats)
							}
							if !bytes.Equal(chunkBytes(got), chunkBytes(plain)) {
								t.Errorf("pages differ from the dictionary-off pages")
							}
							for _, es := range md.EncodingStats {
								if es.Encoding != format.Encoding_PLAIN {
									t.Errorf("encoding stats %v", md.EncodingStats)
								}
							}
						}
						checkAll(t, pc, d, got, format.Encoding_PLAIN, true)
					})
				}
			}
		}
	}
}

// TestWriterDictionaryKeptForRepeats: the dictionary stays for values
// that repeat beyond runs (few distinct values in any order), and for
// runs in an UNCOMPRESSED chunk, where its indices are what is small.
func TestWriterDictionaryKeptForRepeats(t *testing.T) {
	pc := physCases[2] // int64
	d := genData(pc, 5000, 3)
	r := rand.New(rand.NewPCG(3, 9))
	for i := range d.vals {
		d.vals[i] = le64(uint64(r.IntN(500)))
	}
	for _, codec := range []format.CompressionCodec{format.CompressionCodec_SNAPPY, format.CompressionCodec_ZSTD} {
		opts := column.WriterOptions{Codec: codec, Dictionary: true, Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true, MaxRowsPerPage: 700, BloomFilterBytes: 4096}
		got := writeColumn(t, pc, d, writeConfig{piece: 97, opts: opts})
		if got.res.Chunk.MetaData.DictionaryPageOffset == nil {
			t.Errorf("%s: 500 distinct values in any order: no dictionary", codec)
		}
		checkAll(t, pc, d, got, format.Encoding_PLAIN, true)
	}
	for i := range d.vals {
		d.vals[i] = le64(uint64(i / 4))
	}
	opts := column.WriterOptions{Dictionary: true, Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true, MaxRowsPerPage: 700, BloomFilterBytes: 4096}
	got := writeColumn(t, pc, d, writeConfig{piece: 97, opts: opts})
	if got.res.Chunk.MetaData.DictionaryPageOffset == nil {
		t.Errorf("UNCOMPRESSED runs: no dictionary")
	}
	checkAll(t, pc, d, got, format.Encoding_PLAIN, true)
}

// chunkBytes returns the bytes of the column chunk of w.
func chunkBytes(w written) []byte {
	md := w.res.Chunk.MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset != nil {
		start = *md.DictionaryPageOffset
	}
	return w.file[start : start+md.TotalCompressedSize]
}

// TestWriterIndicesMatchWrite: values given as dictionary indices
// (Insert, WriteIndices, Observe: the path of callers with their own
// dictionary) make the same bytes as the values themselves (Write).
func TestWriterIndicesMatchWrite(t *testing.T) {
	for _, pc := range physCases {
		if pc.typ == format.Type_BOOLEAN {
			continue
		}
		t.Run(pc.name, func(t *testing.T) {
			d := genData(pc, 2000, 5)
			// Few distinct values, so that the dictionary pays and stays.
			for i := range d.vals {
				d.vals[i] = d.vals[i%37]
			}
			opts := column.WriterOptions{Dictionary: true, Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true, PageSize: 1000, BloomFilterBytes: 1024}
			want := writeColumn(t, pc, d, writeConfig{piece: 64, opts: opts})

			schema, err := metadata.NewSchema(leafSchema(pc))
			if err != nil {
				t.Fatal(err)
			}
			w, err := column.NewWriter(schema.Column(0), opts)
			if err != nil {
				t.Fatal(err)
			}
			known := map[string]uint32{}
			next := 0
			for start := 0; start < len(d.valid); start += 64 {
				end := min(start+64, len(d.valid))
				var def []int16
				var idx []uint32
				var fresh [][]byte
				var raw, unencoded int64
				for _, ok := range d.valid[start:end] {
					if !ok {
						def = append(def, 0)
						continue
					}
					def = append(def, 1)
					v := d.vals[next]
					next++
					raw += int64(len(v))
					if pc.typ == format.Type_BYTE_ARRAY {
						raw += 4
						unencoded += int64(len(v))
					}
					if _, ok := known[string(v)]; !ok {
						known[string(v)] = ^uint32(0)
						fresh = append(fresh, v)
					}
					idx = append(idx, 0)
				}
				fv := toValues(pc, fresh)
				out := make([]uint32, len(fresh))
				if n, err := w.Insert(out, &fv); err != nil || n != len(fresh) {
					t.Fatalf("Insert: %d of %d, %v", n, len(fresh), err)
				}
				for i, v := range fresh {
					known[string(v)] = out[i]
				}
				k := 0
				vi := next - len(idx)
				for range idx {
					idx[k] = known[string(d.vals[vi+k])]
					k++
				}
				w.WriteLevels(def, nil, end-start, len(idx))
				if err := w.WriteIndices(idx, raw, unencoded); err != nil {
					t.Fatal(err)
				}
				all := toValues(pc, d.vals[vi:next])
				if err := w.Observe(&all); err != nil {
					t.Fatal(err)
				}
				if w.PageFull() {
					if err := w.FlushPage(); err != nil {
						t.Fatal(err)
					}
				}
			}
			var out bytes.Buffer
			out.WriteString("PAR1")
			res, _, err := w.Finish(&out, 4, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunk := want.file[4 : 4+want.res.Chunk.MetaData.TotalCompressedSize]
			if !bytes.Equal(out.Bytes()[4:], chunk) {
				t.Fatalf("chunk from indices (%d bytes) differs from chunk from values (%d bytes)", out.Len()-4, len(chunk))
			}
			if !bytes.Equal(res.Bloom.Bitset, want.res.Bloom.Bitset) {
				t.Fatal("bloom filters differ")
			}
			wmd := *want.res.Chunk.MetaData
			wmd.BloomFilterOffset, wmd.BloomFilterLength = nil, nil // set by writeColumn
			a, _ := metadata.Marshal(nil, res.Chunk.MetaData)
			b, _ := metadata.Marshal(nil, &wmd)
			if !bytes.Equal(a, b) {
				t.Fatalf("column chunk metadata differs:\n%v\n%v", res.Chunk.MetaData, want.res.Chunk.MetaData)
			}
		})
	}
}

// TestWriterMisuse: calls that do not fit the column are errors, not
// panics.
func TestWriterMisuse(t *testing.T) {
	pc := physCases[1] // int32
	schema, err := metadata.NewSchema(leafSchema(pc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := column.NewWriter(schema.Column(0), column.WriterOptions{Encoding: format.Encoding_DELTA_LENGTH_BYTE_ARRAY}); !errors.Is(err, metadata.ErrUnsupported) {
		t.Errorf("DELTA_LENGTH_BYTE_ARRAY for INT32: %v", err)
	}
	w, err := column.NewWriter(schema.Column(0), column.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteIndices([]uint32{0}, 4, 0); err == nil {
		t.Error("WriteIndices without a dictionary: no error")
	}
	if _, err := w.Insert(make([]uint32, 1), &column.Batch{Int32: []int32{1}}); err == nil {
		t.Error("Insert without a dictionary: no error")
	}
	if _, ok := w.PlainBuffer(); ok {
		t.Error("PlainBuffer for INT32")
	}
	if err := w.WritePlain(nil, 0, 0); err == nil {
		t.Error("WritePlain for INT32: no error")
	}
	wd, err := column.NewWriter(schema.Column(0), column.WriterOptions{Dictionary: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wd.Insert(make([]uint32, 3), &column.Batch{Int32: []int32{1}}); err == nil {
		t.Error("Insert of 3 values from 1: no error")
	}
	if err := wd.WriteIndices([]uint32{5}, 4, 0); err == nil {
		t.Error("index outside the dictionary: no error")
	}
}

// TestWriterPlainDirectMatchesWrite: BYTE_ARRAY values appended to the
// page's PLAIN buffer by the caller make the same chunk and bloom filter
// as values given as offsets and data.
func TestWriterPlainDirectMatchesWrite(t *testing.T) {
	pc := physCases[6]
	d := genData(pc, 3000, 9)
	opts := column.WriterOptions{Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true, PageSize: 3000, BloomFilterBytes: 2048, Codec: format.CompressionCodec_SNAPPY}
	a := writeColumn(t, pc, d, writeConfig{piece: 77, opts: opts})
	b := writeColumn(t, pc, d, writeConfig{piece: 77, opts: opts, plainDirect: true})
	if !bytes.Equal(a.file, b.file) {
		t.Fatal("files differ")
	}
	if !bytes.Equal(a.res.Bloom.Bitset, b.res.Bloom.Bitset) {
		t.Fatal("bloom filters differ")
	}
}

// TestEncodingValid: the encodings Encodings.md allows for each physical
// type (dictionary encodings aside).
func TestEncodingValid(t *testing.T) {
	types := []format.Type{format.Type_BOOLEAN, format.Type_INT32, format.Type_INT64, format.Type_INT96, format.Type_FLOAT, format.Type_DOUBLE, format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY}
	allowed := map[format.Encoding][]format.Type{
		format.Encoding_PLAIN:                   types,
		format.Encoding_RLE:                     {format.Type_BOOLEAN},
		format.Encoding_DELTA_BINARY_PACKED:     {format.Type_INT32, format.Type_INT64},
		format.Encoding_DELTA_LENGTH_BYTE_ARRAY: {format.Type_BYTE_ARRAY},
		format.Encoding_DELTA_BYTE_ARRAY:        {format.Type_BYTE_ARRAY, format.Type_FIXED_LEN_BYTE_ARRAY},
		format.Encoding_BYTE_STREAM_SPLIT:       {format.Type_INT32, format.Type_INT64, format.Type_FLOAT, format.Type_DOUBLE, format.Type_FIXED_LEN_BYTE_ARRAY},
		format.Encoding_PLAIN_DICTIONARY:        nil, // dictionary: not a fallback encoding
		format.Encoding_RLE_DICTIONARY:          nil,
		format.Encoding_BIT_PACKED:              nil, // deprecated, levels only
		format.Encoding_ALP:                     {format.Type_FLOAT, format.Type_DOUBLE},
	}
	for enc, ok := range allowed {
		for _, typ := range types {
			want := false
			for _, x := range ok {
				want = want || x == typ
			}
			if got := column.EncodingValid(enc, typ); got != want {
				t.Errorf("EncodingValid(%s, %s) = %v, want %v", enc, typ, got, want)
			}
		}
	}
}

// FuzzWriterRoundTrip writes random columns of every physical type, in a
// random encoding, page size and piece size, with or without the
// dictionary, and checks them as TestWriterMatrix does (arrow-go reads the
// values; statistics, page index, bloom filter and CRCs as computed here).
func FuzzWriterRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint8(0), false, false, uint16(500), uint16(100), uint16(64))
	f.Add(uint64(2), uint8(6), uint8(2), true, true, uint16(100), uint16(3000), uint16(7))
	f.Add(uint64(3), uint8(7), uint8(1), false, true, uint16(50), uint16(900), uint16(1))
	f.Add(uint64(4), uint8(0), uint8(1), true, false, uint16(10), uint16(2000), uint16(300))
	f.Fuzz(func(t *testing.T, seed uint64, typ, enc uint8, dict, v2 bool, pageSize, rows, piece uint16) {
		pc := physCases[int(typ)%len(physCases)]
		e := pc.encs[int(enc)%len(pc.encs)]
		if pc.typ == format.Type_BOOLEAN {
			dict = false
		}
		n := 1 + int(rows)%4000
		d := genData(pc, n, seed)
		wr := writeColumn(t, pc, d, writeConfig{piece: 1 + int(piece)%500, plainDirect: v2, opts: column.WriterOptions{
			Dictionary: dict, Encoding: e, DataPageV2: v2, Codec: format.CompressionCodec_SNAPPY,
			Statistics: true, SizeStatistics: true, PageIndex: true, CRC: true,
			PageSize: 16 + int(pageSize)%4000, MaxRowsPerPage: 1 + int(pageSize)%1000, BloomFilterBytes: 1024,
		}})
		if len(d.vals) == 0 {
			return // an all-null column: nothing for the value checks below
		}
		checkAll(t, pc, d, wr, e, dict)
	})
}
