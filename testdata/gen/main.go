// Command gen writes testdata/sample.parquet, the small file the README's
// first command runs on, and testdata/indexed.parquet, the same rows in one
// row group of 10 pages per column with a page index and a bloom filter on
// city (for the metadata package's examples). It uses arrow-go's own
// Parquet writer on purpose: the samples are then files we did not write
// ourselves.
//
//	go run ./testdata/gen
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func main() {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "temperature", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "observed", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "readings", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	cities := []string{"Lisbon", "Oslo", "Nairobi", "Lima", "Osaka"}
	for i := 0; i < 100; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 3 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(cities[i%len(cities)])
		}
		if i%11 == 5 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(i%40) - 9.5)
		}
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + int64(i)*3_600_000_000))
		lb := b.Field(4).(*array.ListBuilder)
		if i%9 == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for j := 0; j < i%3; j++ {
				lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", (i+j)%4))
			}
		}
		mb := b.Field(5).(*array.MapBuilder)
		mb.Append(true)
		for j := 0; j < i%2+1; j++ {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("sensor%d", j))
			mb.ItemBuilder().(*array.Int32Builder).Append(int32(i * (j + 1)))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	write("testdata/sample.parquet", schema, rec, parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(50),
		parquet.WithCreatedBy("arrow-go parquet (arrowpq testdata/gen)"))
	// A page is cut after every write batch of 10 rows (the page size is
	// smaller than any batch), so every column has 10 pages.
	write("testdata/indexed.parquet", schema, rec, parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false), parquet.WithBatchSize(10), parquet.WithDataPageSize(1),
		parquet.WithPageIndexEnabled(true), parquet.WithBloomFilterEnabledFor("city", true), parquet.WithBloomFilterNDVFor("city", 100),
		parquet.WithCreatedBy("arrow-go parquet (arrowpq testdata/gen)"))
}

func write(path string, schema *arrow.Schema, rec arrow.RecordBatch, opts ...parquet.WriterProperty) {
	out, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	props := parquet.NewWriterProperties(opts...)
	w, err := pqarrow.NewFileWriter(schema, out, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
}
