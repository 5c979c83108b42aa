package pagecodec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// alpTestFile writes a Parquet file whose two columns are ALP pages made by
// this package: a DOUBLE column (v1 page, uncompressed) and a FLOAT column
// (v2 page, ZSTD), n rows each. The footer is assembled from the generated
// structs.
func alpTestFile(t *testing.T, f64 []float64, f32 []float32) []byte {
	t.Helper()
	n := len(f64)
	out := []byte("PAR1")
	md := &format.FileMetaData{Version: 1, NumRows: int64(n),
		Schema: []*format.SchemaElement{{Name: "schema", NumChildren: &[]int32{2}[0]}}}
	rg := &format.RowGroup{NumRows: int64(n)}
	for _, c := range []struct {
		name  string
		typ   format.Type
		codec format.CompressionCodec
	}{{"d", format.Type_DOUBLE, format.CompressionCodec_UNCOMPRESSED}, {"f", format.Type_FLOAT, format.CompressionCodec_ZSTD}} {
		var e ALPEncoder
		if c.typ == format.Type_DOUBLE {
			e.AppendDouble(f64)
		} else {
			e.AppendFloat(f32)
		}
		vals := e.AppendTo(nil)
		w, err := NewPageWriter(PageWriterOptions{Codec: c.codec})
		if err != nil {
			t.Fatal(err)
		}
		var chunk []byte
		var wp WrittenPage
		if c.typ == format.Type_DOUBLE {
			chunk, wp, err = w.AppendDataPageV1(nil, &DataPageV1{NumLevels: n, Encoding: format.Encoding_ALP, Values: vals})
		} else {
			chunk, wp, err = w.AppendDataPageV2(nil, &DataPageV2{NumLevels: n, NumRows: n, Encoding: format.Encoding_ALP, Values: vals})
		}
		if err != nil {
			t.Fatal(err)
		}
		typ, rep := c.typ, format.FieldRepetitionType_REQUIRED
		md.Schema = append(md.Schema, &format.SchemaElement{Name: c.name, Type: &typ, RepetitionType: &rep})
		start := int64(len(out))
		out = append(out, chunk...)
		raw := int64(wp.HeaderSize + wp.UncompressedSize)
		rg.Columns = append(rg.Columns, &format.ColumnChunk{FileOffset: start, MetaData: &format.ColumnMetaData{
			Type: c.typ, Encodings: []format.Encoding{format.Encoding_ALP}, PathInSchema: []string{c.name}, Codec: c.codec,
			NumValues: int64(n), TotalUncompressedSize: raw, TotalCompressedSize: int64(len(chunk)), DataPageOffset: start,
		}})
		rg.TotalByteSize += raw
	}
	md.RowGroups = []*format.RowGroup{rg}
	mem := thrift.NewTMemoryBuffer()
	if err := md.Write(context.Background(), thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{})); err != nil {
		t.Fatal(err)
	}
	out = append(out, mem.Bytes()...)
	out = binary.LittleEndian.AppendUint32(out, uint32(mem.Len()))
	return append(out, "PAR1"...)
}

// TestALPFileUnknownToArrowGo: arrow-go (pqarrow and its column readers)
// does not know ALP; on our ALP file it must fail with an error, not a
// panic and not wrong values. Our page reader and ALPDecoder read the same
// file back exactly.
func TestALPFileUnknownToArrowGo(t *testing.T) {
	const n = 3000
	f64, f32 := make([]float64, n), make([]float32, n)
	for i := range f64 {
		f64[i] = float64(i*7919%100_000) / 100
		f32[i] = float32(i%500) / 4
	}
	f64[10], f32[11] = math.NaN(), float32(math.Inf(-1))
	out := alpTestFile(t, f64, f32)
	path := filepath.Join(t.TempDir(), "alp.parquet")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}

	noPanic := func(what string, f func() error) {
		t.Helper()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s panicked on an ALP page: %v", what, r)
				}
			}()
			err = f()
		}()
		if err == nil {
			t.Fatalf("%s read an ALP page without an error", what)
		}
		t.Logf("%s: %v", what, err)
	}
	noPanic("pqarrow.ReadTable", func() error {
		tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(out), nil, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err == nil {
			tbl.Release()
		}
		return err
	})
	for col := 0; col < 2; col++ {
		noPanic(fmt.Sprintf("file column reader %d", col), func() error {
			rd, err := file.OpenParquetFile(path, false)
			if err != nil {
				return err
			}
			defer rd.Close()
			cr, err := rd.RowGroup(0).Column(col)
			if err != nil {
				return err
			}
			switch r := cr.(type) {
			case *file.Float64ColumnChunkReader:
				_, _, err = r.ReadBatch(n, make([]float64, n), nil, nil)
			case *file.Float32ColumnChunkReader:
				_, _, err = r.ReadBatch(n, make([]float32, n), nil, nil)
			default:
				return nil
			}
			if err == nil {
				err = cr.Err()
			}
			return err
		})
	}

	// Our side: the pages read back bit for bit.
	cols := readTestFile(t, path)
	for ci, c := range cols {
		r := readerFor(c)
		p, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if p.Encoding != format.Encoding_ALP || p.Encoding.String() != "ALP" {
			t.Fatalf("column %d: page encoding %v", ci, p.Encoding)
		}
		width := 8
		want := bits64(f64)
		if ci == 1 {
			width, want = 4, bits32(f32)
		}
		got, err := decodeALPBatches(t, p.Values, width, []int{1000, 2000})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("column %d value %d: %#x, want %#x", ci, i, got[i], want[i])
			}
		}
	}
}

// TestALPFileUnknownToOracles: DuckDB, hyparquet and arrow-rs (parquet-wasm)
// do not know ALP either; each must report an error for the file (the Node
// process itself must not die).
func TestALPFileUnknownToOracles(t *testing.T) {
	f64, f32 := make([]float64, 100), make([]float32, 100)
	for i := range f64 {
		f64[i], f32[i] = float64(i)/4, float32(i)/2
	}
	path := filepath.Join(t.TempDir(), "alp.parquet")
	if err := os.WriteFile(path, alpTestFile(t, f64, f32), 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.Need(t)
	for _, engine := range []string{"duckdb", "hyparquet", "parquetwasm"} {
		res, err := oracle.DumpMany(engine, []string{path})
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		if res[0].Err == "" {
			t.Errorf("%s read an ALP file without an error: %.200s", engine, res[0].Rows)
		}
		t.Logf("%s: %s", engine, strings.TrimSpace(res[0].Err))
	}
}
