package main

// CSV and TSV input: type inference over a sample (read with
// encoding/csv), BOM removal and the null strings list; the rows are read
// by csvsplit.go and csvcols.go, or arrow-go's arrow/csv as the fallback.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// textOptions are the options of CSV and JSON input.
type textOptions struct {
	delimiter  string   // "" : comma for CSV, tab for TSV
	noHeader   bool     // the first line is data; columns are column0, column1, ...
	nulls      []string // strings read as null (nil: just the empty string)
	sampleRows int      // rows read to infer types
	batchRows  int      // rows per batch
}

// Defaults of textOptions.
const (
	defaultSampleRows = 10_000
	defaultBatchRows  = 64 * 1024
	maxSampleBytes    = 64 << 20 // a sample stops here whatever its row count
)

func (o *textOptions) nullList() []string {
	if o.nulls == nil {
		return []string{""}
	}
	return o.nulls
}

// openCSV reads CSV (or TSV) from r: a sample of rows is parsed first to
// infer the schema (unless --schema gives it), then the sample is read
// again with the rest: by our splitter and column parsers (csvsplit.go,
// csvcols.go), or by arrow-go's CSV reader for what they do not handle
// (a delimiter beyond ASCII; types other than booleans, integers, floats,
// Decimal128, strings, Date32 and timestamps).
func openCSV(r io.Reader, format string, opts *sourceOptions) (*batchSource, error) {
	to := opts.text
	comma := ','
	if format == fmtTSV {
		comma = '\t'
	}
	if to.delimiter != "" {
		d := []rune(to.delimiter)
		if d[0] == '\\' && to.delimiter == `\t` {
			d = []rune{'\t'}
		}
		if len(d) != 1 || d[0] == '"' || d[0] == '\r' || d[0] == '\n' {
			return nil, &usageError{fmt.Sprintf("--delimiter %q: want one character other than a quote or a newline", to.delimiter)}
		}
		comma = d[0]
	}
	sampleRows := to.sampleRows
	if sampleRows <= 0 {
		sampleRows = defaultSampleRows
	}
	batchRows := to.batchRows
	if batchRows <= 0 {
		batchRows = defaultBatchRows
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		br.Discard(3)
	}
	// The sample: whole lines up to sampleRows records or maxSampleBytes.
	// It is kept and read again by the real reader.
	var sample bytes.Buffer
	sr := csv.NewReader(io.TeeReader(&limitedLines{r: br, max: maxSampleBytes}, &sample))
	sr.Comma = comma
	sr.FieldsPerRecord = -1
	sr.ReuseRecord = false
	var records [][]string
	var sampleErr error
	for len(records) <= sampleRows {
		rec, err := sr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			sampleErr = err
			break
		}
		records = append(records, rec)
	}
	if sampleErr != nil && !errors.Is(sampleErr, errSampleFull) {
		return nil, fmt.Errorf("csv: %w", sampleErr)
	}
	if len(records) == 0 && opts.schema == nil {
		return nil, errors.New("csv: no header line (empty input); give the columns with --schema")
	}
	var names []string
	if to.noHeader {
		n := 0
		if len(records) > 0 {
			n = len(records[0])
		}
		for i := range n {
			names = append(names, "column"+strconv.Itoa(i))
		}
	} else if len(records) > 0 {
		names = dedupNames(records[0])
		records = records[1:]
	}
	// The last record of a full sample may be cut: leave it out.
	if errors.Is(sampleErr, errSampleFull) && len(records) > 0 {
		records = records[:len(records)-1]
	}
	nulls := to.nullList()
	schema := opts.schema
	if schema == nil {
		fields := make([]arrow.Field, len(names))
		for c, name := range names {
			var col columnGuess
			for _, rec := range records {
				if c < len(rec) && !isNullText(rec[c], nulls) {
					col.see(rec[c])
				}
			}
			fields[c] = arrow.Field{Name: name, Type: col.dataType(), Nullable: true}
		}
		schema = arrow.NewSchema(fields, nil)
	} else {
		if len(names) > 0 && !to.noHeader && len(names) != schema.NumFields() {
			return nil, fmt.Errorf("csv: the header has %d columns but --schema %d", len(names), schema.NumFields())
		}
		for _, f := range schema.Fields() {
			if !csvType(f.Type) {
				return nil, fmt.Errorf("csv: column %q: CSV cannot hold %s (nested types need JSON or Parquet)", f.Name, f.Type)
			}
		}
	}
	// The reader reads the sample again, then the rest of the input.
	rest := io.MultiReader(bytes.NewReader(sample.Bytes()), br)
	if src := openFastCSV(rest, schema, comma, !to.noHeader && len(names) > 0, nulls, batchRows); src != nil {
		return src, nil
	}
	return openArrowCSV(rest, schema, comma, !to.noHeader && len(names) > 0, nulls, batchRows), nil
}

// openArrowCSV reads CSV from r with arrow-go's CSV reader, the fallback
// of openFastCSV. header: the first record is the header and is skipped.
func openArrowCSV(r io.Reader, schema *arrow.Schema, comma rune, header bool, nulls []string, batchRows int) *batchSource {
	// Dates are read as strings and converted here: arrow-go's CSV reader
	// parses each with time.Parse, which was 13% of a 1 GB convert with
	// three date columns (profile in docs/performance.md).
	readSchema, dateCols := datesAsStrings(schema)
	cr := arrowcsv.NewReader(r, readSchema,
		arrowcsv.WithComma(comma),
		arrowcsv.WithHeader(header),
		arrowcsv.WithNullReader(true, nulls...),
		arrowcsv.WithChunk(batchRows))
	var rows int64
	return &batchSource{schema: schema, kv: map[string]string{}, total: -1, release: true,
		close: func() error { cr.Release(); return nil },
		next: func() (arrow.RecordBatch, error) {
			if cr.Next() {
				rec := cr.RecordBatch()
				out, err := convertDates(rec, schema, dateCols, rows)
				rows += rec.NumRows()
				return out, err
			}
			if err := cr.Err(); err != nil {
				return nil, fmt.Errorf("csv: %w (%d rows read before)", err, rows)
			}
			return nil, io.EOF
		}}
}

// datesAsStrings returns schema with its Date32 fields made strings, and
// their indices.
func datesAsStrings(schema *arrow.Schema) (*arrow.Schema, []int) {
	var cols []int
	fields := schema.Fields()
	for i, f := range fields {
		if f.Type.ID() == arrow.DATE32 {
			cols = append(cols, i)
			fields[i].Type = arrow.BinaryTypes.String
		}
	}
	if len(cols) == 0 {
		return schema, nil
	}
	return arrow.NewSchema(fields, nil), cols
}

// convertDates returns rec under schema with the string columns at
// dateCols parsed as dates; the caller releases the result. firstRow
// numbers rec's first row for errors.
func convertDates(rec arrow.RecordBatch, schema *arrow.Schema, dateCols []int, firstRow int64) (arrow.RecordBatch, error) {
	cols := append([]arrow.Array(nil), rec.Columns()...)
	var made []arrow.Array
	defer func() {
		for _, a := range made {
			a.Release()
		}
	}()
	for _, c := range dateCols {
		strs := cols[c].(*array.String)
		b := array.NewDate32Builder(memory.DefaultAllocator)
		b.Reserve(strs.Len())
		for i := 0; i < strs.Len(); i++ {
			if strs.IsNull(i) {
				b.AppendNull()
				continue
			}
			d, ok := parseDate(strs.Value(i))
			if !ok {
				b.Release()
				return nil, fmt.Errorf("csv: row %d, column %q: %q is not a date (YYYY-MM-DD)", firstRow+int64(i)+1, schema.Field(c).Name, strs.Value(i))
			}
			b.UnsafeAppend(d)
		}
		a := b.NewArray()
		b.Release()
		made = append(made, a)
		cols[c] = a
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}

// parseDate reads YYYY-MM-DD (what time.Parse("2006-01-02") accepts:
// four-digit year, a real day of the month) as days since 1970-01-01.
func parseDate[S ~string | ~[]byte](s S) (arrow.Date32, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	y0, y1, y2, y3 := s[0]-'0', s[1]-'0', s[2]-'0', s[3]-'0'
	m0, m1, d0, d1 := s[5]-'0', s[6]-'0', s[8]-'0', s[9]-'0'
	if y0 > 9 || y1 > 9 || y2 > 9 || y3 > 9 || m0 > 9 || m1 > 9 || d0 > 9 || d1 > 9 {
		return 0, false
	}
	y := int(y0)*1000 + int(y1)*100 + int(y2)*10 + int(y3)
	m := int(m0)*10 + int(m1)
	d := int(d0)*10 + int(d1)
	if m < 1 || m > 12 || d < 1 || d > daysIn(m, y) {
		return 0, false
	}
	// Years 1900-2155 by table: the civil-date arithmetic was 3% of a
	// 1 GB lineitem convert (three date columns).
	if i := y - 1900; uint(i) < uint(len(yearStart)) {
		days := yearStart[i] + daysBeforeMonth[m] + int32(d) - 1
		if m > 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			days++
		}
		return arrow.Date32(days), true
	}
	return arrow.Date32(daysFromCivil(y, m, d)), true
}

// yearStart[i] is the day number of year 1900+i's January 1st.
var yearStart = func() (t [256]int32) {
	for i := range t {
		t[i] = int32(daysFromCivil(1900+i, 1, 1))
	}
	return t
}()

// daysBeforeMonth[m] counts the days of a common year before month m.
var daysBeforeMonth = [13]int32{0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to y-m-d in the proleptic
// Gregorian calendar (Howard Hinnant's days_from_civil algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// csvType reports whether CSV text can hold values of type t.
func csvType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.MAP, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.DENSE_UNION, arrow.SPARSE_UNION:
		return false
	}
	return true
}

// errSampleFull ends a sample that reached its byte limit.
var errSampleFull = errors.New("sample full")

// limitedLines reads from r until max bytes have gone by and then up to
// the end of the line, then reports errSampleFull.
type limitedLines struct {
	r   *bufio.Reader
	max int64
	n   int64
}

func (l *limitedLines) Read(p []byte) (int, error) {
	if l.n >= l.max {
		return 0, errSampleFull
	}
	if int64(len(p)) > l.max-l.n {
		p = p[:l.max-l.n]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

func isNullText(s string, nulls []string) bool {
	for _, n := range nulls {
		if s == n {
			return true
		}
	}
	return false
}

// dedupNames makes header names unique and non-empty, as DuckDB does:
// an empty name becomes column<i>, a repeated one gets _1, _2, ...
func dedupNames(header []string) []string {
	out := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		if h == "" {
			h = "column" + strconv.Itoa(i)
		}
		name := h
		for k := 1; seen[name]; k++ {
			name = h + "_" + strconv.Itoa(k)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

// columnGuess narrows the type of a text column down as values are seen:
// each value clears the candidates it does not parse as. The first
// candidate left in the order bool, int64, float64, date, timestamp,
// timestamp with zone wins; none left is string. DuckDB's sniffer picks
// the same names for these shapes (VARCHAR for a column of nulls).
type columnGuess struct {
	seen  bool
	cand  guessSet
	nanos bool // a timestamp has more than 6 fraction digits
}

type guessSet uint8

const (
	gBool guessSet = 1 << iota
	gInt
	gFloat
	gDate
	gTimestamp
	gTimestampTZ
	gAll = gBool | gInt | gFloat | gDate | gTimestamp | gTimestampTZ
)

func (g *columnGuess) see(s string) {
	if !g.seen {
		g.seen, g.cand = true, gAll
	}
	if g.cand == 0 {
		return
	}
	g.cand &= textKinds(s)
	if g.cand&(gTimestamp|gTimestampTZ) != 0 && len(s) > 26 && s[19] == '.' {
		d := 0
		for d < len(s)-20 && s[20+d] >= '0' && s[20+d] <= '9' {
			d++
		}
		g.nanos = g.nanos || d > 6
	}
}

func (g *columnGuess) dataType() arrow.DataType {
	t := kindType(g.cand, g.seen)
	if tt, ok := t.(*arrow.TimestampType); ok && g.nanos {
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: tt.TimeZone}
	}
	return t
}

func kindType(c guessSet, seen bool) arrow.DataType {
	switch {
	case !seen || c == 0:
		return arrow.BinaryTypes.String
	case c&gBool != 0:
		return arrow.FixedWidthTypes.Boolean
	case c&gInt != 0:
		return arrow.PrimitiveTypes.Int64
	case c&gFloat != 0:
		return arrow.PrimitiveTypes.Float64
	case c&gDate != 0:
		return arrow.FixedWidthTypes.Date32
	case c&gTimestamp != 0:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	default:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	}
}

// textKinds returns the kinds text s parses as, with the parsers arrow-go's
// CSV reader uses for them, so that a guess never fails to read.
func textKinds(s string) guessSet {
	var k guessSet
	if s == "" {
		return 0
	}
	switch strings.ToLower(s) {
	case "true", "false":
		if _, err := strconv.ParseBool(s); err == nil {
			k |= gBool
		}
		return k
	}
	c := s[0]
	if c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9' {
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return gInt | gFloat
		}
		if plainFloat(s) {
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return gFloat
			}
		}
	}
	if len(s) >= 10 && s[4] == '-' {
		if len(s) == 10 {
			if _, err := time.Parse("2006-01-02", s); err == nil {
				k |= gDate | gTimestamp
			}
			return k
		}
		if _, zone, err := arrow.TimestampFromStringInLocation(s, arrow.Nanosecond, time.UTC); err == nil {
			if zone {
				k |= gTimestampTZ
			} else {
				k |= gTimestamp
			}
		}
	}
	return k
}

// plainFloat reports whether s is digits with an optional sign, point
// and exponent: no hex, underscores, inf or nan, which ParseFloat also
// takes but CSV writers do not mean as numbers.
func plainFloat(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// openFastCSV reads CSV from r with the splitter and the typed column
// parsers, or returns nil when they cannot read it (see openCSV).
// header: the first record is the header and is skipped.
func openFastCSV(r io.Reader, schema *arrow.Schema, comma rune, header bool, nullList []string, batchRows int) *batchSource {
	ncols := schema.NumFields()
	if comma >= utf8.RuneSelf || ncols == 0 {
		return nil
	}
	cols := make([]csvColumn, ncols)
	for i, f := range schema.Fields() {
		if cols[i] = newCSVColumn(f.Type); cols[i] == nil {
			return nil
		}
	}
	sp := newCSVSplitter(r, byte(comma))
	sp.maxFields = 2*ncols + 64 // more is an error anyway: stop early
	nulls := newCSVNulls(nullList)
	var rows int64 // rows in earlier batches
	done := false
	next := func() (arrow.RecordBatch, error) {
		n := 0 // rows in this batch
		for !done && n < batchRows {
			// A few records at a time, so that the column passes over
			// their bytes find them in the cache: with whole 4 MiB
			// blocks, loading a field was 14% of a 1 GB convert.
			want := min(batchRows-n, csvChunkRows)
			if header {
				want++
			}
			k, err := sp.next(want)
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				done = true
				return nil, fmt.Errorf("csv: %w", err)
			}
			for i := range k {
				if got := sp.recEnd[i] - recStart(sp, i); got != ncols {
					done = true
					return nil, fmt.Errorf("csv: line %d: %d fields, want %d (as the header or --schema has)", sp.recLine[i], got, ncols)
				}
			}
			r0 := 0
			if header {
				r0, header = 1, false
			}
			first := recStart(sp, r0)
			for c, col := range cols {
				f := csvFields{s: sp, first: first + c, stride: ncols, n: k - r0}
				if bad := col.add(f, nulls); bad >= 0 {
					done = true
					v := f.at(bad)
					if len(v) > 100 {
						v = append(v[:100:100], "..."...)
					}
					return nil, fmt.Errorf("csv: line %d, row %d, column %q: %q is not %s",
						sp.recLine[r0+bad], rows+int64(n+bad)+1, schema.Field(c).Name, v, col.what())
				}
			}
			n += k - r0
		}
		if n == 0 {
			return nil, io.EOF
		}
		// Buffers for a whole batch only after a full one: a small
		// input gets small buffers.
		hint := 0
		if n == batchRows {
			hint = batchRows
		}
		arrs := make([]arrow.Array, ncols)
		for c, col := range cols {
			arrs[c] = col.finish(hint)
		}
		rec := array.NewRecordBatch(schema, arrs, int64(n))
		for _, a := range arrs {
			a.Release()
		}
		rows += int64(n)
		return rec, nil
	}
	return &batchSource{schema: schema, kv: map[string]string{}, total: -1, release: true,
		close: func() error { return nil }, next: next}
}

// csvChunkRows is the most records split and parsed in one step.
const csvChunkRows = 1024

// recStart is the index of the first field of record i of the
// splitter's last call.
func recStart(sp *csvSplitter, i int) int {
	if i == 0 {
		return 0
	}
	return sp.recEnd[i-1]
}
