package arrowpq

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

// fieldReader decodes one top-level field from the leaf columns under it.
type fieldReader struct {
	field  *typemap.Field
	file   *metadata.File
	mem    memory.Allocator
	int96  arrow.TimeUnit
	leaves map[int]*leafReader // by leaf column index
	order  []int               // leaf column indices in tree order
	nested bool                // some leaf has repetition
	rg     int
	rows   int64 // rows of the row group not yet decoded
}

func newFieldReader(f *typemap.Field, file *metadata.File, opts *ReadOptions) *fieldReader {
	fr := &fieldReader{field: f, file: file, mem: opts.Allocator, int96: opts.Int96Unit, leaves: map[int]*leafReader{}}
	forEachLeaf(f, func(l *typemap.Field) {
		col := file.Schema.Columns[l.Column]
		fr.leaves[l.Column] = newLeafReader(col, opts)
		fr.order = append(fr.order, l.Column)
		if col.MaxRep > 0 {
			fr.nested = true
		}
	})
	return fr
}

func (fr *fieldReader) startRowGroup(r *Reader, rg int, chunks map[int][]byte) error {
	fr.rg = rg
	fr.rows = r.file.Meta.RowGroups[rg].NumRows
	v2Compressed := assumeV2Compressed(r.file.CreatedBy())
	for _, leaf := range fr.order {
		md, err := r.file.ColumnChunk(rg, leaf)
		if err != nil {
			return &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath, Page: -1, Offset: -1, Err: err}
		}
		off, _, err := r.file.ChunkRange(rg, leaf)
		if err != nil {
			return &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath, Page: -1, Offset: -1, Err: err}
		}
		fr.leaves[leaf].reset(rg, chunks[leaf], off, md, v2Compressed)
	}
	return nil
}

// assumeV2Compressed recognizes writers that flagged compressed v2 pages
// as uncompressed (pyarrow 2.0 and older parquet-cpp, ARROW-10353); Arrow
// C++ decompresses such pages regardless, and so do we.
func assumeV2Compressed(createdBy string) bool {
	app, ver, ok := parseCreatedBy(createdBy)
	if !ok {
		return false
	}
	switch app {
	case "parquet-cpp":
		return true
	case "parquet-cpp-arrow":
		return versionLess(ver, [3]int{3, 0, 0})
	}
	return false
}

func (fr *fieldReader) next(numRows int) (arrow.Array, error) {
	for _, leaf := range fr.order {
		lr := fr.leaves[leaf]
		got, err := lr.readBatch(numRows)
		if err != nil {
			return nil, err
		}
		if got != numRows {
			return nil, lr.wrap(fmt.Errorf("the column chunk ends after %d of the row group's %d rows: %w",
				int(fr.rows)-numRows+got, fr.rows, pagecodec.ErrCorrupt))
		}
	}
	fr.rows -= int64(numRows)
	if fr.nested {
		return fr.buildNested(numRows)
	}
	return fr.buildFlat(fr.field, numRows)
}

// firstLeaf returns the reader of the first leaf under f; every leaf under
// a node carries the same levels for the part of the path they share.
func (fr *fieldReader) firstLeaf(f *typemap.Field) *leafReader {
	for f.Kind != typemap.Leaf {
		f = f.Children[0]
	}
	return fr.leaves[f.Column]
}

// buildFlat assembles f when no leaf under it repeats: every array has one
// slot per row, and a node's validity is "definition level ≥ its own".
func (fr *fieldReader) buildFlat(f *typemap.Field, numRows int) (arrow.Array, error) {
	lr := fr.firstLeaf(f)
	var valid []byte
	nullCount := 0
	if f.Node != nil && f.Node.Repetition == metadata.Optional {
		valid = make([]byte, bitutil.BytesForBits(int64(numRows)))
		nullCount = levels.ValidityFromLevels(valid, 0, lr.def, f.Node.DefLevel)
	}
	switch f.Kind {
	case typemap.Leaf:
		s := slots{n: numRows}
		if lr.col.MaxDef > 0 {
			// A value is present only at the full definition level; below
			// it, this leaf or an ancestor is null.
			s.valid = make([]byte, bitutil.BytesForBits(int64(numRows)))
			s.nullCount = levels.ValidityFromLevels(s.valid, 0, lr.def, lr.col.MaxDef)
		}
		return fr.leafArray(f, lr, s)
	case typemap.Struct:
		children := make([]arrow.ArrayData, len(f.Children))
		for i, c := range f.Children {
			arr, err := fr.buildFlat(c, numRows)
			if err != nil {
				for _, d := range children[:i] {
					d.Release()
				}
				return nil, err
			}
			children[i] = arr.Data()
			children[i].Retain()
			arr.Release()
		}
		return structArray(fr.mem, f.Arrow.Type, numRows, valid, nullCount, children), nil
	}
	return nil, fmt.Errorf("%s field %s without repetition: %w", f.Kind, f.Arrow.Name, pagecodec.ErrCorrupt)
}

// leafArray builds the array of a leaf field from its batch.
func (fr *fieldReader) leafArray(f *typemap.Field, lr *leafReader, s slots) (arrow.Array, error) {
	dt := f.Arrow.Type
	var ext arrow.ExtensionType
	if e, ok := dt.(arrow.ExtensionType); ok {
		ext = e
		dt = e.StorageType()
	}
	var dict *arrow.DictionaryType
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dict = d
		dt = d.ValueType
	}
	arr, err := buildLeaf(fr.mem, f.Conv, dt, &lr.dense, s, fr.int96)
	if err != nil {
		return nil, lr.wrap(err)
	}
	if dict != nil {
		enc, err := dictionaryEncode(fr.mem, dict, arr)
		arr.Release()
		if err != nil {
			return nil, lr.wrap(err)
		}
		arr = enc
	}
	if ext != nil {
		wrapped := array.NewExtensionArrayWithStorage(ext, arr)
		arr.Release()
		arr = wrapped
	}
	return arr, nil
}

// dictionaryEncode turns a plain array into a dictionary array of type dt.
func dictionaryEncode(mem memory.Allocator, dt *arrow.DictionaryType, arr arrow.Array) (arrow.Array, error) {
	b := array.NewDictionaryBuilder(mem, dt)
	defer b.Release()
	if err := b.AppendArray(arr); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

func structArray(mem memory.Allocator, dt arrow.DataType, n int, valid []byte, nullCount int, children []arrow.ArrayData) arrow.Array {
	var validBuf *memory.Buffer
	if nullCount > 0 {
		validBuf = memory.NewResizableBuffer(mem)
		validBuf.Resize(len(valid))
		copy(validBuf.Bytes(), valid)
	} else {
		nullCount = 0
	}
	storage := dt
	if e, ok := dt.(arrow.ExtensionType); ok {
		storage = e.StorageType()
	}
	data := array.NewData(storage, n, []*memory.Buffer{validBuf}, children, nullCount, 0)
	for _, c := range children {
		c.Release()
	}
	if validBuf != nil {
		validBuf.Release()
	}
	defer data.Release()
	arr := array.MakeFromData(data)
	if e, ok := dt.(arrow.ExtensionType); ok {
		wrapped := array.NewExtensionArrayWithStorage(e, arr)
		arr.Release()
		return wrapped
	}
	return arr
}

// buildNested assembles fields whose leaves repeat (lists and maps).
func (fr *fieldReader) buildNested(numRows int) (arrow.Array, error) {
	return nil, fmt.Errorf("field %s: lists and maps: %w", fr.field.Arrow.Name, pagecodec.ErrUnsupported)
}
