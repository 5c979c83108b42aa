// Package arrowjson renders Arrow values as JSON and as plain text. It is
// the one renderer of the module: the CLI's jsonl, JSON, CSV and table
// output (Readable) and the test oracle's canonical JSON lines
// (Canonical, the "Canonical rendering" of ../shared/oracle/README.md,
// which dump.mjs prints for DuckDB, arrow-rs and hyparquet).
//
// The two styles differ only where their purposes do: Canonical shows the
// Parquet logical value in a form every engine can produce (integers as
// strings so that JavaScript loses no digits, dates as day numbers,
// binary as hex, maps as [key, value] pairs); Readable is what a person or
// another tool reads back (numbers as numbers, ISO 8601 dates and times,
// binary as base64, maps as {"key", "value"} objects, which arrow-go's
// JSON reader reads back).
package arrowjson

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// Style selects a rendering.
type Style uint8

const (
	// Readable is the CLI's rendering: see the package comment.
	Readable Style = iota
	// Canonical is the oracle's rendering (../shared/oracle/README.md).
	Canonical
)

// AppendRow appends row of rec as one JSON object, keys in column order,
// without a line end.
func AppendRow(dst []byte, rec arrow.RecordBatch, row int, st Style) ([]byte, error) {
	dst = append(dst, '{')
	for c, col := range rec.Columns() {
		if c > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, rec.ColumnName(c), st)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendValue(dst, col, row, st); err != nil {
			return dst, fmt.Errorf("column %s row %d: %w", rec.ColumnName(c), row, err)
		}
	}
	return append(dst, '}'), nil
}

// AppendValue appends row i of arr as a JSON value. Only Canonical
// returns errors: for types it has no rendering for (Readable falls back
// to the quoted text of [Text]).
func AppendValue(dst []byte, arr arrow.Array, i int, st Style) ([]byte, error) {
	if ext, ok := arr.(array.ExtensionArray); ok && st == Canonical {
		// An extension array may call a value null that its storage holds
		// (arrow-go's Variant array says so of a Variant null); the
		// canonical form shows the stored data.
		if _, isUUID := ext.ExtensionType().(*extensions.UUIDType); !isUUID {
			return AppendValue(dst, ext.Storage(), i, st)
		}
	}
	if arr.IsNull(i) {
		return append(dst, "null"...), nil
	}
	canon := st == Canonical
	switch a := arr.(type) {
	case array.ExtensionArray:
		switch a.ExtensionType().(type) {
		case *extensions.UUIDType:
			b := a.Storage().(*array.FixedSizeBinary).Value(i)
			if canon {
				return appendHex(dst, b), nil
			}
			return strconv.AppendQuote(dst, UUIDText(b)), nil
		case *extensions.JSONType:
			// Valid JSON is emitted as is, so that it nests.
			if s, ok := a.Storage().(*array.String); ok && json.Valid([]byte(s.Value(i))) {
				return append(dst, s.Value(i)...), nil
			}
		}
		return AppendValue(dst, a.Storage(), i, st)
	case *array.Null:
		return append(dst, "null"...), nil
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), nil
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64, *array.Duration:
		// Integers are exact in a JSON number, but not in JavaScript's
		// float64: the canonical form quotes them. A duration is its
		// number of units (ValueStr would add the unit).
		s := a.ValueStr(i)
		if d, ok := a.(*array.Duration); ok {
			s = strconv.FormatInt(int64(d.Value(i)), 10)
		}
		if canon {
			return strconv.AppendQuote(dst, s), nil
		}
		return append(dst, s...), nil
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32()), 32, st), nil
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32, st), nil
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64, st), nil
	case *array.String:
		return appendString(dst, a.Value(i), st), nil
	case *array.LargeString:
		return appendString(dst, a.Value(i), st), nil
	case *array.StringView:
		return appendString(dst, a.Value(i), st), nil
	case *array.Binary:
		return appendBytes(dst, a.Value(i), st), nil
	case *array.LargeBinary:
		return appendBytes(dst, a.Value(i), st), nil
	case *array.BinaryView:
		return appendBytes(dst, a.Value(i), st), nil
	case *array.FixedSizeBinary:
		return appendBytes(dst, a.Value(i), st), nil
	case *array.Dictionary:
		return AppendValue(dst, a.Dictionary(), a.GetValueIndex(i), st)
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			if canon {
				dst = append(dst, '[')
			} else {
				dst = append(dst, `{"key":`...)
			}
			var err error
			if dst, err = AppendValue(dst, keys, int(j), st); err != nil {
				return dst, err
			}
			if canon {
				dst = append(dst, ',')
			} else {
				dst = append(dst, `,"value":`...)
			}
			if dst, err = AppendValue(dst, items, int(j), st); err != nil {
				return dst, err
			}
			if canon {
				dst = append(dst, ']')
			} else {
				dst = append(dst, '}')
			}
		}
		return append(dst, ']'), nil
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		values := a.ListValues()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = AppendValue(dst, values, int(j), st); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *array.Struct:
		stt := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, stt.Field(f).Name, st)
			dst = append(dst, ':')
			var err error
			if dst, err = AppendValue(dst, a.Field(f), i, st); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	if !canon {
		if ts, ok := arr.(*array.Timestamp); ok {
			if _, inRange := timestampTime(ts, i); !inRange {
				// Outside years 0-9999 ISO 8601 text does not read back:
				// the number of units since the epoch does.
				return strconv.AppendInt(dst, int64(ts.Value(i)), 10), nil
			}
		}
		return appendString(dst, Text(arr, i), st), nil
	}
	return appendCanonicalScalar(dst, arr, i)
}

// appendCanonicalScalar renders the temporal, decimal and interval types
// in the canonical form.
func appendCanonicalScalar(dst []byte, arr arrow.Array, i int) ([]byte, error) {
	q := strconv.AppendQuote
	switch a := arr.(type) {
	case *array.Date32:
		return q(dst, "date:"+strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Date64:
		ms := int64(a.Value(i))
		if ms%86400000 == 0 {
			return q(dst, "date:"+strconv.FormatInt(ms/86400000, 10)), nil
		}
		return q(dst, strconv.FormatInt(ms, 10)), nil
	case *array.Time32:
		suffix, mul := unitSuffix(a.DataType().(*arrow.Time32Type).Unit)
		return q(dst, "time:"+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Time64:
		suffix, mul := unitSuffix(a.DataType().(*arrow.Time64Type).Unit)
		return q(dst, "time:"+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		suffix, mul := unitSuffix(tt.Unit)
		prefix := "ts:"
		if tt.TimeZone != "" {
			prefix = "tsz:"
		}
		return q(dst, prefix+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Decimal32, *array.Decimal64, *array.Decimal128, *array.Decimal256:
		return q(dst, Text(arr, i)), nil
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		if v.Nanoseconds%1_000_000 != 0 {
			return dst, fmt.Errorf("interval with sub-millisecond nanoseconds %d", v.Nanoseconds)
		}
		return q(dst, fmt.Sprintf("interval:%dmo%dd%dms", v.Months, v.Days, v.Nanoseconds/1_000_000)), nil
	case *array.DayTimeInterval:
		v := a.Value(i)
		return q(dst, fmt.Sprintf("interval:?mo%dd%dms", v.Days, v.Milliseconds)), nil
	case *array.MonthInterval:
		return q(dst, fmt.Sprintf("interval:%dmo?d?ms", a.Value(i))), nil
	}
	return dst, fmt.Errorf("no canonical rendering for %s", arr.DataType())
}

// unitSuffix names a time unit in the canonical form; Parquet has no
// seconds, so Arrow second values are shown in ms.
func unitSuffix(u arrow.TimeUnit) (string, int64) {
	switch u {
	case arrow.Second:
		return "ms", 1000
	case arrow.Millisecond:
		return "ms", 1
	case arrow.Microsecond:
		return "us", 1
	default:
		return "ns", 1
	}
}

// appendFloat renders a float: Canonical widens to float64 and prints
// its shortest form (as JavaScript does) and spells -0; Readable prints
// the shortest form at the value's own width (0.1 for float32 0.1).
// NaN and the infinities, which JSON lacks, are strings in both.
func appendFloat(dst []byte, f float64, bits int, st Style) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	if st == Canonical {
		if f == 0 && math.Signbit(f) {
			return append(dst, `"-0"`...)
		}
		bits = 64
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// appendString quotes s. Readable writes JSON escapes (any JSON reader
// reads it); Canonical keeps strconv's quoting, which the oracle's
// comparisons were built on.
func appendString(dst []byte, s string, st Style) []byte {
	if st == Canonical {
		return strconv.AppendQuote(dst, s)
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, fmt.Sprintf(`\u%04x`, c)...)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendBytes(dst []byte, b []byte, st Style) []byte {
	if st == Canonical {
		return appendHex(dst, b)
	}
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

func appendHex(dst []byte, b []byte) []byte {
	dst = append(dst, '"', '0', 'x')
	dst = hex.AppendEncode(dst, b)
	return append(dst, '"')
}

// Text renders row i of arr as plain text, for tables and CSV and for
// the Readable JSON of temporal and decimal values: no quoting, "" for
// null, ISO 8601 dates and timestamps (with the offset when the type has
// a time zone; years past 9999 have more digits), exact decimals, binary as text when printable UTF-8 else 0x
// hex, and nested values as Readable JSON.
func Text(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return ""
	}
	switch a := arr.(type) {
	case array.ExtensionArray:
		if _, ok := a.ExtensionType().(*extensions.UUIDType); ok {
			return UUIDText(a.Storage().(*array.FixedSizeBinary).Value(i))
		}
		return Text(a.Storage(), i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.StringView:
		return a.Value(i)
	case *array.Binary:
		return binaryText(a.Value(i))
	case *array.LargeBinary:
		return binaryText(a.Value(i))
	case *array.BinaryView:
		return binaryText(a.Value(i))
	case *array.FixedSizeBinary:
		return binaryText(a.Value(i))
	case *array.Float32:
		return strconv.FormatFloat(float64(a.Value(i)), 'g', -1, 32)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Timestamp:
		t, _ := timestampTime(a, i)
		layout := "2006-01-02T15:04:05.999999999"
		if a.DataType().(*arrow.TimestampType).TimeZone != "" {
			layout += "Z07:00"
		}
		return t.Format(layout)
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Date32:
		return dateText(int64(a.Value(i)))
	case *array.Date64:
		return a.Value(i).FormattedString()
	case *array.Decimal32:
		return DecimalText(big.NewInt(int64(a.Value(i))), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal64:
		return DecimalText(big.NewInt(int64(a.Value(i))), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal128:
		return DecimalText(a.Value(i).BigInt(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal256:
		return DecimalText(a.Value(i).BigInt(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Dictionary:
		return Text(a.Dictionary(), a.GetValueIndex(i))
	case *array.Struct, *array.Map, array.ListLike:
		b, _ := AppendValue(nil, arr, i, Readable)
		return string(b)
	}
	return arr.ValueStr(i)
}

// dateText renders days since 1970-01-01 as YYYY-MM-DD, as
// arrow.Date32.FormattedString does, without going through time.Time
// (the format call was the largest cost of writing CSV dates).
func dateText(days int64) string {
	y, m, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		return time.Unix(days*86400, 0).UTC().Format("2006-01-02")
	}
	b := [10]byte{
		byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
		byte('0' + m/10), byte('0' + m%10), '-', byte('0' + d/10), byte('0' + d%10),
	}
	return string(b[:])
}

// civilFromDays is the inverse of days-from-civil (Howard Hinnant's
// algorithm): the proleptic Gregorian date of a day number.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// timestampTime returns the time of row i in the type's zone, and whether
// its year is within 0-9999 (what ISO 8601 text holds).
func timestampTime(a *array.Timestamp, i int) (time.Time, bool) {
	tt := a.DataType().(*arrow.TimestampType)
	t := a.Value(i).ToTime(tt.Unit)
	if tt.TimeZone != "" {
		if loc, err := time.LoadLocation(tt.TimeZone); err == nil {
			t = t.In(loc)
		}
	}
	return t, t.Year() >= 0 && t.Year() <= 9999
}

// DecimalText renders unscaled × 10^-scale with exactly scale fraction
// digits ("1.00" for 100 at scale 2), as SQL engines print decimals.
func DecimalText(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	switch {
	case scale > 0:
		if int32(len(digits)) <= scale {
			digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
		}
		digits = digits[:int32(len(digits))-scale] + "." + digits[int32(len(digits))-scale:]
	case scale < 0:
		digits += strings.Repeat("0", int(-scale))
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// binaryText shows bytes as text when they are printable UTF-8, else as
// 0x-prefixed hex.
func binaryText(b []byte) string {
	if utf8.Valid(b) {
		printable := true
		for _, r := range string(b) {
			if r < 0x20 && r != '\t' || r == 0x7f {
				printable = false
				break
			}
		}
		if printable {
			return string(b)
		}
	}
	return "0x" + hex.EncodeToString(b)
}

// UUIDText renders 16 bytes in the canonical UUID form.
func UUIDText(b []byte) string {
	if len(b) != 16 {
		return "0x" + hex.EncodeToString(b)
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
