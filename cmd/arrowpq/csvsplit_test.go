package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// splitAll splits all of in with the splitter (first buffer block bytes,
// reads through wrap) and returns the records up to the first error.
func splitAll(in []byte, comma byte, block, max int, wrap func(io.Reader) io.Reader) ([][]string, error) {
	sp := newCSVSplitter(wrap(bytes.NewReader(in)), comma)
	sp.block = block
	var out [][]string
	for {
		n, err := sp.next(max)
		for i := range n {
			var rec []string
			for j := recStart(sp, i); j < sp.recEnd[i]; j++ {
				rec = append(rec, string(sp.field(j)))
			}
			out = append(out, rec)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, errors.New("next returned no record and no error")
		}
	}
}

// stdSplit reads all of in with encoding/csv as arrow-go's reader sets
// it up (any field count, no lazy quotes).
func stdSplit(in []byte, comma byte) ([][]string, error) {
	r := csv.NewReader(bytes.NewReader(in))
	r.Comma = rune(comma)
	r.FieldsPerRecord = -1
	var out [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// randomCSV writes rows of random fields: text with delimiters, quotes,
// LF, CR, CRLF, spaces, UTF-8 and null strings, quoted when it must be
// (and sometimes when not), LF or CRLF line ends, empty lines, a BOM
// sometimes, a final newline or not.
func randomCSV(rng *rand.Rand, comma byte) []byte {
	pieces := []string{"a", "bc", "12", "-3.5", string(comma), `"`, `""`, "\n", "\r", "\r\n", " ", "é", "NA", "null", "2024-01-02"}
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.Write(utf8BOM)
	}
	rows, cols := rng.IntN(20), 1+rng.IntN(5)
	crlf := rng.IntN(2) == 0
	for r := range rows {
		if rng.IntN(10) == 0 {
			b.WriteString("\n") // an empty line
		}
		for c := range cols {
			if c > 0 {
				b.WriteByte(comma)
			}
			var f strings.Builder
			for range rng.IntN(4) {
				f.WriteString(pieces[rng.IntN(len(pieces))])
			}
			s := f.String()
			if strings.ContainsAny(s, "\"\r\n"+string(comma)) || rng.IntN(5) == 0 || (cols == 1 && s == "") {
				s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
			}
			b.WriteString(s)
		}
		if r < rows-1 || rng.IntN(2) == 0 {
			if crlf {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
		}
	}
	return b.Bytes()
}

// readers are the ways the tests feed the splitter: whole, one byte a
// time, and half reads.
var readers = map[string]func(io.Reader) io.Reader{
	"whole":   func(r io.Reader) io.Reader { return r },
	"onebyte": iotest.OneByteReader,
	"half":    iotest.HalfReader,
}

// checkSplit compares the splitter with encoding/csv on in: the same
// records, and an error exactly when encoding/csv has one.
func checkSplit(t *testing.T, in []byte, comma byte) {
	t.Helper()
	want, wantErr := stdSplit(in, comma)
	for name, wrap := range readers {
		for _, block := range []int{1, 7, 64, csvBlockSize} {
			for _, max := range []int{1, 3, 1 << 20} {
				got, err := splitAll(in, comma, block, max, wrap)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("%q (%s, block %d, max %d): err %v, encoding/csv %v", in, name, block, max, err, wantErr)
				}
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q (%s, block %d, max %d):\n got %q\nwant %q", in, name, block, max, got, want)
				}
			}
		}
	}
}

// TestCSVSplitMatchesEncodingCSV: the splitter against encoding/csv on
// hand-picked edge cases and random valid CSV.
func TestCSVSplitMatchesEncodingCSV(t *testing.T) {
	for _, in := range []string{
		"", "\n", "\r\n", "\r", "a", "a\r", "a\r\r", "a,b\n", "a,b", "a,b\r\n", "a,\n", ",\n", ",",
		"\n\na\n\n", "\r\n\r\nb\r\n", "a\rb,c\n", `"a"`, `"a"` + "\r", `"a""b",c`, `"a` + "\r\n" + `b"` + "\r\n",
		`"a` + "\n\n" + `b",c` + "\n", `"",""`, `""""`, `"a,b",c`, `x,"y` + "\r\r\n" + `z"`,
		// errors
		`a"b`, `"a"b`, `"a`, "\"a\n", `"a" ,b`, "a,\"b\n\"c", `"a"` + "\rb\n", `,"`,
	} {
		t.Run(strconv.Quote(in), func(t *testing.T) { checkSplit(t, []byte(in), ',') })
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for range 300 {
		comma := []byte{',', '\t', ';', '|'}[rng.IntN(4)]
		checkSplit(t, randomCSV(rng, comma), comma)
	}
}

// TestCSVSplitLongLines: records far longer than the block, bare and
// quoted, across many refills and buffer growths; an input longer than
// the first block.
func TestCSVSplitLongLines(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	in := "a," + long + "\n\"" + long + "\n" + long + `""` + "\",b\n" + strings.Repeat("1,2\n", 1000)
	checkSplit(t, []byte(in), ',')
	// Past the first block, as the buffer doubles: 260 KB.
	checkSplit(t, []byte(strings.Repeat("1,\"a\"\"b\",c\r\n", 20000)), ',')
}

// TestCSVSplitRecordLimit: a quote never closed makes the whole rest of
// the input one record; past csvMaxRecord that is an error at the
// record's line instead of a buffer as large as the input.
func TestCSVSplitRecordLimit(t *testing.T) {
	defer func(n int) { csvMaxRecord = n }(csvMaxRecord)
	csvMaxRecord = 256 << 10
	in := "a,b\n1,2\n3,\"" + strings.Repeat("x,y\n", 200<<10)
	_, err := splitAll([]byte(in), ',', 64<<10, 1000, readers["half"])
	var se *csvSyntaxError
	if !errors.As(err, &se) || !errors.Is(err, errCSVLong) || se.Line != 3 {
		t.Fatalf("err %v, want errCSVLong at line 3", err)
	}
	// Under the limit the same shape is read as encoding/csv reads it.
	csvMaxRecord = 4 << 20
	in = "a,b\n1,\"" + strings.Repeat("x,y\n", 100<<10) + "\"\n"
	checkSplit(t, []byte(in), ',')
}

// FuzzCSVSplit: on any input the splitter returns what encoding/csv
// returns, and errors where it errors; it never panics.
func FuzzCSVSplit(f *testing.F) {
	f.Add([]byte("a,b\r\n\"c\"\"d\",\"e\nf\"\n"), byte(','))
	f.Add([]byte("\xef\xbb\xbfx\ty\n1\t\n"), byte('\t'))
	f.Add([]byte(`"a"b`), byte(','))
	f.Add([]byte("a\r"), byte(';'))
	f.Fuzz(func(t *testing.T, in []byte, comma byte) {
		if comma == '"' || comma == '\r' || comma == '\n' || comma >= 0x80 || comma == 0 {
			comma = ','
		}
		want, wantErr := stdSplit(in, comma)
		for _, block := range []int{3, 4096} {
			got, err := splitAll(in, comma, block, 2, readers["half"])
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("%q: err %v, encoding/csv %v", in, err, wantErr)
			}
			if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
				t.Fatalf("%q:\n got %q\nwant %q", in, got, want)
			}
		}
	})
}

// TestCSVNumberParsers: the fast integer and float parsers against
// strconv, on edge cases and random numbers of every length.
func TestCSVNumberParsers(t *testing.T) {
	ints := []string{"0", "-0", "+0", "7", "-", "+", "", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"1_000", "0x10", " 1", "1 ", "00012"}
	floats := []string{"0", "-0", "-0.00", ".5", "5.", ".", "-.", "1.5", "129710.40", "0.1", "0.3", "1e5", "1E-3",
		"123456789012345678", "9007199254740993", "9007199254740992", "900719925474099.3", "0.000000000000000001",
		"1.2.3", "+1.25", "inf", "NaN", "0x1p3", "1_0", "00000000000000000001.5"}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		n := 1 + rng.IntN(20)
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteByte('-')
		}
		dot := rng.IntN(n + 2)
		for i := range n {
			if i == dot {
				b.WriteByte('.')
			}
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		ints = append(ints, b.String())
		floats = append(floats, b.String())
	}
	for _, s := range ints {
		got, ok := parseCSVInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		if ok && (err != nil || got != want) {
			t.Errorf("parseCSVInt(%q) = %d; strconv: %d %v", s, got, want, err)
		}
	}
	for _, s := range floats {
		got, ok := parseCSVFloat([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if ok && (err != nil || math.Float64bits(got) != math.Float64bits(want)) {
			t.Errorf("parseCSVFloat(%q) = %v; strconv: %v %v", s, got, want, err)
		}
	}
	for _, s := range []string{"129710.40", "-0.00", "12", ".5", "5."} {
		if _, ok := parseCSVFloat([]byte(s)); !ok {
			t.Errorf("parseCSVFloat(%q) took the slow path", s)
		}
	}
}

// typedCSV writes random rows for the columns of typedSchema, with the
// null strings among them, quoted at random.
func typedCSV(rng *rand.Rand, rows int, nulls []string) string {
	var b strings.Builder
	b.WriteString("i8,i64,u16,f32,f64,b,d,ts,tsz,dec,s,ls\r\n")
	pick := func(vals ...string) string {
		if rng.IntN(6) == 0 {
			return nulls[rng.IntN(len(nulls))]
		}
		return vals[rng.IntN(len(vals))]
	}
	for range rows {
		row := []string{
			pick("-128", "127", "0", "+5", strconv.Itoa(rng.IntN(256)-128)),
			pick("9223372036854775807", "-9223372036854775808", strconv.FormatInt(rng.Int64()-rng.Int64(), 10), "007"),
			pick("65535", "0", strconv.Itoa(rng.IntN(65536))),
			pick("1.5", "-0.25", "3.4e38", strconv.FormatFloat(rng.Float64(), 'f', -1, 32)),
			pick("129710.40", "-0.00", "1e300", "0.1", strconv.FormatFloat(rng.NormFloat64()*1e6, 'f', rng.IntN(6), 64), "9007199254740993"),
			pick("true", "false", "1", "0", "T", "FALSE"),
			pick("1970-01-01", "2024-02-29", "0001-12-31", "9999-12-31"),
			pick("2024-01-02 03:04:05", "2024-01-02T03:04:05.123456", "1700000000", "2024-01-02"),
			pick("2024-01-02 03:04:05+01:00", "2024-01-02T03:04:05Z"),
			pick("1.50", "-99999.99", "0", "12.3"),
			pick("", "a", "\"quoted, with\nnewline\"", "é", "NA ", strings.Repeat("long", 50)),
			pick("x", "\"y,z\"", "\"\"\"\""),
		}
		b.WriteString(strings.Join(row, ","))
		b.WriteString("\n")
	}
	return b.String()
}

var typedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "tsz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
}, nil)

// readSource returns the batches of src, concatenated per column.
func readSource(t *testing.T, src *batchSource) []arrow.Array {
	t.Helper()
	var recs []arrow.RecordBatch
	for {
		rec, err := src.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	src.close()
	out := make([]arrow.Array, src.schema.NumFields())
	for c := range out {
		var parts []arrow.Array
		for _, r := range recs {
			parts = append(parts, r.Column(c))
		}
		if len(parts) == 0 {
			continue
		}
		a, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		out[c] = a
	}
	return out
}

// TestFastCSVMatchesArrowCSV: the splitter and typed parsers give the
// arrays arrow-go's CSV reader gives, for every type they parse, with
// several null string lists, batch sizes and delimiters.
func TestFastCSVMatchesArrowCSV(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	for _, nulls := range [][]string{{""}, {"NA"}, {"", "NA", "null"}} {
		for _, batch := range []int{1, 7, 1000} {
			for _, comma := range []rune{',', ';'} {
				name := fmt.Sprintf("nulls=%q/batch=%d/comma=%c", nulls, batch, comma)
				t.Run(name, func(t *testing.T) {
					in := typedCSV(rng, 300, nulls)
					if comma != ',' {
						in = strings.ReplaceAll(in, ",", string(comma))
					}
					fast := openFastCSV(strings.NewReader(in), typedSchema, comma, true, nulls, batch)
					if fast == nil {
						t.Fatal("no fast reader for the schema")
					}
					got := readSource(t, fast)
					want := readSource(t, openArrowCSV(strings.NewReader(in), typedSchema, comma, true, nulls, batch))
					for c := range got {
						if !array.Equal(got[c], want[c]) {
							t.Errorf("column %s:\n got %v\nwant %v", typedSchema.Field(c).Name, got[c], want[c])
						}
					}
				})
			}
		}
	}
}

// TestFastCSVErrors: a value that does not parse and a ragged row name
// the line, the row and the column.
func TestFastCSVErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"i8\n1\n\"2\"\n\n300\n", `csv: line 5, row 3, column "i8": "300" is not an integer (int8)`},
		{"i8\n1\n2,3\n", `csv: line 3: 2 fields, want 1 (as the header or --schema has)`},
		{"i8\n1\n\"2\n", `csv: line 3, column 1: quoted field not closed at the end of input`},
		{"i8\n1\n" + strings.Repeat(",", 1000) + "\n", `csv: line 3, column 1: too many fields`},
		{"i8\n1\n\"\"" + strings.Repeat(",", 1000) + "\n", `csv: line 3, column 69: too many fields`},
		{"i8\n1\n2\"\n", `csv: line 3, column 2: bare " in non-quoted field`},
	} {
		schema := arrow.NewSchema([]arrow.Field{{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, nil)
		src := openFastCSV(strings.NewReader(tc.in), schema, ',', true, []string{""}, 2)
		err := readAllSource(src)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err %v, want %s", tc.in, err, tc.want)
		}
	}
}

// BenchmarkCSVRead reads 20,000 lineitem-like rows (4 integers, 4
// two-digit decimals as float64, 3 dates, 5 strings, one quoted with a
// comma in every tenth row) with the splitter and column parsers
// (impl=arrowpq) and with arrow-go's CSV reader (impl=arrowcsv). Bytes
// are the CSV text.
func BenchmarkCSVRead(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	sb.WriteString("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p\n")
	modes := []string{"AIR", "MAIL", "REG AIR", "SHIP", "TRUCK"}
	for r := range 20000 {
		date := func() string { return fmt.Sprintf("199%d-%02d-%02d", rng.IntN(8), 1+rng.IntN(12), 1+rng.IntN(28)) }
		comment := "dolphins asymptotes requests"
		if r%10 == 0 {
			comment = `"carefully, final"`
		}
		fmt.Fprintf(&sb, "%d,%d,%d,%d,%d.00,%d.%02d,0.0%d,0.0%d,N,F,%s,%s,%s,TAKE BACK RETURN,%s,%s\n",
			r*4, rng.IntN(200000), rng.IntN(10000), 1+rng.IntN(7), 1+rng.IntN(50), rng.IntN(100000), rng.IntN(100),
			rng.IntN(10), rng.IntN(9), date(), date(), date(), modes[rng.IntN(len(modes))], comment)
	}
	in := sb.String()
	var fields []arrow.Field
	for i, t := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date32,
		arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.BinaryTypes.String} {
		fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: t, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	for _, impl := range []string{"arrowpq", "arrowcsv"} {
		b.Run("impl="+impl, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var src *batchSource
				if impl == "arrowpq" {
					src = openFastCSV(strings.NewReader(in), schema, ',', true, []string{""}, defaultBatchRows)
				} else {
					src = openArrowCSV(strings.NewReader(in), schema, ',', true, []string{""}, defaultBatchRows)
				}
				if err := readAllSource(src); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(20000*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestOpenCSVMatchesArrowCSV: CSV input as convert opens it (a BOM, CRLF
// header, inferred types, the null strings, a final newline or not)
// reads the same arrays as arrow-go's reader with the inferred schema.
func TestOpenCSVMatchesArrowCSV(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for _, nulls := range [][]string{nil, {"NA"}, {"", "NA", "null"}} {
		for _, final := range []bool{true, false} {
			t.Run(fmt.Sprintf("nulls=%q/final_newline=%v", nulls, final), func(t *testing.T) {
				list := nulls
				if list == nil {
					list = []string{""}
				}
				in := typedCSV(rng, 500, list)
				if !final {
					in = strings.TrimSuffix(in, "\n")
				}
				opts := &sourceOptions{text: textOptions{nulls: nulls, sampleRows: 1000, batchRows: 64}}
				src, err := openCSV(strings.NewReader("\xef\xbb\xbf"+in), fmtCSV, opts)
				if err != nil {
					t.Fatal(err)
				}
				schema := src.schema
				got := readSource(t, src)
				if got[0] == nil || got[0].Len() != 500 {
					t.Fatalf("%d columns, first %v", len(got), got[0])
				}
				want := readSource(t, openArrowCSV(strings.NewReader(in), schema, ',', true, list, 64))
				for c := range got {
					if !array.Equal(got[c], want[c]) {
						t.Errorf("column %s (%s):\n got %v\nwant %v", schema.Field(c).Name, schema.Field(c).Type, got[c], want[c])
					}
				}
			})
		}
	}
}
