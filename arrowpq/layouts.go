package arrowpq

// Arrow layouts Parquet has no shape for, kept through ARROW:schema:
// run-end encoded arrays are stored as their logical values and list views
// as lists. The reader builds them back after decoding (runEndEncode here;
// list views in listArray); the writer turns them into the plain forms
// before it shreds a batch (plainLayout*).

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/metadata"
)

// runEndEncode turns the plain values of a batch into a run-end encoded
// array of type dt (runs of equal values, nulls included, become one
// value each), with arrow-go's run_end_encode kernel.
func runEndEncode(mem memory.Allocator, dt *arrow.RunEndEncodedType, values arrow.Array) (arrow.Array, error) {
	ctx := compute.WithAllocator(context.Background(), mem)
	out, err := compute.RunEndEncodeArray(ctx, compute.RunEndEncodeOptions{RunEndType: dt.RunEnds()}, values)
	if err != nil {
		return nil, fmt.Errorf("run-end encoding %d values as %s: %w", values.Len(), dt, err)
	}
	return out, nil
}

// plainLayoutSchema returns s with every list view a list and every run-end
// encoded type its value type, at any depth, and whether anything changed:
// the schema the writer maps to Parquet (ARROW:schema keeps s).
func plainLayoutSchema(s *arrow.Schema) (*arrow.Schema, bool) {
	fields := make([]arrow.Field, s.NumFields())
	changed := false
	for i, f := range s.Fields() {
		var c bool
		f.Type, c = plainLayoutType(f.Type)
		changed = changed || c
		fields[i] = f
	}
	if !changed {
		return s, false
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md), true
}

// plainLayoutType is plainLayoutSchema for one type.
func plainLayoutType(dt arrow.DataType) (arrow.DataType, bool) {
	elem := func(f arrow.Field) (arrow.Field, bool) {
		var c bool
		f.Type, c = plainLayoutType(f.Type)
		return f, c
	}
	switch t := dt.(type) {
	case *arrow.RunEndEncodedType:
		v, _ := plainLayoutType(t.Encoded())
		return v, true
	case *arrow.ListViewType:
		e, _ := elem(t.ElemField())
		return arrow.ListOfField(e), true
	case *arrow.LargeListViewType:
		e, _ := elem(t.ElemField())
		return arrow.LargeListOfField(e), true
	case *arrow.MapType:
		k, ck := elem(t.KeyField())
		v, cv := elem(t.ItemField())
		if !ck && !cv {
			return dt, false
		}
		m := arrow.MapOfFields(k, v)
		m.KeysSorted = t.KeysSorted
		return m, true
	case *arrow.ListType:
		if e, c := elem(t.ElemField()); c {
			return arrow.ListOfField(e), true
		}
	case *arrow.LargeListType:
		if e, c := elem(t.ElemField()); c {
			return arrow.LargeListOfField(e), true
		}
	case *arrow.FixedSizeListType:
		if e, c := elem(t.ElemField()); c {
			return arrow.FixedSizeListOfField(t.Len(), e), true
		}
	case *arrow.StructType:
		fields := t.Fields()
		changed := false
		for i := range fields {
			var c bool
			fields[i], c = elem(fields[i])
			changed = changed || c
		}
		if changed {
			return arrow.StructOf(fields...), true
		}
	}
	return dt, false
}

// plainLayoutArray returns arr in the layout plainLayoutType gives its type
// (to, already computed): run-end encoded arrays decoded to their values,
// list views rebuilt as lists, containers rebuilt over converted children.
// The length stays arr's. The caller releases the result.
func plainLayoutArray(mem memory.Allocator, arr arrow.Array, to arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), to) {
		arr.Retain()
		return arr, nil
	}
	switch a := arr.(type) {
	case *array.RunEndEncoded:
		ctx := compute.WithAllocator(context.Background(), mem)
		dec, err := compute.RunEndDecodeArray(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("decoding run-end encoded %s: %w", a.DataType(), err)
		}
		defer dec.Release()
		return plainLayoutArray(mem, dec, to)
	case *array.ListView:
		return listFromView(mem, a, to)
	case *array.LargeListView:
		return listFromView(mem, a, to)
	}
	// A container whose children change: same buffers, new children.
	d := arr.Data()
	var childTypes []arrow.DataType
	switch t := to.(type) {
	case arrow.ListLikeType:
		childTypes = []arrow.DataType{t.Elem()}
		if m, ok := to.(*arrow.MapType); ok {
			childTypes = []arrow.DataType{m.Elem()}
		}
	case *arrow.StructType:
		for _, f := range t.Fields() {
			childTypes = append(childTypes, f.Type)
		}
	default:
		return nil, fmt.Errorf("%s as %s: %w", arr.DataType(), to, metadata.ErrUnsupported)
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, cd := range d.Children() {
		child := array.MakeFromData(cd)
		conv, err := plainLayoutArray(mem, child, childTypes[i])
		child.Release()
		if err != nil {
			for _, c := range children[:i] {
				c.Release()
			}
			return nil, err
		}
		children[i] = conv.Data()
		children[i].Retain()
		conv.Release()
	}
	out := array.NewData(to, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	defer out.Release()
	return array.MakeFromData(out), nil
}

// listFromView rebuilds a list view as a list of type to: offsets from the
// views' sizes, the child as the views' slices in row order (one slice of
// the child when the views already lie end to end, as list views converted
// from lists do).
func listFromView(mem memory.Allocator, a array.VarLenListLike, to arrow.DataType) (arrow.Array, error) {
	n := a.Len()
	large := to.ID() == arrow.LARGE_LIST
	offsets := make([]int64, n+1)
	contiguous := true
	var first, end int64
	started := false
	for i := 0; i < n; i++ {
		s, e := a.ValueOffsets(i)
		if a.IsNull(i) || e <= s {
			offsets[i+1] = offsets[i]
			continue
		}
		if !started {
			first, end, started = s, s, true
		}
		if s != end {
			contiguous = false
		}
		end = e
		offsets[i+1] = offsets[i] + (e - s)
	}
	if !large && offsets[n] > math.MaxInt32 {
		return nil, fmt.Errorf("list view of %d elements as %s: %w", offsets[n], to, errOutOfRange)
	}
	elemType := to.(arrow.ListLikeType).Elem()
	values := a.ListValues()
	var child arrow.Array
	if contiguous {
		child = array.NewSlice(values, first, first+offsets[n])
	} else {
		parts := make([]arrow.Array, 0, n)
		for i := 0; i < n; i++ {
			if s, e := a.ValueOffsets(i); !a.IsNull(i) && e > s {
				parts = append(parts, array.NewSlice(values, s, e))
			}
		}
		var err error
		if len(parts) == 0 {
			child = array.MakeArrayOfNull(mem, values.DataType(), 0)
		} else {
			child, err = array.Concatenate(parts, mem)
		}
		for _, p := range parts {
			p.Release()
		}
		if err != nil {
			return nil, err
		}
	}
	defer child.Release()
	conv, err := plainLayoutArray(mem, child, elemType)
	if err != nil {
		return nil, err
	}
	defer conv.Release()
	var offBuf *memory.Buffer
	if large {
		offBuf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(offsets))
	} else {
		narrow := make([]int32, n+1)
		for i, o := range offsets {
			narrow[i] = int32(o)
		}
		offBuf = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(narrow))
	}
	var validBuf *memory.Buffer
	nulls := a.NullN()
	if nulls > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for i := 0; i < n; i++ {
			bitutil.SetBitTo(bm, i, a.IsValid(i))
		}
		validBuf = memory.NewBufferBytes(bm)
	}
	d := array.NewData(to, n, []*memory.Buffer{validBuf, offBuf}, []arrow.ArrayData{conv.Data()}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}
