package arrowpq_test

import (
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// TestWriteDecimalIntBounds: decimals of precision up to 18 are stored as
// INT32 or INT64 unscaled values from every Arrow decimal width. The
// extremes of each physical type round-trip through pqarrow; one past them
// (Arrow does not enforce the precision) is an error naming the column.
func TestWriteDecimalIntBounds(t *testing.T) {
	mem := memory.DefaultAllocator
	big2 := func(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }
	sub := func(a *big.Int, d int64) *big.Int { return new(big.Int).Sub(a, big.NewInt(d)) }
	neg := func(a *big.Int) *big.Int { return new(big.Int).Neg(a) }
	type tc struct {
		name string
		typ  arrow.DataType
		ok   []*big.Int // round-trip
		bad  []*big.Int // each alone is an error
	}
	i32max, i32min := big.NewInt(math.MaxInt32), big.NewInt(math.MinInt32)
	i64max, i64min := big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64)
	cases := []tc{
		{"d128_int32", &arrow.Decimal128Type{Precision: 9, Scale: 2}, []*big.Int{i32max, i32min, big.NewInt(0), big.NewInt(-1)}, []*big.Int{big2(31), sub(i32min, 1), big2(64), neg(big2(64))}},
		{"d128_int64", &arrow.Decimal128Type{Precision: 18, Scale: 0}, []*big.Int{i64max, i64min, big.NewInt(-7)}, []*big.Int{big2(63), sub(i64min, 1), big2(100)}},
		{"d256_int64", &arrow.Decimal256Type{Precision: 18, Scale: 3}, []*big.Int{i64max, i64min, big.NewInt(12345)}, []*big.Int{big2(64), neg(big2(200)), big2(63)}},
		{"d256_int32", &arrow.Decimal256Type{Precision: 5, Scale: 1}, []*big.Int{i32max, i32min}, []*big.Int{big2(31), big2(250)}},
		{"d64_int64", &arrow.Decimal64Type{Precision: 18, Scale: 4}, []*big.Int{i64max, i64min}, nil},
		{"d64_int32", &arrow.Decimal64Type{Precision: 9, Scale: 4}, []*big.Int{i32max, i32min}, []*big.Int{big2(31), sub(i32min, 1)}},
		{"d32_int32", &arrow.Decimal32Type{Precision: 9, Scale: 0}, []*big.Int{i32max, i32min, big.NewInt(-999999999)}, nil},
	}
	build := func(typ arrow.DataType, vals []*big.Int) arrow.RecordBatch {
		b := array.NewBuilder(mem, typ)
		defer b.Release()
		for _, v := range vals {
			switch b := b.(type) {
			case *array.Decimal32Builder:
				b.Append(decimal.Decimal32(v.Int64()))
			case *array.Decimal64Builder:
				b.Append(decimal.Decimal64(v.Int64()))
			case *array.Decimal128Builder:
				b.Append(decimal128.FromBigInt(v))
			case *array.Decimal256Builder:
				b.Append(decimal256.FromBigInt(v))
			}
		}
		b.AppendNull()
		arr := b.NewArray()
		defer arr.Release()
		return oneColumn("d", arr)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := build(c.typ, c.ok)
			defer rec.Release()
			b := writeBytes(t, rec, nil)
			phys := footerOf(t, b).Schema.Columns[0].Physical.String()
			if want := map[bool]string{true: "INT32", false: "INT64"}[c.typ.(arrow.DecimalType).GetPrecision() <= 9]; phys != want {
				t.Errorf("physical type %s, want %s", phys, want)
			}
			got, err := renderPqarrow(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := oracle.Compare(got, renderRec(t, rec), oracle.Allowances{}); err != nil {
				t.Errorf("pqarrow: %v", err)
			}
			for _, v := range c.bad {
				bad := build(c.typ, []*big.Int{big.NewInt(1), v})
				w, err := arrowpq.NewWriter(&strings.Builder{}, bad.Schema(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), "column d") || !strings.Contains(err.Error(), "does not fit") {
					t.Errorf("%s: Write: %v, want an out-of-range error naming column d", v, err)
				}
				bad.Release()
			}
		})
	}
}
