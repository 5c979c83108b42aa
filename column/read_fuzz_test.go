package column_test

import (
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
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
	f.Fuzz(func(t *testing.T, which, codec uint8, data []byte) {
		col := fuzzColumns[int(which)%len(fuzzColumns)]
		r := column.NewReader(col, column.ReaderOptions{MaxPageSize: 1 << 20, BatchRows: 64})
		r.Reset(column.Chunk{Data: data, Codec: format.CompressionCodec(codec % 8), NumRows: 100})
		_ = drain(r, col)
	})
}
