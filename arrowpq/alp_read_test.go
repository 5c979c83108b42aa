package arrowpq_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// alpPage is one data page of an ALP test column: its slots (NaN payloads
// included, as bits), which of them are null, and how it is written.
type alpPage struct {
	bits  []uint64 // float64 bits, or float32 bits in the low half
	null  []bool   // nil: no nulls
	v2    bool
	codec format.CompressionCodec
	// extra values are encoded after the page's own, with no level.
	extra []uint64
	// mangle, if set, edits the ALP values section before it is written.
	mangle func([]byte) []byte
}

type alpColumn struct {
	name     string
	typ      format.Type
	optional bool
	pages    []alpPage
}

// alpFile assembles a Parquet file whose columns are ALP pages made by
// pagecodec's encoder (PageWriter + a footer from the generated structs):
// what a writer with ALP would produce, without depending on one.
func alpFile(t *testing.T, cols []alpColumn) []byte {
	t.Helper()
	out := []byte("PAR1")
	md := &format.FileMetaData{Version: 1,
		Schema: []*format.SchemaElement{{Name: "schema", NumChildren: &[]int32{int32(len(cols))}[0]}}}
	rg := &format.RowGroup{}
	for _, c := range cols {
		rows := 0
		start := int64(len(out))
		var chunk []byte
		var raw int64
		for _, p := range c.pages {
			n := len(p.bits)
			rows += n
			var e pagecodec.ALPEncoder
			var def []int16
			for i, b := range p.bits {
				if p.null != nil && p.null[i] {
					def = append(def, 0)
					continue
				}
				def = append(def, 1)
				if c.typ == format.Type_DOUBLE {
					e.AppendDouble([]float64{math.Float64frombits(b)})
				} else {
					e.AppendFloat([]float32{math.Float32frombits(uint32(b))})
				}
			}
			for _, b := range p.extra {
				if c.typ == format.Type_DOUBLE {
					e.AppendDouble([]float64{math.Float64frombits(b)})
				} else {
					e.AppendFloat([]float32{math.Float32frombits(uint32(b))})
				}
			}
			vals := e.AppendTo(nil)
			if p.mangle != nil {
				vals = p.mangle(vals)
			}
			var defBytes []byte
			if c.optional {
				var le levels.Encoder
				le.Reset(1)
				if err := le.Append(def); err != nil {
					t.Fatal(err)
				}
				defBytes = append([]byte{}, le.Finish()...)
			}
			w, err := pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: p.codec})
			if err != nil {
				t.Fatal(err)
			}
			var wp pagecodec.WrittenPage
			if p.v2 {
				nulls := 0
				for _, d := range def {
					if d == 0 {
						nulls++
					}
				}
				chunk, wp, err = w.AppendDataPageV2(chunk, &pagecodec.DataPageV2{NumLevels: n, NumRows: n, NumNulls: nulls,
					Encoding: format.Encoding_ALP, DefinitionLevels: defBytes, Values: vals})
			} else {
				chunk, wp, err = w.AppendDataPageV1(chunk, &pagecodec.DataPageV1{NumLevels: n, Encoding: format.Encoding_ALP,
					DefinitionLevels: defBytes, Values: vals})
			}
			if err != nil {
				t.Fatal(err)
			}
			raw += int64(wp.HeaderSize + wp.UncompressedSize)
		}
		typ, rep := c.typ, format.FieldRepetitionType_REQUIRED
		if c.optional {
			rep = format.FieldRepetitionType_OPTIONAL
		}
		md.Schema = append(md.Schema, &format.SchemaElement{Name: c.name, Type: &typ, RepetitionType: &rep})
		codec := c.pages[0].codec
		out = append(out, chunk...)
		rg.Columns = append(rg.Columns, &format.ColumnChunk{FileOffset: start, MetaData: &format.ColumnMetaData{
			Type: c.typ, Encodings: []format.Encoding{format.Encoding_ALP, format.Encoding_RLE}, PathInSchema: []string{c.name},
			Codec: codec, NumValues: int64(rows), TotalUncompressedSize: raw, TotalCompressedSize: int64(len(chunk)),
			DataPageOffset: start,
		}})
		rg.NumRows = int64(rows)
		rg.TotalByteSize += raw
	}
	md.NumRows = rg.NumRows
	md.RowGroups = []*format.RowGroup{rg}
	mem := thrift.NewTMemoryBuffer()
	if err := md.Write(context.Background(), thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{})); err != nil {
		t.Fatal(err)
	}
	out = append(out, mem.Bytes()...)
	out = binary.LittleEndian.AppendUint32(out, uint32(mem.Len()))
	return append(out, "PAR1"...)
}

// alpTestValues returns n doubles (as bits) that exercise ALP: 2-decimal
// prices, then values that force exceptions and the special values.
func alpTestValues(rng *rand.Rand, n int, float bool) []uint64 {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 5e-324, math.MaxFloat64, math.Pi}
	out := make([]uint64, n)
	for i := range out {
		var v float64
		switch {
		case i%97 == 13:
			v = special[(i/97)%len(special)]
		case i%31 == 7:
			v = rng.NormFloat64() * 1e6 // no short decimal form: an exception
		default:
			v = float64(rng.IntN(1_000_000)) / 100
		}
		if float {
			f := float32(v)
			if i%97 == 13 && (i/97)%len(special) == 0 {
				f = math.Float32frombits(0x7fc00123) // a NaN payload
			}
			out[i] = uint64(math.Float32bits(f))
			continue
		}
		out[i] = math.Float64bits(v)
		if i%97 == 13 && (i/97)%len(special) == 0 {
			out[i] = 0x7ff8_0000_dead_beef // a NaN payload
		}
	}
	return out
}

// TestReadALP reads ALP pages (DOUBLE and FLOAT, required and optional,
// data page v1 and v2, several pages, ZSTD) through arrowpq and compares
// every slot bit for bit with the values the encoder was given, in batches
// that start and end inside ALP vectors.
func TestReadALP(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	const n = 3000
	nulls := make([]bool, n)
	for i := range nulls {
		nulls[i] = rng.IntN(5) == 0
	}
	pages := func(float bool, null []bool) []alpPage {
		v := alpTestValues(rng, n, float)
		var ps []alpPage
		for i, cut := range []int{0, 1100, 2500, n} {
			if i == 0 {
				continue
			}
			lo := []int{0, 1100, 2500}[i-1]
			p := alpPage{bits: v[lo:cut], v2: i == 2, codec: format.CompressionCodec_ZSTD}
			if null != nil {
				p.null = null[lo:cut]
			}
			ps = append(ps, p)
		}
		return ps
	}
	cols := []alpColumn{
		{name: "d", typ: format.Type_DOUBLE, pages: pages(false, nil)},
		{name: "f", typ: format.Type_FLOAT, pages: pages(true, nil)},
		{name: "od", typ: format.Type_DOUBLE, optional: true, pages: pages(false, nulls)},
		{name: "of", typ: format.Type_FLOAT, optional: true, pages: pages(true, nulls)},
	}
	for i := range cols {
		for j := range cols[i].pages {
			cols[i].pages[j].codec = []format.CompressionCodec{format.CompressionCodec_UNCOMPRESSED, format.CompressionCodec_ZSTD}[i%2]
		}
	}
	data := alpFile(t, cols)
	for _, batch := range []int{0, 777} {
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{BatchSize: batch, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		row := 0
		for r.Next() {
			rec := r.RecordBatch()
			for ci, c := range cols {
				var all []uint64
				var null []bool
				for _, p := range c.pages {
					all = append(all, p.bits...)
					if p.null != nil {
						null = append(null, p.null...)
					}
				}
				col := rec.Column(ci)
				for i := 0; i < col.Len(); i++ {
					k := row + i
					if null != nil && null[k] {
						if col.IsValid(i) {
							t.Fatalf("batch %d column %s row %d: want null", batch, c.name, k)
						}
						continue
					}
					var got uint64
					switch a := col.(type) {
					case *array.Float64:
						got = math.Float64bits(a.Value(i))
					case *array.Float32:
						got = uint64(math.Float32bits(a.Value(i)))
					default:
						t.Fatalf("column %s is %T", c.name, col)
					}
					if got != all[k] {
						t.Fatalf("batch %d column %s row %d: bits %#x, want %#x", batch, c.name, k, got, all[k])
					}
				}
			}
			row += int(rec.NumRows())
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if row != n {
			t.Fatalf("read %d rows, want %d", row, n)
		}
	}
}

// TestReadALPInconsistent: an ALP page whose num_elements disagrees with
// the values its levels carry, or whose vector offsets are wrong, fails
// with ErrCorrupt located at row group, column and page.
func TestReadALPInconsistent(t *testing.T) {
	vals := func(n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = math.Float64bits(float64(i) / 4)
		}
		return out
	}
	setCount := func(k int32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[3:], uint32(k)); return b }
	}
	nulls := make([]bool, 40)
	for i := range nulls {
		nulls[i] = i%4 == 0
	}
	for _, tc := range []struct {
		name string
		col  alpColumn
		want string
	}{
		{"required count high", alpColumn{typ: format.Type_DOUBLE, pages: []alpPage{{bits: vals(40)}, {bits: vals(40), extra: vals(1)}}}, "ALP page of 41 values where the levels carry 40"},
		{"required count low", alpColumn{typ: format.Type_DOUBLE, pages: []alpPage{{bits: vals(40), mangle: setCount(39)}}},
			"ALP page of 39 values where the levels carry 40"},
		{"v2 optional", alpColumn{typ: format.Type_FLOAT, optional: true, pages: []alpPage{{bits: vals(40), null: nulls, v2: true, mangle: setCount(40)}}},
			"ALP page of 40 values where the levels carry 30"},
		{"v1 optional beyond levels", alpColumn{typ: format.Type_DOUBLE, optional: true, pages: []alpPage{{bits: vals(40), null: nulls, extra: vals(11)}}},
			"ALP page of 41 values in 40 levels"},
		{"bad offset", alpColumn{typ: format.Type_DOUBLE, pages: []alpPage{{bits: vals(40), mangle: func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[7:], 3)
			return b
		}}}}, "ALP vector 0 at offset 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.col.name = "x"
			data := alpFile(t, []alpColumn{tc.col})
			_, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(data), int64(len(data)), nil)
			var e *arrowpq.Error
			if !errors.As(err, &e) || !errors.Is(err, pagecodec.ErrCorrupt) {
				t.Fatalf("err = %v, want a located ErrCorrupt", err)
			}
			if e.RowGroup != 0 || e.Column != "x" || e.Page < 0 || e.Offset <= 0 || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (row group %d, column %q, page %d, offset %d), want %q located", err, e.RowGroup, e.Column, e.Page, e.Offset, tc.want)
			}
			t.Log(err)
		})
	}
}
