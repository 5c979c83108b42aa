package arrowpq

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// filterColumns returns the rows of batch that sel selects (ranges are
// its runs), column by column: string and binary views with filterViews,
// layouts compute has no kernel for inside a nested type, list views and
// run-end encoded arrays as the selected ranges' slices concatenated, and
// the rest with compute.Take of the selected rows.
func filterColumns(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, sel *Selection, ranges RowRanges) (arrow.RecordBatch, error) {
	var indices arrow.Array
	defer func() {
		if indices != nil {
			indices.Release()
		}
	}()
	cols := make([]arrow.Array, 0, batch.NumCols())
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, col := range batch.Columns() {
		var out arrow.Array
		var err error
		switch id := col.DataType().ID(); {
		case id == arrow.STRING_VIEW || id == arrow.BINARY_VIEW:
			out = filterViews(mem, col, sel)
		case computeFilters(col.DataType()):
			if indices == nil {
				indices = selectedIndices(mem, sel)
			}
			out, err = compute.TakeArray(ctx, col, indices)
		default:
			out, err = concatRanges(mem, col, ranges)
		}
		if err != nil {
			return nil, fmt.Errorf("arrowpq: filter: %w", err)
		}
		cols = append(cols, out)
	}
	return array.NewRecordBatch(batch.Schema(), cols, int64(sel.Count())), nil
}

// selectedIndices returns the selected rows of sel as an int32 array.
func selectedIndices(mem memory.Allocator, sel *Selection) arrow.Array {
	n := sel.Count()
	buf := newUninitBuffer(mem, n*4)
	idx := arrow.Int32Traits.CastFromBytes(buf.Bytes())[:n]
	k := 0
	for i := 0; i < sel.n; i++ {
		if sel.Selected(i) {
			idx[k] = int32(i)
			k++
		}
	}
	data := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	buf.Release()
	return array.MakeFromData(data)
}

// concatRanges returns the rows of col in ranges, their slices
// concatenated.
func concatRanges(mem memory.Allocator, col arrow.Array, ranges RowRanges) (arrow.Array, error) {
	parts := make([]arrow.Array, len(ranges))
	for i, r := range ranges {
		parts[i] = array.NewSlice(col, r.Start, r.End)
	}
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	return array.Concatenate(parts, mem)
}

// computeFilters reports whether arrow-go's compute.Filter has kernels for
// every layout in dt: it has none for string and binary views (nor for
// their take, which filters of nested types call), list views and
// run-end encoded arrays (arrow-go v18.8).
func computeFilters(dt arrow.DataType) bool {
	switch t := dt.(type) {
	case *arrow.StringViewType, *arrow.BinaryViewType, *arrow.ListViewType, *arrow.LargeListViewType, *arrow.RunEndEncodedType:
		return false
	case arrow.ExtensionType:
		return computeFilters(t.StorageType())
	case *arrow.DictionaryType:
		return computeFilters(t.ValueType)
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if !computeFilters(f.Type) {
				return false
			}
		}
	}
	return true
}

// filterViews returns the selected rows of a string or binary view array:
// their views and validity copied, the data buffers shared (views point
// into them unchanged).
func filterViews(mem memory.Allocator, col arrow.Array, sel *Selection) arrow.Array {
	d := col.Data()
	bufs := d.Buffers()
	off := d.Offset()
	n := sel.Count()
	src := arrow.Uint64Traits.CastFromBytes(bufs[1].Bytes())[2*off:]
	views := newUninitBuffer(mem, n*arrow.ViewHeaderSizeBytes)
	dst := arrow.Uint64Traits.CastFromBytes(views.Bytes())[:2*n]
	var valid *memory.Buffer
	var validBits, srcValid []byte
	if col.NullN() > 0 && bufs[0] != nil {
		valid = newUninitBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		validBits = valid.Bytes()
		clear(validBits)
		srcValid = bufs[0].Bytes()
	}
	k := 0
	for i := 0; i < sel.n; i++ {
		if !sel.Selected(i) {
			continue
		}
		dst[2*k], dst[2*k+1] = src[2*i], src[2*i+1]
		if validBits != nil && bitutil.BitIsSet(srcValid, off+i) {
			bitutil.SetBit(validBits, k)
		}
		k++
	}
	out := []*memory.Buffer{valid, views}
	for _, b := range bufs[2:] {
		b.Retain()
		out = append(out, b)
	}
	data := array.NewData(col.DataType(), n, out, nil, array.UnknownNullCount, 0)
	defer data.Release()
	for _, b := range out {
		if b != nil {
			b.Release()
		}
	}
	return array.MakeFromData(data)
}
