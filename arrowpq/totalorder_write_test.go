package arrowpq_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestWriteTotalOrder writes FLOAT, DOUBLE and FLOAT16 columns with
// WriteOptions.TotalOrder in four row groups: mixed values with NaN and
// -0; only NaNs (and nulls); only -0; -0 and +0. The footer's column_orders names
// IEEE_754_TOTAL_ORDER for them (TYPE_ORDER for the INT32 column), and the
// chunk statistics and column index bounds, decoded by metadata (arrow-go exposes the null counts
// and, under this order, no min and max), are the
// bounds the spec's rules give, worked out by hand here: NaN counted and
// not a bound unless every value is NaN, -0 below +0.
func TestWriteTotalOrder(t *testing.T) {
	negZero := math.Copysign(0, -1)
	nan := math.NaN()
	const null = 12345.0 // marker
	groups := [][]float64{
		{nan, negZero, 1.5, -2, 0, null},
		{nan, null, nan, nan, null, nan},
		{negZero, negZero, null, negZero, negZero, negZero},
		{0, negZero, null, 0, negZero, 0},
	}
	// want: min, max, nan count per row group, as float64 (narrowed per
	// column); a NaN bound is a positive NaN (the encoder's NaNs).
	want := [][3]float64{{-2, 1.5, 1}, {nan, nan, 4}, {negZero, negZero, 0}, {negZero, 0, 0}}

	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "h", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, g := range groups {
		for _, v := range g {
			if v == null {
				for c := range 4 {
					b.Field(c).AppendNull()
				}
				continue
			}
			b.Field(0).(*array.Float64Builder).Append(v)
			b.Field(1).(*array.Float32Builder).Append(float32(v))
			b.Field(2).(*array.Float16Builder).Append(float16.New(float32(v)))
			b.Field(3).(*array.Int32Builder).Append(7)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := writeBytes(t, rec, &arrowpq.WriteOptions{TotalOrder: arrowpq.On, RowGroupRows: 6})

	f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for c := range 4 {
		o := f.Meta.ColumnOrders[c]
		if total := o.IEEE_754_TOTAL_ORDER != nil; total != (c < 3) || (o.TYPE_ORDER != nil) != (c == 3) {
			t.Fatalf("column %d: column order %v", c, o)
		}
	}
	// bits narrows a want value to the column's width.
	bits := func(c int, v float64) uint64 {
		switch c {
		case 0:
			return math.Float64bits(v)
		case 1:
			return uint64(math.Float32bits(float32(v)))
		}
		return uint64(float16.New(float32(v)).Uint16())
	}
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	for rg, w := range want {
		for c := range 3 {
			st, err := metadata.ColumnStats(f, rg, c)
			if err != nil {
				t.Fatal(err)
			}
			if !st.TotalOrder || !st.HasMin || !st.HasMax || !st.HasNaNCount || st.NaNCount != int64(w[2]) {
				t.Fatalf("row group %d column %d: %+v", rg, c, st)
			}
			if st.Min.Bits != bits(c, w[0]) || st.Max.Bits != bits(c, w[1]) {
				t.Errorf("row group %d column %d: min %#x max %#x, want %#x %#x", rg, c, st.Min.Bits, st.Max.Bits, bits(c, w[0]), bits(c, w[1]))
			}
			if (rg == 1) != st.AllNaN() {
				t.Errorf("row group %d column %d: AllNaN %v", rg, c, st.AllNaN())
			}
			// The column index (one page per chunk) holds the same bounds.
			ci, err := metadata.ReadColumnIndex(bytes.NewReader(data), f, rg, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(ci.MinValues) != 1 || leUint(ci.MinValues[0]) != bits(c, w[0]) || leUint(ci.MaxValues[0]) != bits(c, w[1]) ||
				len(ci.NanCounts) != 1 || ci.NanCounts[0] != int64(w[2]) {
				t.Errorf("row group %d column %d: column index %v %v nan counts %v", rg, c, ci.MinValues, ci.MaxValues, ci.NanCounts)
			}
			// arrow-go's view of the same chunk statistics.
			cc, err := rdr.MetaData().RowGroup(rg).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			ts, err := cc.Statistics()
			if err != nil {
				t.Fatal(err)
			}
			if ts == nil {
				t.Logf("row group %d column %d: arrow-go exposes no statistics under IEEE_754_TOTAL_ORDER", rg, c)
				continue
			}
			if ts.NullCount() != int64(nullsIn(groups[rg], null)) {
				t.Errorf("row group %d column %d: arrow-go sees %d nulls", rg, c, ts.NullCount())
			}
			if !ts.HasMinMax() {
				// arrow-go v18 keeps min and max only under TYPE_ORDER.
				continue
			}
			if lo, hi := leUint(ts.EncodeMin()), leUint(ts.EncodeMax()); lo != bits(c, w[0]) || hi != bits(c, w[1]) {
				t.Errorf("row group %d column %d: arrow-go sees min %#x max %#x", rg, c, lo, hi)
			}
		}
		st, err := metadata.ColumnStats(f, rg, 3)
		if err != nil || st.TotalOrder || st.Min.Int != 7 {
			t.Errorf("row group %d INT32: %+v, %v", rg, st, err)
		}
	}

	// A column order for an integer column is refused.
	_, err = arrowpq.NewWriter(&bytes.Buffer{}, schema, &arrowpq.WriteOptions{Columns: map[string]arrowpq.ColumnOptions{"i": {TotalOrder: arrowpq.On}}})
	if err == nil {
		t.Error("TotalOrder on an INT32 column: no error")
	}
}

func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func nullsIn(g []float64, null float64) int {
	n := 0
	for _, v := range g {
		if v == null {
			n++
		}
	}
	return n
}

// TestWriteTotalOrderBoundary: the column index boundary order compares
// page bounds in total order. Pages {-1, +0} then {-1, -0}: equal minima,
// maxima +0 then -0, which TYPE_ORDER calls equal (ASCENDING) and total
// order descending.
func TestWriteTotalOrderBoundary(t *testing.T) {
	b := array.NewFloat64Builder(memory.NewGoAllocator())
	b.AppendValues([]float64{-1, 0, -1, math.Copysign(0, -1)}, nil)
	col := b.NewArray()
	b.Release()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.PrimitiveTypes.Float64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 4)
	defer rec.Release()
	for _, tc := range []struct {
		order arrowpq.Toggle
		want  format.BoundaryOrder
	}{{arrowpq.On, format.BoundaryOrder_DESCENDING}, {arrowpq.Off, format.BoundaryOrder_ASCENDING}} {
		data := writeBytes(t, rec, &arrowpq.WriteOptions{TotalOrder: tc.order, MaxRowsPerPage: 2, Dictionary: arrowpq.Off})
		f, err := metadata.ReadFooter(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		ci, err := metadata.ReadColumnIndex(bytes.NewReader(data), f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(ci.MaxValues) != 2 || ci.BoundaryOrder != tc.want {
			t.Errorf("TotalOrder %v: %d pages, boundary order %v, want %v", tc.order, len(ci.MaxValues), ci.BoundaryOrder, tc.want)
		}
	}
}
