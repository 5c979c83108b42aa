package arrowpq_test

import (
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// fuzzBytes hands out the fuzz input piece by piece; past its end it
// gives zeros, so every input makes some array.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) take(n int) []byte {
	// Room to a multiple of 8 bytes (at least 8): arrow-go views buffers
	// as []int32/[]int64 up to their capacity, which the race detector's
	// pointer checks refuse when that view would leave the allocation.
	out := make([]byte, n, max(8, (n+7)&^7))
	k := copy(out, f.b)
	f.b = f.b[k:]
	return out
}

// buffer is a buffer of about want bytes: exact, a little short, a little
// long or missing, as the input says, with content from the input.
func (f *fuzzBytes) buffer(want int) *memory.Buffer {
	switch f.byte() % 8 {
	case 0:
		return nil
	case 1:
		want -= int(f.byte()%16) + 1
	case 2:
		want += int(f.byte() % 16)
	}
	return memory.NewBufferBytes(f.take(max(want, 0)))
}

// offsets is a buffer of n+1 offsets of width w (4 or 8) that mostly
// increase within [0, limit], sometimes not.
func (f *fuzzBytes) offsets(n, w, limit int) *memory.Buffer {
	if f.byte()%8 == 0 {
		return f.buffer((n + 1) * w) // garbage
	}
	b := make([]byte, (n+1)*w)
	v := 0
	for i := 0; i <= n; i++ {
		switch c := f.byte(); {
		case c < 200:
			v += int(c) % (limit/max(n, 1) + 2)
		case c < 230:
			v -= int(c % 5) // decrease
		default:
			v = int(c) * 1000 // far out
		}
		if w == 4 {
			b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		} else {
			for k := 0; k < 8; k++ {
				b[8*i+k] = byte(int64(v) >> (8 * k))
			}
		}
	}
	if f.byte()%4 == 0 {
		b = b[:len(b)-w] // one short
	}
	return memory.NewBufferBytes(b)
}

var fuzzTypes = []arrow.DataType{
	arrow.BinaryTypes.String,
	arrow.BinaryTypes.Binary,
	arrow.BinaryTypes.LargeString,
	arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Int32,
	arrow.FixedWidthTypes.Boolean,
	&arrow.FixedSizeBinaryType{ByteWidth: 4},
	arrow.ListOf(arrow.PrimitiveTypes.Int64),
	arrow.ListOf(arrow.BinaryTypes.String),
	arrow.LargeListOf(arrow.BinaryTypes.String),
	arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int32),
	arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}),
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
	&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Int64},
	arrow.BinaryTypes.StringView,
	arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64),
	arrow.ListViewOf(arrow.PrimitiveTypes.Int64),
	arrow.LargeListViewOf(arrow.BinaryTypes.String),
	arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
	arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int64),
}

// fuzzData builds array data of type dt from the input: a length, an
// offset, a validity bitmap and null count, and buffers and children that
// may or may not fit them.
func fuzzData(f *fuzzBytes, dt arrow.DataType, depth int) arrow.ArrayData {
	n := int(f.byte() % 24)
	off := int(f.byte() % 4)
	end := n + off
	var valid *memory.Buffer
	nulls := 0
	switch f.byte() % 4 {
	case 1:
		valid = f.buffer((end + 7) / 8)
		nulls = array.UnknownNullCount
	case 2:
		valid = f.buffer((end + 7) / 8)
		nulls = int(f.byte()) % (n + 2)
	case 3:
		nulls = int(f.byte()) % (n + 2) // a count without a bitmap
	}
	child := func(t arrow.DataType, k int) arrow.ArrayData {
		if depth > 2 {
			return array.NewData(t, 0, []*memory.Buffer{nil, nil, nil}, nil, 0, 0)
		}
		d := fuzzData(f, t, depth+1)
		_ = k
		return d
	}
	switch t := dt.(type) {
	case *arrow.StringType, *arrow.BinaryType:
		size := int(f.byte() % 64)
		return array.NewData(dt, n, []*memory.Buffer{valid, f.offsets(end, 4, size), memory.NewBufferBytes(f.take(size))}, nil, nulls, off)
	case *arrow.LargeStringType:
		size := int(f.byte() % 64)
		return array.NewData(dt, n, []*memory.Buffer{valid, f.offsets(end, 8, size), memory.NewBufferBytes(f.take(size))}, nil, nulls, off)
	case *arrow.StringViewType:
		size := int(f.byte() % 64)
		return array.NewData(dt, n, []*memory.Buffer{valid, f.buffer(16 * end), memory.NewBufferBytes(f.take(size))}, nil, nulls, off)
	case *arrow.BooleanType:
		return array.NewData(dt, n, []*memory.Buffer{valid, f.buffer((end + 7) / 8)}, nil, nulls, off)
	case arrow.FixedWidthDataType:
		if dict, ok := dt.(*arrow.DictionaryType); ok {
			w := dict.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
			d := array.NewData(dt, n, []*memory.Buffer{valid, f.buffer(w * end)}, nil, nulls, off)
			values := child(dict.ValueType, 0)
			d.SetDictionary(values)
			values.Release()
			return d
		}
		return array.NewData(dt, n, []*memory.Buffer{valid, f.buffer(t.BitWidth() / 8 * end)}, nil, nulls, off)
	case *arrow.ListType, *arrow.MapType:
		c := child(t.(arrow.ListLikeType).Elem(), 0)
		defer c.Release()
		return array.NewData(dt, n, []*memory.Buffer{valid, f.offsets(end, 4, c.Len())}, []arrow.ArrayData{c}, nulls, off)
	case *arrow.LargeListType:
		c := child(t.Elem(), 0)
		defer c.Release()
		return array.NewData(dt, n, []*memory.Buffer{valid, f.offsets(end, 8, c.Len())}, []arrow.ArrayData{c}, nulls, off)
	case *arrow.ListViewType, *arrow.LargeListViewType:
		w := 4
		if dt.ID() == arrow.LARGE_LIST_VIEW {
			w = 8
		}
		c := child(t.(arrow.ListLikeType).Elem(), 0)
		defer c.Release()
		return array.NewData(dt, n, []*memory.Buffer{valid, f.buffer(w * end), f.buffer(w * end)}, []arrow.ArrayData{c}, nulls, off)
	case *arrow.RunEndEncodedType:
		ends := child(t.RunEnds(), 0)
		defer ends.Release()
		vals := child(t.Encoded(), 1)
		defer vals.Release()
		return array.NewData(dt, n, []*memory.Buffer{nil}, []arrow.ArrayData{ends, vals}, 0, off)
	case *arrow.FixedSizeListType:
		c := child(t.Elem(), 0)
		defer c.Release()
		return array.NewData(dt, n, []*memory.Buffer{valid}, []arrow.ArrayData{c}, nulls, off)
	case *arrow.StructType:
		var cs []arrow.ArrayData
		for i, fld := range t.Fields() {
			c := child(fld.Type, i)
			defer c.Release()
			cs = append(cs, c)
		}
		return array.NewData(dt, n, []*memory.Buffer{valid}, cs, nulls, off)
	}
	panic("fuzzData: type " + dt.String())
}

// makeArray makes an arrow.Array of d. arrow-go checks some things itself
// and panics when they fail (the last offset of a string array, the size
// of a values buffer); those inputs never reach a Writer, so the fuzz
// target skips them.
func makeArray(d arrow.ArrayData) (arr arrow.Array, ok bool) {
	defer func() {
		if recover() != nil {
			arr, ok = nil, false
		}
	}()
	return array.MakeFromData(d), true
}

// FuzzWriteMalformedArray builds arrays of every kind the writer takes
// (utf8, binary, large utf8, views, int64, bool, fixed-size binary, lists,
// large lists, fixed-size lists, structs, maps, dictionaries) with offsets,
// lengths, null counts and buffers from the fuzz input, and writes them:
// nothing may panic, and Write rejects with ErrInvalidArray exactly the
// arrays ValidateArray rejects. Run: go test ./arrowpq -run XXX -fuzz FuzzWriteMalformedArray
func FuzzWriteMalformedArray(f *testing.F) {
	for i := range fuzzTypes {
		f.Add([]byte{byte(i), 3, 0, 0, 40, 1, 1, 2, 3})
		f.Add([]byte{byte(i), 5, 1, 2, 0, 1, 9, 220, 3, 250, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
		f.Add([]byte{byte(i), 8, 2, 1, 3, 0xff, 2, 8, 1, 30, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fb := &fuzzBytes{b: in}
		dt := fuzzTypes[int(fb.byte())%len(fuzzTypes)]
		d := fuzzData(fb, dt, 0)
		defer d.Release()
		arr, ok := makeArray(d)
		if !ok {
			t.Skip("arrow-go refuses to make this array")
		}
		defer arr.Release()
		verr := arrowpq.ValidateArray(arr)
		if verr != nil && !errors.Is(verr, arrowpq.ErrInvalidArray) {
			t.Fatalf("ValidateArray error %v does not wrap ErrInvalidArray", verr)
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
		for _, par := range []int{1, 2} {
			w, err := arrowpq.NewWriter(io.Discard, schema, &arrowpq.WriteOptions{Parallelism: par})
			if err != nil {
				t.Fatal(err)
			}
			rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
			werr := w.Write(rec)
			rec.Release()
			if cerr := w.Close(); werr == nil {
				werr = cerr
			}
			if (verr != nil) != errors.Is(werr, arrowpq.ErrInvalidArray) {
				t.Fatalf("ValidateArray: %v; Write: %v", verr, werr)
			}
		}
	})
}
