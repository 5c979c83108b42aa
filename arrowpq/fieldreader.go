package arrowpq

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
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
		lr := newLeafReader(col, opts)
		dt := l.Arrow.Type
		if e, ok := dt.(arrow.ExtensionType); ok {
			dt = e.StorageType()
		}
		if ree, ok := dt.(*arrow.RunEndEncodedType); ok {
			// Decoded as the plain values, run-end encoded per batch.
			dt = ree.Encoded()
		}
		_, lr.wantIndices = dt.(*arrow.DictionaryType)
		// Flat fixed-width values whose Arrow layout is the physical one
		// decode straight into the Arrow buffer.
		if col.MaxRep == 0 && !lr.wantIndices && l.Conv.Kind == typemap.Identity {
			switch col.Physical {
			case format.Type_INT32, format.Type_FLOAT:
				w, err := storageWidth(dt)
				lr.direct = err == nil && w == 4
			case format.Type_INT64, format.Type_DOUBLE:
				w, err := storageWidth(dt)
				lr.direct = err == nil && w == 8
			}
		}
		if col.MaxRep == 0 && !lr.wantIndices && !lr.direct {
			lr.conv = newConvTarget(col.Physical, l.Conv, dt, opts.Int96Unit)
		}
		if col.Physical == format.Type_BYTE_ARRAY && !lr.wantIndices && l.Conv.Kind == typemap.Identity {
			lr.binaryOut = dt.ID() == arrow.STRING || dt.ID() == arrow.BINARY
			lr.viewOut = dt.ID() == arrow.STRING_VIEW || dt.ID() == arrow.BINARY_VIEW
			lr.viewUTF8 = dt.ID() == arrow.STRING_VIEW
		}
		fr.leaves[l.Column] = lr
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
		dec, err := r.chunkDecryptor(rg, leaf) // decrypt.go
		if err != nil {
			return &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath, Page: -1, Offset: -1, Err: err}
		}
		md, err := r.file.ColumnChunk(rg, leaf)
		if err != nil {
			return &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath, Page: -1, Offset: -1, Err: err}
		}
		off, _, err := r.file.ChunkRange(rg, leaf)
		if err != nil {
			return &Error{Op: "read", Path: r.path, RowGroup: rg, Column: r.file.Schema.Columns[leaf].DottedPath, Page: -1, Offset: -1, Err: err}
		}
		fr.leaves[leaf].reset(rg, chunks[leaf], off, md, fr.rows, v2Compressed, dec)
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

// name is the field's name, for errors that no leaf located.
func (fr *fieldReader) name() string { return fr.field.Arrow.Name }

func (fr *fieldReader) next(numRows int) (arrow.Array, error) {
	for _, leaf := range fr.order {
		lr := fr.leaves[leaf]
		if lr.direct {
			lr.dense.Physical = lr.col.Physical
			lr.dense.startDirect(fr.mem, numRows)
		}
		if lr.binaryOut {
			lr.guessFirstData(numRows)
			lr.dense.startBinary(fr.mem, lr.binarySlots(numRows))
		}
		if lr.conv != nil {
			if err := lr.checkBatchBytes(numRows, lr.conv.width); err != nil {
				fr.releaseDirect()
				return nil, err
			}
			lr.dense.startConv(fr.mem, numRows, lr.conv.width)
		}
		got, err := lr.readBatch(numRows)
		if err != nil {
			fr.releaseDirect()
			return nil, err
		}
		if got != numRows {
			fr.releaseDirect()
			return nil, lr.wrap(fmt.Errorf("the column chunk ends after %d of the row group's %d rows: %w",
				int(fr.rows)-numRows+got, fr.rows, pagecodec.ErrCorrupt))
		}
	}
	fr.rows -= int64(numRows)
	var arr arrow.Array
	var err error
	if fr.nested {
		arr, err = fr.buildNested(numRows)
	} else {
		arr, err = fr.buildFlat(fr.field, numRows)
	}
	fr.releaseDirect()
	for _, lr := range fr.leaves {
		lr.giveBitmap()
	}
	return arr, err
}

// skipRows steps every leaf over the next n rows of the row group.
func (fr *fieldReader) skipRows(n int) error {
	for _, leaf := range fr.order {
		lr := fr.leaves[leaf]
		got, err := lr.cr.SkipRecords(n)
		if err != nil {
			return lr.wrap(err)
		}
		if got != n {
			return lr.wrap(fmt.Errorf("the column chunk ends after %d of the row group's %d rows: %w",
				int(fr.rows)-n+got, fr.rows, pagecodec.ErrCorrupt))
		}
	}
	fr.rows -= int64(n)
	return nil
}

// twin returns another decoder of the same field, with leaf readers of its
// own, so that the pipeline can decode two batches of the field at once
// (parallel.go, pipeline splits). It shares what fr shares with the other
// fields (allocator, scratch and page buffer caches, read-ahead pool).
func (fr *fieldReader) twin(r *Reader) *fieldReader {
	t := newFieldReader(fr.field, fr.file, &r.opts)
	if r.maxBatchData > 0 {
		for _, lr := range t.leaves {
			lr.cr = column.NewReader(lr.col, columnOptions(&r.opts, r.maxBatchData))
		}
	}
	return t
}

// setPrefetch sets the number of pages the leaves read ahead from their
// next column chunk on (column.Reader.SetPrefetch; 0: none).
func (fr *fieldReader) setPrefetch(pages int) {
	for _, lr := range fr.leaves {
		lr.cr.SetPrefetch(pages)
	}
}

// binarySize is what a byte array leaf's next fresh batch is sized by
// (denseValues.freshDataGuess): the data bytes and rows of its last batch
// and its margin.
type binarySize struct{ data, rows, marginUp int }

// freshBinary reports whether fr has byte array leaves whose batches are
// fresh memory sized by the batch before (denseValues.startBinary): the
// first batch, with no size to go by, decodes into scratch and is copied.
func (fr *fieldReader) freshBinary() bool {
	if _, ok := fr.mem.(freshAllocator); !ok {
		return false
	}
	for _, lr := range fr.leaves {
		if lr.binaryOut {
			return true
		}
	}
	return false
}

// binarySizes returns the sizes of the leaves' last batches, in fr.order.
func (fr *fieldReader) binarySizes() []binarySize {
	sizes := make([]binarySize, len(fr.order))
	for i, leaf := range fr.order {
		d := &fr.leaves[leaf].dense
		sizes[i] = binarySize{d.lastData, d.lastRows, d.marginUp}
	}
	return sizes
}

// setBinarySizes sizes the next batch of the leaves that decoded none by
// sizes, another decoder's of the same field (binarySizes): the decoders
// of a split field (parallel.go) would otherwise each decode their first
// batch into scratch and copy it (a batch of the strings dataset's text
// column: 12 MB). nil sizes leave the leaves as they are.
func (fr *fieldReader) setBinarySizes(sizes []binarySize) {
	if len(sizes) != len(fr.order) {
		return
	}
	for i, leaf := range fr.order {
		d := &fr.leaves[leaf].dense
		if d.lastRows == 0 && sizes[i].rows > 0 {
			d.lastData, d.lastRows, d.marginUp = sizes[i].data, sizes[i].rows, sizes[i].marginUp
		}
	}
}

// stopReadAhead stops the leaves' page read-ahead (column.Reader.Close):
// a decoder that leaves a column chunk before its end must not read on
// from chunk bytes that a later row group will overwrite.
func (fr *fieldReader) stopReadAhead() {
	for _, lr := range fr.leaves {
		lr.cr.Close()
	}
}

// release frees what the leaves hold across batches: read-ahead tasks, the
// byte array scratch and the Arrow forms of the current dictionaries; the
// values scratch and assemblers go to the reader's caches (retired.go).
func (fr *fieldReader) release() {
	for _, lr := range fr.leaves {
		lr.cr.ReleaseBuffers()
		lr.dense.releaseBinary()
		lr.dense.giveScratch()
		if lr.asm != nil {
			lr.asms.give(lr.asm)
			lr.asm = nil
		}
		if lr.dictArray != nil {
			lr.dictArray.Release()
			lr.dictArray = nil
		}
	}
}

// releaseDirect frees direct value buffers a failed batch left behind.
func (fr *fieldReader) releaseDirect() {
	for _, lr := range fr.leaves {
		lr.dense.releaseDirect()
	}
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
		valid, nullCount = lr.validity(f.Node.DefLevel, numRows)
	}
	switch f.Kind {
	case typemap.Leaf:
		s := slots{n: numRows}
		if lr.col.MaxDef > 0 {
			// A value is present only at the full definition level; below
			// it, this leaf or an ancestor is null.
			s.valid, s.nullCount = lr.validity(lr.col.MaxDef, numRows)
		}
		return fr.leafArray(f, lr, s)
	case typemap.Struct:
		children, err := fr.buildChildren(f, numRows)
		if err != nil {
			return nil, err
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
	var ree *arrow.RunEndEncodedType
	if r, ok := dt.(*arrow.RunEndEncodedType); ok {
		ree = r
		dt = r.Encoded()
	}
	if dict != nil && lr.dense.IndexMode {
		arr, err := fr.dictionaryArray(f, lr, dict, s)
		if err != nil {
			return nil, lr.wrap(err)
		}
		return asExtension(ext, arr), nil
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
	if ree != nil {
		enc, err := runEndEncode(fr.mem, ree, arr)
		arr.Release()
		if err != nil {
			return nil, lr.wrap(err)
		}
		arr = enc
	}
	return asExtension(ext, arr), nil
}

// dictionaryArray builds a dictionary array from the batch's indices and
// the column chunk's dictionary, which is converted to Arrow once per chunk
// and shared by every batch of the chunk.
func (fr *fieldReader) dictionaryArray(f *typemap.Field, lr *leafReader, dt *arrow.DictionaryType, s slots) (arrow.Array, error) {
	if lr.dictArray == nil {
		if dict, ok := lr.cr.Dictionary(); !ok {
			// A chunk without a dictionary page (all null): an empty dictionary.
			lr.dictArray = array.MakeArrayOfNull(fr.mem, dt.ValueType, 0)
		} else {
			var err error
			lr.dictArray, err = buildLeaf(fr.mem, f.Conv, dt.ValueType, &denseValues{Values: *dict}, slots{n: dict.N}, fr.int96)
			if err != nil {
				return nil, fmt.Errorf("dictionary: %w", err)
			}
		}
	}
	d := &lr.dense
	width, err := storageWidth(dt.IndexType)
	if err != nil {
		return nil, err
	}
	idx := d.Indices[:d.N]
	var dense []byte
	switch width {
	case 4:
		dense = int32Bytes(idx)
	case 8:
		wide := make([]int64, len(idx))
		castInts(wide, idx)
		dense = int64Bytes(wide)
	case 2:
		narrow, err := narrowIndices[int16](idx, 1<<15-1, dt.IndexType)
		if err != nil {
			return nil, err
		}
		dense = arrow.Int16Traits.CastToBytes(narrow)
	case 1:
		narrow, err := narrowIndices[int8](idx, 1<<7-1, dt.IndexType)
		if err != nil {
			return nil, err
		}
		dense = arrow.Int8Traits.CastToBytes(narrow)
	}
	values := memory.NewResizableBuffer(fr.mem)
	values.Resize(s.n * width)
	levels.SpreadWidth(values.Bytes(), dense, width, s.bitmap(), s.n)
	validBuf := bitmapBuffer(fr.mem, s)
	nulls := s.nullCount
	if validBuf == nil {
		nulls = 0
	}
	data := array.NewData(dt, s.n, []*memory.Buffer{validBuf, values}, nil, nulls, 0)
	data.SetDictionary(lr.dictArray.Data())
	releaseBuffers(validBuf, values)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// dictionaryEncode turns a plain array into a dictionary array of type dt.
func dictionaryEncode(mem memory.Allocator, dt *arrow.DictionaryType, arr arrow.Array) (arrow.Array, error) {
	if id := dt.ValueType.ID(); id == arrow.STRING_VIEW || id == arrow.BINARY_VIEW {
		return viewDictionary(mem, dt, arr)
	}
	b := array.NewDictionaryBuilder(mem, dt)
	defer b.Release()
	if err := b.AppendArray(arr); err != nil {
		return nil, err
	}
	return b.NewArray(), nil
}

// viewDictionary wraps a view array as a dictionary of itself (index i is
// slot i, null slots null): arrow-go has no dictionary builder for views,
// and a batch read from pages that left the dictionary holds mostly
// distinct values anyway.
func viewDictionary(mem memory.Allocator, dt *arrow.DictionaryType, arr arrow.Array) (arrow.Array, error) {
	width, err := storageWidth(dt.IndexType)
	if err != nil {
		return nil, err
	}
	n := arr.Len()
	if width < 8 && int64(n) > 1<<(8*width-1)-1 {
		return nil, fmt.Errorf("%d values in a dictionary of %s indices: %w", n, dt.IndexType, errOutOfRange)
	}
	values := memory.NewResizableBuffer(mem)
	values.Resize(n * width)
	b := values.Bytes()
	for i := range n {
		switch width {
		case 1:
			b[i] = byte(i)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(i))
		case 4:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(i))
		default:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(i))
		}
	}
	var validBuf *memory.Buffer
	if arr.NullN() > 0 {
		validBuf = memory.NewResizableBuffer(mem)
		validBuf.Resize(int(bitutil.BytesForBits(int64(n))))
		for i := range n {
			bitutil.SetBitTo(validBuf.Bytes(), i, arr.IsValid(i))
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{validBuf, values}, nil, arr.NullN(), 0)
	data.SetDictionary(arr.Data())
	releaseBuffers(validBuf, values)
	defer data.Release()
	return array.MakeFromData(data), nil
}

func structArray(mem memory.Allocator, dt arrow.DataType, n int, valid []byte, nullCount int, children []arrow.ArrayData) arrow.Array {
	var validBuf *memory.Buffer
	if nullCount > 0 {
		validBuf = newUninitBuffer(mem, len(valid))
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
	ext, _ := dt.(arrow.ExtensionType)
	return asExtension(ext, array.MakeFromData(data))
}

// buildNested assembles fields whose leaves repeat (lists and maps): each
// repeating leaf's levels go through its levels.Assembler, which yields
// the validity of every optional node and the offsets of every repeated
// node on its path; a node's arrays come from the first leaf under it.
func (fr *fieldReader) buildNested(numRows int) (arrow.Array, error) {
	for _, leaf := range fr.order {
		lr := fr.leaves[leaf]
		if lr.col.MaxRep == 0 {
			continue
		}
		lr.asm.Finish()
	}
	return fr.build(fr.field, numRows)
}

// build assembles f with n slots.
func (fr *fieldReader) build(f *typemap.Field, n int) (arrow.Array, error) {
	lr := fr.firstLeaf(f)
	if lr.col.MaxRep == 0 {
		return fr.buildFlat(f, n)
	}
	var valid []byte
	nullCount := 0
	if f.Node != nil && f.Node.Repetition == metadata.Optional {
		i, ok := lr.pathIndex[f.Node]
		if !ok {
			return nil, fmt.Errorf("field %s: node %s not on the path of %s", f.Arrow.Name, f.Node.Name, lr.col.DottedPath)
		}
		valid, nullCount = lr.asm.Validity(i)
		if lr.asm.Len(i) != n {
			return nil, lr.wrap(fmt.Errorf("field %s has %d slots where %d were expected: %w", f.Arrow.Name, lr.asm.Len(i), n, pagecodec.ErrCorrupt))
		}
	}
	switch f.Kind {
	case typemap.Leaf:
		bm, nulls := lr.asm.LeafValues()
		if got := lr.asm.NumLeafSlots(); got != n {
			return nil, lr.wrap(fmt.Errorf("leaf has %d slots where %d were expected: %w", got, n, pagecodec.ErrCorrupt))
		}
		return fr.leafArray(f, lr, slots{n: n, valid: bm, nullCount: nulls})
	case typemap.Struct:
		children, err := fr.buildChildren(f, n)
		if err != nil {
			return nil, err
		}
		return structArray(fr.mem, f.Arrow.Type, n, valid, nullCount, children), nil
	case typemap.List, typemap.Map:
		i, ok := lr.pathIndex[f.Repeated]
		if !ok {
			return nil, fmt.Errorf("field %s: repeated node not on the path of %s", f.Arrow.Name, lr.col.DottedPath)
		}
		offsets := lr.asm.Offsets32(i)
		if len(offsets) != n+1 {
			return nil, lr.wrap(fmt.Errorf("field %s: %d lists where %d were expected: %w", f.Arrow.Name, len(offsets)-1, n, pagecodec.ErrCorrupt))
		}
		childLen := int(offsets[n])
		if f.Kind == typemap.Map {
			return fr.mapArray(f, n, valid, nullCount, offsets, childLen)
		}
		elem, err := fr.build(f.Children[0], childLen)
		if err != nil {
			return nil, err
		}
		defer elem.Release()
		return listArray(fr.mem, f.Arrow.Type, n, valid, nullCount, offsets, elem)
	}
	return nil, fmt.Errorf("field %s: kind %v", f.Arrow.Name, f.Kind)
}

// maxFixedSizePadding is the number of null children a batch may make for
// null fixed-size lists beyond 16 per child or list slot it read.
const maxFixedSizePadding = 1 << 24

// padFixedSizeChildren returns the child array of a fixed-size list whose
// empty (null) slots get size null children each: runs of full slots are
// slices of elem, runs of empty ones arrays of nulls.
func padFixedSizeChildren(mem memory.Allocator, elem arrow.Array, offsets []int32, size int32) (arrow.Array, error) {
	var parts []arrow.Array
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	n := len(offsets) - 1
	for i := 0; i < n; {
		j := i
		if offsets[i+1] == offsets[i] {
			for j < n && offsets[j+1] == offsets[j] {
				j++
			}
			parts = append(parts, array.MakeArrayOfNull(mem, elem.DataType(), (j-i)*int(size)))
		} else {
			for j < n && offsets[j+1] != offsets[j] {
				j++
			}
			parts = append(parts, array.NewSlice(elem, int64(offsets[i]), int64(offsets[j])))
		}
		i = j
	}
	if len(parts) == 0 {
		elem.Retain()
		return elem, nil
	}
	return array.Concatenate(parts, mem)
}

func releaseAll(ds []arrow.ArrayData) {
	for _, d := range ds {
		d.Release()
	}
}

// mapArray assembles a map: its entries are non-null structs of key and
// value. A null key, possible only in files whose keys are optional, is an
// error.
func (fr *fieldReader) mapArray(f *typemap.Field, n int, valid []byte, nullCount int, offsets []int32, childLen int) (arrow.Array, error) {
	dt := f.Arrow.Type
	var ext arrow.ExtensionType
	if e, ok := dt.(arrow.ExtensionType); ok {
		ext = e
		dt = e.StorageType()
	}
	mt, ok := dt.(*arrow.MapType)
	if !ok {
		return nil, fmt.Errorf("field %s: map field of Arrow type %s", f.Arrow.Name, dt)
	}
	children, err := fr.buildChildren(f, childLen)
	if err != nil {
		return nil, err
	}
	if len(children) > 0 && children[0].NullN() > 0 {
		releaseAll(children)
		lr := fr.firstLeaf(f.Children[0])
		return nil, lr.wrap(fmt.Errorf("map %s has %d null keys: %w", f.Arrow.Name, children[0].NullN(), pagecodec.ErrCorrupt))
	}
	entries := array.NewData(mt.Elem(), childLen, []*memory.Buffer{nil}, children, 0, 0)
	releaseAll(children)
	defer entries.Release()
	offBuf := int32Buffer(fr.mem, offsets)
	validBuf := copyBitmap(fr.mem, valid, nullCount)
	data := array.NewData(mt, n, []*memory.Buffer{validBuf, offBuf}, []arrow.ArrayData{entries}, nullCount, 0)
	releaseBuffers(validBuf, offBuf)
	defer data.Release()
	return asExtension(ext, array.MakeFromData(data)), nil
}

// listArray assembles a list of any Arrow flavour from int32 offsets.
func listArray(mem memory.Allocator, dt arrow.DataType, n int, valid []byte, nullCount int, offsets []int32, elem arrow.Array) (arrow.Array, error) {
	var ext arrow.ExtensionType
	if e, ok := dt.(arrow.ExtensionType); ok {
		ext = e
		dt = e.StorageType()
	}
	validBuf := copyBitmap(mem, valid, nullCount)
	if validBuf == nil {
		nullCount = 0
	}
	var bufs []*memory.Buffer
	switch t := dt.(type) {
	case *arrow.ListType:
		bufs = []*memory.Buffer{validBuf, int32Buffer(mem, offsets)}
	case *arrow.LargeListType:
		wide := make([]int64, len(offsets))
		for i, o := range offsets {
			wide[i] = int64(o)
		}
		bufs = []*memory.Buffer{validBuf, int64Buffer(mem, wide)}
	case *arrow.ListViewType:
		bufs = []*memory.Buffer{validBuf, int32Buffer(mem, offsets[:n]), int32Buffer(mem, sizesOf(offsets))}
	case *arrow.LargeListViewType:
		wide := make([]int64, n)
		sizes := make([]int64, n)
		for i := 0; i < n; i++ {
			wide[i], sizes[i] = int64(offsets[i]), int64(offsets[i+1]-offsets[i])
		}
		bufs = []*memory.Buffer{validBuf, int64Buffer(mem, wide), int64Buffer(mem, sizes)}
	case *arrow.FixedSizeListType:
		size := int32(t.Len())
		nullLists := 0
		for i := 0; i < n; i++ {
			if offsets[i+1]-offsets[i] != size {
				if offsets[i+1] == offsets[i] && validBuf != nil && !bitutil.BitIsSet(valid, i) {
					nullLists++
					continue
				}
				releaseBuffers(validBuf)
				return nil, fmt.Errorf("a list of %d elements as %s: %w", offsets[i+1]-offsets[i], dt, pagecodec.ErrCorrupt)
			}
		}
		// The size comes from the ARROW:schema footer entry, and the
		// children of null lists are made, not read: bound them by what
		// the batch read (a hostile size must not allocate gigabytes).
		if pad, limit := int64(nullLists)*int64(size), max(maxFixedSizePadding, 16*int64(elem.Len()+n)); pad > limit {
			releaseBuffers(validBuf)
			return nil, fmt.Errorf("%d null lists of %s need %d null children (limit %d); read with a smaller BatchSize: %w",
				nullLists, dt, pad, limit, pagecodec.ErrLimit)
		}
		if nullLists > 0 {
			// Parquet stores nothing under a null list; an Arrow fixed-size
			// list still has size child slots there: null ones.
			var err error
			if elem, err = padFixedSizeChildren(mem, elem, offsets, size); err != nil {
				releaseBuffers(validBuf)
				return nil, err
			}
			defer elem.Release()
		}
		bufs = []*memory.Buffer{validBuf}
	default:
		releaseBuffers(validBuf)
		return nil, fmt.Errorf("list of Arrow type %s", dt)
	}
	data := array.NewData(dt, n, bufs, []arrow.ArrayData{elem.Data()}, nullCount, 0)
	releaseBuffers(bufs...)
	defer data.Release()
	return asExtension(ext, array.MakeFromData(data)), nil
}

func sizesOf(offsets []int32) []int32 {
	s := make([]int32, len(offsets)-1)
	for i := range s {
		s[i] = offsets[i+1] - offsets[i]
	}
	return s
}

func int32Buffer(mem memory.Allocator, v []int32) *memory.Buffer {
	b := newUninitBuffer(mem, len(v)*4)
	copy(arrow.Int32Traits.CastFromBytes(b.Bytes()), v)
	return b
}

func int64Buffer(mem memory.Allocator, v []int64) *memory.Buffer {
	b := newUninitBuffer(mem, len(v)*8)
	copy(arrow.Int64Traits.CastFromBytes(b.Bytes()), v)
	return b
}

func copyBitmap(mem memory.Allocator, valid []byte, nullCount int) *memory.Buffer {
	if nullCount == 0 || valid == nil {
		return nil
	}
	b := newUninitBuffer(mem, len(valid))
	copy(b.Bytes(), valid)
	return b
}

func releaseBuffers(bufs ...*memory.Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}

// narrowIndices converts dictionary indices to the narrow index type T of
// indexType; an index above limit (T's largest) does not fit.
func narrowIndices[T int8 | int16](idx []int32, limit int32, indexType arrow.DataType) ([]T, error) {
	narrow := make([]T, len(idx))
	for i, x := range idx {
		if x > limit {
			return nil, fmt.Errorf("dictionary index %d in %s: %w", x, indexType, errOutOfRange)
		}
		narrow[i] = T(x)
	}
	return narrow, nil
}

// buildChildren builds the n slots of each child of f; the caller owns
// the data returned (nothing is left held on an error).
func (fr *fieldReader) buildChildren(f *typemap.Field, n int) ([]arrow.ArrayData, error) {
	children := make([]arrow.ArrayData, 0, len(f.Children))
	for _, c := range f.Children {
		arr, err := fr.build(c, n)
		if err != nil {
			releaseAll(children)
			return nil, err
		}
		children = append(children, arr.Data())
		arr.Data().Retain()
		arr.Release()
	}
	return children, nil
}

// asExtension returns arr, an extension type's storage, as an array of
// ext, or arr itself when ext is nil. It takes over the caller's reference
// to arr.
func asExtension(ext arrow.ExtensionType, arr arrow.Array) arrow.Array {
	if ext == nil {
		return arr
	}
	w := array.NewExtensionArrayWithStorage(ext, arr)
	arr.Release()
	return w
}
