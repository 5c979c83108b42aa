package arrowpq

// Arrow layouts Parquet has no shape for, kept through ARROW:schema:
// run-end encoded arrays are stored as their logical values and list views
// as lists. The reader builds them back after decoding (runEndEncode here;
// list views in listArray); the writer turns them into the plain forms
// before it shreds a batch (plainLayout*).

import (
	"bytes"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/metadata"
)

// runEndEncode turns the plain values of a batch into a run-end encoded
// array of type dt: runs of equal slots (nulls equal nulls; floats equal
// by their bits) become one value each. Written here rather than with
// arrow-go's run_end_encode kernel, which runs on a goroutine of its own
// and panics there on arrays without a validity bitmap.
func runEndEncode(mem memory.Allocator, dt *arrow.RunEndEncodedType, values arrow.Array) (arrow.Array, error) {
	n := values.Len()
	same, err := slotEqual(values)
	if err != nil {
		return nil, err
	}
	var starts []int
	for i := 0; i < n; i++ {
		if i == 0 || !same(i-1, i) {
			starts = append(starts, i)
		}
	}
	maxEnd := int64(math.MaxInt64)
	switch dt.RunEnds().ID() {
	case arrow.INT16:
		maxEnd = math.MaxInt16
	case arrow.INT32:
		maxEnd = math.MaxInt32
	}
	if int64(n) > maxEnd {
		return nil, fmt.Errorf("%d values in runs with %s ends: %w", n, dt.RunEnds(), errOutOfRange)
	}
	ends := make([]int64, len(starts))
	for k := range starts {
		if k+1 < len(starts) {
			ends[k] = int64(starts[k+1])
		} else {
			ends[k] = int64(n)
		}
	}
	var endBuf *memory.Buffer
	switch dt.RunEnds().ID() {
	case arrow.INT16:
		e := make([]int16, len(ends))
		for i, x := range ends {
			e[i] = int16(x)
		}
		endBuf = memory.NewBufferBytes(arrow.Int16Traits.CastToBytes(e))
	case arrow.INT32:
		e := make([]int32, len(ends))
		for i, x := range ends {
			e[i] = int32(x)
		}
		endBuf = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(e))
	default:
		endBuf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(ends))
	}
	runVals, err := gatherSlots(mem, values, starts)
	if err != nil {
		return nil, err
	}
	defer runVals.Release()
	endData := array.NewData(dt.RunEnds(), len(ends), []*memory.Buffer{nil, endBuf}, nil, 0, 0)
	defer endData.Release()
	d := array.NewData(dt, n, []*memory.Buffer{nil}, []arrow.ArrayData{endData, runVals.Data()}, 0, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// runEndDecode expands a run-end encoded array (validated) into its
// logical values.
func runEndDecode(mem memory.Allocator, a *array.RunEndEncoded) (arrow.Array, error) {
	n, off := a.Len(), a.Data().Offset()
	ends := a.RunEndsArr()
	at := func(j int) int {
		switch e := ends.(type) {
		case *array.Int16:
			return int(e.Value(j))
		case *array.Int32:
			return int(e.Value(j))
		case *array.Int64:
			return int(e.Value(j))
		}
		return 0
	}
	idx := make([]int, n)
	j := 0
	for i := range n {
		for at(j) <= off+i {
			j++
		}
		idx[i] = j
	}
	return gatherSlots(mem, a.Values(), idx)
}

// slotEqual returns a function reporting whether two slots of a hold the
// same value (both null, or both valid with equal bytes).
func slotEqual(a arrow.Array) (func(i, j int) bool, error) {
	d := a.Data()
	off := d.Offset()
	var vals func(i, j int) bool
	switch t := a.DataType().(type) {
	case *arrow.BooleanType:
		b := bufBytes(d, 1)
		vals = func(i, j int) bool { return bitutil.BitIsSet(b, off+i) == bitutil.BitIsSet(b, off+j) }
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		b := bufBytes(d, 1)
		vals = func(i, j int) bool {
			return bytes.Equal(b[(off+i)*w:(off+i+1)*w], b[(off+j)*w:(off+j+1)*w])
		}
	case arrow.BinaryDataType:
		vals = func(i, j int) bool { return bytes.Equal(binaryValue(a, i), binaryValue(a, j)) }
	default:
		return nil, fmt.Errorf("run-end encoding %s: %w", a.DataType(), metadata.ErrUnsupported)
	}
	return func(i, j int) bool {
		vi, vj := a.IsValid(i), a.IsValid(j)
		return vi == vj && (!vi || vals(i, j))
	}, nil
}

// binaryValue is slot i of a String, Binary or their Large forms, read
// from its buffers (the writer validated them; the reader built them).
func binaryValue(a arrow.Array, i int) []byte {
	d := a.Data()
	k := d.Offset() + i
	offs, data := bufBytes(d, 1), bufBytes(d, 2)
	var lo, hi int64
	switch a.DataType().ID() {
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		o := arrow.Int64Traits.CastFromBytes(offs)
		lo, hi = o[k], o[k+1]
	default:
		o := arrow.Int32Traits.CastFromBytes(offs)
		lo, hi = int64(o[k]), int64(o[k+1])
	}
	if lo == hi {
		return nil
	}
	return data[lo:hi]
}

// bufBytes is buffer i of d, nil when absent (an empty array may have
// none).
func bufBytes(d arrow.ArrayData, i int) []byte {
	if b := d.Buffers(); i < len(b) && b[i] != nil {
		return b[i].Bytes()
	}
	return nil
}

// gatherSlots returns the slots idx of a (boolean, fixed-width, String,
// Binary and their Large forms) as a new array of a's type.
func gatherSlots(mem memory.Allocator, a arrow.Array, idx []int) (arrow.Array, error) {
	d := a.Data()
	off := d.Offset()
	n := len(idx)
	var validBuf *memory.Buffer
	nulls := 0
	if a.NullN() > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for k, i := range idx {
			if a.IsValid(i) {
				bitutil.SetBit(bm, k)
			} else {
				nulls++
			}
		}
		if nulls > 0 {
			validBuf = memory.NewBufferBytes(bm)
		}
	}
	var bufs []*memory.Buffer
	switch t := a.DataType().(type) {
	case *arrow.BooleanType:
		src := bufBytes(d, 1)
		out := make([]byte, bitutil.BytesForBits(int64(n)))
		for k, i := range idx {
			bitutil.SetBitTo(out, k, bitutil.BitIsSet(src, off+i))
		}
		bufs = []*memory.Buffer{validBuf, memory.NewBufferBytes(out)}
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		src := bufBytes(d, 1)
		out := make([]byte, n*w)
		for k, i := range idx {
			copy(out[k*w:(k+1)*w], src[(off+i)*w:(off+i+1)*w])
		}
		bufs = []*memory.Buffer{validBuf, memory.NewBufferBytes(out)}
	case arrow.BinaryDataType:
		large := t.ID() == arrow.LARGE_STRING || t.ID() == arrow.LARGE_BINARY
		var data []byte
		offs := make([]int64, n+1)
		for k, i := range idx {
			if a.IsValid(i) {
				data = append(data, binaryValue(a, i)...)
			}
			offs[k+1] = int64(len(data))
		}
		var offBuf *memory.Buffer
		if large {
			offBuf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(offs))
		} else {
			if len(data) > math.MaxInt32 {
				return nil, fmt.Errorf("%d bytes of %s: %w", len(data), t, errOutOfRange)
			}
			narrow := make([]int32, n+1)
			for k, o := range offs {
				narrow[k] = int32(o)
			}
			offBuf = memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(narrow))
		}
		bufs = []*memory.Buffer{validBuf, offBuf, memory.NewBufferBytes(data)}
	default:
		return nil, fmt.Errorf("run-end encoded values of %s: %w", a.DataType(), metadata.ErrUnsupported)
	}
	out := array.NewData(a.DataType(), n, bufs, nil, nulls, 0)
	defer out.Release()
	return array.MakeFromData(out), nil
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
		dec, err := runEndDecode(mem, a)
		if err != nil {
			return nil, err
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

// plainColumns returns the columns of a batch (validated) in the writer's
// plain layout, one reference each for the caller to release.
func (w *Writer) plainColumns(cols []arrow.Array) ([]arrow.Array, error) {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		p, err := plainLayoutArray(w.mem, c, w.plain.Field(i).Type)
		if err != nil {
			for _, o := range out[:i] {
				o.Release()
			}
			e := newError("write", err)
			e.RowGroup = len(w.rowGroups)
			e.Column = w.schema.Field(i).Name
			return nil, e
		}
		out[i] = p
	}
	return out, nil
}
