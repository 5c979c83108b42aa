package arrowpq_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func off32(v ...int32) *memory.Buffer {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return memory.NewBufferBytes(b)
}

func off64(v ...int64) *memory.Buffer {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return memory.NewBufferBytes(b)
}

func bytesBuf(s string) *memory.Buffer { return memory.NewBufferBytes([]byte(s)) }

// bits is a validity bitmap with the given slots set.
func bits(n int, set ...int) *memory.Buffer {
	b := make([]byte, (n+7)/8)
	for _, i := range set {
		b[i/8] |= 1 << (i % 8)
	}
	return memory.NewBufferBytes(b)
}

func strData(off *memory.Buffer, data string, n int) arrow.ArrayData {
	return array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{nil, off, bytesBuf(data)}, nil, 0, 0)
}

// malformedCases are arrays whose buffers contradict their type or length,
// each with the column path the error must name and a word of its message.
// Values and offsets are hand-written; every one was a panic or a silent
// out-of-bounds read in the writer before validation.
//
// arrow-go checks a few things when an array is made (the last offset of a
// string array, a values buffer long enough for the typed view): those
// cases make a good array and patch its buffers afterwards, as a caller
// reusing buffers could.
func malformedCases() []malformedCase {
	goodStr := strData(off32(0, 1, 2), "ab", 2)
	goodDict := strData(off32(0, 1, 2), "xy", 2)
	pastData := off32(0, 3, 5)
	short := off64(1, 2, 3)
	shortAt := off64(1, 2, 3)
	childPast := off32(0, 1, 2)
	return []malformedCase{
		{"utf8 decreasing offsets", "s", "offsets decrease at slot 1: 2 after 5",
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			strData(off32(0, 5, 2), "hello", 2), nil},
		{"utf8 offset past data", "s", "last offset 10 is past the 5 data bytes",
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			strData(pastData, "hello", 2), func() { binary.LittleEndian.PutUint32(pastData.Bytes()[8:], 10) }},
		{"utf8 negative first offset", "s", "first offset -1",
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			strData(off32(-1, 3, 4), "hello", 2), nil},
		{"large binary decreasing offsets", "b", "offsets decrease",
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.LargeBinary},
			array.NewData(arrow.BinaryTypes.LargeBinary, 2, []*memory.Buffer{nil, off64(0, 4, 1), bytesBuf("abcd")}, nil, 0, 0), nil},
		{"int64 buffer short", "i", "values buffer of 16 bytes for 3 values of 8 bytes",
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64},
			array.NewData(arrow.PrimitiveTypes.Int64, 3, []*memory.Buffer{nil, short}, nil, 0, 0), func() { short.Reset(short.Bytes()[:16]) }},
		{"int64 buffer short at an offset", "i", "for 2 values of 8 bytes at offset 1",
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64},
			array.NewData(arrow.PrimitiveTypes.Int64, 2, []*memory.Buffer{nil, shortAt}, nil, 0, 1), func() { shortAt.Reset(shortAt.Bytes()[:16]) }},
		{"null count without bitmap", "i", "null count 1 without a validity bitmap",
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			array.NewData(arrow.PrimitiveTypes.Int64, 2, []*memory.Buffer{nil, off64(1, 2)}, nil, 1, 0), nil},
		{"null count disagrees with bitmap", "i", "null count 0, but the validity bitmap has 1 nulls",
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			array.NewData(arrow.PrimitiveTypes.Int64, 2, []*memory.Buffer{bits(2, 0), off64(1, 2)}, nil, 0, 0), nil},
		{"fixed size binary short", "f", "values buffer of 7 bytes for 2 values of 4 bytes",
			arrow.Field{Name: "f", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4}},
			array.NewData(&arrow.FixedSizeBinaryType{ByteWidth: 4}, 2, []*memory.Buffer{nil, bytesBuf("abcdefg")}, nil, 0, 0), nil},
		{"list offsets past child", "l", "last offset 3 is past the 2 child values",
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String)},
			array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 2, []*memory.Buffer{nil, off32(0, 1, 3)}, []arrow.ArrayData{goodStr}, 0, 0), nil},
		{"list child malformed", "l.item", "offsets decrease",
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String)},
			array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 1, []*memory.Buffer{nil, off32(0, 2)}, []arrow.ArrayData{strData(off32(0, 2, 1), "ab", 2)}, 0, 0), nil},
		{"list child of another type", "l.item", "array of type int64 where the schema has utf8",
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String)},
			array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 1, []*memory.Buffer{nil, off32(0, 1)},
				[]arrow.ArrayData{array.NewData(arrow.PrimitiveTypes.Int64, 1, []*memory.Buffer{nil, off64(7)}, nil, 0, 0)}, 0, 0), nil},
		{"fixed size list child short", "fl", "child of 2 values for 2 lists of 2",
			arrow.Field{Name: "fl", Type: arrow.FixedSizeListOf(2, arrow.BinaryTypes.String)},
			array.NewData(arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), 2, []*memory.Buffer{nil}, []arrow.ArrayData{goodStr}, 0, 0), nil},
		{"struct child malformed", "st.a", "last offset 9",
			arrow.Field{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String})},
			array.NewData(arrow.StructOf(arrow.Field{Name: "a", Type: arrow.BinaryTypes.String}), 2, []*memory.Buffer{nil},
				[]arrow.ArrayData{strData(childPast, "ab", 2)}, 0, 0), func() { binary.LittleEndian.PutUint32(childPast.Bytes()[8:], 9) }},
		{"dictionary index out of range", "d", "dictionary index 5 of slot 1 is outside the 2 values",
			arrow.Field{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
			array.NewDataWithDictionary(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, 2,
				[]*memory.Buffer{nil, off32(1, 5)}, 0, 0, goodDict.(*array.Data)), nil},
		{"dictionary negative index", "d", "dictionary index -1 of slot 0",
			arrow.Field{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}},
			array.NewDataWithDictionary(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, 2,
				[]*memory.Buffer{nil, bytesBuf("\xff\x00")}, 0, 0, goodDict.(*array.Data)), nil},
		{"dictionary values malformed", "d.dictionary", "offsets decrease",
			arrow.Field{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
			array.NewDataWithDictionary(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, 2,
				[]*memory.Buffer{nil, off32(0, 1)}, 0, 0, strData(off32(0, 2, 1), "ab", 2).(*array.Data)), nil},
		{"utf8 value not UTF-8", "s", "string value 1 is not valid UTF-8",
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			strData(off32(0, 2, 4), "ok\xff\xfe", 2), nil},
		{"utf8 character split between values", "s", "string value 0 is not valid UTF-8",
			// "é" is C3 A9: valid as a whole, cut in two by the offsets.
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String},
			strData(off32(0, 1, 2), "\xc3\xa9", 2), nil},
		{"large utf8 value not UTF-8", "s", "string value 0 is not valid UTF-8",
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.LargeString},
			array.NewData(arrow.BinaryTypes.LargeString, 1, []*memory.Buffer{nil, off64(0, 1), bytesBuf("\x80")}, nil, 0, 0), nil},
		{"string view inline value not UTF-8", "v", "string value 0 is not valid UTF-8",
			arrow.Field{Name: "v", Type: arrow.BinaryTypes.StringView},
			array.NewData(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, inlineView("a\xffb")}, nil, 0, 0), nil},
		{"string view past its buffer", "v", "view 0: 20 bytes at 0 past the 5 bytes of data buffer 0",
			arrow.Field{Name: "v", Type: arrow.BinaryTypes.StringView},
			array.NewData(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, viewBuf(20, 0, 0), bytesBuf("hello")}, nil, 0, 0), nil},
		{"string view names a missing buffer", "v", "view 0 names data buffer 3 of 1",
			arrow.Field{Name: "v", Type: arrow.BinaryTypes.StringView},
			array.NewData(arrow.BinaryTypes.StringView, 1, []*memory.Buffer{nil, viewBuf(20, 3, 0), bytesBuf("hello")}, nil, 0, 0), nil},
	}
}

type malformedCase struct {
	name, column, msg string
	field             arrow.Field
	data              arrow.ArrayData
	patch             func() // breaks the array once it is made, or nil
}

// makeMalformed makes the array of c, then breaks it with c.patch.
func makeMalformed(c malformedCase) arrow.Array {
	arr := array.MakeFromData(c.data)
	if c.patch != nil {
		c.patch()
	}
	return arr
}

// viewBuf is one 16-byte view of size bytes in data buffer bi at start.
func viewBuf(size, bi, start int32) *memory.Buffer {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b, uint32(size))
	binary.LittleEndian.PutUint32(b[8:], uint32(bi))
	binary.LittleEndian.PutUint32(b[12:], uint32(start))
	return memory.NewBufferBytes(b)
}

// TestWriteRejectsMalformedArrays: Write returns an *Error naming the
// column (and the child inside it) and wrapping ErrInvalidArray, with the
// row group it would have gone to, and nothing panics; ValidateArray gives
// the same verdict. Each runs with the dictionary on and off, and after a
// good batch so that the column writers hold state.
func TestWriteRejectsMalformedArrays(t *testing.T) {
	for i, c := range malformedCases() {
		for _, dict := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/dict=%v", c.name, dict), func(t *testing.T) {
				c := malformedCases()[i] // fresh buffers: patches are not idempotent
				arr := makeMalformed(c)
				defer arr.Release()
				if err := arrowpq.ValidateArray(arr); !errors.Is(err, arrowpq.ErrInvalidArray) || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("ValidateArray: %v, want ErrInvalidArray with %q", err, c.msg)
				}
				schema := arrow.NewSchema([]arrow.Field{c.field}, nil)
				opts := &arrowpq.WriteOptions{}
				if !dict {
					opts.Dictionary = arrowpq.Off
				}
				w, err := arrowpq.NewWriter(io.Discard, schema, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
				defer rec.Release()
				err = w.Write(rec)
				var e *arrowpq.Error
				if !errors.As(err, &e) || !errors.Is(err, arrowpq.ErrInvalidArray) {
					t.Fatalf("Write: %v, want an *Error wrapping ErrInvalidArray", err)
				}
				if e.Column != c.column || e.RowGroup != 0 || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("Write: %v (column %q, row group %d), want column %q and %q", err, e.Column, e.RowGroup, c.column, c.msg)
				}
				if err := w.Close(); !errors.Is(err, arrowpq.ErrInvalidArray) {
					t.Fatalf("Close after the failed Write: %v", err)
				}
			})
		}
	}
}

// inlineView is the view of a string of at most 12 bytes, held inline.
func inlineView(s string) *memory.Buffer {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b, uint32(len(s)))
	copy(b[4:], s)
	return memory.NewBufferBytes(b)
}

// TestValidateArrayUTF8UnderNulls: the bytes under a null slot are not a
// value (Arrow leaves them undefined), so they need not be UTF-8; binary
// arrays hold any bytes.
func TestValidateArrayUTF8UnderNulls(t *testing.T) {
	for _, d := range []arrow.ArrayData{
		array.NewData(arrow.BinaryTypes.String, 3, []*memory.Buffer{bits(3, 0, 2), off32(0, 2, 4, 7), bytesBuf("ok\xff\xfeé!")}, nil, 1, 0),
		array.NewData(arrow.BinaryTypes.Binary, 1, []*memory.Buffer{nil, off32(0, 2), bytesBuf("\xff\xfe")}, nil, 0, 0),
		strData(off32(0, 2, 5), "éé!", 2),
	} {
		arr := array.MakeFromData(d)
		if err := arrowpq.ValidateArray(arr); err != nil {
			t.Errorf("%v: %v", arr, err)
		}
		arr.Release()
	}
}

// TestValidateArrayAcceptsSlices: well-formed arrays, also sliced (offsets
// not starting at zero, children longer than needed), pass.
func TestValidateArrayAcceptsSlices(t *testing.T) {
	mem := memory.DefaultAllocator
	rec := genRecord(t, mem, 1000, 0, 5)
	defer rec.Release()
	for _, s := range [][2]int64{{0, 1000}, {3, 997}, {500, 501}, {999, 1000}, {1000, 1000}} {
		sl := rec.NewSlice(s[0], s[1])
		for i, col := range sl.Columns() {
			if err := arrowpq.ValidateArray(col); err != nil {
				t.Errorf("slice %v, column %s: %v", s, sl.Schema().Field(i).Name, err)
			}
		}
		sl.Release()
	}
	// A list whose child starts at an offset.
	child := strData(off32(0, 1, 2, 3), "abc", 3)
	lst := array.NewData(arrow.ListOf(arrow.BinaryTypes.String), 1, []*memory.Buffer{nil, off32(1, 3)}, []arrow.ArrayData{child}, 0, 0)
	arr := array.MakeFromData(lst)
	defer arr.Release()
	if err := arrowpq.ValidateArray(arr); err != nil {
		t.Errorf("list at a child offset: %v", err)
	}
}
