package column_test

// The column reader against arrow-go's writer: each test writes a column
// with arrow-go's low-level parquet/file writer (a chosen physical type,
// encoding, page version, page size, and optionally an offset index) from
// levels and values generated here, and reads the chunk back with
// column.Reader. The expected levels and values are the generated ones,
// which another engine encoded.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// shape is the column's place in the schema.
type shape int

const (
	required shape = iota // required leaf: no levels
	optional              // optional leaf: max def 1 (the flat path)
	nested                // optional list of optional elements: max def 3, max rep 1
	deep                  // optional struct of an optional leaf: max def 2, no repetition
)

func (s shape) String() string {
	return [...]string{"required", "optional", "list", "struct"}[s]
}

// spec says how arrow-go writes a test column.
type spec struct {
	physical parquet.Type
	width    int // FIXED_LEN_BYTE_ARRAY
	shape    shape
	enc      parquet.Encoding // PLAIN, …; RLE_DICTIONARY means dictionary on
	v2       bool
	index    bool // write the page index
	pageSize int64
	codec    compress.Compression
	rows     int
	seed     uint64
}

func (s spec) String() string {
	v := "v1"
	if s.v2 {
		v = "v2"
	}
	return fmt.Sprintf("%v/%v/%s/%s/index=%v", s.physical, s.enc, s.shape, v, s.index)
}

// column holds generated levels and values (values as comparable Go
// values: int32, int64, float32 and float64 bits, bool, string).
type testData struct {
	def, rep []int16
	values   []any
	numRows  int
}

// generate makes the levels and values of s.rows records.
func generate(s spec) testData {
	rng := rand.New(rand.NewPCG(s.seed, 7))
	var d testData
	d.numRows = s.rows
	value := func() any {
		switch s.physical {
		case parquet.Types.Boolean:
			return rng.IntN(3) == 0
		case parquet.Types.Int32:
			return int32(rng.IntN(50)*1000 - 20000 + rng.IntN(3))
		case parquet.Types.Int64:
			return int64(rng.IntN(40))<<33 - int64(rng.IntN(1000))
		case parquet.Types.Float:
			return math.Float32bits(float32(rng.IntN(30)) / 4)
		case parquet.Types.Double:
			return math.Float64bits(float64(rng.IntN(30)) / 8)
		case parquet.Types.Int96:
			b := make([]byte, 12)
			binary.LittleEndian.PutUint64(b, uint64(rng.IntN(20))*1e9)
			binary.LittleEndian.PutUint32(b[8:], 2440588+uint32(rng.IntN(5)))
			return string(b)
		case parquet.Types.FixedLenByteArray:
			b := make([]byte, s.width)
			for i := range b {
				b[i] = byte('a' + rng.IntN(4))
			}
			return string(b)
		default:
			prefix := []string{"", "http://example.com/", "http://example.com/a/", "zz"}[rng.IntN(4)]
			return prefix + fmt.Sprint(rng.IntN(40))
		}
	}
	for range s.rows {
		switch s.shape {
		case required:
			d.values = append(d.values, value())
		case optional, deep:
			top := int16(1)
			if s.shape == deep {
				top = 2
			}
			l := int16(rng.IntN(int(top) + 3))
			l = min(l, top)
			d.def = append(d.def, l)
			if l == top {
				d.values = append(d.values, value())
			}
		case nested:
			// null list (0), empty list (1), or elements at 2 (null) or 3.
			switch k := rng.IntN(10); {
			case k == 0:
				d.def, d.rep = append(d.def, 0), append(d.rep, 0)
			case k == 1:
				d.def, d.rep = append(d.def, 1), append(d.rep, 0)
			default:
				n := 1 + rng.IntN(6)
				for i := range n {
					l := int16(3)
					if rng.IntN(5) == 0 {
						l = 2
					}
					r := int16(1)
					if i == 0 {
						r = 0
					}
					d.def, d.rep = append(d.def, l), append(d.rep, r)
					if l == 3 {
						d.values = append(d.values, value())
					}
				}
			}
		}
	}
	return d
}

// schemaFor builds the one-column schema of s.
func schemaFor(t testing.TB, s spec) *schema.GroupNode {
	leafRep := parquet.Repetitions.Optional
	if s.shape == required {
		leafRep = parquet.Repetitions.Required
	}
	leafName := "a"
	if s.shape == nested {
		leafName = "element"
	}
	width := int32(-1)
	if s.physical == parquet.Types.FixedLenByteArray {
		width = int32(s.width)
	}
	leaf, err := schema.NewPrimitiveNode(leafName, leafRep, s.physical, -1, width)
	if err != nil {
		t.Fatal(err)
	}
	var top schema.Node = leaf
	switch s.shape {
	case nested:
		list, err := schema.NewGroupNode("list", parquet.Repetitions.Repeated, schema.FieldList{leaf}, -1)
		if err != nil {
			t.Fatal(err)
		}
		top, err = schema.NewGroupNodeLogical("a", parquet.Repetitions.Optional, schema.FieldList{list}, schema.ListLogicalType{}, -1)
		if err != nil {
			t.Fatal(err)
		}
	case deep:
		top, err = schema.NewGroupNode("s", parquet.Repetitions.Optional, schema.FieldList{leaf}, -1)
		if err != nil {
			t.Fatal(err)
		}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{top}, -1)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// writeFile writes d as the single column of a one-row-group file.
func writeFile(t testing.TB, s spec, d testData) []byte {
	props := []parquet.WriterProperty{
		parquet.WithDataPageSize(s.pageSize),
		parquet.WithBatchSize(64),
		parquet.WithCompression(s.codec),
		parquet.WithPageIndexEnabled(s.index),
		parquet.WithStats(false),
		parquet.WithMaxRowGroupLength(int64(s.rows) + 1),
	}
	if s.enc == parquet.Encodings.RLEDict {
		props = append(props, parquet.WithDictionaryDefault(true))
	} else {
		props = append(props, parquet.WithDictionaryDefault(false), parquet.WithEncoding(s.enc))
	}
	if s.v2 {
		props = append(props, parquet.WithDataPageVersion(parquet.DataPageV2))
	} else {
		props = append(props, parquet.WithDataPageVersion(parquet.DataPageV1))
	}
	var buf bytes.Buffer
	w, err := file.NewParquetWriterWithError(&buf, schemaFor(t, s), file.WithWriterProps(parquet.NewWriterProperties(props...)))
	if err != nil {
		t.Fatal(err)
	}
	rg := w.AppendRowGroup()
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	def, rep := d.def, d.rep
	if len(def) == 0 {
		def = nil
	}
	if len(rep) == 0 {
		rep = nil
	}
	switch c := cw.(type) {
	case *file.BooleanColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) bool { return v.(bool) }), def, rep)
	case *file.Int32ColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) int32 { return v.(int32) }), def, rep)
	case *file.Int64ColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) int64 { return v.(int64) }), def, rep)
	case *file.Float32ColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) float32 { return math.Float32frombits(v.(uint32)) }), def, rep)
	case *file.Float64ColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) float64 { return math.Float64frombits(v.(uint64)) }), def, rep)
	case *file.Int96ColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) parquet.Int96 { return parquet.Int96([]byte(v.(string))) }), def, rep)
	case *file.FixedLenByteArrayColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) parquet.FixedLenByteArray { return parquet.FixedLenByteArray(v.(string)) }), def, rep)
	case *file.ByteArrayColumnChunkWriter:
		_, err = c.WriteBatch(conv(d.values, func(v any) parquet.ByteArray { return parquet.ByteArray(v.(string)) }), def, rep)
	default:
		t.Fatalf("column writer %T", cw)
	}
	if err != nil {
		t.Fatalf("%v: arrow-go WriteBatch: %v", s, err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushWithFooter(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func conv[T any](vs []any, f func(any) T) []T {
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}

// chunkOf returns the column and Chunk of column 0 of row group 0.
func chunkOf(t testing.TB, b []byte, withIndex bool) (*metadata.Column, column.Chunk, []format.Encoding) {
	f, err := metadata.ReadFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	md, err := f.ColumnChunk(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	off, n, err := f.ChunkRange(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := column.Chunk{
		Data: b[off : off+n], FileOffset: off, Codec: md.Codec,
		NumValues: md.NumValues, NumRows: f.Meta.RowGroups[0].NumRows,
	}
	if withIndex {
		oi, err := metadata.ReadOffsetIndex(bytes.NewReader(b), f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if oi == nil {
			t.Fatal("no offset index written")
		}
		c.OffsetIndex = oi.PageLocations
	}
	return f.Schema.Columns[0], c, md.Encodings
}

// valueAt returns value i of v as generate makes them.
func valueAt(v *column.Values, i int) any {
	switch v.Physical {
	case format.Type_BOOLEAN:
		return v.Bits[i>>3]>>(i&7)&1 == 1
	case format.Type_INT32:
		return v.Int32[i]
	case format.Type_INT64:
		return v.Int64[i]
	case format.Type_FLOAT:
		return math.Float32bits(v.Float32[i])
	case format.Type_DOUBLE:
		return math.Float64bits(v.Float64[i])
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return string(v.Fixed[i*v.Width : (i+1)*v.Width])
	case format.Type_BYTE_ARRAY:
		if v.ViewMode {
			return viewValue(v, i)
		}
		return string(v.Data[v.Offsets[i]:v.Offsets[i+1]])
	}
	return nil
}

// viewValue reads view i of v as the Arrow columnar format lays a
// BinaryView out: a 4-byte length, then up to 12 bytes inline, or a
// 4-byte prefix, a buffer index and an offset.
func viewValue(v *column.Values, i int) string {
	var h [16]byte
	binary.LittleEndian.PutUint64(h[:], v.Views[2*i])
	binary.LittleEndian.PutUint64(h[8:], v.Views[2*i+1])
	n := binary.LittleEndian.Uint32(h[:])
	if n <= 12 {
		if !bytes.Equal(h[4+n:], make([]byte, 12-n)) {
			return "inline value not zero-padded"
		}
		return string(h[4 : 4+n])
	}
	buf, off := binary.LittleEndian.Uint32(h[8:]), binary.LittleEndian.Uint32(h[12:])
	b := v.ViewBuffers[buf][off : off+n]
	if !bytes.Equal(b[:4], h[4:8]) {
		return "prefix differs"
	}
	return string(b)
}

// readAll reads the whole chunk with Read in pieces of step levels.
func readAll(t testing.TB, r *column.Reader, col *metadata.Column, step int) testData {
	return readAllMode(t, r, col, step, false)
}

// readAllMode is readAll, byte arrays as views with views set: the views
// of the whole chunk are read at the end, so a page buffer the reader
// read into again would show.
func readAllMode(t testing.TB, r *column.Reader, col *metadata.Column, step int, views bool) testData {
	var got testData
	var vals column.Values
	vals.Reset(col)
	vals.ViewMode = views
	def := make([]int16, step)
	rep := make([]int16, step)
	for {
		nl, nv, err := r.Read(&vals, step, def, rep)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if col.MaxDef > 0 {
			got.def = append(got.def, def[:nl]...)
		}
		if col.MaxRep > 0 {
			got.rep = append(got.rep, rep[:nl]...)
		}
		_ = nv
	}
	for i := range vals.N {
		got.values = append(got.values, valueAt(&vals, i))
	}
	return got
}

func compareData(t testing.TB, what string, got, want testData) {
	t.Helper()
	if !slices.Equal(got.def, want.def) {
		t.Errorf("%s: %d definition levels differ from the %d written", what, len(got.def), len(want.def))
	}
	if !slices.Equal(got.rep, want.rep) {
		t.Errorf("%s: %d repetition levels differ from the %d written", what, len(got.rep), len(want.rep))
	}
	if len(got.values) != len(want.values) {
		t.Errorf("%s: %d values, want %d", what, len(got.values), len(want.values))
		return
	}
	for i := range got.values {
		if got.values[i] != want.values[i] {
			t.Errorf("%s: value %d = %v, want %v", what, i, got.values[i], want.values[i])
			return
		}
	}
}

// encodingMatrix lists every value encoding arrow-go writes, per physical
// type.
var encodingMatrix = []struct {
	physical parquet.Type
	width    int
	encs     []parquet.Encoding
}{
	{parquet.Types.Boolean, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLE}},
	{parquet.Types.Int32, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.ByteStreamSplit}},
	{parquet.Types.Int64, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.ByteStreamSplit}},
	{parquet.Types.Float, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.ByteStreamSplit}},
	{parquet.Types.Double, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.ByteStreamSplit}},
	{parquet.Types.Int96, 0, []parquet.Encoding{parquet.Encodings.Plain}},                                                                           // arrow-go writes no INT96 dictionary
	{parquet.Types.FixedLenByteArray, 5, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.ByteStreamSplit}}, // nor FLBA DELTA_BYTE_ARRAY
	{parquet.Types.ByteArray, 0, []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray}},
}

// TestReadViews reads BYTE_ARRAY chunks of every encoding arrow-go writes
// as views (Values.ViewMode), in each shape, v1 and v2 pages, SNAPPY and
// UNCOMPRESSED (pages the reader does not own: copied), serially and read
// ahead, in pieces of several sizes: the values are arrow-go's.
func TestReadViews(t *testing.T) {
	for _, enc := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict, parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray} {
		for _, sh := range []shape{required, optional, nested} {
			for _, v2 := range []bool{false, true} {
				for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Uncompressed} {
					s := spec{physical: parquet.Types.ByteArray, shape: sh, enc: enc, v2: v2,
						pageSize: 512, codec: codec, rows: 700, seed: uint64(int(enc) + 3)}
					t.Run(fmt.Sprintf("%s/%s", s, codec), func(t *testing.T) {
						want := generate(s)
						col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
						for _, step := range []int{1, 7, 1000} {
							for _, ahead := range []bool{false, true} {
								opts := column.ReaderOptions{}
								if ahead {
									opts.Prefetch, opts.PrefetchMinBytes = 2, 1
									opts.Spawn = func(f func()) bool { go f(); return true }
								}
								r := column.NewReader(col, opts)
								r.Reset(chunk)
								compareData(t, fmt.Sprintf("step %d, read ahead %v", step, ahead), readAllMode(t, r, col, step, true), want)
								r.Close()
							}
						}
					})
				}
			}
		}
	}
}

// TestReadEncodings reads every encoding × physical type arrow-go writes,
// in each shape, v1 and v2 pages, in pieces of several sizes.
func TestReadEncodings(t *testing.T) {
	for _, m := range encodingMatrix {
		for _, enc := range m.encs {
			for _, sh := range []shape{required, optional, deep, nested} {
				for _, v2 := range []bool{false, true} {
					s := spec{physical: m.physical, width: m.width, shape: sh, enc: enc, v2: v2,
						pageSize: 512, codec: compress.Codecs.Snappy, rows: 700, seed: uint64(len(t.Name()) + int(enc))}
					t.Run(s.String(), func(t *testing.T) {
						want := generate(s)
						b := writeFile(t, s, want)
						col, chunk, encs := chunkOf(t, b, false)
						wantEnc := format.Encoding(enc)
						if enc == parquet.Encodings.RLEDict && !v2 {
							wantEnc = format.Encoding_PLAIN_DICTIONARY // arrow-go's v1 spelling
						}
						if len(want.values) > 0 && !slices.Contains(encs, wantEnc) && !slices.Contains(encs, format.Encoding_RLE_DICTIONARY) {
							t.Fatalf("arrow-go wrote encodings %v, not %v", encs, wantEnc)
						}
						for _, step := range []int{1, 7, 1000} {
							r := column.NewReader(col, column.ReaderOptions{})
							r.Reset(chunk)
							compareData(t, fmt.Sprintf("step %d", step), readAll(t, r, col, step), want)
						}
					})
				}
			}
		}
	}
}

// TestReadTyped reads through ReadFixed and ReadByteArray into caller
// buffers.
func TestReadTyped(t *testing.T) {
	s := spec{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, pageSize: 256, codec: compress.Codecs.Zstd, rows: 500, seed: 3}
	want := generate(s)
	col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
	r := column.NewReader(col, column.ReaderOptions{})
	r.Reset(chunk)
	values := make([]int64, 1000)
	def := make([]int16, 1000)
	nl, nv, err := column.ReadFixed(r, values, def, nil)
	if err != nil || nl != s.rows || nv != len(want.values) {
		t.Fatalf("ReadFixed: %d levels %d values %v, want %d %d", nl, nv, err, s.rows, len(want.values))
	}
	for i := range nv {
		if values[i] != want.values[i].(int64) {
			t.Fatalf("value %d = %d, want %d", i, values[i], want.values[i])
		}
	}
	if !slices.Equal(def[:nl], want.def) {
		t.Error("definition levels differ")
	}
	if _, _, err := column.ReadFixed(r, values, def, nil); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
	if _, _, err := column.ReadFixed(r, make([]int32, 4), def, nil); err == nil {
		t.Error("int32 values from an INT64 column accepted")
	}

	s = spec{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.DeltaByteArray, pageSize: 256, codec: compress.Codecs.Gzip, rows: 300, seed: 4}
	want = generate(s)
	col, chunk, _ = chunkOf(t, writeFile(t, s, want), false)
	r = column.NewReader(col, column.ReaderOptions{})
	r.Reset(chunk)
	def, rep := make([]int16, len(want.def)), make([]int16, len(want.def))
	offsets, data, nl, nv, err := column.ReadByteArray(r, make([]int32, 0, 4096), make([]byte, 0, 1<<16), len(want.def), def, rep)
	if err != nil || nl != len(want.def) || nv != len(want.values) {
		t.Fatalf("ReadByteArray: %d levels %d values %v", nl, nv, err)
	}
	for i := range nv {
		if got := string(data[offsets[i]:offsets[i+1]]); got != want.values[i] {
			t.Fatalf("value %d = %q, want %q", i, got, want.values[i])
		}
	}
	if !slices.Equal(rep, want.rep) || !slices.Equal(def, want.def) {
		t.Error("levels differ")
	}
}

// TestDictionaryEveryType reads dictionary indices, and the dictionary,
// for every physical type arrow-go dictionary-encodes.
func TestDictionaryEveryType(t *testing.T) {
	for _, m := range encodingMatrix {
		if !slices.Contains(m.encs, parquet.Encodings.RLEDict) {
			continue
		}
		s := spec{physical: m.physical, width: m.width, shape: optional, enc: parquet.Encodings.RLEDict, pageSize: 1 << 20, codec: compress.Codecs.Snappy, rows: 400, seed: 9}
		t.Run(s.String(), func(t *testing.T) {
			want := generate(s)
			col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
			r := column.NewReader(col, column.ReaderOptions{})
			r.Reset(chunk)
			if _, ok := r.Dictionary(); ok {
				t.Fatal("a dictionary before the first page")
			}
			var v column.Values
			v.Reset(col)
			v.IndexMode = true
			def := make([]int16, s.rows)
			if _, _, err := r.Read(&v, s.rows, def, nil); err != nil {
				t.Fatal(err)
			}
			dict, ok := r.Dictionary()
			if !ok || !v.IndexMode || !r.PageIsDictionaryEncoded() {
				t.Fatalf("dictionary %v, index mode %v", ok, v.IndexMode)
			}
			if v.N != len(want.values) || len(v.Indices) != v.N {
				t.Fatalf("%d indices for %d values", len(v.Indices), len(want.values))
			}
			for i, x := range v.Indices {
				if got := valueAt(dict, int(x)); got != want.values[i] {
					t.Fatalf("value %d: dictionary entry %d = %v, want %v", i, x, got, want.values[i])
				}
			}
		})
	}
}

// TestReadHostile cuts and flips the bytes of real chunks: every read
// fails with one of pagecodec's sentinels, located at a page, or reads.
func TestReadHostile(t *testing.T) {
	s := spec{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.RLEDict, pageSize: 256, codec: compress.Codecs.Snappy, rows: 200, seed: 5, index: true}
	col, chunk, _ := chunkOf(t, writeFile(t, s, generate(s)), true)
	// A chunk cut where a page starts reads as a shorter chunk.
	boundary := map[int]bool{0: true}
	for _, l := range chunk.OffsetIndex {
		boundary[int(l.Offset-chunk.FileOffset)] = true
	}
	for cut := 0; cut < len(chunk.Data); cut += 7 {
		c := chunk
		c.Data = chunk.Data[:cut]
		c.OffsetIndex = nil
		r := column.NewReader(col, column.ReaderOptions{})
		r.Reset(c)
		err := drain(r, col)
		if err == nil && !boundary[cut] {
			t.Fatalf("cut at %d: no error", cut)
		}
		if err != nil && !errors.Is(err, pagecodec.ErrCorrupt) && !errors.Is(err, pagecodec.ErrLimit) {
			t.Fatalf("cut at %d: %v wraps no sentinel", cut, err)
		}
	}
}

// drain reads and skips until the end, returning the first error.
func drain(r *column.Reader, col *metadata.Column) error {
	var v column.Values
	def := make([]int16, 64)
	rep := make([]int16, 64)
	for i := 0; ; i++ {
		if i%3 == 2 {
			if n, err := r.SkipRecords(5); err != nil || n == 0 {
				return err
			}
			continue
		}
		v.Reset(col)
		v.ViewMode = i%4 == 1 // byte arrays as views now and then
		if _, _, err := r.Read(&v, 64, def, rep); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestDictionaryBlocks reads dictionary-encoded pages of thousands of
// values in calls that end inside, at and across the blocks of indices the
// reader gathers at a time (1,024), for every physical type arrow-go
// dictionary-encodes, with and without nulls: the values are arrow-go's.
func TestDictionaryBlocks(t *testing.T) {
	for _, m := range encodingMatrix {
		if !slices.Contains(m.encs, parquet.Encodings.RLEDict) {
			continue
		}
		for _, sh := range []shape{required, optional} {
			s := spec{physical: m.physical, width: m.width, shape: sh, enc: parquet.Encodings.RLEDict, pageSize: 1 << 20,
				codec: compress.Codecs.Snappy, rows: 5000, seed: 11}
			t.Run(s.String(), func(t *testing.T) {
				want := generate(s)
				col, chunk, _ := chunkOf(t, writeFile(t, s, want), false)
				for _, step := range []int{1023, 1024, 1025, 3000, 5000} {
					r := column.NewReader(col, column.ReaderOptions{})
					r.Reset(chunk)
					compareData(t, fmt.Sprintf("step %d", step), readAll(t, r, col, step), want)
				}
			})
		}
	}
}
