package main

import (
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// appendJSONValue appends row i of arr as a JSON value: numbers as numbers
// (NaN and infinities as strings, which JSON cannot hold), temporal values
// as ISO 8601 strings, decimals as strings (exact), binary as base64, UUIDs
// in their canonical text form, lists as arrays, structs as objects and maps
// as arrays of {"key": ..., "value": ...} objects (keys need not be strings).
func appendJSONValue(dst []byte, arr arrow.Array, i int) []byte {
	if arr.IsNull(i) {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case array.ExtensionArray:
		switch a.ExtensionType().(type) {
		case *extensions.UUIDType:
			return strconv.AppendQuote(dst, uuidText(a.Storage().(*array.FixedSizeBinary).Value(i)))
		case *extensions.JSONType:
			if s, ok := a.Storage().(*array.String); ok && jsonValid(s.Value(i)) {
				return append(dst, s.Value(i)...)
			}
		}
		return appendJSONValue(dst, a.Storage(), i)
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i))
	case *array.Float16:
		return appendJSONFloat(dst, float64(a.Value(i).Float32()), 32)
	case *array.Float32:
		return appendJSONFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return appendJSONFloat(dst, a.Value(i), 64)
	case *array.Int8, *array.Int16, *array.Int32, *array.Int64,
		*array.Uint8, *array.Uint16, *array.Uint32, *array.Uint64, *array.Duration:
		return append(dst, a.ValueStr(i)...)
	case *array.Binary:
		return appendBase64(dst, a.Value(i))
	case *array.LargeBinary:
		return appendBase64(dst, a.Value(i))
	case *array.BinaryView:
		return appendBase64(dst, a.Value(i))
	case *array.FixedSizeBinary:
		return appendBase64(dst, a.Value(i))
	case *array.Dictionary:
		return appendJSONValue(dst, a.Dictionary(), a.GetValueIndex(i))
	case *array.Map:
		start, end := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"key":`...)
			dst = appendJSONValue(dst, a.Keys(), int(j))
			dst = append(dst, `,"value":`...)
			dst = appendJSONValue(dst, a.Items(), int(j))
			dst = append(dst, '}')
		}
		return append(dst, ']')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, a.ListValues(), int(j))
		}
		return append(dst, ']')
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendQuote(dst, st.Field(f).Name)
			dst = append(dst, ':')
			dst = appendJSONValue(dst, a.Field(f), i)
		}
		return append(dst, '}')
	}
	return strconv.AppendQuote(dst, cellText(arr, i))
}

func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

func appendBase64(dst []byte, b []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, '"')
}

// jsonValid reports whether a JSON column's text parses; valid JSON is
// emitted as is so that jsonl output nests it instead of quoting it.
func jsonValid(s string) bool { return json.Valid([]byte(s)) }

// cellText renders row i of arr for the table and CSV views: plain text,
// no quoting; nested values as compact JSON.
func cellText(arr arrow.Array, i int) string {
	if arr.IsNull(i) {
		return ""
	}
	switch a := arr.(type) {
	case array.ExtensionArray:
		if _, ok := a.ExtensionType().(*extensions.UUIDType); ok {
			return uuidText(a.Storage().(*array.FixedSizeBinary).Value(i))
		}
		return cellText(a.Storage(), i)
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
		tt := a.DataType().(*arrow.TimestampType)
		t := a.Value(i).ToTime(tt.Unit)
		layout := "2006-01-02T15:04:05.999999999"
		if tt.TimeZone != "" {
			if loc, err := time.LoadLocation(tt.TimeZone); err == nil {
				t = t.In(loc)
			}
			layout += "Z07:00"
		}
		return t.Format(layout)
	case *array.Date32:
		return a.Value(i).FormattedString()
	case *array.Date64:
		return a.Value(i).FormattedString()
	case *array.Decimal32:
		return decimalText(strconv.FormatInt(int64(a.Value(i)), 10), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal64:
		return decimalText(strconv.FormatInt(int64(a.Value(i)), 10), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal128:
		return decimalText(a.Value(i).BigInt().String(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Decimal256:
		return decimalText(a.Value(i).BigInt().String(), a.DataType().(arrow.DecimalType).GetScale())
	case *array.Dictionary:
		return cellText(a.Dictionary(), a.GetValueIndex(i))
	case *array.Struct, *array.Map, array.ListLike:
		return string(appendJSONValue(nil, arr, i))
	}
	return arr.ValueStr(i)
}

// decimalText places the decimal point in the unscaled integer digits:
// exact, with scale fraction digits ("1.00" for 100 at scale 2), as SQL
// engines print decimals. arrow-go's ValueStr goes through a float and
// drops the trailing zeros.
func decimalText(digits string, scale int32) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	switch {
	case scale < 0:
		digits += strings.Repeat("0", int(-scale))
	case scale > 0:
		if len(digits) <= int(scale) {
			digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
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

func uuidText(b []byte) string {
	if len(b) != 16 {
		return "0x" + hex.EncodeToString(b)
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// recordWriter writes batches in one of the cat formats.
type recordWriter interface {
	write(rec arrow.RecordBatch) error
	flush() error
}

// jsonlWriter writes one JSON object per row: JSON lines, or with array
// the rows as one JSON array, one row per line.
type jsonlWriter struct {
	w     io.Writer
	array bool
	rows  int64
	buf   []byte
}

func (j *jsonlWriter) write(rec arrow.RecordBatch) error {
	for row := 0; row < int(rec.NumRows()); row++ {
		j.buf = j.buf[:0]
		if j.array {
			if j.rows == 0 {
				j.buf = append(j.buf, "[\n"...)
			} else {
				j.buf = append(j.buf, ",\n"...)
			}
		}
		j.rows++
		j.buf = append(j.buf, '{')
		for c, col := range rec.Columns() {
			if c > 0 {
				j.buf = append(j.buf, ',')
			}
			j.buf = strconv.AppendQuote(j.buf, rec.ColumnName(c))
			j.buf = append(j.buf, ':')
			j.buf = appendJSONValue(j.buf, col, row)
		}
		j.buf = append(j.buf, '}')
		if !j.array {
			j.buf = append(j.buf, '\n')
		}
		if _, err := j.w.Write(j.buf); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonlWriter) flush() error {
	if !j.array {
		return nil
	}
	end := "\n]\n"
	if j.rows == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// newCSVWriter returns the CSV writer of cat and convert: a header line
// (unless tf.noHeader) then one line per row; tsv or tf.delimiter choose
// the delimiter.
func newCSVWriter(w io.Writer, names *arrow.Schema, tsv bool, tf textOutput) *csvWriter {
	cw := csv.NewWriter(w)
	if tsv {
		cw.Comma = '\t'
	}
	if d := []rune(tf.delimiter); tf.delimiter == `\t` {
		cw.Comma = '\t'
	} else if len(d) == 1 {
		cw.Comma = d[0]
	}
	return &csvWriter{w: cw, names: names, header: tf.noHeader}
}

type csvWriter struct {
	w      *csv.Writer
	names  *arrow.Schema // the header, written before the first row (or alone)
	header bool
	row    []string
}

func (c *csvWriter) writeHeader() error {
	if c.header || c.names == nil {
		return nil
	}
	c.header = true
	names := make([]string, c.names.NumFields())
	for i, f := range c.names.Fields() {
		names[i] = f.Name
	}
	return c.w.Write(names)
}

func (c *csvWriter) write(rec arrow.RecordBatch) error {
	if c.names == nil {
		c.names = rec.Schema()
	}
	if err := c.writeHeader(); err != nil {
		return err
	}
	for row := 0; row < int(rec.NumRows()); row++ {
		c.row = c.row[:0]
		for _, col := range rec.Columns() {
			c.row = append(c.row, cellText(col, row))
		}
		if err := c.w.Write(c.row); err != nil {
			return err
		}
	}
	return nil
}

func (c *csvWriter) flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}
