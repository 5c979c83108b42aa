package arrowpq_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// filterTestBatch is five rows with every kind of column; the comments of
// TestEvaluate's cases compute the expected rows from these values.
func filterTestBatch(t testing.TB) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "x", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "st", Type: st, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "lst", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "sd", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	valid := []bool{true, true, false, true, true}
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, -5, 0, math.MaxInt64, 0}, valid)
	b.Field(1).(*array.Uint64Builder).AppendValues([]uint64{0, 1<<63 + 5, math.MaxUint64, 0, 7}, []bool{true, true, true, false, true})
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{math.NaN(), math.Copysign(0, -1), 1.5, 0, math.Inf(1)}, []bool{true, true, true, false, true})
	b.Field(3).(*array.StringBuilder).AppendValues([]string{"", "abc", "abd", "", "ab"}, []bool{true, true, true, false, true})
	b.Field(4).(*array.Date32Builder).AppendValues([]arrow.Date32{-1, 0, -25567, 0, 10000}, []bool{true, true, true, false, true})
	b.Field(5).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(-150), decimal128.FromI64(1), {}, decimal128.FromI64(1234), decimal128.FromI64(-1)}, valid)
	b.Field(6).(*array.BooleanBuilder).AppendValues([]bool{true, false, false, true, false}, valid)
	sb := b.Field(7).(*array.StructBuilder)
	for i, a := range []int32{1, 0, 0, 3, 4} {
		if i == 2 {
			sb.AppendNull() // appends a null to every field too
			continue
		}
		sb.Append(true)
		if i == 1 {
			sb.FieldBuilder(0).AppendNull()
		} else {
			sb.FieldBuilder(0).(*array.Int32Builder).Append(a)
		}
		sb.FieldBuilder(1).(*array.StringBuilder).Append("x")
	}
	b.Field(8).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, -1, 1e6, 0, 86400e6}, []bool{true, true, true, false, true})
	lb := b.Field(9).(*array.ListBuilder)
	for range 5 {
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(1)
	}
	b.Field(10).(*array.Int8Builder).AppendValues([]int8{-128, 127, 0, 5, 0}, valid)
	db := b.Field(11).(*array.BinaryDictionaryBuilder)
	for i, s := range []string{"zz", "abc", "", "abc", "ab"} {
		if i == 2 {
			db.AppendNull()
		} else if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	b.Field(12).(*array.Float32Builder).AppendValues([]float32{0.25, float32(math.NaN()), -1, 0, 3}, valid)
	return b.NewRecordBatch()
}

func selectedRows(s *arrowpq.Selection) []int {
	out := []int{}
	for i := range s.Len() {
		if s.Selected(i) {
			out = append(out, i)
		}
	}
	return out
}

func TestEvaluate(t *testing.T) {
	batch := filterTestBatch(t)
	defer batch.Release()
	for _, tc := range []struct {
		filter string
		want   []int
	}{
		{"i > 0", []int{0, 3}},
		{"i IS NULL", []int{2}},
		{"i IS NOT NULL", []int{0, 1, 3, 4}},
		{"NOT i > 0", []int{1, 4}}, // row 2 is NULL: unknown either way
		{"i > 0 OR i IS NULL", []int{0, 2, 3}},
		{"NOT (i > 0 OR i < 0)", []int{4}},
		{"i > 0 AND i < 0 OR TRUE", []int{0, 1, 2, 3, 4}},
		{"i = NULL", []int{}},
		{"NOT i = NULL", []int{}},
		{"i = NULL OR i = 1", []int{0}},
		{"i < 2.5", []int{0, 1, 4}},
		{"i <= -4.5", []int{1}},
		{"i = 2.5", []int{}},
		{"i != 2.5", []int{0, 1, 3, 4}},
		{"i >= 9223372036854775807", []int{3}},
		{"i < 9223372036854775808", []int{0, 1, 3, 4}},
		{"i > 1e300", []int{}},
		{"i < 'Infinity'", []int{}}, // a string is not a number for an integer column: see TestBindErrors
		{"i8 < 300", []int{0, 1, 3, 4}},
		{"i8 > -129", []int{0, 1, 3, 4}},
		{"i8 = 127", []int{1}},
		{"i8 <= -128", []int{0}},
		{"u > 9223372036854775807", []int{1, 2}},
		{"u = 18446744073709551615", []int{2}},
		{"u < -1", []int{}},
		{"u >= -1", []int{0, 1, 2, 4}},
		{"u IN (7, 0, 99999999999999999999)", []int{0, 4}},
		// NaN is above everything and equal to itself (DuckDB's order); -0 = +0.
		{"f > 1", []int{0, 2, 4}},
		{"f = 'NaN'", []int{0}},
		{"f != 'NaN'", []int{1, 2, 4}},
		{"f < 'NaN'", []int{1, 2, 4}},
		{"f <= 'NaN'", []int{0, 1, 2, 4}},
		{"f > 'NaN'", []int{}},
		{"f = 0", []int{1}},
		{"f >= 'Infinity'", []int{0, 4}},
		{"f IN ('NaN', 1.5)", []int{0, 2}},
		{"f32 = 0.25", []int{0}},
		{"f32 > 2.5e0", []int{1, 4}},
		{"s = ''", []int{0}},
		{"s LIKE 'ab%'", []int{1, 2, 4}},
		{"s LIKE '%'", []int{0, 1, 2, 4}},
		{"s < 'abd'", []int{0, 1, 4}},
		{"s > 'ab'", []int{1, 2}},
		{"s IN ('abc', NULL)", []int{1}},
		{"NOT s IN ('abc', NULL)", []int{}},
		{"s NOT IN ('abc')", []int{0, 2, 4}},
		{"sd = 'abc'", []int{1, 3}},
		{"sd LIKE 'a%'", []int{1, 3, 4}},
		{"sd IS NULL", []int{2}},
		{"d < DATE '1970-01-01'", []int{0, 2}},
		{"d = '1900-01-01'", []int{2}},
		{"d < TIMESTAMP '1969-12-31 00:00:01'", []int{0, 2}},
		{"d > TIMESTAMP '1969-12-31 00:00:01'", []int{1, 4}},
		{"d = TIMESTAMP '1969-12-31 00:00:01'", []int{}},
		{"d = TIMESTAMP '1969-12-31 00:00:00'", []int{0}},
		{"dec < 0", []int{0, 4}},
		{"dec = -1.5", []int{0}},
		{"dec BETWEEN -0.01 AND 0.01", []int{1, 4}},
		{"dec > -0.015", []int{1, 3, 4}},
		{"dec IN (12.34, -0.001)", []int{3}},
		{"b = TRUE", []int{0, 3}},
		{"b < TRUE", []int{1, 4}},
		{"st.a >= 3", []int{3, 4}},
		{"st.a IS NULL", []int{1, 2}},
		{"st.x = 'x'", []int{0, 1, 3, 4}}, // row 2: the struct is null, so is its field
		{"st IS NULL", []int{2}},
		{"lst IS NOT NULL", []int{0, 1, 2, 3, 4}},
		{"ts < TIMESTAMP '1970-01-01'", []int{1}},
		{"ts >= DATE '1970-01-02'", []int{4}},
		{"ts = TIMESTAMP '1970-01-01 00:00:01+00:00'", []int{2}},
		{"ts > TIMESTAMP '1970-01-01 01:00:00+02:00'", []int{0, 1, 2, 4}},
		{"ts = TIMESTAMP '1970-01-01 00:00:00.0000005'", []int{}},
		{"ts < TIMESTAMP '1970-01-01 00:00:00.0000005'", []int{0, 1}},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			p, err := arrowpq.ParseFilter(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			bp, err := p.Bind(batch.Schema(), nil)
			if tc.filter == "i < 'Infinity'" {
				if err == nil {
					t.Fatal("bind succeeded")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sel, err := bp.Evaluate(batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := selectedRows(sel); !slices.Equal(got, tc.want) {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
			if sel.Count() != len(tc.want) {
				t.Fatalf("Count() = %d, want %d", sel.Count(), len(tc.want))
			}
			// A slice of the batch (arrays with an offset) selects the same rows.
			sub := batch.NewSlice(1, 5)
			defer sub.Release()
			subSel, err := bp.Evaluate(sub)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			for _, r := range tc.want {
				if r >= 1 {
					want = append(want, r-1)
				}
			}
			if got := selectedRows(subSel); !slices.Equal(got, append([]int{}, want...)) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("rows of the slice [1,5) %v, want %v", got, want)
			}
		})
	}
}

func TestEvaluateGoValues(t *testing.T) {
	batch := filterTestBatch(t)
	defer batch.Release()
	col := arrowpq.Col
	dec := &arrow.Decimal128Type{Precision: 5, Scale: 3}
	for _, tc := range []struct {
		name string
		p    *arrowpq.Predicate
		want []int
	}{
		{"uint64 above 2^63", col("u").GE(uint64(1<<63 + 5)), []int{1, 2}},
		{"arrow decimal scalar", col("dec").LT(scalar.NewDecimal128Scalar(decimal128.FromI64(-10), dec)), []int{0}}, // -0.010: -1.50 only (-0.01 is not below)
		{"arrow date", col("d").LE(arrow.Date32(-1)), []int{0, 2}},
		{"arrow timestamp scalar", col("ts").EQ(scalar.NewTimestampScalar(1, &arrow.TimestampType{Unit: arrow.Second})), []int{2}},
		{"bytes", col("s").EQ([]byte("abc")), nil},
		{"in strings", col("s").In("ab", "", "zz"), []int{0, 4}},
		{"and or not", arrowpq.Or(col("i").EQ(1), arrowpq.Not(col("b").EQ(true))), []int{0, 1, 4}},
		{"empty and", arrowpq.And(), []int{0, 1, 2, 3, 4}},
		{"empty or", arrowpq.Or(), []int{}},
		{"float32 value", col("f").EQ(float32(1.5)), []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bp, err := tc.p.Bind(batch.Schema(), nil)
			if tc.name == "bytes" {
				// A string column takes text, not bytes.
				if err == nil || !strings.Contains(err.Error(), "cannot compare") {
					t.Fatalf("Bind error %v, want cannot compare", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sel, err := bp.Evaluate(batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := selectedRows(sel); !slices.Equal(got, append([]int{}, tc.want...)) && len(got)+len(tc.want) > 0 {
				t.Fatalf("rows %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBindErrors(t *testing.T) {
	batch := filterTestBatch(t)
	defer batch.Release()
	for _, tc := range []struct {
		filter string
		offset int
		msg    string
	}{
		{"nope = 1", 0, `column nope is not in the schema`},
		{"i = 1 AND s = 1", 14, `column s is utf8: cannot compare it with 1`},
		{"i = 'x'", 4, `column i is int64: cannot compare it with 'x'`},
		{"i LIKE 'a%'", 0, `column i is int64: LIKE 'prefix%' (starts with) needs a string or binary column`},
		{"st.zz = 1", 0, `column st.zz: struct st has no field zz`},
		{"lst.element = 1", 0, `column lst.element: lst is a list<item: int32, nullable>: a filter compares one value per row`},
		{"i.x = 1", 0, `column i.x: i is int64, not a struct`},
		{"b < 1", 4, `column b is bool: cannot compare it with 1`},
		{"d = 'notadate'", 4, `'notadate' is not a timestamp`},
		{"st = 1", 5, `column st is struct<a: int32 nullable, x: utf8 nullable>: only IS NULL and IS NOT NULL apply to it`},
		{"s IN ('a', 2)", 11, `cannot compare it with 2`},
		{"lst IN ()", 0, `column lst is list<item: int32, nullable>: only IS NULL and IS NOT NULL apply to it`},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			p, err := arrowpq.ParseFilter(tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Bind(batch.Schema(), nil)
			var se *arrowpq.FilterSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Bind error = %v, want a *FilterSyntaxError", err)
			}
			if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.msg) {
				t.Fatalf("Bind: offset %d %q, want offset %d %q", se.Offset, se.Msg, tc.offset, tc.msg)
			}
		})
	}
	// Fields lists the top-level fields a predicate reads.
	p, _ := arrowpq.ParseFilter("st.a = 1 OR i > 0 AND st.x = 'x' OR sd IS NULL")
	bp, err := p.Bind(batch.Schema(), nil)
	if err != nil || !slices.Equal(bp.Fields(), []int{0, 7, 11}) {
		t.Fatalf("Fields() = %v (%v), want [0 7 11]", bp.Fields(), err)
	}
	// Go-built predicates: no position, the same words.
	_, err = arrowpq.Col("i").EQ(struct{}{}).Bind(batch.Schema(), nil)
	if err == nil || err.Error() != "arrowpq: filter: column i: value {} of Go type struct {} cannot be used in a filter" {
		t.Fatalf("error = %v", err)
	}
}

func TestFilterBatch(t *testing.T) {
	batch := filterTestBatch(t)
	defer batch.Release()
	for _, tc := range []struct {
		sel  []bool
		want []int64 // values of column i (0 for the null row)
	}{
		{[]bool{true, false, true, false, true}, []int64{1, 0, 0}},
		{[]bool{false, true, true, false, false}, []int64{-5, 0}},
		{[]bool{false, false, false, false, false}, []int64{}},
	} {
		out, err := arrowpq.FilterBatch(context.Background(), nil, batch, arrowpq.NewSelection(tc.sel))
		if err != nil {
			t.Fatal(err)
		}
		if out.NumCols() != batch.NumCols() || int(out.NumRows()) != len(tc.want) {
			t.Fatalf("%v: %d rows × %d columns", tc.sel, out.NumRows(), out.NumCols())
		}
		got := out.Column(0).(*array.Int64).Int64Values()
		if !slices.Equal(got, tc.want) {
			t.Fatalf("%v: i = %v, want %v", tc.sel, got, tc.want)
		}
		out.Release()
	}
}

// FuzzFilterEvaluate parses, binds and evaluates any filter text over the
// test batch, and checks the laws of three-valued logic on the result: p
// and NOT p never both hold, NOT NOT p is p, p AND p is p, and a slice of
// the batch selects the slice of the rows.
func FuzzFilterEvaluate(f *testing.F) {
	for _, s := range []string{
		"i > 0", "u >= 9223372036854775808", "f = 'NaN' OR f < 0", "s LIKE 'ab%'", "d < DATE '1970-01-01'",
		"dec BETWEEN -1 AND 0.5", "st.a IS NULL AND NOT b = TRUE", "ts > TIMESTAMP '1970-01-01 00:00:00+01:00'",
		"sd IN ('abc', NULL)", "i8 NOT IN (1, 2, 127)", "f32 <= 0.25", "lst IS NULL",
	} {
		f.Add(s)
	}
	batch := filterTestBatch(f)
	schema := batch.Schema()
	sub := batch.NewSlice(1, 4)
	f.Fuzz(func(t *testing.T, text string) {
		p, err := arrowpq.ParseFilter(text)
		if err != nil {
			return
		}
		eval := func(q *arrowpq.Predicate, b arrow.RecordBatch) []int {
			bp, err := q.Bind(schema, nil)
			if err != nil {
				return nil
			}
			sel, err := bp.Evaluate(b)
			if err != nil {
				t.Fatalf("Evaluate(%s): %v", q, err)
			}
			return selectedRows(sel)
		}
		if _, err := p.Bind(schema, nil); err != nil {
			return
		}
		rows := eval(p, batch)
		for _, r := range eval(arrowpq.Not(p), batch) {
			if slices.Contains(rows, r) {
				t.Fatalf("%s: row %d selected by p and NOT p", p, r)
			}
		}
		if got := eval(arrowpq.Not(arrowpq.Not(p)), batch); !slices.Equal(got, rows) {
			t.Fatalf("%s: NOT NOT p selects %v, p %v", p, got, rows)
		}
		if got := eval(arrowpq.And(p, p), batch); !slices.Equal(got, rows) {
			t.Fatalf("%s: p AND p selects %v, p %v", p, got, rows)
		}
		var want []int
		for _, r := range rows {
			if r >= 1 && r < 4 {
				want = append(want, r-1)
			}
		}
		if got := eval(p, sub); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%s: the slice [1,4) selects %v, want %v", p, got, want)
		}
	})
}

// TestEvaluateUUID: an extension column compares by its storage
// (FixedSizeBinary(16) for UUID), with binary values.
func TestEvaluateUUID(t *testing.T) {
	ub := extensions.NewUUIDBuilder(memory.DefaultAllocator)
	defer ub.Release()
	var a, b [16]byte
	a[15] = 1
	b[0], b[1], b[2], b[3] = 0xff, 0xff, 0xff, 0xff
	ub.Append(a)
	ub.AppendNull()
	ub.Append(b)
	arr := ub.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arr.DataType(), Nullable: true}}, nil)
	batch := array.NewRecordBatch(schema, []arrow.Array{arr}, 3)
	defer batch.Release()
	for _, tc := range []struct {
		filter string
		want   []int
	}{
		{"id = X'00000000000000000000000000000001'", []int{0}},
		{"id > X'00000000000000000000000000000001'", []int{2}},
		{"id IS NULL", []int{1}},
		{"id IN (X'ffffffff000000000000000000000000', X'00')", []int{2}},
	} {
		p, err := arrowpq.ParseFilter(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		bp, err := p.Bind(schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		sel, err := bp.Evaluate(batch)
		if err != nil {
			t.Fatal(err)
		}
		if got := selectedRows(sel); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.filter, got, tc.want)
		}
	}
}
