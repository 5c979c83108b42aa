package main

// Typed column builders of convert's CSV input: the fields of a column,
// spans in the splitter's block, parsed straight into the buffers of an
// Arrow array, one loop per column and batch (no per-field interface call,
// string or builder call). The parsers accept what arrow-go's CSV reader
// accepts for each type (strconv for numbers and booleans, time.Parse's
// YYYY-MM-DD for dates, arrow-go's timestamp and decimal parsers); a
// strconv call on string(field) does not allocate, as strconv copies the
// string only into its errors.

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// csvNulls says which field texts are null.
type csvNulls struct {
	empty  bool     // "" is null
	others []string // the other null strings
}

func newCSVNulls(list []string) *csvNulls {
	n := &csvNulls{}
	for _, s := range list {
		if s == "" {
			n.empty = true
		} else {
			n.others = append(n.others, s)
		}
	}
	return n
}

func (n *csvNulls) is(f []byte) bool {
	if len(f) == 0 {
		return n.empty
	}
	for _, o := range n.others {
		if string(f) == o {
			return true
		}
	}
	return false
}

// csvFields are the fields of one column in the records of one splitter
// call: field i is s.field(first + i*stride).
type csvFields struct {
	s             *csvSplitter
	first, stride int
	n             int
}

func (c csvFields) at(i int) []byte { return c.s.field(c.first + i*c.stride) }

// csvColumn builds the array of one column batch by batch.
type csvColumn interface {
	// add appends the fields; bad is the index of the first field that
	// does not parse (the column is then unusable), or -1.
	add(f csvFields, nulls *csvNulls) (bad int)
	// finish returns the array of the values added since the last
	// finish (nil if none); the next batch gets fresh buffers, with
	// room for hint values.
	finish(hint int) arrow.Array
	// what names the type for errors: `"x" is not <what>`.
	what() string
}

// newCSVColumn returns the builder for values of type t, or nil when
// the fast reader does not parse that type.
func newCSVColumn(t arrow.DataType) csvColumn {
	var c csvColumn
	switch t := t.(type) {
	case *arrow.BooleanType:
		c = &csvBoolColumn{}
	case *arrow.Int8Type:
		c = &csvIntColumn[int8]{t: t, bits: 8}
	case *arrow.Int16Type:
		c = &csvIntColumn[int16]{t: t, bits: 16}
	case *arrow.Int32Type:
		c = &csvIntColumn[int32]{t: t, bits: 32}
	case *arrow.Int64Type:
		c = &csvIntColumn[int64]{t: t, bits: 64}
	case *arrow.Uint8Type:
		c = &csvUintColumn[uint8]{t: t, bits: 8}
	case *arrow.Uint16Type:
		c = &csvUintColumn[uint16]{t: t, bits: 16}
	case *arrow.Uint32Type:
		c = &csvUintColumn[uint32]{t: t, bits: 32}
	case *arrow.Uint64Type:
		c = &csvUintColumn[uint64]{t: t, bits: 64}
	case *arrow.Float32Type:
		c = &csvFloatColumn[float32]{t: t, bits: 32}
	case *arrow.Float64Type:
		c = &csvFloatColumn[float64]{t: t, bits: 64}
	case *arrow.Date32Type:
		c = &csvDateColumn{}
	case *arrow.TimestampType:
		loc, err := t.GetZone()
		if err != nil {
			return nil // arrow-go's reader reports the bad zone
		}
		c = &csvTimestampColumn{t: t, loc: loc}
	case *arrow.Decimal128Type:
		c = &csvDecimalColumn{t: t}
	case *arrow.StringType:
		c = &csvStringColumn[int32]{t: t, limit: math.MaxInt32}
	case *arrow.LargeStringType:
		c = &csvStringColumn[int64]{t: t, limit: math.MaxInt64}
	default:
		return nil
	}
	return c
}

// csvValidity is the validity bitmap of a column, made at the first null.
type csvValidity struct {
	bits  []byte // nil: no null so far; else a multiple of 8 bytes, for word-wise readers
	nulls int
}

// null marks value i null; room is the values the column has room for.
func (v *csvValidity) null(i, room int) {
	if v.bits == nil {
		v.bits = make([]byte, (max(i+1, room)+63)/64*8)
		for j := 0; j < i; j++ {
			v.bits[j>>3] |= 1 << (j & 7)
		}
	}
	v.grow(i)
	v.nulls++
}

// valid marks value i valid.
func (v *csvValidity) valid(i int) {
	if v.bits != nil {
		v.grow(i)
		v.bits[i>>3] |= 1 << (i & 7)
	}
}

func (v *csvValidity) grow(i int) {
	if i>>3 >= len(v.bits) {
		v.bits = append(v.bits, make([]byte, len(v.bits)+8)...)
	}
}

func (v *csvValidity) buffer() *memory.Buffer {
	if v.bits == nil {
		return nil
	}
	return memory.NewBufferBytes(v.bits)
}

// makeArray wraps the buffers of a column batch in an array.
func makeArray(t arrow.DataType, n int, v *csvValidity, bufs ...*memory.Buffer) arrow.Array {
	data := array.NewData(t, n, append([]*memory.Buffer{v.buffer()}, bufs...), nil, v.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// fixedCSVColumn is the state of a column of fixed-width values.
type fixedCSVColumn[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64] struct {
	vals  []T
	valid csvValidity
}

// array returns the array of the values so far, or nil, and starts
// afresh with room for hint values.
func (c *fixedCSVColumn[T]) array(t arrow.DataType, hint int) arrow.Array {
	var a arrow.Array
	if len(c.vals) > 0 {
		a = makeArray(t, len(c.vals), &c.valid, memory.NewBufferBytes(fixedBytes(c.vals)))
	}
	c.vals = nil
	if hint > 0 {
		c.vals = make([]T, 0, hint)
	}
	c.valid = csvValidity{}
	return a
}

// push appends v, or a null.
func (c *fixedCSVColumn[T]) push(v T, null bool) {
	i := len(c.vals)
	c.vals = append(c.vals, v)
	if null {
		c.valid.null(i, cap(c.vals))
	} else {
		c.valid.valid(i)
	}
}

type csvIntColumn[T int8 | int16 | int32 | int64] struct {
	fixedCSVColumn[T]
	t    arrow.DataType
	bits int
}

func (c *csvIntColumn[T]) what() string { return "an integer (" + c.t.String() + ")" }

func (c *csvIntColumn[T]) finish(hint int) arrow.Array {
	return c.array(c.t, hint)
}

func (c *csvIntColumn[T]) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		if nulls.is(b) {
			c.push(0, true)
			continue
		}
		v, ok := parseCSVInt(b)
		if !ok {
			x, err := strconv.ParseInt(string(b), 10, c.bits)
			if err != nil {
				return i
			}
			v = x
		} else if c.bits < 64 && (v < -1<<(c.bits-1) || v >= 1<<(c.bits-1)) {
			return i
		}
		c.push(T(v), false)
	}
	return -1
}

// parseCSVInt parses [+-]digits of up to 18 digits, which cannot
// overflow; ok false for anything else (strconv decides then).
func parseCSVInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

type csvUintColumn[T uint8 | uint16 | uint32 | uint64] struct {
	fixedCSVColumn[T]
	t    arrow.DataType
	bits int
}

func (c *csvUintColumn[T]) what() string { return "an unsigned integer (" + c.t.String() + ")" }

func (c *csvUintColumn[T]) finish(hint int) arrow.Array {
	return c.array(c.t, hint)
}

func (c *csvUintColumn[T]) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		if nulls.is(b) {
			c.push(0, true)
			continue
		}
		v, err := strconv.ParseUint(string(b), 10, c.bits)
		if err != nil {
			return i
		}
		c.push(T(v), false)
	}
	return -1
}

type csvFloatColumn[T float32 | float64] struct {
	fixedCSVColumn[T]
	t    arrow.DataType
	bits int
}

func (c *csvFloatColumn[T]) what() string { return "a number (" + c.t.String() + ")" }

func (c *csvFloatColumn[T]) finish(hint int) arrow.Array {
	return c.array(c.t, hint)
}

func (c *csvFloatColumn[T]) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		if nulls.is(b) {
			c.push(0, true)
			continue
		}
		if c.bits == 64 {
			if v, ok := parseCSVFloat(b); ok {
				c.push(T(v), false)
				continue
			}
		}
		v, err := strconv.ParseFloat(string(b), c.bits)
		if err != nil {
			return i
		}
		c.push(T(v), false)
	}
	return -1
}

// float64Pow10 are the powers of ten a float64 holds exactly.
var float64Pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseCSVFloat parses [+-]digits[.digits] with at most 18 digits whose
// value is below 2^53: the mantissa and the power of ten are then exact
// float64s and one division rounds correctly (Clinger's fast path, the
// one strconv takes first for such input, so the results are equal).
// ok false for anything else.
func parseCSVFloat(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for i, c := range b {
		d := c - '0'
		if d <= 9 {
			m = m*10 + uint64(d)
			digits++
			continue
		}
		if c == '.' && frac < 0 {
			frac = i
			continue
		}
		return 0, false
	}
	if digits == 0 || digits > 18 || m >= 1<<53 {
		return 0, false
	}
	scale := 0
	if frac >= 0 {
		scale = len(b) - frac - 1
	}
	v := float64(m)
	if scale > 0 {
		v /= float64Pow10[scale] // scale <= 18
	}
	if neg {
		v = -v
	}
	return v, true
}

type csvDateColumn struct {
	fixedCSVColumn[int32]
}

func (c *csvDateColumn) what() string { return "a date (YYYY-MM-DD)" }

func (c *csvDateColumn) finish(hint int) arrow.Array {
	return c.array(arrow.FixedWidthTypes.Date32, hint)
}

func (c *csvDateColumn) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		if nulls.is(b) {
			c.push(0, true)
			continue
		}
		d, ok := parseDate(b)
		if !ok {
			return i
		}
		c.push(int32(d), false)
	}
	return -1
}

// csvTimestampColumn parses as arrow-go's TimestampBuilder.AppendValueFromString:
// an integer is the value itself; else a date and time, whose zone offset
// must be present exactly when the type has a time zone.
type csvTimestampColumn struct {
	fixedCSVColumn[int64]
	t   *arrow.TimestampType
	loc *time.Location
}

func (c *csvTimestampColumn) what() string { return "a timestamp (" + c.t.String() + ")" }

func (c *csvTimestampColumn) finish(hint int) arrow.Array {
	return c.array(c.t, hint)
}

func (c *csvTimestampColumn) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		if nulls.is(b) || string(b) == array.NullValueStr {
			c.push(0, true)
			continue
		}
		if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			c.push(v, false)
			continue
		}
		v, zone, err := arrow.TimestampFromStringInLocation(string(b), c.t.Unit, c.loc)
		if err != nil || zone != (c.t.TimeZone != "") {
			return i
		}
		c.push(int64(v), false)
	}
	return -1
}

type csvDecimalColumn struct {
	vals  []decimal128.Num
	valid csvValidity
	t     *arrow.Decimal128Type
}

func (c *csvDecimalColumn) what() string { return "a decimal (" + c.t.String() + ")" }

func (c *csvDecimalColumn) finish(hint int) arrow.Array {
	var a arrow.Array
	if len(c.vals) > 0 {
		b := arrow.Decimal128Traits.CastToBytes(c.vals)
		a = makeArray(c.t, len(c.vals), &c.valid, memory.NewBufferBytes(b))
	}
	c.vals = nil
	if hint > 0 {
		c.vals = make([]decimal128.Num, 0, hint)
	}
	c.valid = csvValidity{}
	return a
}

func (c *csvDecimalColumn) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		null := nulls.is(b)
		var v decimal128.Num
		if !null {
			var err error
			if v, err = decimal128.FromString(string(b), c.t.Precision, c.t.Scale); err != nil {
				return i
			}
		}
		j := len(c.vals)
		c.vals = append(c.vals, v)
		if null {
			c.valid.null(j, cap(c.vals))
		} else {
			c.valid.valid(j)
		}
	}
	return -1
}

type csvBoolColumn struct {
	vals  []byte // bitmap, a multiple of 8 bytes
	n     int
	valid csvValidity
}

func (c *csvBoolColumn) what() string { return "a boolean" }

func (c *csvBoolColumn) finish(hint int) arrow.Array {
	var a arrow.Array
	if c.n > 0 {
		a = makeArray(arrow.FixedWidthTypes.Boolean, c.n, &c.valid, memory.NewBufferBytes(c.vals))
	}
	c.vals = make([]byte, (max(hint, 1)+63)/64*8)
	c.n = 0
	c.valid = csvValidity{}
	return a
}

func (c *csvBoolColumn) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		null := nulls.is(b)
		v := false
		if !null {
			var err error
			if v, err = strconv.ParseBool(string(b)); err != nil {
				return i
			}
		}
		j := c.n
		if j>>3 >= len(c.vals) {
			c.vals = append(c.vals, make([]byte, len(c.vals)+8)...)
		}
		c.n++
		if v {
			c.vals[j>>3] |= 1 << (j & 7)
		}
		if null {
			c.valid.null(j, len(c.vals)*8)
		} else {
			c.valid.valid(j)
		}
	}
	return -1
}

// csvStringColumn appends the fields to one data buffer. A batch's data
// buffer is sized from the previous batch's.
type csvStringColumn[O int32 | int64] struct {
	offsets []O
	data    []byte
	valid   csvValidity
	t       arrow.DataType
	limit   int64 // the most bytes the offsets can address
}

func (c *csvStringColumn[O]) what() string {
	return fmt.Sprintf("a string (at most %d bytes of text per batch)", c.limit)
}

func (c *csvStringColumn[O]) finish(hint int) arrow.Array {
	var a arrow.Array
	dataHint := 0
	if len(c.offsets) > 1 {
		a = makeArray(c.t, len(c.offsets)-1, &c.valid, memory.NewBufferBytes(fixedBytes(c.offsets)), memory.NewBufferBytes(c.data))
		if hint > 0 {
			dataHint = len(c.data) + len(c.data)/8
		}
	}
	c.offsets = make([]O, 1, hint+1)
	c.data = nil
	if dataHint > 0 {
		c.data = make([]byte, 0, dataHint)
	}
	c.valid = csvValidity{}
	return a
}

func (c *csvStringColumn[O]) add(f csvFields, nulls *csvNulls) int {
	if c.offsets == nil {
		c.offsets = []O{0}
	}
	for i := range f.n {
		b := f.at(i)
		j := len(c.offsets) - 1
		if nulls.is(b) {
			c.valid.null(j, cap(c.offsets)-1)
		} else {
			c.data = append(c.data, b...)
			c.valid.valid(j)
		}
		if int64(len(c.data)) > c.limit {
			return i
		}
		c.offsets = append(c.offsets, O(len(c.data)))
	}
	return -1
}

// fixedBytes views the values of s as bytes.
func fixedBytes[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](s []T) []byte {
	switch v := any(s).(type) {
	case []int8:
		return arrow.Int8Traits.CastToBytes(v)
	case []int16:
		return arrow.Int16Traits.CastToBytes(v)
	case []int32:
		return arrow.Int32Traits.CastToBytes(v)
	case []int64:
		return arrow.Int64Traits.CastToBytes(v)
	case []uint8:
		return v
	case []uint16:
		return arrow.Uint16Traits.CastToBytes(v)
	case []uint32:
		return arrow.Uint32Traits.CastToBytes(v)
	case []uint64:
		return arrow.Uint64Traits.CastToBytes(v)
	case []float32:
		return arrow.Float32Traits.CastToBytes(v)
	case []float64:
		return arrow.Float64Traits.CastToBytes(v)
	}
	panic(fmt.Sprintf("fixedBytes: %T", s))
}
