package benchmarks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/parquet-go/parquet-go"
	pqsnappy "github.com/parquet-go/parquet-go/compress/snappy"
	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// parquet-go (github.com/parquet-go/parquet-go) has no Arrow API: it reads
// columns as parquet.Value (a 24-byte value with its levels) and writes Go
// structs. The benchmarks use each side's fastest honest full path:
//
//   - read: every column chunk of every row group, page by page, with
//     ReadValues into one reused []parquet.Value of 4096 (the values
//     decoded, not assembled into rows or Arrow arrays), checked against
//     the chunk's value count;
//   - write: GenericWriter over row structs built from the Arrow record
//     before timing, with the same codec and row group size. parquet-go
//     dictionary-encodes only columns tagged so (it has no fallback to
//     PLAIN), so it writes PLAIN; decimals are INT64 DECIMAL(15,2),
//     dates INT32 DATE, nullable values optional, lists and the map
//     3-level LIST and MAP as its struct tags make them.
//
// b.SetBytes is the Arrow size of the dataset, as for the other
// implementations, so MB/s compare directly.

// readParquetGo reads every value of every column of path with parquet-go
// and returns the rows of the file.
func readParquetGo(b testing.TB, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		b.Skipf("parquet-go cannot open %s: %v", path, err)
	}
	buf := make([]parquet.Value, 4096)
	var rows int64
	for _, rg := range pf.RowGroups() {
		rows += rg.NumRows()
		for i, cc := range rg.ColumnChunks() {
			n, err := readChunkParquetGo(cc, buf)
			if err != nil {
				b.Skipf("parquet-go cannot read column %d of %s: %v", i, path, err)
			}
			if n != cc.NumValues() {
				b.Fatalf("parquet-go read %d values of column %d, the chunk has %d", n, i, cc.NumValues())
			}
		}
	}
	return rows
}

func readChunkParquetGo(cc parquet.ColumnChunk, buf []parquet.Value) (int64, error) {
	pages := cc.Pages()
	defer pages.Close()
	var total int64
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			total += int64(n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(p)
				return total, err
			}
		}
		parquet.Release(p)
	}
}

var parquetGoCodecs = map[compress.Compression]parquet.WriterOption{
	compress.Codecs.Snappy: parquet.Compression(&pqsnappy.Codec{}),
	compress.Codecs.Zstd:   parquet.Compression(&pqzstd.Codec{}),
}

// parquetGoRows holds the rows of a dataset as parquet-go writes them, and
// the function that writes them.
type parquetGoRows struct {
	write func(w io.Writer, opts ...parquet.WriterOption) error
}

// parquetGoInput converts the dataset record into row structs for
// parquet-go's GenericWriter. They are not cached: millions of small
// objects with pointers make every later GC of the process slower (the
// strings and nested benchmarks of every implementation ran 30-50% slower
// after the numeric rows were built), so the caller drops them when done.
func parquetGoInput(b testing.TB, name string, rec arrow.RecordBatch) parquetGoRows {
	switch name {
	case "lineitem":
		return rowsWriter(lineitemRows(rec))
	case "numeric":
		return rowsWriter(numericRows(rec))
	case "strings":
		return rowsWriter(stringsRows(rec))
	case "nested":
		return rowsWriter(nestedRows(rec))
	}
	b.Skipf("no parquet-go rows for dataset %s", name)
	return parquetGoRows{}
}

func rowsWriter[T any](rows []T) parquetGoRows {
	return parquetGoRows{write: func(out io.Writer, opts ...parquet.WriterOption) error {
		w := parquet.NewGenericWriter[T](out, opts...)
		if _, err := w.Write(rows); err != nil {
			return err
		}
		return w.Close()
	}}
}

// writeParquetGo writes the dataset's rows with parquet-go.
func writeParquetGo(b testing.TB, w io.Writer, rows parquetGoRows, codec compress.Compression) {
	if err := rows.write(w, parquetGoCodecs[codec], parquet.MaxRowsPerRowGroup(rowGroupRows)); err != nil {
		b.Fatal(err)
	}
}

type lineitemRow struct {
	OrderKey      int64  `parquet:"l_orderkey"`
	PartKey       int64  `parquet:"l_partkey"`
	SuppKey       int64  `parquet:"l_suppkey"`
	LineNumber    int32  `parquet:"l_linenumber"`
	Quantity      int64  `parquet:"l_quantity,decimal(2:15)"`
	ExtendedPrice int64  `parquet:"l_extendedprice,decimal(2:15)"`
	Discount      int64  `parquet:"l_discount,decimal(2:15)"`
	Tax           int64  `parquet:"l_tax,decimal(2:15)"`
	ReturnFlag    string `parquet:"l_returnflag"`
	LineStatus    string `parquet:"l_linestatus"`
	ShipDate      int32  `parquet:"l_shipdate,date"`
	CommitDate    int32  `parquet:"l_commitdate,date"`
	ReceiptDate   int32  `parquet:"l_receiptdate,date"`
	ShipInstruct  string `parquet:"l_shipinstruct"`
	ShipMode      string `parquet:"l_shipmode"`
	Comment       string `parquet:"l_comment"`
}

func lineitemRows(rec arrow.RecordBatch) []lineitemRow {
	rows := make([]lineitemRow, rec.NumRows())
	i64 := func(c int) []int64 { return rec.Column(c).(*array.Int64).Int64Values() }
	i32 := func(c int) []int32 { return rec.Column(c).(*array.Int32).Int32Values() }
	dec := func(c, i int) int64 { return int64(rec.Column(c).(*array.Decimal128).Value(i).LowBits()) }
	str := func(c, i int) string { return rec.Column(c).(*array.String).Value(i) }
	date := func(c, i int) int32 { return int32(rec.Column(c).(*array.Date32).Value(i)) }
	ok, pk, sk, ln := i64(0), i64(1), i64(2), i32(3)
	for i := range rows {
		rows[i] = lineitemRow{
			ok[i], pk[i], sk[i], ln[i], dec(4, i), dec(5, i), dec(6, i), dec(7, i),
			str(8, i), str(9, i), date(10, i), date(11, i), date(12, i), str(13, i), str(14, i), str(15, i),
		}
	}
	return rows
}

type numericRow struct {
	C0 *int32   `parquet:"c0_int32,optional"`
	C1 *int64   `parquet:"c1_int64,optional"`
	C2 *float32 `parquet:"c2_float32,optional"`
	C3 *float64 `parquet:"c3_float64,optional"`
	C4 *int32   `parquet:"c4_int32,optional"`
	C5 *int64   `parquet:"c5_int64,optional"`
	C6 *float32 `parquet:"c6_float32,optional"`
	C7 *float64 `parquet:"c7_float64,optional"`
}

func ptrIf[T any](valid bool, v T) *T {
	if !valid {
		return nil
	}
	return &v
}

func numericRows(rec arrow.RecordBatch) []numericRow {
	rows := make([]numericRow, rec.NumRows())
	for i := range rows {
		r := &rows[i]
		for c := range 8 {
			col := rec.Column(c)
			valid := col.IsValid(i)
			switch a := col.(type) {
			case *array.Int32:
				p := ptrIf(valid, a.Value(i))
				if c == 0 {
					r.C0 = p
				} else {
					r.C4 = p
				}
			case *array.Int64:
				p := ptrIf(valid, a.Value(i))
				if c == 1 {
					r.C1 = p
				} else {
					r.C5 = p
				}
			case *array.Float32:
				p := ptrIf(valid, a.Value(i))
				if c == 2 {
					r.C2 = p
				} else {
					r.C6 = p
				}
			case *array.Float64:
				p := ptrIf(valid, a.Value(i))
				if c == 3 {
					r.C3 = p
				} else {
					r.C7 = p
				}
			}
		}
	}
	return rows
}

type stringsRow struct {
	UniqueID    string  `parquet:"unique_id"`
	Category    *string `parquet:"category,optional"`
	Description *string `parquet:"description,optional"`
}

func stringsRows(rec arrow.RecordBatch) []stringsRow {
	rows := make([]stringsRow, rec.NumRows())
	u, c, d := rec.Column(0).(*array.String), rec.Column(1).(*array.String), rec.Column(2).(*array.String)
	for i := range rows {
		rows[i] = stringsRow{u.Value(i), ptrIf(c.IsValid(i), c.Value(i)), ptrIf(d.IsValid(i), d.Value(i))}
	}
	return rows
}

type nestedItem struct {
	A *int32  `parquet:"a,optional"`
	B *string `parquet:"b,optional"`
}

type nestedRow struct {
	ID    int64            `parquet:"id"`
	Ints  []*int64         `parquet:"ints,list,optional" parquet-element:",optional"`
	Items []nestedItem     `parquet:"items,list,optional"`
	Attrs map[string]int64 `parquet:"attrs,optional"`
}

func nestedRows(rec arrow.RecordBatch) []nestedRow {
	rows := make([]nestedRow, rec.NumRows())
	ids := rec.Column(0).(*array.Int64).Int64Values()
	ints := rec.Column(1).(*array.List)
	intVals := ints.ListValues().(*array.Int64)
	items := rec.Column(2).(*array.List)
	itemVals := items.ListValues().(*array.Struct)
	ia, ib := itemVals.Field(0).(*array.Int32), itemVals.Field(1).(*array.String)
	attrs := rec.Column(3).(*array.Map)
	keys, vals := attrs.Keys().(*array.String), attrs.Items().(*array.Int64)
	for i := range rows {
		r := &rows[i]
		r.ID = ids[i]
		if ints.IsValid(i) {
			lo, hi := ints.ValueOffsets(i)
			r.Ints = make([]*int64, 0, hi-lo)
			for j := lo; j < hi; j++ {
				r.Ints = append(r.Ints, ptrIf(intVals.IsValid(int(j)), intVals.Value(int(j))))
			}
		}
		if items.IsValid(i) {
			lo, hi := items.ValueOffsets(i)
			r.Items = make([]nestedItem, 0, hi-lo)
			for j := int(lo); j < int(hi); j++ {
				r.Items = append(r.Items, nestedItem{ptrIf(ia.IsValid(j), ia.Value(j)), ptrIf(ib.IsValid(j), ib.Value(j))})
			}
		}
		if attrs.IsValid(i) {
			lo, hi := attrs.ValueOffsets(i)
			r.Attrs = make(map[string]int64, hi-lo)
			for j := int(lo); j < int(hi); j++ {
				r.Attrs[keys.Value(j)] = vals.Value(j)
			}
		}
	}
	return rows
}

// TestParquetGoRows checks the row conversion of every dataset at a small
// scale: parquet-go writes the rows, and our reader reads back the
// dataset's row count and every value (rendered), the map entries in key
// order.
func TestParquetGoRows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every dataset")
	}
	for _, d := range Datasets {
		t.Run(d.Name, func(t *testing.T) {
			rec := d.Build(memAlloc(), 3000)
			defer rec.Release()
			var rows parquetGoRows
			switch d.Name {
			case "lineitem":
				rows = rowsWriter(lineitemRows(rec))
			case "numeric":
				rows = rowsWriter(numericRows(rec))
			case "strings":
				rows = rowsWriter(stringsRows(rec))
			case "nested":
				rows = rowsWriter(nestedRows(rec))
			}
			path := t.TempDir() + "/pg.parquet"
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			writeParquetGo(t, f, rows, compress.Codecs.Zstd)
			f.Close()
			if err := compareParquetGoFile(path, rec); err != nil {
				t.Error(err)
			}
			if n := readParquetGo(t, path); n != rec.NumRows() {
				t.Errorf("parquet-go read %d rows back, want %d", n, rec.NumRows())
			}
		})
	}
}

func memAlloc() memory.Allocator { return memory.NewGoAllocator() }

// compareParquetGoFile reads path with our reader and compares every row,
// rendered by internal/oracle, with rec; map entries compare as sets
// (GenericWriter writes a Go map in its iteration order).
func compareParquetGoFile(path string, rec arrow.RecordBatch) error {
	r, err := arrowpq.OpenFile(path, nil)
	if err != nil {
		return err
	}
	defer r.Close()
	var got []byte
	for r.Next() {
		if got, err = oracle.RenderRecord(got, r.RecordBatch()); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	want, err := oracle.RenderRecord(nil, rec)
	if err != nil {
		return err
	}
	gl, wl := normalizeRows(got), normalizeRows(want)
	if len(gl) != len(wl) {
		return fmt.Errorf("%d rows, want %d", len(gl), len(wl))
	}
	for i := range gl {
		if gl[i] != wl[i] {
			return fmt.Errorf("row %d:\n got %s\nwant %s", i, gl[i], wl[i])
		}
	}
	return nil
}

// normalizeRows re-renders JSON lines with the pairs of "attrs" sorted.
func normalizeRows(b []byte) []string {
	var out []string
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var row map[string]any
		d := json.NewDecoder(bytes.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&row); err != nil {
			out = append(out, "undecodable: "+string(line))
			continue
		}
		if pairs, ok := row["attrs"].([]any); ok {
			sort.Slice(pairs, func(i, j int) bool { return fmt.Sprint(pairs[i]) < fmt.Sprint(pairs[j]) })
		}
		norm, _ := json.Marshal(row)
		out = append(out, string(norm))
	}
	return out
}
