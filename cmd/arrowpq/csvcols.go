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
	// finish; the column starts again with room for n values.
	finish(n int) arrow.Array
	// what names the type for errors: `"x" is not <what>`.
	what() string
}

// newCSVColumn returns the builder for values of type t, or nil when
// the fast reader does not parse that type.
func newCSVColumn(t arrow.DataType, n int) csvColumn {
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
	c.finish(n)
	return c
}

// csvValidity is the validity bitmap of a column, made at the first null.
type csvValidity struct {
	bits  []byte // nil: no null so far
	nulls int
}

// null marks value i (of a batch of room n) null.
func (v *csvValidity) null(i, n int) {
	if v.bits == nil {
		v.bits = make([]byte, (n+63)/64*8) // a multiple of 8 bytes, for word-wise readers
		for j := 0; j < i; j++ {
			v.bits[j>>3] |= 1 << (j & 7)
		}
	}
	v.nulls++
}

// valid marks value i valid.
func (v *csvValidity) valid(i int) {
	if v.bits != nil {
		v.bits[i>>3] |= 1 << (i & 7)
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
	room  int
}

func (c *fixedCSVColumn[T]) reset(n int) {
	c.vals = make([]T, 0, max(n, 1))
	c.valid = csvValidity{}
	c.room = max(n, 1)
}

func (c *fixedCSVColumn[T]) array(t arrow.DataType) arrow.Array {
	if c.vals == nil {
		return nil
	}
	n := len(c.vals)
	var zero T
	size := n * int(sizeOf(zero))
	b := fixedBytes(c.vals)[:size]
	return makeArray(t, n, &c.valid, memory.NewBufferBytes(b))
}

// push appends v, or a null, growing past the batch's room when needed.
func (c *fixedCSVColumn[T]) push(v T, null bool) {
	i := len(c.vals)
	if i == c.room {
		c.room *= 2
		if c.valid.bits != nil {
			c.valid.bits = append(c.valid.bits, make([]byte, len(c.valid.bits))...)
		}
	}
	c.vals = append(c.vals, v)
	if null {
		c.valid.null(i, c.room)
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

func (c *csvIntColumn[T]) finish(n int) arrow.Array {
	a := c.array(c.t)
	c.reset(n)
	return a
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

func (c *csvUintColumn[T]) finish(n int) arrow.Array {
	a := c.array(c.t)
	c.reset(n)
	return a
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

func (c *csvFloatColumn[T]) finish(n int) arrow.Array {
	a := c.array(c.t)
	c.reset(n)
	return a
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

func (c *csvDateColumn) finish(n int) arrow.Array {
	a := c.array(arrow.FixedWidthTypes.Date32)
	c.reset(n)
	return a
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

func (c *csvTimestampColumn) finish(n int) arrow.Array {
	a := c.array(c.t)
	c.reset(n)
	return a
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
	room  int
}

func (c *csvDecimalColumn) what() string { return "a decimal (" + c.t.String() + ")" }

func (c *csvDecimalColumn) finish(n int) arrow.Array {
	var a arrow.Array
	if c.vals != nil {
		b := arrow.Decimal128Traits.CastToBytes(c.vals)
		a = makeArray(c.t, len(c.vals), &c.valid, memory.NewBufferBytes(b))
	}
	c.vals = make([]decimal128.Num, 0, max(n, 1))
	c.valid = csvValidity{}
	c.room = max(n, 1)
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
		if j == c.room {
			c.room *= 2
			if c.valid.bits != nil {
				c.valid.bits = append(c.valid.bits, make([]byte, len(c.valid.bits))...)
			}
		}
		c.vals = append(c.vals, v)
		if null {
			c.valid.null(j, c.room)
		} else {
			c.valid.valid(j)
		}
	}
	return -1
}

type csvBoolColumn struct {
	vals  []byte // bitmap
	n     int
	valid csvValidity
	room  int
}

func (c *csvBoolColumn) what() string { return "a boolean" }

func (c *csvBoolColumn) finish(n int) arrow.Array {
	var a arrow.Array
	if c.vals != nil {
		a = makeArray(arrow.FixedWidthTypes.Boolean, c.n, &c.valid, memory.NewBufferBytes(c.vals))
	}
	c.room = max(n, 1)
	c.vals = make([]byte, (c.room+63)/64*8)
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
		if j == c.room {
			c.room *= 2
			c.vals = append(c.vals, make([]byte, len(c.vals))...)
			if c.valid.bits != nil {
				c.valid.bits = append(c.valid.bits, make([]byte, len(c.valid.bits))...)
			}
		}
		c.n++
		if v {
			c.vals[j>>3] |= 1 << (j & 7)
		}
		if null {
			c.valid.null(j, c.room)
		} else {
			c.valid.valid(j)
		}
	}
	return -1
}

// csvStringColumn appends the fields to one data buffer. The data of a
// batch is sized from the previous batch's.
type csvStringColumn[O int32 | int64] struct {
	offsets []O
	data    []byte
	valid   csvValidity
	t       arrow.DataType
	room    int
	limit   int64 // the most bytes the offsets can address
}

func (c *csvStringColumn[O]) what() string {
	return fmt.Sprintf("a string (at most %d bytes of text per batch)", c.limit)
}

func (c *csvStringColumn[O]) finish(n int) arrow.Array {
	var a arrow.Array
	dataHint := 0
	if c.offsets != nil {
		var zero O
		ob := fixedBytes(c.offsets)[:len(c.offsets)*int(sizeOf(zero))]
		a = makeArray(c.t, len(c.offsets)-1, &c.valid, memory.NewBufferBytes(ob), memory.NewBufferBytes(c.data))
		dataHint = len(c.data) + len(c.data)/8
	}
	c.room = max(n, 1)
	c.offsets = make([]O, 1, c.room+1)
	c.data = make([]byte, 0, dataHint)
	c.valid = csvValidity{}
	return a
}

func (c *csvStringColumn[O]) add(f csvFields, nulls *csvNulls) int {
	for i := range f.n {
		b := f.at(i)
		j := len(c.offsets) - 1
		if j == c.room {
			c.room *= 2
			if c.valid.bits != nil {
				c.valid.bits = append(c.valid.bits, make([]byte, len(c.valid.bits))...)
			}
		}
		if nulls.is(b) {
			c.valid.null(j, c.room)
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

// sizeOf is the size in bytes of a fixed-width value.
func sizeOf[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](T) uintptr {
	var z T
	switch any(z).(type) {
	case int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32, float32:
		return 4
	}
	return 8
}

// fixedBytes views the values of s as bytes (the capacity's worth).
func fixedBytes[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](s []T) []byte {
	switch v := any(s).(type) {
	case []int8:
		return arrow.Int8Traits.CastToBytes(v[:cap(v)])
	case []int16:
		return arrow.Int16Traits.CastToBytes(v[:cap(v)])
	case []int32:
		return arrow.Int32Traits.CastToBytes(v[:cap(v)])
	case []int64:
		return arrow.Int64Traits.CastToBytes(v[:cap(v)])
	case []uint8:
		return v[:cap(v)]
	case []uint16:
		return arrow.Uint16Traits.CastToBytes(v[:cap(v)])
	case []uint32:
		return arrow.Uint32Traits.CastToBytes(v[:cap(v)])
	case []uint64:
		return arrow.Uint64Traits.CastToBytes(v[:cap(v)])
	case []float32:
		return arrow.Float32Traits.CastToBytes(v[:cap(v)])
	case []float64:
		return arrow.Float64Traits.CastToBytes(v[:cap(v)])
	}
	panic(fmt.Sprintf("fixedBytes: %T", s))
}
