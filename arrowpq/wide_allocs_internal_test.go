package arrowpq

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// wideTestData writes, with pqarrow (dictionary on, SNAPPY, one row group),
// cols nullable int64 columns of rows rows: each a few hundred distinct
// values, every odd column with about a tenth null; seeded.
func wideTestData(t testing.TB, cols, rows int) ([]byte, arrow.RecordBatch) {
	t.Helper()
	fields := make([]arrow.Field, cols)
	for i := range fields {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	sc := arrow.NewSchema(fields, nil)
	rng := rand.New(rand.NewPCG(21, 17))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for i := range cols {
		ib := b.Field(i).(*array.Int64Builder)
		for range rows {
			if i%2 == 1 && rng.IntN(10) == 0 {
				ib.AppendNull()
			} else {
				ib.Append(rng.Int64N(300) * 1_000_003)
			}
		}
	}
	rec := b.NewRecordBatch()
	tbl := array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithDictionaryDefault(true))
	if err := pqarrow.WriteTable(tbl, &buf, int64(rows), props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), rec
}

// TestWideReadFixedCosts pins what a serial read of a wide file of one row
// group allocates per leaf beyond its Arrow data (500 dictionary-encoded
// int64 columns of 4,000 rows, read in one batch): the fixed costs of a
// leaf. Each leaf kept a validity bitmap and a dictionary buffer of its own
// for the whole read; they are lent between the leaves now. A
// column.Reader no longer carries the state of reading ahead, skipping and
// short byte array dictionaries before it needs them, and lends its level
// and dictionary index decoders with its page buffer (6,144 -> 2,048 bytes
// allocated). Measured: 16,059 bytes a leaf before, 12,483 with the
// lending, 11,203 with the read-ahead state made on demand, 8,394 with the
// decoders lent (8,522 with -race; with -tags purego, where dictionaries
// are copied out of their pages, 11,081), so that any of the four undone
// fails (the bitmap is 512 bytes, the dictionary buffer about 3 KB). The
// values read are the ones written.
func TestWideReadFixedCosts(t *testing.T) {
	const cols, rows = 500, 4000
	file, want := wideTestData(t, cols, rows)
	defer want.Release()
	opts := &ReadOptions{Parallelism: 1}
	readAllocs(t, file, opts, nil) // warm up: lazily built tables
	alloc, arrowBytes, err := readAllocs(t, file, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	perLeaf := (alloc - arrowBytes) / cols
	t.Logf("allocated %d bytes for %d bytes of Arrow data: %d bytes a leaf", alloc, arrowBytes, perLeaf)
	limit := int64(8_700)
	if !dictionariesViewed {
		limit += 3 << 10 // each reader keeps a copy of its dictionary
	}
	if perLeaf > limit {
		t.Errorf("a read allocated %d bytes a leaf beyond its Arrow data, want at most %d", perLeaf, limit)
	}

	r, err := NewReader(bytes.NewReader(file), int64(len(file)), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatalf("no batch: %v", r.Err())
	}
	got := r.RecordBatch()
	if got.NumRows() != rows {
		t.Fatalf("%d rows, want %d", got.NumRows(), rows)
	}
	for i := range cols {
		if !array.Equal(got.Column(i), want.Column(i)) {
			t.Fatalf("column %d differs from the one written", i)
		}
	}
	if r.Next() {
		t.Fatal("a second batch")
	}
}
