package arrowpq_test

// The differential test of filters against DuckDB: random predicates over
// the benchmark datasets (small, written with page indexes, bloom filters,
// small pages and many row groups), two files of edge values and corpus
// files with statistics and page indexes. Each predicate is evaluated over
// a full read with arrowpq and run by DuckDB as
// SELECT file_row_number … WHERE <the same predicate in DuckDB SQL>; the
// row numbers must be the same, in the same order. The same loop checks
// that pruning is sound: a row group or page that Prune says cannot match
// holds no matching row, and rows it says all match do match.

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// filtLit is one literal in our syntax and in DuckDB's.
type filtLit struct{ ours, duck string }

// filtGenCol is a column the generator may test, with literals sampled from
// its values.
type filtGenCol struct {
	ours, duck string // identifier in our syntax and DuckDB expression
	kind       byte   // i int, u unsigned, f float, d decimal, s string, D date, T timestamp, b bool, o other
	exactOnly  bool   // float32/float16: only literals that are values
	lits       []filtLit
}

func filtSameLit(s string) filtLit { return filtLit{s, s} }

func fmtFloatLit(v float64) filtLit {
	switch {
	case math.IsNaN(v):
		return filtLit{"'NaN'", "'NaN'::DOUBLE"}
	case math.IsInf(v, 1):
		return filtLit{"'Infinity'", "'Infinity'::DOUBLE"}
	case math.IsInf(v, -1):
		return filtLit{"'-Infinity'", "'-Infinity'::DOUBLE"}
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	return filtLit{s, s + "::DOUBLE"}
}

func decText(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if scale > 0 {
		for len(digits) <= int(scale) {
			digits = "0" + digits
		}
		digits = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// literalAt renders row i of arr as a literal for a column of kind, or false.
func literalAt(arr arrow.Array, i int) (filtLit, bool) {
	if arr.IsNull(i) {
		return filtLit{}, false
	}
	switch a := arr.(type) {
	case *array.Int8:
		return filtSameLit(strconv.FormatInt(int64(a.Value(i)), 10)), true
	case *array.Int16:
		return filtSameLit(strconv.FormatInt(int64(a.Value(i)), 10)), true
	case *array.Int32:
		return filtSameLit(strconv.FormatInt(int64(a.Value(i)), 10)), true
	case *array.Int64:
		return filtSameLit(strconv.FormatInt(a.Value(i), 10)), true
	case *array.Uint8:
		return filtSameLit(strconv.FormatUint(uint64(a.Value(i)), 10)), true
	case *array.Uint16:
		return filtSameLit(strconv.FormatUint(uint64(a.Value(i)), 10)), true
	case *array.Uint32:
		return filtSameLit(strconv.FormatUint(uint64(a.Value(i)), 10)), true
	case *array.Uint64:
		return filtSameLit(strconv.FormatUint(a.Value(i), 10)), true
	case *array.Float16:
		return fmtFloatLit(float64(a.Value(i).Float32())), true
	case *array.Float32:
		return fmtFloatLit(float64(a.Value(i))), true
	case *array.Float64:
		return fmtFloatLit(a.Value(i)), true
	case *array.Decimal32:
		return filtSameLit(decText(big.NewInt(int64(a.Value(i))), a.DataType().(*arrow.Decimal32Type).Scale)), true
	case *array.Decimal64:
		return filtSameLit(decText(big.NewInt(int64(a.Value(i))), a.DataType().(*arrow.Decimal64Type).Scale)), true
	case *array.Decimal128:
		return filtSameLit(decText(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale)), true
	case *array.Decimal256:
		return filtSameLit(decText(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale)), true
	case *array.String:
		s := a.Value(i)
		return filtSameLit("'" + strings.ReplaceAll(s, "'", "''") + "'"), true
	case *array.LargeString:
		s := a.Value(i)
		return filtSameLit("'" + strings.ReplaceAll(s, "'", "''") + "'"), true
	case *array.Date32:
		return filtSameLit("DATE '" + a.Value(i).ToTime().Format("2006-01-02") + "'"), true
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		t := a.Value(i).ToTime(unit).UTC()
		if t.Year() < 1 || t.Year() > 9999 {
			return filtLit{}, false
		}
		return filtSameLit("TIMESTAMP '" + t.Format("2006-01-02 15:04:05.999999") + "'"), true
	case *array.Boolean:
		if a.Value(i) {
			return filtSameLit("TRUE"), true
		}
		return filtSameLit("FALSE"), true
	}
	return filtLit{}, false
}

func kindOf(dt arrow.DataType) (byte, bool) {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return 'i', false
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return 'u', false
	case arrow.FLOAT16, arrow.FLOAT32:
		return 'f', true
	case arrow.FLOAT64:
		return 'f', false
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return 'd', false
	case arrow.STRING, arrow.LARGE_STRING:
		return 's', false
	case arrow.DATE32:
		return 'D', false
	case arrow.TIMESTAMP:
		return 'T', false
	case arrow.BOOL:
		return 'b', false
	}
	return 'o', false
}

func duckIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// filtGenColumns lists the columns of the file with literals sampled from the
// batches: top-level fields and leaves inside structs.
func filtGenColumns(schema *arrow.Schema, batches []arrow.RecordBatch) []*filtGenCol {
	var cols []*filtGenCol
	var walk func(path []string, dt arrow.DataType, get func(arrow.RecordBatch) arrow.Array)
	walk = func(path []string, dt arrow.DataType, get func(arrow.RecordBatch) arrow.Array) {
		ours := make([]string, len(path))
		for i, p := range path {
			ours[i] = duckIdent(p)
		}
		duck := duckIdent(path[0])
		for _, p := range path[1:] {
			duck = "struct_extract(" + duck + ", '" + strings.ReplaceAll(p, "'", "''") + "')"
		}
		c := &filtGenCol{ours: strings.Join(ours, "."), duck: duck}
		c.kind, c.exactOnly = kindOf(dt)
		if st, ok := dt.(*arrow.StructType); ok {
			cols = append(cols, c)
			for j, f := range st.Fields() {
				j := j
				walk(append(slices.Clone(path), f.Name), f.Type, func(b arrow.RecordBatch) arrow.Array {
					return get(b).(*array.Struct).Field(j)
				})
			}
			return
		}
		seen := map[string]bool{}
		for _, b := range batches {
			arr := get(b)
			step := max(1, arr.Len()/12)
			for i := 0; i < arr.Len(); i += step {
				if l, ok := literalAt(arr, i); ok && !seen[l.ours] && len(l.ours) < 200 {
					seen[l.ours] = true
					c.lits = append(c.lits, l)
				}
			}
		}
		cols = append(cols, c)
	}
	for i, f := range schema.Fields() {
		i := i
		walk([]string{f.Name}, f.Type, func(b arrow.RecordBatch) arrow.Array { return b.Column(i) })
	}
	return cols
}

// literal draws a literal for c: a sampled value, a neighbour of one, or an
// edge value of the kind.
func (c *filtGenCol) literal(rng *rand.Rand) filtLit {
	pick := func() filtLit {
		if len(c.lits) == 0 {
			return filtSameLit("NULL")
		}
		return c.lits[rng.IntN(len(c.lits))]
	}
	l := pick()
	if l.ours == "NULL" || rng.IntN(3) != 0 {
		return l
	}
	switch c.kind {
	case 'i':
		v, _ := strconv.ParseInt(l.ours, 10, 64)
		switch rng.IntN(4) {
		case 0:
			return filtSameLit(strconv.FormatInt(v+int64(rng.IntN(5))-2, 10))
		case 1:
			return filtSameLit(l.ours + ".5")
		case 2:
			return filtSameLit([]string{"2147483648", "-2147483649", "9223372036854775807", "-32769", "128"}[rng.IntN(5)])
		}
		return filtSameLit(strconv.FormatInt(v/2, 10))
	case 'u':
		return filtSameLit([]string{"0", "9223372036854775808", "18446744073709551615", "4294967296"}[rng.IntN(4)])
	case 'f':
		if c.exactOnly {
			return []filtLit{fmtFloatLit(math.NaN()), fmtFloatLit(0), l}[rng.IntN(3)]
		}
		v, _ := strconv.ParseFloat(strings.TrimSuffix(l.ours, "::DOUBLE"), 64)
		return []filtLit{fmtFloatLit(math.NaN()), fmtFloatLit(math.Copysign(0, -1)), fmtFloatLit(math.Inf(1)), fmtFloatLit(v * 1.5), fmtFloatLit(-v)}[rng.IntN(5)]
	case 'd':
		if rng.IntN(2) == 0 {
			return filtSameLit(l.ours + "5")
		}
		if strings.HasPrefix(l.ours, "-") {
			return filtSameLit(l.ours[1:])
		}
		return filtSameLit("-" + l.ours)
	case 's':
		s := l.ours[1 : len(l.ours)-1]
		switch rng.IntN(3) {
		case 0:
			return filtSameLit("''")
		case 1:
			if strings.HasSuffix(s, "''") {
				return l
			}
			return filtSameLit("'" + runePrefix(s, rng) + "'")
		}
		return filtSameLit("'" + s + "a'")
	case 'D':
		return filtSameLit([]string{"DATE '1969-12-31'", "DATE '1900-01-01'", "DATE '1970-01-01'", "DATE '2000-02-29'"}[rng.IntN(4)])
	case 'T':
		return filtSameLit([]string{"TIMESTAMP '1969-12-31 23:59:59.999999'", "TIMESTAMP '1970-01-01 00:00:00'", "TIMESTAMP '2009-01-01 00:00:00'", "TIMESTAMP '1900-01-01 12:00:00'"}[rng.IntN(4)])
	}
	return l
}

// runePrefix cuts s at a random character boundary.
func runePrefix(s string, rng *rand.Rand) string {
	n := rng.IntN(len(s) + 1)
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// leaf draws one test on one column.
func (c *filtGenCol) leaf(rng *rand.Rand) filtLit {
	if c.kind == 'o' || len(c.lits) == 0 || rng.IntN(8) == 0 {
		if rng.IntN(2) == 0 {
			return filtLit{c.ours + " IS NULL", c.duck + " IS NULL"}
		}
		return filtLit{c.ours + " IS NOT NULL", c.duck + " IS NOT NULL"}
	}
	switch r := rng.IntN(10); {
	case r == 0:
		a, b := c.literal(rng), c.literal(rng)
		not := []string{"", "NOT "}[rng.IntN(2)]
		return filtLit{c.ours + " " + not + "BETWEEN " + a.ours + " AND " + b.ours, c.duck + " " + not + "BETWEEN " + a.duck + " AND " + b.duck}
	case r == 1:
		n := 1 + rng.IntN(4)
		var o, d []string
		for range n {
			l := c.literal(rng)
			if rng.IntN(8) == 0 {
				l = filtSameLit("NULL")
			}
			o, d = append(o, l.ours), append(d, l.duck)
		}
		not := []string{"", "NOT "}[rng.IntN(2)]
		return filtLit{c.ours + " " + not + "IN (" + strings.Join(o, ", ") + ")", c.duck + " " + not + "IN (" + strings.Join(d, ", ") + ")"}
	case r == 2 && c.kind == 's':
		l := c.literal(rng)
		s := strings.ReplaceAll(l.ours[1:len(l.ours)-1], "''", "'")
		s = runePrefix(s, rng)
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
		q := func(x string) string { return "'" + strings.ReplaceAll(x, "'", "''") + "'" }
		if rng.IntN(4) == 0 {
			return filtLit{"NOT " + c.ours + " LIKE " + q(esc+"%"), "NOT starts_with(" + c.duck + ", " + q(s) + ")"}
		}
		return filtLit{c.ours + " LIKE " + q(esc+"%"), "starts_with(" + c.duck + ", " + q(s) + ")"}
	}
	op := []string{"=", "!=", "<>", "<", "<=", ">", ">="}[rng.IntN(7)]
	l := c.literal(rng)
	return filtLit{c.ours + " " + op + " " + l.ours, c.duck + " " + op + " " + l.duck}
}

// filtGenPredicate draws a predicate of up to depth levels of AND/OR/NOT.
func filtGenPredicate(rng *rand.Rand, cols []*filtGenCol, depth int) filtLit {
	if depth == 0 || rng.IntN(3) == 0 {
		return cols[rng.IntN(len(cols))].leaf(rng)
	}
	switch rng.IntN(5) {
	case 0:
		k := filtGenPredicate(rng, cols, depth-1)
		return filtLit{"NOT (" + k.ours + ")", "NOT (" + k.duck + ")"}
	case 1, 2:
		a, b := filtGenPredicate(rng, cols, depth-1), filtGenPredicate(rng, cols, depth-1)
		return filtLit{"(" + a.ours + ") AND (" + b.ours + ")", "(" + a.duck + ") AND (" + b.duck + ")"}
	}
	a, b := filtGenPredicate(rng, cols, depth-1), filtGenPredicate(rng, cols, depth-1)
	return filtLit{"(" + a.ours + ") OR (" + b.ours + ")", "(" + a.duck + ") OR (" + b.duck + ")"}
}

// filterFile is a file of the differential test, read in full.
type filterFile struct {
	name, path string
	own        bool     // written by this test: no pruning warning is acceptable
	floatCols  []string // DuckDB expressions of its float columns
	schema     *arrow.Schema
	meta       *metadata.File
	batches    []arrow.RecordBatch
	prune      []arrowpq.PruneInput
	rgStart    []int64
}

func loadFilterFile(t *testing.T, name, path string, own bool) *filterFile {
	t.Helper()
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Parallelism: 1})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer r.Close()
	ff := &filterFile{name: name, path: path, own: own, schema: r.Schema(), meta: r.Metadata()}
	for r.Next() {
		b := r.RecordBatch()
		b.Retain()
		ff.batches = append(ff.batches, b)
	}
	if r.Err() != nil {
		t.Fatalf("%s: %v", name, r.Err())
	}
	src, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f := ff.meta
	var start int64
	for rg := range f.Meta.RowGroups {
		ff.rgStart = append(ff.rgStart, start)
		start += f.Meta.RowGroups[rg].NumRows
		in := arrowpq.PruneInput{File: f, RowGroup: rg, BloomFilters: map[int]*metadata.BloomFilter{},
			ColumnIndexes: map[int]*format.ColumnIndex{}, OffsetIndexes: map[int]*format.OffsetIndex{}}
		for col := range f.Schema.Columns {
			if bf, err := metadata.ReadBloomFilter(src, f, rg, col); err == nil {
				in.BloomFilters[col] = bf
			}
			if ci, err := metadata.ReadColumnIndex(src, f, rg, col); err == nil && ci != nil {
				in.ColumnIndexes[col] = ci
			}
			if oi, err := metadata.ReadOffsetIndex(src, f, rg, col); err == nil && oi != nil {
				in.OffsetIndexes[col] = oi
			}
		}
		ff.prune = append(ff.prune, in)
	}
	return ff
}

func (ff *filterFile) release() {
	for _, b := range ff.batches {
		b.Release()
	}
}

// evaluate returns the file row numbers p selects.
func (ff *filterFile) evaluate(bp *arrowpq.BoundPredicate) ([]int64, error) {
	var rows []int64
	var at int64
	for _, b := range ff.batches {
		sel, err := bp.Evaluate(b)
		if err != nil {
			return nil, err
		}
		for _, r := range sel.Ranges() {
			for i := r.Start; i < r.End; i++ {
				rows = append(rows, at+i)
			}
		}
		at += b.NumRows()
	}
	return rows, nil
}

// writeFilterDataset writes rec with small pages, many row groups, page
// indexes and bloom filters on every column.
func writeFilterDataset(t *testing.T, path string, rec arrow.RecordBatch, opts arrowpq.WriteOptions) {
	t.Helper()
	if opts.Columns == nil {
		opts.Columns = map[string]arrowpq.ColumnOptions{}
		for _, f := range rec.Schema().Fields() {
			opts.Columns[f.Name] = arrowpq.ColumnOptions{BloomFilterNDV: 2000}
		}
	}
	opts.RowGroupRows = max(1, int(rec.NumRows())/8)
	opts.MaxRowsPerPage = 64
	opts.Parallelism = 1
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := arrowpq.NewWriter(out, rec.Schema(), &opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// buildFilterEdges is a table of the values the issue lists: nulls, empty
// strings, strings sharing a long prefix (truncated statistics), negative
// decimals, dates before 1970, unsigned integers above 2^63, NaN and ±0,
// timestamps, struct leaves. Rows are in a random order except id.
func buildFilterEdges(rows int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "dec38", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "st", Type: st, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(14, 14))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	prefix := "a-long-shared-prefix-that-statistics-truncate/"
	for i := range rows {
		null := func() bool { return rng.IntN(9) == 0 }
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if sb := b.Field(1).(*array.StringBuilder); null() {
			sb.AppendNull()
		} else {
			sb.Append([]string{"", prefix, prefix + strconv.Itoa(rng.IntN(50)), "zz" + prefix, "ÿþ", "é"}[rng.IntN(6)])
		}
		if db := b.Field(2).(*array.Decimal128Builder); null() {
			db.AppendNull()
		} else {
			db.Append(decimal128.FromI64(int64(rng.IntN(20001) - 10000)))
		}
		if db := b.Field(3).(*array.Decimal128Builder); null() {
			db.AppendNull()
		} else {
			v := decimal128.FromI64(rng.Int64N(1<<62) - 1<<61).Mul(decimal128.FromI64(int64(rng.IntN(1000)) + 1))
			db.Append(v)
		}
		if db := b.Field(4).(*array.Date32Builder); null() {
			db.AppendNull()
		} else {
			db.Append(arrow.Date32(rng.IntN(60001) - 30000))
		}
		if ub := b.Field(5).(*array.Uint64Builder); null() {
			ub.AppendNull()
		} else {
			ub.Append([]uint64{0, 1 << 63, 1<<63 - 1, math.MaxUint64, rng.Uint64()}[rng.IntN(5)])
		}
		if fb := b.Field(6).(*array.Float64Builder); null() {
			fb.AppendNull()
		} else {
			fb.Append([]float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), rng.NormFloat64() * 100}[rng.IntN(6)])
		}
		if fb := b.Field(7).(*array.Float32Builder); null() {
			fb.AppendNull()
		} else {
			fb.Append([]float32{float32(math.NaN()), 0, -1.25, float32(rng.IntN(100)) / 4}[rng.IntN(4)])
		}
		if tb := b.Field(8).(*array.TimestampBuilder); null() {
			tb.AppendNull()
		} else {
			tb.Append(arrow.Timestamp(rng.Int64N(4e15) - 2e15))
		}
		sb := b.Field(9).(*array.StructBuilder)
		if null() {
			sb.AppendNull()
		} else {
			sb.Append(true)
			if null() {
				sb.FieldBuilder(0).AppendNull()
			} else {
				sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(rng.IntN(100) - 50))
			}
			if null() {
				sb.FieldBuilder(1).AppendNull()
			} else {
				sb.FieldBuilder(1).(*array.StringBuilder).Append(prefix[:rng.IntN(len(prefix))])
			}
		}
		if bb := b.Field(10).(*array.BooleanBuilder); null() {
			bb.AppendNull()
		} else {
			bb.Append(rng.IntN(2) == 0)
		}
		if ib := b.Field(11).(*array.Int16Builder); null() {
			ib.AppendNull()
		} else {
			ib.Append(int16(rng.IntN(65536) - 32768))
		}
	}
	return b.NewRecordBatch()
}

// filterCorpus are the corpus files of the test: statistics of every kind,
// page indexes, bloom filters, INT96, decimals of every physical type.
var filterCorpus = []string{
	"alltypes_plain.parquet", "alltypes_tiny_pages.parquet", "alltypes_tiny_pages_plain.parquet",
	"data_index_bloom_encoding_stats.parquet", "data_index_bloom_encoding_with_length.parquet",
	"int32_with_null_pages.parquet", "binary_truncated_min_max.parquet", "floating_orders_nan_count.parquet",
	"int32_decimal.parquet", "int64_decimal.parquet", "fixed_length_decimal.parquet", "byte_array_decimal.parquet",
	"nan_in_stats.parquet", "nulls.snappy.parquet", "nested_structs.rust.parquet", "delta_encoding_required_column.parquet",
}

func TestFilterDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("differential test against DuckDB")
	}
	corpusDir := filepath.Join("..", "..", "shared", "testdata", "parquet-testing", "data")
	testshared.Need(t, corpusDir)
	dir := t.TempDir()
	if keep := os.Getenv("ARROWPQ_FILTER_KEEP"); keep != "" {
		dir = keep // keep the files written, to replay queries by hand
	}
	var files []*filterFile
	defer func() {
		for _, f := range files {
			f.release()
		}
	}()
	sizes := map[string]int{"lineitem": 6000, "numeric": 6000, "strings": 3000, "nested": 2000}
	for _, ds := range benchmarks.Datasets {
		rec := ds.Build(memory.DefaultAllocator, sizes[ds.Name])
		path := filepath.Join(dir, ds.Name+".parquet")
		writeFilterDataset(t, path, rec, arrowpq.WriteOptions{StatsTruncateLength: 12})
		rec.Release()
		files = append(files, loadFilterFile(t, ds.Name, path, true))
	}
	edges := buildFilterEdges(3000)
	for _, v := range []struct {
		name  string
		int96 bool
	}{{"edges", false}, {"edges_int96", true}} {
		path := filepath.Join(dir, v.name+".parquet")
		writeFilterDataset(t, path, edges, arrowpq.WriteOptions{StatsTruncateLength: 8, Int96Timestamps: v.int96})
		files = append(files, loadFilterFile(t, v.name, path, true))
	}
	edges.Release()
	for _, name := range filterCorpus {
		files = append(files, loadFilterFile(t, name, filepath.Join(corpusDir, name), false))
	}
	oracle.Need(t)

	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ARROWPQ_FILTER_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (ARROWPQ_FILTER_SEED reproduces it)", seed)
	rng := rand.New(rand.NewPCG(seed, 14))
	readRng := rand.New(rand.NewPCG(seed, 15))
	type job struct {
		file *filterFile
		pred filtLit
		bp   *arrowpq.BoundPredicate
		rows []int64
	}
	var jobs []job
	var queries []oracle.WhereQuery
	for _, ff := range files {
		cols := filtGenColumns(ff.schema, ff.batches)
		for _, c := range cols {
			if c.kind == 'f' {
				ff.floatCols = append(ff.floatCols, c.duck)
			}
		}
		n := 30
		if ff.own {
			n = 70
		}
		for range n {
			g := filtGenPredicate(rng, cols, 3)
			p, err := arrowpq.ParseFilter(g.ours)
			if err != nil {
				t.Fatalf("%s: ParseFilter(%s): %v", ff.name, g.ours, err)
			}
			bp, err := p.Bind(ff.schema, ff.meta.Schema)
			if err != nil {
				t.Fatalf("%s: Bind(%s): %v", ff.name, g.ours, err)
			}
			rows, err := ff.evaluate(bp)
			if err != nil {
				t.Fatalf("%s: Evaluate(%s): %v", ff.name, g.ours, err)
			}
			jobs = append(jobs, job{ff, g, bp, rows})
			// The same predicate through the Reader (exact, Superset, Rows).
			checkReaderFilter(t, readRng, ff, p, rows)
			abs, _ := filepath.Abs(ff.path)
			queries = append(queries, oracle.WhereQuery{File: abs, Where: g.duck})
		}
	}
	if len(jobs) < 500 {
		t.Fatalf("only %d predicates", len(jobs))
	}
	results, err := oracle.DuckDBWhere(queries)
	if err != nil {
		t.Fatal(err)
	}
	var prunedRG, prunedPages, allRG, failures int
	var duckScanBugs []string
	for i, j := range jobs {
		res := results[i]
		if res.Error != "" {
			t.Errorf("%s: DuckDB cannot run %s: %s", j.file.name, queries[i].Where, res.Error)
			failures++
		} else if !slices.Equal(j.rows, res.Table) && len(j.rows)+len(res.Table) > 0 {
			t.Errorf("%s: %s\n\tarrowpq %d rows %v\n\tDuckDB  %d rows %v\n\tDuckDB SQL: %s", j.file.name, j.pred.ours,
				len(j.rows), filtHead(j.rows), len(res.Table), filtHead(res.Table), j.pred.duck)
			failures++
		} else if !slices.Equal(res.Rows, res.Table) && len(res.Rows)+len(res.Table) > 0 {
			// DuckDB's scan of the file disagrees with DuckDB itself: its
			// pruning trusted statistics that are wrong (see
			// docs/filters.md). Our rows are DuckDB's evaluation of every
			// row. Mark predicates on float columns: the files have NaNs.
			tag := ""
			for _, c := range j.file.floatCols {
				if strings.Contains(j.pred.duck, c) {
					tag = " [float column]"
				}
			}
			duckScanBugs = append(duckScanBugs, fmt.Sprintf("%s: %s: scan %d rows, table %d rows%s", j.file.name, j.pred.duck, len(res.Rows), len(res.Table), tag))
		}
		a, b, c := checkPruning(t, j.file, j.bp, j.rows, j.pred.ours)
		prunedRG, prunedPages, allRG = prunedRG+a, prunedPages+b, allRG+c
		if failures > 20 {
			t.Fatal("too many failures")
		}
	}
	for _, b := range duckScanBugs {
		t.Logf("DuckDB's Parquet scan differs from its own evaluation: %s", b)
		// Known: fixed_length_decimal.parquet has wrong legacy min/max,
		// which DuckDB trusts; DuckDB prunes row groups whose NaNs are
		// not in min/max, which the spec requires (TYPE_ORDER leaves NaN
		// out; nan_count is what says whether a chunk holds one); and its
		// scan returns NULL rows for a string NOT BETWEEN an empty range
		// (s NOT BETWEEN 'b' AND 'a': 20 rows of 20 where 13 are not null,
		// on a file DuckDB wrote itself).
		notBetweenStrings := strings.Contains(b, "NOT BETWEEN '")
		nanRelated := strings.Contains(b, "NaN") || strings.Contains(b, "Infinity") || strings.HasSuffix(b, "[float column]")
		if !strings.HasPrefix(b, "fixed_length_decimal.parquet") && !nanRelated && !notBetweenStrings {
			t.Errorf("a DuckDB scan difference not explained by the known DuckDB issues: check it")
		}
	}
	t.Logf("%d predicates on %d files; pruning: %d row groups cannot match, %d all match, %d pages skipped",
		len(jobs), len(files), prunedRG, allRG, prunedPages)
	if prunedRG == 0 || prunedPages == 0 || allRG == 0 {
		t.Errorf("pruning never decided anything: the soundness check tested nothing")
	}
}

func filtHead(rows []int64) []int64 {
	if len(rows) > 12 {
		return rows[:12]
	}
	return rows
}

// checkPruning checks every pruning decision for one predicate against
// the exact rows; it returns the row groups that cannot match, the pages
// skipped and the row groups that all match.
func checkPruning(t *testing.T, ff *filterFile, bp *arrowpq.BoundPredicate, rows []int64, text string) (int, int, int) {
	t.Helper()
	var cannot, pages, all int
	for rg, in := range ff.prune {
		start := ff.rgStart[rg]
		n := ff.meta.Meta.RowGroups[rg].NumRows
		var sel arrowpq.RowRanges
		for _, r := range rows {
			if r >= start && r < start+n {
				sel = append(sel, arrowpq.RowRange{Start: r - start, End: r - start + 1})
			}
		}
		sel = arrowpq.NewRowRanges(sel...)
		res := bp.Prune(in)
		if ff.own && len(res.Warnings) > 0 {
			t.Errorf("%s: %s: warnings on a file we wrote: %v", ff.name, text, res.Warnings)
		}
		for _, d := range []arrowpq.Decision{res.ByStatistics, res.Decision} {
			switch {
			case d == arrowpq.CannotMatch && sel.Len() > 0:
				t.Errorf("%s: %s: row group %d pruned, but rows %v match", ff.name, text, rg, sel)
			case d == arrowpq.AllMatch && sel.Len() != n:
				t.Errorf("%s: %s: row group %d all match, but only rows %v do", ff.name, text, rg, sel)
			}
		}
		if missed := sel.Intersect(res.MayMatch.Complement(n)); len(missed) > 0 {
			t.Errorf("%s: %s: row group %d: rows %v match outside the may-match ranges %v", ff.name, text, rg, missed, res.MayMatch)
		}
		if wrong := res.AllMatch.Intersect(sel.Complement(n)); len(wrong) > 0 {
			t.Errorf("%s: %s: row group %d: rows %v do not match inside the all-match ranges", ff.name, text, rg, wrong)
		}
		if res.Decision == arrowpq.CannotMatch {
			cannot++
		}
		if res.Decision == arrowpq.AllMatch {
			all++
		}
		pages += res.PagesSkipped
	}
	return cannot, pages, all
}
