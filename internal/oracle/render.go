// Package oracle renders Arrow data in the canonical JSON-lines form of
// ../shared/oracle (the README's "Canonical rendering") and runs the
// independent engines behind ../shared/oracle/dump.mjs, so that tests can
// compare what arrowpq reads with what DuckDB, arrow-rs and hyparquet read.
//
// It is test support: only tests import it.
package oracle

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// RenderRecord appends one canonical JSON line per row of rec to dst.
func RenderRecord(dst []byte, rec arrow.RecordBatch) ([]byte, error) {
	for row := 0; row < int(rec.NumRows()); row++ {
		dst = append(dst, '{')
		for i, col := range rec.Columns() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendQuote(dst, rec.ColumnName(i))
			dst = append(dst, ':')
			var err error
			if dst, err = renderValue(dst, col, row); err != nil {
				return dst, fmt.Errorf("column %s row %d: %w", rec.ColumnName(i), row, err)
			}
		}
		dst = append(dst, '}', '\n')
	}
	return dst, nil
}

// RenderTable renders every row of tbl.
func RenderTable(tbl arrow.Table) ([]byte, error) {
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	var out []byte
	for tr.Next() {
		var err error
		if out, err = RenderRecord(out, tr.RecordBatch()); err != nil {
			return out, err
		}
	}
	return out, tr.Err()
}

func quoted(dst []byte, s string) []byte { return strconv.AppendQuote(dst, s) }

func appendHex(dst []byte, b []byte) []byte {
	dst = append(dst, '"', '0', 'x')
	dst = hex.AppendEncode(dst, b)
	return append(dst, '"')
}

func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case f == 0 && math.Signbit(f):
		return append(dst, `"-0"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

func unitSuffix(u arrow.TimeUnit) (string, int64) {
	switch u {
	case arrow.Second:
		return "ms", 1000 // Parquet has no seconds: shown in ms
	case arrow.Millisecond:
		return "ms", 1
	case arrow.Microsecond:
		return "us", 1
	default:
		return "ns", 1
	}
}

func renderValue(dst []byte, arr arrow.Array, i int) ([]byte, error) {
	// An extension array may call a value null that its storage holds
	// (arrow-go's Variant array says so of a Variant null); the canonical
	// form shows the stored data.
	if ext, ok := arr.(array.ExtensionArray); ok {
		if _, isUUID := ext.ExtensionType().(*extensions.UUIDType); !isUUID {
			return renderValue(dst, ext.Storage(), i)
		}
	}
	if arr.IsNull(i) {
		return append(dst, "null"...), nil
	}
	switch a := arr.(type) {
	case array.ExtensionArray:
		switch a.ExtensionType().(type) {
		case *extensions.UUIDType:
			return appendHex(dst, a.Storage().(*array.FixedSizeBinary).Value(i)), nil
		}
		return renderValue(dst, a.Storage(), i)
	case *array.Null:
		return append(dst, "null"...), nil
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), nil
	case *array.Int8:
		return quoted(dst, strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Int16:
		return quoted(dst, strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Int32:
		return quoted(dst, strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Int64:
		return quoted(dst, strconv.FormatInt(a.Value(i), 10)), nil
	case *array.Uint8:
		return quoted(dst, strconv.FormatUint(uint64(a.Value(i)), 10)), nil
	case *array.Uint16:
		return quoted(dst, strconv.FormatUint(uint64(a.Value(i)), 10)), nil
	case *array.Uint32:
		return quoted(dst, strconv.FormatUint(uint64(a.Value(i)), 10)), nil
	case *array.Uint64:
		return quoted(dst, strconv.FormatUint(a.Value(i), 10)), nil
	case *array.Duration:
		return quoted(dst, strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32())), nil
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i))), nil
	case *array.Float64:
		return appendFloat(dst, a.Value(i)), nil
	case *array.String:
		return quoted(dst, a.Value(i)), nil
	case *array.LargeString:
		return quoted(dst, a.Value(i)), nil
	case *array.StringView:
		return quoted(dst, a.Value(i)), nil
	case *array.Binary:
		return appendHex(dst, a.Value(i)), nil
	case *array.LargeBinary:
		return appendHex(dst, a.Value(i)), nil
	case *array.BinaryView:
		return appendHex(dst, a.Value(i)), nil
	case *array.FixedSizeBinary:
		return appendHex(dst, a.Value(i)), nil
	case *array.Date32:
		return quoted(dst, "date:"+strconv.FormatInt(int64(a.Value(i)), 10)), nil
	case *array.Date64:
		ms := int64(a.Value(i))
		if ms%86400000 == 0 {
			return quoted(dst, "date:"+strconv.FormatInt(ms/86400000, 10)), nil
		}
		return quoted(dst, strconv.FormatInt(ms, 10)), nil
	case *array.Time32:
		suffix, mul := unitSuffix(a.DataType().(*arrow.Time32Type).Unit)
		return quoted(dst, "time:"+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Time64:
		suffix, mul := unitSuffix(a.DataType().(*arrow.Time64Type).Unit)
		return quoted(dst, "time:"+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		suffix, mul := unitSuffix(tt.Unit)
		prefix := "ts:"
		if tt.TimeZone != "" {
			prefix = "tsz:"
		}
		return quoted(dst, prefix+strconv.FormatInt(int64(a.Value(i))*mul, 10)+suffix), nil
	case *array.Decimal32:
		scale := a.DataType().(*arrow.Decimal32Type).Scale
		return quoted(dst, decimalText(big.NewInt(int64(a.Value(i))), scale)), nil
	case *array.Decimal64:
		scale := a.DataType().(*arrow.Decimal64Type).Scale
		return quoted(dst, decimalText(big.NewInt(int64(a.Value(i))), scale)), nil
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return quoted(dst, decimalText(decimal128BigInt(a.Value(i)), scale)), nil
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return quoted(dst, decimalText(decimal256BigInt(a.Value(i)), scale)), nil
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		if v.Nanoseconds%1_000_000 != 0 {
			return dst, fmt.Errorf("interval with sub-millisecond nanoseconds %d", v.Nanoseconds)
		}
		return quoted(dst, fmt.Sprintf("interval:%dmo%dd%dms", v.Months, v.Days, v.Nanoseconds/1_000_000)), nil
	case *array.DayTimeInterval:
		v := a.Value(i)
		return quoted(dst, fmt.Sprintf("interval:?mo%dd%dms", v.Days, v.Milliseconds)), nil
	case *array.MonthInterval:
		return quoted(dst, fmt.Sprintf("interval:%dmo?d?ms", a.Value(i))), nil
	case *array.Dictionary:
		return renderValue(dst, a.Dictionary(), a.GetValueIndex(i))
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			var err error
			if dst, err = renderValue(dst, keys, int(j)); err != nil {
				return dst, err
			}
			dst = append(dst, ',')
			if dst, err = renderValue(dst, items, int(j)); err != nil {
				return dst, err
			}
			dst = append(dst, ']')
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
			if dst, err = renderValue(dst, values, int(j)); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendQuote(dst, st.Field(f).Name)
			dst = append(dst, ':')
			var err error
			if dst, err = renderValue(dst, a.Field(f), i); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("no canonical rendering for %s", arr.DataType())
}

func decimal128BigInt(n decimal128.Num) *big.Int { return n.BigInt() }
func decimal256BigInt(n decimal256.Num) *big.Int { return n.BigInt() }

// decimalText renders unscaled × 10^-scale with exactly scale fraction digits.
func decimalText(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	if scale > 0 {
		for int32(len(digits)) <= scale {
			digits = "0" + digits
		}
		digits = digits[:int32(len(digits))-scale] + "." + digits[int32(len(digits))-scale:]
	} else if scale < 0 {
		digits += string(bytes.Repeat([]byte{'0'}, int(-scale)))
	}
	if neg {
		return "-" + digits
	}
	return digits
}
