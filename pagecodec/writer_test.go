package pagecodec

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/internal/bitpack"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestWrittenPagesReadByArrowGo writes a file whose column chunks are made
// only by this package's encoders and PageWriter (the footer is assembled
// here from the generated structs) and reads it back with arrow-go, an
// independent reader: every value must come back. It covers the dictionary
// fallback to PLAIN, v1 and v2 pages, CRCs and most codecs.
func TestWrittenPagesReadByArrowGo(t *testing.T) {
	const n = 1000
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))

	type column struct {
		name     string
		typ      format.Type
		typeLn   int32
		opt      bool
		codec    format.CompressionCodec
		want     []string // rendered as decodeFlatColumn does; "" is null
		chunk    []byte
		encs     []format.Encoding
		dictAt   int  // -1: no dictionary page
		mineOnly bool // arrow-go lacks the encoding
		numLv    int
		rawLen   int
	}
	var cols []*column
	add := func(c *column) *column { c.dictAt = -1; cols = append(cols, c); return c }

	// write appends a page through w and accounts for its sizes.
	write := func(c *column, f func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error)) {
		w, err := NewPageWriter(PageWriterOptions{Codec: c.codec})
		if err != nil {
			t.Fatal(err)
		}
		var wp WrittenPage
		c.chunk, wp, err = f(w, c.chunk)
		if err != nil {
			t.Fatal(err)
		}
		c.rawLen += wp.HeaderSize + wp.UncompressedSize
	}

	// INT64 DELTA_BINARY_PACKED, v2, ZSTD, extreme values.
	{
		c := add(&column{name: "i64_dbp", typ: format.Type_INT64, codec: format.CompressionCodec_ZSTD, encs: []format.Encoding{format.Encoding_DELTA_BINARY_PACKED}})
		v := make([]int64, n)
		for i := range v {
			switch rng.IntN(4) {
			case 0:
				v[i] = int64(rng.Uint64())
			case 1:
				v[i] = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
			default:
				v[i] = int64(i*1000 + rng.IntN(50))
			}
			c.want = append(c.want, strconv.FormatInt(v[i], 10))
		}
		var e DeltaBinaryPackedEncoder
		e.AppendInt64(v)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_DELTA_BINARY_PACKED, Values: vals})
		})
	}
	// BYTE_ARRAY DELTA_BYTE_ARRAY in two v1 pages, SNAPPY.
	{
		c := add(&column{name: "str_dba", typ: format.Type_BYTE_ARRAY, codec: format.CompressionCodec_SNAPPY, encs: []format.Encoding{format.Encoding_DELTA_BYTE_ARRAY}})
		offs, data := []int32{0}, []byte(nil)
		for i := range n {
			s := fmt.Sprintf("customer-%05d-%s", i/3, []string{"", "x", "long suffix here"}[rng.IntN(3)])
			data = append(data, s...)
			offs = append(offs, int32(len(data)))
			c.want = append(c.want, s)
		}
		for _, part := range [][2]int{{0, 600}, {600, n}} {
			var e DeltaByteArrayEncoder
			e.AppendByteArray(offs[part[0]:part[1]+1], data)
			vals := e.AppendTo(nil)
			write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
				return w.AppendDataPageV1(dst, &DataPageV1{NumLevels: part[1] - part[0], Encoding: format.Encoding_DELTA_BYTE_ARRAY, Values: vals})
			})
		}
	}
	// INT32 dictionary with a size limit: RLE_DICTIONARY until the
	// dictionary is full, then PLAIN; GZIP.
	{
		c := add(&column{name: "i32_dict", typ: format.Type_INT32, codec: format.CompressionCodec_GZIP, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_RLE_DICTIONARY}})
		v := make([]int32, n)
		for i := range v {
			v[i] = int32(rng.IntN(60+i/4)) - 30
			c.want = append(c.want, strconv.Itoa(int(v[i])))
		}
		var e DictEncoder32
		e.Reset(4 * 100) // at most 100 values
		taken := e.AppendInt32(v)
		if taken == n || taken == 0 {
			t.Fatalf("dictionary took %d of %d values", taken, n)
		}
		c.dictAt = 0
		dict := e.AppendDictPage(nil)
		idx := e.AppendIndices(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDictionaryPage(dst, &DictionaryPage{NumValues: e.DictLen(), Values: dict})
		})
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV1(dst, &DataPageV1{NumLevels: taken, Encoding: format.Encoding_RLE_DICTIONARY, Values: idx})
		})
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV1(dst, &DataPageV1{NumLevels: n - taken, Encoding: format.Encoding_PLAIN, Values: AppendPlainInt32(nil, v[taken:])})
		})
	}
	// DOUBLE BYTE_STREAM_SPLIT, v2, LZ4_RAW.
	{
		c := add(&column{name: "f64_bss", typ: format.Type_DOUBLE, codec: format.CompressionCodec_LZ4_RAW, encs: []format.Encoding{format.Encoding_BYTE_STREAM_SPLIT}})
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * 1e3
			c.want = append(c.want, strconv.FormatFloat(v[i], 'g', -1, 64))
		}
		var e ByteStreamSplitEncoder
		e.Reset(8)
		e.AppendDouble(v)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_BYTE_STREAM_SPLIT, Values: vals})
		})
	}
	// BOOLEAN RLE, v2, BROTLI.
	{
		c := add(&column{name: "bool_rle", typ: format.Type_BOOLEAN, codec: format.CompressionCodec_BROTLI, encs: []format.Encoding{format.Encoding_RLE}})
		bm := make([]byte, n/8+1)
		for i := range n {
			b := rng.IntN(5) == 0 || (i/40)%2 == 0
			if b {
				bm[i/8] |= 1 << (i % 8)
			}
			c.want = append(c.want, strconv.FormatBool(b))
		}
		var e RLEBooleanEncoder
		e.Reset()
		e.Append(bm, 0, n)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_RLE, Values: vals})
		})
	}
	// Optional BYTE_ARRAY DELTA_LENGTH_BYTE_ARRAY with nulls, v1,
	// uncompressed; definition levels from bitpack.
	{
		c := add(&column{name: "str_dlba_opt", typ: format.Type_BYTE_ARRAY, opt: true, codec: format.CompressionCodec_UNCOMPRESSED, encs: []format.Encoding{format.Encoding_DELTA_LENGTH_BYTE_ARRAY, format.Encoding_RLE}})
		offs, data := []int32{0}, []byte(nil)
		defs := make([]uint32, n)
		for i := range n {
			if rng.IntN(3) == 0 {
				c.want = append(c.want, "")
				continue
			}
			defs[i] = 1
			s := strconv.Itoa(rng.IntN(1 << 20))
			data = append(data, s...)
			offs = append(offs, int32(len(data)))
			c.want = append(c.want, s)
		}
		var he bitpack.HybridEncoder
		he.Reset(1)
		he.Append32(defs)
		levels := bytes.Clone(he.Finish())
		var e DeltaLengthByteArrayEncoder
		e.AppendByteArray(offs, data)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV1(dst, &DataPageV1{NumLevels: n, Encoding: format.Encoding_DELTA_LENGTH_BYTE_ARRAY, DefinitionLevels: levels, Values: vals})
		})
	}
	// FIXED_LEN_BYTE_ARRAY(4) BYTE_STREAM_SPLIT, v2, SNAPPY.
	{
		c := add(&column{name: "flba_bss", typ: format.Type_FIXED_LEN_BYTE_ARRAY, typeLn: 4, codec: format.CompressionCodec_SNAPPY, encs: []format.Encoding{format.Encoding_BYTE_STREAM_SPLIT}})
		v := make([]byte, 4*n)
		for i := range n {
			binary.BigEndian.PutUint32(v[4*i:], uint32(i*i/7))
			c.want = append(c.want, hex.EncodeToString(v[4*i:4*i+4]))
		}
		var e ByteStreamSplitEncoder
		e.Reset(4)
		e.AppendFixedLenByteArray(v)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_BYTE_STREAM_SPLIT, Values: vals})
		})
	}
	// FIXED_LEN_BYTE_ARRAY(4) DELTA_BYTE_ARRAY, v2, SNAPPY: arrow-go has no
	// DELTA_BYTE_ARRAY for FIXED_LEN_BYTE_ARRAY, so only our reader checks it.
	{
		c := add(&column{name: "flba_dba", typ: format.Type_FIXED_LEN_BYTE_ARRAY, typeLn: 4, codec: format.CompressionCodec_SNAPPY, mineOnly: true, encs: []format.Encoding{format.Encoding_DELTA_BYTE_ARRAY}})
		v := make([]byte, 4*n)
		for i := range n {
			binary.BigEndian.PutUint32(v[4*i:], uint32(i*i/7))
			c.want = append(c.want, hex.EncodeToString(v[4*i:4*i+4]))
		}
		var e DeltaByteArrayEncoder
		e.AppendFixedLenByteArray(v, 4)
		vals := e.AppendTo(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_DELTA_BYTE_ARRAY, Values: vals})
		})
	}
	// FLOAT dictionary (NaN patterns included), v2 pages, ZSTD level 9.
	{
		c := add(&column{name: "f32_dict", typ: format.Type_FLOAT, codec: format.CompressionCodec_ZSTD, encs: []format.Encoding{format.Encoding_PLAIN, format.Encoding_RLE_DICTIONARY}})
		v := make([]float32, n)
		for i := range v {
			v[i] = []float32{1.5, -0, 0, float32(math.Inf(1)), 3e-38, 42}[rng.IntN(6)]
			c.want = append(c.want, strconv.FormatFloat(float64(v[i]), 'g', -1, 32))
		}
		var e DictEncoder32
		e.Reset(0)
		e.AppendFloat(v)
		c.dictAt = 0
		dict := e.AppendDictPage(nil)
		idx := e.AppendIndices(nil)
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDictionaryPage(dst, &DictionaryPage{NumValues: e.DictLen(), Values: dict})
		})
		write(c, func(w *PageWriter, dst []byte) ([]byte, WrittenPage, error) {
			return w.AppendDataPageV2(dst, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_RLE_DICTIONARY, Values: idx})
		})
	}

	// Assemble the file.
	out := []byte("PAR1")
	md := &format.FileMetaData{Version: 2, NumRows: n, Schema: []*format.SchemaElement{{Name: "schema", NumChildren: &[]int32{int32(len(cols))}[0]}}}
	rg := &format.RowGroup{NumRows: n}
	for _, c := range cols {
		rep := format.FieldRepetitionType_REQUIRED
		if c.opt {
			rep = format.FieldRepetitionType_OPTIONAL
		}
		typ := c.typ
		el := &format.SchemaElement{Name: c.name, Type: &typ, RepetitionType: &rep}
		if c.typeLn > 0 {
			el.TypeLength = &c.typeLn
		}
		md.Schema = append(md.Schema, el)
		start := int64(len(out))
		out = append(out, c.chunk...)
		cm := &format.ColumnMetaData{
			Type: c.typ, Encodings: c.encs, PathInSchema: []string{c.name}, Codec: c.codec, NumValues: n,
			TotalUncompressedSize: int64(c.rawLen), TotalCompressedSize: int64(len(c.chunk)), DataPageOffset: start,
		}
		if c.dictAt >= 0 {
			d := start
			cm.DictionaryPageOffset = &d
			// The data pages start after the dictionary page.
			var r PageReader
			r.Reset(c.chunk, c.codec, PageReaderOptions{})
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			cm.DataPageOffset = start + int64(r.Offset())
		}
		rg.Columns = append(rg.Columns, &format.ColumnChunk{FileOffset: start, MetaData: cm})
		rg.TotalByteSize += int64(c.rawLen)
	}
	md.RowGroups = []*format.RowGroup{rg}
	mem := thrift.NewTMemoryBuffer()
	if err := md.Write(context.Background(), thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{})); err != nil {
		t.Fatal(err)
	}
	out = append(out, mem.Bytes()...)
	out = binary.LittleEndian.AppendUint32(out, uint32(mem.Len()))
	out = append(out, "PAR1"...)
	path := filepath.Join(t.TempDir(), "written.parquet")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}

	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	ours := readTestFile(t, path)
	for i, c := range cols {
		if !c.mineOnly {
			got := oracleColumn(t, rd, 0, i, ours[i])
			if len(got) != n {
				t.Fatalf("%s: arrow-go read %d rows", c.name, len(got))
			}
			for r := range got {
				if got[r] != c.want[r] {
					t.Fatalf("%s row %d: arrow-go read %q, we wrote %q", c.name, r, got[r], c.want[r])
				}
			}
		}
		// And our own reader agrees, in random batches.
		mine := decodeFlatColumn(t, ours[i], func() int { return 1 + rng.IntN(300) })
		if len(mine) != n {
			t.Fatalf("%s: we read %d rows", c.name, len(mine))
		}
		for r := range mine {
			if mine[r] != c.want[r] {
				t.Fatalf("%s row %d: we read %q, wrote %q", c.name, r, mine[r], c.want[r])
			}
		}
	}
}
