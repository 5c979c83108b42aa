package benchmarks

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dataset is a seeded, reproducible table for the benchmarks.
type Dataset struct {
	Name string
	// Rows is the row count at full size; ScaledRows applies
	// $ARROWPQ_BENCH_SCALE.
	Rows  int
	Build func(mem memory.Allocator, rows int) arrow.RecordBatch
}

// ScaledRows returns d.Rows times $ARROWPQ_BENCH_SCALE (a float, default
// 1), at least 1000: quick runs use a small scale, the published figures 1.
func (d Dataset) ScaledRows() int {
	scale := 1.0
	if s := os.Getenv("ARROWPQ_BENCH_SCALE"); s != "" {
		if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
			scale = v
		}
	}
	return max(1000, int(float64(d.Rows)*scale))
}

// Datasets are the workloads of the issue: a TPC-H lineitem-like table, a
// numeric table with 10% nulls, a strings table and a nested table.
var Datasets = []Dataset{
	{Name: "lineitem", Rows: 2_000_000, Build: buildLineitem},
	{Name: "numeric", Rows: 2_000_000, Build: buildNumeric},
	{Name: "strings", Rows: 1_000_000, Build: buildStrings},
	{Name: "nested", Rows: 500_000, Build: buildNested},
}

// DatasetByName returns the dataset called name.
func DatasetByName(name string) (Dataset, bool) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, true
		}
	}
	return Dataset{}, false
}

var words = strings.Fields(`furiously quickly carefully slyly blithely final regular express special pending
ironic even bold silent unusual packages deposits accounts requests instructions theodolites foxes pinto beans
ideas dependencies asymptotes platelets dolphins courts sheaves warhorses sauternes frays dugouts somas`)

func sentence(rng *rand.Rand, minLen, maxLen int) string {
	target := minLen + rng.IntN(maxLen-minLen+1)
	var b strings.Builder
	for b.Len() < target {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	s := b.String()
	if len(s) > maxLen {
		s = s[:maxLen]
	}
	return s
}

func buildLineitem(mem memory.Allocator, rows int) arrow.RecordBatch {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_quantity", Type: dec},
		{Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec},
		{Name: "l_tax", Type: dec},
		{Name: "l_returnflag", Type: arrow.BinaryTypes.String},
		{Name: "l_linestatus", Type: arrow.BinaryTypes.String},
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_shipinstruct", Type: arrow.BinaryTypes.String},
		{Name: "l_shipmode", Type: arrow.BinaryTypes.String},
		{Name: "l_comment", Type: arrow.BinaryTypes.String},
	}, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, f := range b.Fields() {
		f.Reserve(rows)
	}
	instructs := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	order, line := int64(1), int32(0)
	for i := 0; i < rows; i++ {
		line++
		if line > int32(1+rng.IntN(7)) {
			order += int64(1 + rng.IntN(4))
			line = 1
		}
		b.Field(0).(*array.Int64Builder).Append(order)
		b.Field(1).(*array.Int64Builder).Append(int64(1 + rng.IntN(200_000)))
		b.Field(2).(*array.Int64Builder).Append(int64(1 + rng.IntN(10_000)))
		b.Field(3).(*array.Int32Builder).Append(line)
		qty := int64(1 + rng.IntN(50))
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(qty * 100))
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(qty * int64(90_000+rng.IntN(1_000_000))))
		b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(11))))
		b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(9))))
		b.Field(8).(*array.StringBuilder).Append([]string{"A", "N", "R"}[rng.IntN(3)])
		b.Field(9).(*array.StringBuilder).Append([]string{"O", "F"}[rng.IntN(2)])
		ship := arrow.Date32(8035 + rng.IntN(2526))
		b.Field(10).(*array.Date32Builder).Append(ship)
		b.Field(11).(*array.Date32Builder).Append(ship + arrow.Date32(rng.IntN(90)) - 30)
		b.Field(12).(*array.Date32Builder).Append(ship + arrow.Date32(1+rng.IntN(30)))
		b.Field(13).(*array.StringBuilder).Append(instructs[rng.IntN(len(instructs))])
		b.Field(14).(*array.StringBuilder).Append(modes[rng.IntN(len(modes))])
		b.Field(15).(*array.StringBuilder).Append(sentence(rng, 10, 43))
	}
	return b.NewRecordBatch()
}

func buildNumeric(mem memory.Allocator, rows int) arrow.RecordBatch {
	var fields []arrow.Field
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64}
	for i := 0; i < 8; i++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d_%s", i, types[i%4]), Type: types[i%4], Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	rng := rand.New(rand.NewPCG(3, 4))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, f := range b.Fields() {
		f.Reserve(rows)
	}
	for i := 0; i < rows; i++ {
		for c := range fields {
			if rng.IntN(10) == 0 {
				b.Field(c).AppendNull()
				continue
			}
			switch fb := b.Field(c).(type) {
			case *array.Int32Builder:
				fb.Append(int32(rng.IntN(1 << 20))) // sorted-ish small range: dictionary-unfriendly
			case *array.Int64Builder:
				fb.Append(int64(i)*3 + int64(rng.IntN(3)))
			case *array.Float32Builder:
				fb.Append(rng.Float32() * 1000)
			case *array.Float64Builder:
				fb.Append(rng.NormFloat64() * 1e6)
			}
		}
	}
	return b.NewRecordBatch()
}

func buildStrings(mem memory.Allocator, rows int) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "unique_id", Type: arrow.BinaryTypes.String},                   // high cardinality
		{Name: "category", Type: arrow.BinaryTypes.String, Nullable: true},    // 100 distinct: dictionary-friendly
		{Name: "description", Type: arrow.BinaryTypes.String, Nullable: true}, // long text
	}, nil)
	rng := rand.New(rand.NewPCG(5, 6))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	cats := make([]string, 100)
	for i := range cats {
		cats[i] = fmt.Sprintf("category-%03d-%s", i, words[i%len(words)])
	}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("%016x-%d", rng.Uint64(), i))
		if rng.IntN(20) == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(cats[rng.IntN(len(cats))])
		}
		if rng.IntN(10) == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(sentence(rng, 40, 400))
		}
	}
	return b.NewRecordBatch()
}

func buildNested(mem memory.Allocator, rows int) arrow.RecordBatch {
	item := arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
	)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ints", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "items", Type: arrow.ListOf(item), Nullable: true},
		{Name: "attrs", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(7, 8))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	keys := []string{"color", "size", "weight", "origin", "grade", "batch"}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		lb := b.Field(1).(*array.ListBuilder)
		if rng.IntN(10) == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			vb := lb.ValueBuilder().(*array.Int64Builder)
			for j, n := 0, rng.IntN(6); j < n; j++ {
				if rng.IntN(20) == 0 {
					vb.AppendNull()
				} else {
					vb.Append(rng.Int64N(1 << 40))
				}
			}
		}
		sb := b.Field(2).(*array.ListBuilder)
		if rng.IntN(10) == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			st := sb.ValueBuilder().(*array.StructBuilder)
			for j, n := 0, rng.IntN(4); j < n; j++ {
				st.Append(true)
				st.FieldBuilder(0).(*array.Int32Builder).Append(int32(rng.IntN(1000)))
				if rng.IntN(5) == 0 {
					st.FieldBuilder(1).AppendNull()
				} else {
					st.FieldBuilder(1).(*array.StringBuilder).Append(words[rng.IntN(len(words))])
				}
			}
		}
		mb := b.Field(3).(*array.MapBuilder)
		if rng.IntN(10) == 0 {
			mb.AppendNull()
		} else {
			mb.Append(true)
			for j, n := 0, rng.IntN(4); j < n; j++ {
				mb.KeyBuilder().(*array.StringBuilder).Append(keys[(i+j)%len(keys)])
				mb.ItemBuilder().(*array.Int64Builder).Append(rng.Int64N(1000))
			}
		}
	}
	return b.NewRecordBatch()
}
