package arrowpq

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

// A columnWriter turns the Arrow arrays of one leaf column into the
// physical values and levels of its column chunks, which a column.Writer
// (the Parquet side: pages, encodings, dictionary, statistics, page index,
// bloom filter) encodes. Rows go through in pieces of whole records: the
// Shredder gives their levels and the indices of their non-null values, the
// values are gathered from those indices straight into a typed scratch slice
// of the physical type (converted on the way) and handed to the column
// writer in one call. A page is cut after a piece when it reaches its
// size or row target, so every page starts at a record.
type columnWriter struct {
	col   *metadata.Column
	leaf  *typemap.Field
	conv  typemap.Conversion
	cfg   columnConfig
	phys  format.Type
	width int // FIXED_LEN_BYTE_ARRAY type length
	// float16: FLOAT16 values, whose NaNs the memo path counts by bits.
	float16 bool

	// fields is the chain of typemap fields from the top-level field to the
	// leaf; childIdx[i] is the index of fields[i+1] in fields[i].Children.
	fields   []*typemap.Field
	childIdx []int
	path     *levels.Path
	shred    *levels.Shredder
	nodes    []levels.NodeData
	nulls    []byte // an all-zero validity bitmap for Null arrays

	// The leaf values of the bound record batch: values is the storage
	// array; dictIdx, when not nil, holds the indices of a dictionary
	// array whose dictionary is values.
	values  arrow.Array
	dictIdx arrow.Array
	memo    dictMemo

	g         gathered
	rawPerRow float64 // estimated raw bytes per row, for piece sizes
	cw        *column.Writer
}

func newColumnWriter(col *metadata.Column, leaf *typemap.Field, cfg columnConfig, mem memory.Allocator) (*columnWriter, error) {
	c := &columnWriter{col: col, leaf: leaf, conv: leaf.Conv, cfg: cfg, phys: col.Physical, width: int(col.TypeLength)}
	for f := leaf; f != nil; f = f.Parent {
		c.fields = append([]*typemap.Field{f}, c.fields...)
	}
	var reps []levels.Repetition
	addNode := func(n *metadata.Node) {
		switch n.Repetition {
		case metadata.Optional:
			reps = append(reps, levels.Optional)
		case metadata.Repeated:
			reps = append(reps, levels.Repeated)
		default:
			reps = append(reps, levels.Required)
		}
	}
	for i, f := range c.fields {
		addNode(f.Node)
		if f.Kind == typemap.List || f.Kind == typemap.Map {
			addNode(f.Repeated)
		}
		if i+1 < len(c.fields) {
			idx := -1
			for j, ch := range f.Children {
				if ch == c.fields[i+1] {
					idx = j
				}
			}
			c.childIdx = append(c.childIdx, idx)
		}
	}
	p, err := levels.NewPath(reps)
	if err != nil {
		return nil, err
	}
	if p.MaxDef != col.MaxDef || p.MaxRep != col.MaxRep {
		return nil, fmt.Errorf("levels of the Arrow path (%d, %d) differ from the schema's (%d, %d)", p.MaxDef, p.MaxRep, col.MaxDef, col.MaxRep)
	}
	lt := col.Node.LogicalType()
	c.float16 = col.Physical == format.Type_FIXED_LEN_BYTE_ARRAY && col.TypeLength == 2 && lt != nil && lt.FLOAT16 != nil
	c.path, c.shred = p, levels.NewShredder(p)
	c.nodes = make([]levels.NodeData, len(reps))
	cw, err := column.NewWriter(col, cfg.columnOptions(col, mem))
	if err != nil {
		return nil, err
	}
	c.cw = cw // a new column writer has started its first chunk
	return c, nil
}

// startChunk resets the chunk state for the next row group.
func (c *columnWriter) startChunk() {
	c.cw.Reset()
	c.resetMemo()
}

// bind takes the top-level array of this column's field from a record
// batch and fills the node data of the path.
func (c *columnWriter) bind(top arrow.Array) error {
	arr := top
	k := 0
	for i, f := range c.fields {
		if ext, ok := arr.(array.ExtensionArray); ok {
			arr = ext.Storage()
		}
		if f.Kind == typemap.Leaf {
			if d, ok := arr.(*array.Dictionary); ok {
				c.nodes[k] = levels.NodeData{Len: d.Len(), Offset: d.Data().Offset(), Validity: c.validity(d)}
				c.dictIdx, c.values = d.Indices(), d.Dictionary()
				if ext, ok := c.values.(array.ExtensionArray); ok {
					c.values = ext.Storage()
				}
				c.bindMemo(d.Len(), c.values.Len())
			} else {
				c.nodes[k] = levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset(), Validity: c.validity(arr)}
				c.dictIdx, c.values = nil, arr
				c.memo.on = false
			}
			return nil
		}
		c.nodes[k] = levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset(), Validity: c.validity(arr)}
		k++
		switch f.Kind {
		case typemap.Struct:
			s, ok := arr.(*array.Struct)
			if !ok {
				return fmt.Errorf("array of type %s where a struct was expected: %w", arr.DataType(), metadata.ErrUnsupported)
			}
			arr = s.Field(c.childIdx[i])
		case typemap.List, typemap.Map:
			rep := levels.NodeData{Len: arr.Len(), Offset: arr.Data().Offset()}
			var child arrow.Array
			switch l := arr.(type) {
			case *array.Map:
				rep.Offsets32 = arrow.Int32Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				entries := l.ListValues().(*array.Struct)
				child = entries.Field(c.childIdx[i])
			case *array.List:
				rep.Offsets32 = arrow.Int32Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				child = l.ListValues()
			case *array.LargeList:
				rep.Offsets64 = arrow.Int64Traits.CastFromBytes(bufferBytes(l.Data(), 1))
				child = l.ListValues()
			case *array.FixedSizeList:
				rep.FixedSize = int(l.DataType().(*arrow.FixedSizeListType).Len())
				child = l.ListValues()
			default:
				return fmt.Errorf("arrays of type %s cannot be written: %w", arr.DataType(), metadata.ErrUnsupported)
			}
			if len(rep.Offsets32) == 0 && len(rep.Offsets64) == 0 && arr.Len() == 0 {
				// No offsets buffer: a list array of length 0.
				if _, ok := arr.(*array.FixedSizeList); !ok {
					rep.Offsets32, rep.Offset = []int32{0}, 0
				}
			}
			c.nodes[k] = rep
			k++
			arr = child
		}
	}
	return nil
}

// unbind drops the references to the arrays of the last bind.
func (c *columnWriter) unbind() {
	c.values, c.dictIdx = nil, nil
	clear(c.nodes)
	g := &c.g
	g.v, g.plain = column.Batch{}, nil
}

// validity returns the validity bitmap of arr, nil when it has no nulls.
func (c *columnWriter) validity(arr arrow.Array) []byte {
	if arr.NullN() == 0 {
		return nil
	}
	if b := arr.NullBitmapBytes(); b != nil {
		return b
	}
	// Null arrays have no bitmap: every slot is null.
	n := (arr.Data().Offset() + arr.Len() + 7) / 8
	if cap(c.nulls) < n {
		c.nulls = make([]byte, n)
	}
	c.nulls = c.nulls[:n]
	clear(c.nulls)
	return c.nulls
}

// pieceTarget is the raw value bytes aimed at per piece: small enough for
// page sizes and the dictionary limit to be kept within a few percent,
// large enough for the per-piece overhead not to matter.
const pieceTarget = 64 << 10

// writeRows writes rows [start, start+n) of the bound arrays.
func (c *columnWriter) writeRows(start, n int) error {
	cfg, cw := &c.cfg, c.cw
	for n > 0 {
		rows := min(n, cfg.maxRowsPerPage-cw.PageRows())
		if c.rawPerRow > 0 {
			room := max(float64(cfg.pageSize-cw.PageBytes()), 0)
			rows = min(rows, max(1, int(min(pieceTarget, room)/c.rawPerRow)))
		} else {
			rows = min(rows, 1024)
		}
		for {
			if err := c.shred.Shred(c.nodes, start, rows); err != nil {
				return err
			}
			if err := c.gather(); err != nil {
				return err
			}
			// Far more bytes than aimed at (the first piece, or a burst of
			// large values): take fewer rows. Values gathered straight into
			// the page's PLAIN buffer are not the page's yet.
			if want := max(pieceTarget, cfg.pageSize-cw.PageBytes()); rows > 1 && c.g.rawBytes > 2*int64(want) {
				rows = max(1, int(int64(rows)*int64(want)/c.g.rawBytes))
				continue
			}
			if cw.DictionaryFits(c.g.dictBytes) {
				break
			}
			if rows > 64 {
				rows /= 2
				continue
			}
			// The dictionary is within a few values of its limit: the rest
			// of the chunk goes in the fallback encoding, gathered again
			// (the memo path gathers distinct values only).
			if err := cw.FallBack(); err != nil {
				return err
			}
		}
		if err := c.appendPiece(rows); err != nil {
			return err
		}
		raw := float64(c.g.rawBytes+2*int64(len(c.shred.Def())+len(c.shred.Rep()))) / float64(rows)
		if c.rawPerRow == 0 {
			c.rawPerRow = max(raw, 0.125)
		} else {
			c.rawPerRow = max((3*c.rawPerRow+raw)/4, 0.125)
		}
		start += rows
		n -= rows
		if cw.PageFull() {
			if err := cw.FlushPage(); err != nil {
				return err
			}
		}
	}
	return nil
}

// appendPiece hands the shredded levels and gathered values of rows rows
// to the column writer.
func (c *columnWriter) appendPiece(rows int) error {
	g := &c.g
	c.cw.WriteLevels(c.shred.Def(), c.shred.Rep(), rows, g.n)
	if g.n == 0 {
		return nil
	}
	var err error
	switch {
	case g.memo:
		err = c.writeMemo()
	case g.direct:
		g.direct = false // the values are the page's now
		err = c.cw.WritePlain(g.plain, g.directFrom, g.n)
	default:
		err = c.cw.Write(&g.v)
	}
	return err
}

// rangeError reports a value that its Parquet type cannot hold.
func rangeError(what string, v any) error {
	return fmt.Errorf("%s %v: %w", what, v, errOutOfRange)
}
