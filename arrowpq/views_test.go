package arrowpq_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// pqarrowFile writes rec with pqarrow (ARROW:schema stored) to a file and
// returns its path.
func pqarrowFile(t *testing.T, rec arrow.RecordBatch, props *parquet.WriterProperties) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(rec.Schema(), &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/f.parquet"
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadViews reads String, LargeString and Binary columns (flat, in a
// list, and as a dictionary) with ReadOptions.Views: the types are views,
// each view is valid (ValidateFull), values of up to 12 bytes are inline
// (checked on the view header), and every value equals the one pqarrow
// wrote, from files with and without dictionary pages. ARROW:schema names String and LargeString:
// the request wins.
func TestReadViews(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(18, 3))
	word := func() string {
		// Lengths around the 12-byte inline limit, and long ones.
		n := []int{0, 1, 11, 12, 13, 40, 300}[rng.IntN(7)]
		return strings.Repeat(string(rune('a'+rng.IntN(26))), n) + fmt.Sprint(rng.IntN(10))
	}
	const rows = 5000
	for i := range rows {
		if i%7 == 3 {
			for c := range 4 {
				b.Field(c).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(word())
		b.Field(1).(*array.LargeStringBuilder).Append(word())
		b.Field(2).(*array.BinaryBuilder).Append([]byte(word()))
		lb := b.Field(3).(*array.ListBuilder)
		lb.Append(true)
		for range rng.IntN(4) {
			lb.ValueBuilder().(*array.StringBuilder).Append(word())
		}
	}
	src := b.NewRecordBatch()
	defer src.Release()
	for _, dictPages := range []bool{false, true} {
		path := pqarrowFile(t, src, parquet.NewWriterProperties(parquet.WithDataPageSize(8<<10), parquet.WithDictionaryDefault(dictPages)))
		checkViews(t, src, readRecords(t, path, &arrowpq.ReadOptions{BatchSize: 1200, Views: true, Dictionary: []string{"b"}}))
	}
}

// checkViews compares the batches of a Views read with src.
func checkViews(t *testing.T, src arrow.RecordBatch, views []arrow.RecordBatch) {
	schema := src.Schema()
	wantTypes := []arrow.DataType{arrow.BinaryTypes.StringView, arrow.BinaryTypes.StringView,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.BinaryView},
		arrow.ListOf(arrow.BinaryTypes.StringView)}
	// value returns slot i of a (a view array or a dictionary of views) as
	// bytes, checking the view's inline flag against its length.
	value := func(a arrow.Array, i int) []byte {
		if d, ok := a.(*array.Dictionary); ok {
			a, i = d.Dictionary(), d.GetValueIndex(i)
		}
		var h *arrow.ViewHeader
		var v []byte
		switch x := a.(type) {
		case *array.StringView:
			h, v = x.ValueHeader(i), []byte(x.Value(i))
		case *array.BinaryView:
			h, v = x.ValueHeader(i), x.Value(i)
		default:
			t.Fatalf("%T is not a view array", a)
		}
		if h.IsInline() != (len(v) <= 12) || h.Len() != len(v) {
			t.Fatalf("view of %d bytes: inline %v, length %d", len(v), h.IsInline(), h.Len())
		}
		return v
	}
	srcBytes := func(a arrow.Array, i int) []byte {
		switch x := a.(type) {
		case *array.String:
			return []byte(x.Value(i))
		case *array.LargeString:
			return []byte(x.Value(i))
		case *array.Binary:
			return x.Value(i)
		}
		t.Fatalf("source %T", a)
		return nil
	}
	row := 0
	for _, rec := range views {
		for c := range 4 {
			col := rec.Column(c)
			if !arrow.TypeEqual(col.DataType(), wantTypes[c]) {
				t.Fatalf("column %s: %s, want %s", schema.Field(c).Name, col.DataType(), wantTypes[c])
			}
			check := col
			if d, ok := col.(*array.Dictionary); ok {
				check = d.Dictionary()
			} else if l, ok := col.(*array.List); ok {
				check = l.ListValues()
			}
			if err := check.(interface{ ValidateFull() error }).ValidateFull(); err != nil {
				t.Fatalf("column %s: %v", schema.Field(c).Name, err)
			}
			for i := 0; i < col.Len(); i++ {
				k := row + i
				want := src.Column(c)
				if col.IsNull(i) != want.IsNull(k) {
					t.Fatalf("column %s row %d: null %v", schema.Field(c).Name, k, col.IsNull(i))
				}
				if col.IsNull(i) {
					continue
				}
				if c == 3 {
					gl, wl := col.(*array.List), want.(*array.List)
					gs, ge := gl.ValueOffsets(i)
					ws, we := wl.ValueOffsets(k)
					if ge-gs != we-ws {
						t.Fatalf("row %d: list of %d, want %d", k, ge-gs, we-ws)
					}
					for j := range ge - gs {
						if g, w := value(gl.ListValues(), int(gs+j)), srcBytes(wl.ListValues(), int(ws+j)); !bytes.Equal(g, w) {
							t.Fatalf("row %d element %d: %q, want %q", k, j, g, w)
						}
					}
					continue
				}
				if g, w := value(col, i), srcBytes(want, k); !bytes.Equal(g, w) {
					t.Fatalf("column %s row %d: %q, want %q", schema.Field(c).Name, k, g, w)
				}
			}
		}
		row += int(rec.NumRows())
		rec.Release()
	}
	if row != int(src.NumRows()) {
		t.Fatalf("%d rows, want %d", row, src.NumRows())
	}
}

// TestSmallDecimalsFromPqarrow: pqarrow stores decimals in
// FIXED_LEN_BYTE_ARRAY and writes ARROW:schema with Decimal128; with
// ReadOptions.SmallDecimals precision 9 reads as Decimal32 and 18 as
// Decimal64 (30 stays Decimal128), each unscaled value equal to pqarrow's
// Decimal128 narrowed in the test, also as a dictionary.
func TestSmallDecimalsFromPqarrow(t *testing.T) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "p9", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "p18", Type: &arrow.Decimal128Type{Precision: 18, Scale: 5}, Nullable: true},
		{Name: "p30", Type: &arrow.Decimal128Type{Precision: 30, Scale: 1}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(18, 4))
	const rows = 3000
	for i := range rows {
		if i%5 == 1 {
			for c := range 3 {
				b.Field(c).AppendNull()
			}
			continue
		}
		edge := []int64{999_999_999, -999_999_999, 0}
		v9 := rng.Int64N(2_000_000_000) - 999_999_999
		v18 := rng.Int64N(1e18) * (1 - 2*rng.Int64N(2))
		if i < 3 {
			v9, v18 = edge[i], edge[i]*1_000_000_000-edge[i]
		}
		b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(v9))
		b.Field(1).(*array.Decimal128Builder).Append(decimal128.FromI64(v18))
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(v18).Mul(decimal128.FromI64(1_000_003)))
	}
	src := b.NewRecordBatch()
	defer src.Release()
	path := pqarrowFile(t, src, parquet.NewWriterProperties())
	for _, opts := range []*arrowpq.ReadOptions{
		{SmallDecimals: true, BatchSize: 1000},
		{SmallDecimals: true, BatchSize: 1000, Dictionary: []string{"p9", "p18", "p30"}},
	} {
		row := 0
		for _, rec := range readRecords(t, path, opts) {
			for c := range 3 {
				col := rec.Column(c)
				if opts.Dictionary != nil && col.DataType().ID() != arrow.DICTIONARY {
					t.Fatalf("%s: %s, want a dictionary", schema.Field(c).Name, col.DataType())
				}
				for i := 0; i < col.Len(); i++ {
					checkDecimal(t, schema.Field(c).Name, src.Column(c), row+i, col, i)
				}
			}
			row += int(rec.NumRows())
			rec.Release()
		}
		if row != rows {
			t.Fatalf("%d rows, want %d", row, rows)
		}
	}
}

// checkDecimal compares slot i of got (Decimal32/64/128, or a dictionary
// of them) with slot k of want (Decimal128), narrowing want's value here.
func checkDecimal(t *testing.T, name string, want arrow.Array, k int, got arrow.Array, i int) {
	t.Helper()
	if got.IsNull(i) != want.IsNull(k) {
		t.Fatalf("%s row %d: null %v", name, k, got.IsNull(i))
	}
	if want.IsNull(k) {
		return
	}
	if d, ok := got.(*array.Dictionary); ok {
		got, i = d.Dictionary(), d.GetValueIndex(i)
	}
	w := want.(*array.Decimal128).Value(k)
	prec := want.DataType().(*arrow.Decimal128Type).Precision
	switch g := got.(type) {
	case *array.Decimal32:
		if prec > 9 || int64(g.Value(i)) != int64(w.LowBits()) || !w.FitsInPrecision(9) {
			t.Fatalf("%s row %d: decimal32 %d, want %v", name, k, g.Value(i), w)
		}
	case *array.Decimal64:
		if prec <= 9 || prec > 18 || int64(g.Value(i)) != int64(w.LowBits()) {
			t.Fatalf("%s row %d: decimal64 %d, want %v", name, k, g.Value(i), w)
		}
	case *array.Decimal128:
		if prec <= 18 || g.Value(i) != w {
			t.Fatalf("%s row %d: decimal128 %v, want %v", name, k, g.Value(i), w)
		}
	default:
		t.Fatalf("%s: %T", name, got)
	}
}
