package column_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// fuzzColumns are the leaf shapes FuzzRead reads chunks as.
var fuzzColumns = []*metadata.Column{
	{MaxDef: 0, Physical: format.Type_INT32},
	{MaxDef: 1, Physical: format.Type_INT64},
	{MaxDef: 1, Physical: format.Type_BOOLEAN},
	{MaxDef: 2, Physical: format.Type_DOUBLE},
	{MaxDef: 3, MaxRep: 1, Physical: format.Type_BYTE_ARRAY},
	{MaxDef: 1, Physical: format.Type_BYTE_ARRAY},
	{MaxDef: 1, Physical: format.Type_FIXED_LEN_BYTE_ARRAY, TypeLength: 5},
	{MaxDef: 1, Physical: format.Type_INT96},
	{MaxDef: 1, Physical: format.Type_FLOAT},
	{MaxDef: 3, MaxRep: 1, Physical: format.Type_INT32},
}

// FuzzRead reads hostile chunk bytes as a column of each shape, with
// reads and skips interleaved: no panic, and errors only.
func FuzzRead(f *testing.F) {
	for i, s := range []spec{
		{physical: parquet.Types.Int32, shape: required, enc: parquet.Encodings.DeltaBinaryPacked},
		{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, v2: true},
		{physical: parquet.Types.Boolean, shape: optional, enc: parquet.Encodings.RLE, v2: true},
		{physical: parquet.Types.Double, shape: deep, enc: parquet.Encodings.ByteStreamSplit},
		{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.DeltaByteArray},
		{physical: parquet.Types.ByteArray, shape: optional, enc: parquet.Encodings.RLEDict},
		{physical: parquet.Types.FixedLenByteArray, width: 5, shape: optional, enc: parquet.Encodings.Plain},
		{physical: parquet.Types.Int96, shape: optional, enc: parquet.Encodings.Plain},
		{physical: parquet.Types.Float, shape: optional, enc: parquet.Encodings.ByteStreamSplit, v2: true},
		{physical: parquet.Types.Int32, shape: nested, enc: parquet.Encodings.Plain, v2: true},
	} {
		s.pageSize, s.rows, s.seed = 128, 100, uint64(i)
		s.codec = compress.Codecs.Uncompressed
		if i%2 == 1 {
			s.codec = compress.Codecs.Snappy
		}
		_, chunk, _ := chunkOf(f, writeFile(f, s, generate(s)), false)
		f.Add(uint8(i), uint8(chunk.Codec), chunk.Data)
	}
	// ALP pages (no other writer makes them): FLOAT with max definition
	// level 1 (v1 page), DOUBLE with 2 (v2 page).
	for _, c := range []struct {
		which  uint8
		maxDef int16
		v2     bool
	}{{8, 1, false}, {3, 2, true}} {
		col := fuzzColumns[c.which]
		chunk := alpSeedChunk(f, col, c.maxDef, c.v2)
		r := column.NewReader(col, column.ReaderOptions{MaxPageSize: 1 << 20, BatchRows: 64})
		r.Reset(column.Chunk{Data: chunk, NumRows: 100})
		if err := drain(r, col); err != nil {
			f.Fatalf("ALP seed for %s: %v", col.Physical, err)
		}
		f.Add(c.which, uint8(0), chunk)
	}
	f.Fuzz(func(t *testing.T, which, codec uint8, data []byte) {
		col := fuzzColumns[int(which)%len(fuzzColumns)]
		r := column.NewReader(col, column.ReaderOptions{MaxPageSize: 1 << 20, BatchRows: 64})
		r.Reset(column.Chunk{Data: data, Codec: format.CompressionCodec(codec % 8), NumRows: 100})
		_ = drain(r, col)
	})
}

// alpSeedChunk is a chunk of one ALP data page of 100 values of col's type
// (every fifth null), levels up to maxDef.
func alpSeedChunk(f *testing.F, col *metadata.Column, maxDef int16, v2 bool) []byte {
	var e pagecodec.ALPEncoder
	def := make([]int16, 100)
	var vals []float64
	for i := range def {
		if i%5 == 0 {
			continue
		}
		def[i] = maxDef
		vals = append(vals, float64(i)/4)
	}
	if col.Physical == format.Type_FLOAT {
		f32 := make([]float32, len(vals))
		for i, v := range vals {
			f32[i] = float32(v)
		}
		e.AppendFloat(f32)
	} else {
		e.AppendDouble(vals)
	}
	var le levels.Encoder
	le.Reset(maxDef)
	if err := le.Append(def); err != nil {
		f.Fatal(err)
	}
	defs := append([]byte{}, le.Finish()...)
	w, err := pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: format.CompressionCodec_UNCOMPRESSED})
	if err != nil {
		f.Fatal(err)
	}
	var chunk []byte
	if v2 {
		chunk, _, err = w.AppendDataPageV2(nil, &pagecodec.DataPageV2{NumLevels: 100, NumRows: 100, NumNulls: 20,
			Encoding: format.Encoding_ALP, DefinitionLevels: defs, Values: e.AppendTo(nil)})
	} else {
		chunk, _, err = w.AppendDataPageV1(nil, &pagecodec.DataPageV1{NumLevels: 100, Encoding: format.Encoding_ALP,
			DefinitionLevels: defs, Values: e.AppendTo(nil)})
	}
	if err != nil {
		f.Fatal(err)
	}
	return chunk
}
