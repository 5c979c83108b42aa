package arrowpq

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/metadata"
)

// ErrInvalidArray is wrapped by the errors of [Writer.Write] and
// [ValidateArray] for an Arrow array whose buffers contradict its type or
// length: offsets that decrease or point past the data, buffers shorter
// than length × width, children shorter than the parent needs, a null
// count that disagrees with the validity bitmap, dictionary indices out of
// range, a child whose type is not the one its parent declares, a string
// that is not UTF-8.
var ErrInvalidArray = errors.New("invalid Arrow array")

// ValidateArray checks that the buffers and children of arr agree with
// its type and length, as the Writer does with every array before it
// reads any (O(length): offsets, views, dictionary indices and validity
// bitmaps are scanned, and the bytes of string values are checked to be
// UTF-8). An error wraps ErrInvalidArray and
// names the offending child by its dotted path below arr ("" for arr
// itself, "element", "a.element", ...).
func ValidateArray(arr arrow.Array) error {
	if arr == nil {
		return fmt.Errorf("nil array: %w", ErrInvalidArray)
	}
	return validateData(arr.Data(), arr.DataType(), "")
}

// arrayError is a validation failure at a path inside a column. Its
// cause is ErrInvalidArray, or metadata.ErrUnsupported for an array of a
// type the writer does not write.
type arrayError struct {
	path  string
	msg   string
	cause error
}

func (e *arrayError) Error() string {
	if e.path == "" {
		return e.msg + ": " + e.Unwrap().Error()
	}
	return e.path + ": " + e.msg + ": " + e.Unwrap().Error()
}

func (e *arrayError) Unwrap() error {
	if e.cause == nil {
		return ErrInvalidArray
	}
	return e.cause
}

func invalid(path, format string, args ...any) error {
	return &arrayError{path: path, msg: fmt.Sprintf(format, args...)}
}

func childPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// validateData checks d, which must have type want, and its children.
// Nothing is read from a buffer before its size is checked, so a
// malformed array cannot make it panic.
func validateData(d arrow.ArrayData, want arrow.DataType, path string) error {
	if d == nil {
		return invalid(path, "missing array data")
	}
	dt := d.DataType()
	if dt == nil || !arrow.TypeEqual(dt, want) {
		return invalid(path, "array of type %v where the schema has %v", dt, want)
	}
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	n, off := d.Len(), d.Offset()
	if n < 0 || off < 0 || off > math.MaxInt-n-1 {
		return invalid(path, "length %d at offset %d", n, off)
	}
	end := off + n
	bufs := d.Buffers()
	buf := func(i int) []byte {
		if i >= len(bufs) || bufs[i] == nil {
			return nil
		}
		return bufs[i].Bytes()
	}

	// Validity.
	nulls := d.NullN()
	if dt.ID() == arrow.NULL {
		if nulls != n && nulls != array.UnknownNullCount {
			return invalid(path, "null array of length %d with a null count of %d", n, nulls)
		}
		return nil
	}
	valid := buf(0)
	if valid != nil && len(valid) < (end+7)/8 {
		return invalid(path, "validity bitmap of %d bytes for %d slots at offset %d", len(valid), n, off)
	}
	if nulls < array.UnknownNullCount || nulls > n {
		return invalid(path, "null count %d for length %d", nulls, n)
	}
	if valid == nil {
		// An unknown count (-1) without a bitmap too: arrow-go's NullN
		// would count the bits of a missing bitmap.
		if nulls != 0 {
			return invalid(path, "null count %d without a validity bitmap", nulls)
		}
	} else if count := n - bitutil.CountSetBits(valid, off, n); nulls != array.UnknownNullCount && nulls != count {
		return invalid(path, "null count %d, but the validity bitmap has %d nulls", nulls, count)
	}
	if valid == nil {
		nulls = 0
	}
	isValid := func(i int) bool { return valid == nil || bitutil.BitIsSet(valid, i) }

	children := d.Children()
	needChildren := func(k int) error {
		if len(children) != k {
			return invalid(path, "%d child arrays, the type has %d", len(children), k)
		}
		return nil
	}

	switch t := dt.(type) {
	case *arrow.BooleanType:
		if n > 0 && len(buf(1)) < (end+7)/8 {
			return invalid(path, "values buffer of %d bytes for %d booleans at offset %d", len(buf(1)), n, off)
		}
	case *arrow.DictionaryType:
		return validateDictionary(d, t, buf(1), off, end, isValid, path)
	case arrow.FixedWidthDataType:
		w := t.BitWidth() / 8
		if w <= 0 {
			return invalid(path, "type %v has no byte width", dt)
		}
		// Also with no values: arrow-go slices a present values buffer
		// at [off:off+n] when it makes the array (lazily for a
		// dictionary's values, inside the Writer).
		if (n > 0 || len(bufs) > 1 && bufs[1] != nil) && len(buf(1))/w < end {
			return invalid(path, "values buffer of %d bytes for %d values of %d bytes at offset %d", len(buf(1)), n, w, off)
		}
	case *arrow.StringType, *arrow.BinaryType:
		if err := checkOffsets32(buf(1), off, n, len(buf(2)), "data bytes", path); err != nil || dt.ID() != arrow.STRING || n == 0 {
			return err
		}
		o := buf(1)
		return checkUTF8Slots(func(i int) int64 { return int64(int32(binary.LittleEndian.Uint32(o[4*i:]))) }, buf(2), off, n, isValid, path)
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		if err := checkOffsets64(buf(1), off, n, len(buf(2)), "data bytes", path); err != nil || dt.ID() != arrow.LARGE_STRING || n == 0 {
			return err
		}
		o := buf(1)
		return checkUTF8Slots(func(i int) int64 { return int64(binary.LittleEndian.Uint64(o[8*i:])) }, buf(2), off, n, isValid, path)
	case *arrow.StringViewType, *arrow.BinaryViewType:
		return checkViews(bufs, off, n, isValid, dt.ID() == arrow.STRING_VIEW, path)
	case *arrow.ListType, *arrow.MapType:
		if err := needChildren(1); err != nil {
			return err
		}
		elem := t.(arrow.ListLikeType).ElemField()
		if err := validateData(children[0], elem.Type, childPath(path, elem.Name)); err != nil {
			return err
		}
		return checkOffsets32(buf(1), off, n, children[0].Len(), "child values", path)
	case *arrow.LargeListType:
		if err := needChildren(1); err != nil {
			return err
		}
		if err := validateData(children[0], t.Elem(), childPath(path, "element")); err != nil {
			return err
		}
		return checkOffsets64(buf(1), off, n, children[0].Len(), "child values", path)
	case *arrow.FixedSizeListType:
		if err := needChildren(1); err != nil {
			return err
		}
		size := int(t.Len())
		if size < 0 {
			return invalid(path, "fixed list size %d", size)
		}
		if err := validateData(children[0], t.Elem(), childPath(path, "element")); err != nil {
			return err
		}
		if size > 0 && children[0].Len()/size < end {
			return invalid(path, "child of %d values for %d lists of %d at offset %d", children[0].Len(), n, size, off)
		}
	case *arrow.ListViewType, *arrow.LargeListViewType:
		if err := needChildren(1); err != nil {
			return err
		}
		elem := t.(arrow.ListLikeType).ElemField()
		if err := validateData(children[0], elem.Type, childPath(path, elem.Name)); err != nil {
			return err
		}
		return checkListViews(buf(1), buf(2), dt.ID() == arrow.LARGE_LIST_VIEW, off, n, children[0].Len(), isValid, path)
	case *arrow.RunEndEncodedType:
		if err := needChildren(2); err != nil {
			return err
		}
		if nulls != 0 {
			return invalid(path, "a run-end encoded array with %d nulls of its own", nulls)
		}
		if err := validateData(children[0], t.RunEnds(), childPath(path, "run_ends")); err != nil {
			return err
		}
		if err := validateData(children[1], t.Encoded(), childPath(path, "values")); err != nil {
			return err
		}
		return checkRunEnds(children[0], children[1].Len(), end, childPath(path, "run_ends"))
	case *arrow.StructType:
		if err := needChildren(t.NumFields()); err != nil {
			return err
		}
		for i, f := range t.Fields() {
			if err := validateData(children[i], f.Type, childPath(path, f.Name)); err != nil {
				return err
			}
			if children[i].Len() < end {
				return invalid(childPath(path, f.Name), "child of length %d in a struct of %d slots at offset %d", children[i].Len(), n, off)
			}
		}
	default:
		return &arrayError{path: path, msg: fmt.Sprintf("arrays of type %v cannot be written", dt), cause: metadata.ErrUnsupported}
	}
	return nil
}

// checkListViews checks the offsets and sizes of n list views at off (int32,
// or int64 when large): present, and every valid view's offset and size
// non-negative and within the child's limit values.
func checkListViews(offs, sizes []byte, large bool, off, n, limit int, isValid func(int) bool, path string) error {
	if n == 0 {
		return nil
	}
	w := 4
	if large {
		w = 8
	}
	if len(offs)/w < off+n || len(sizes)/w < off+n {
		return invalid(path, "offsets of %d bytes and sizes of %d bytes for %d list views at offset %d", len(offs), len(sizes), n, off)
	}
	at := func(b []byte, i int) int64 {
		if large {
			return int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
	}
	for i := off; i < off+n; i++ {
		if !isValid(i) {
			continue
		}
		o, sz := at(offs, i), at(sizes, i)
		if o < 0 || sz < 0 || o > int64(limit) || sz > int64(limit)-o {
			return invalid(path, "list view %d at offset %d of size %d, the child has %d values", i-off, o, sz, limit)
		}
	}
	return nil
}

// checkRunEnds checks the run ends of a run-end encoded array whose
// logical slots end at end: no nulls, strictly increasing from above zero,
// the last at or beyond end, one value for each run up to the one holding
// the last slot.
func checkRunEnds(d arrow.ArrayData, numValues, end int, path string) error {
	if d.NullN() != 0 {
		return invalid(path, "%d null run ends", d.NullN())
	}
	runs := array.MakeFromData(d)
	defer runs.Release()
	at := func(i int) int64 {
		switch r := runs.(type) {
		case *array.Int16:
			return int64(r.Value(i))
		case *array.Int32:
			return int64(r.Value(i))
		case *array.Int64:
			return r.Value(i)
		}
		return -1
	}
	prev := int64(0)
	for i := 0; i < runs.Len(); i++ {
		e := at(i)
		if e <= prev {
			return invalid(path, "run end %d after %d", e, prev)
		}
		prev = e
		if e >= int64(end) {
			if i >= numValues {
				return invalid(path, "run %d of %d values", i, numValues)
			}
			return nil
		}
	}
	if end > 0 {
		return invalid(path, "runs end at %d, the array at %d", prev, end)
	}
	return nil
}

// checkOffsets32 checks the int32 offsets of n slots at off: present,
// starting at or above zero, never decreasing, ending within limit.
func checkOffsets32(b []byte, off, n, limit int, what, path string) error {
	if n == 0 && len(b) == 0 {
		return nil
	}
	if len(b)/4 < off+n+1 {
		return invalid(path, "offsets buffer of %d bytes for %d slots at offset %d", len(b), n, off)
	}
	return checkOffsetRun(arrow.Int32Traits.CastFromBytes(b)[off:off+n+1], limit, what, path)
}

// checkOffsets64 is checkOffsets32 for int64 offsets.
func checkOffsets64(b []byte, off, n, limit int, what, path string) error {
	if n == 0 && len(b) == 0 {
		return nil
	}
	if len(b)/8 < off+n+1 {
		return invalid(path, "offsets buffer of %d bytes for %d slots at offset %d", len(b), n, off)
	}
	return checkOffsetRun(arrow.Int64Traits.CastFromBytes(b)[off:off+n+1], limit, what, path)
}

// checkOffsetRun checks the n+1 offsets of n slots (at least one).
func checkOffsetRun[T int32 | int64](offs []T, limit int, what, path string) error {
	prev := offs[0]
	if prev < 0 {
		return invalid(path, "first offset %d is negative", prev)
	}
	for i, v := range offs[1:] {
		if v < prev {
			return invalid(path, "offsets decrease at slot %d: %d after %d", i, v, prev)
		}
		prev = v
	}
	if int64(prev) > int64(limit) {
		return invalid(path, "last offset %d is past the %d %s", prev, limit, what)
	}
	return nil
}

// checkViews checks the 16-byte views of a string or binary view array:
// a value of up to 12 bytes is inline; a longer one names a data buffer
// (counted from buffer 2) and a range that must lie inside it.
func checkViews(bufs []*memory.Buffer, off, n int, isValid func(int) bool, utf8Values bool, path string) error {
	var views []byte
	if len(bufs) > 1 && bufs[1] != nil {
		views = bufs[1].Bytes()
	}
	if n > 0 && len(views)/16 < off+n {
		return invalid(path, "views buffer of %d bytes for %d views at offset %d", len(views), n, off)
	}
	for i := off; i < off+n; i++ {
		if !isValid(i) {
			continue
		}
		v := views[16*i : 16*i+16]
		size := int32(binary.LittleEndian.Uint32(v))
		if size < 0 {
			return invalid(path, "view %d has length %d", i-off, size)
		}
		if size <= 12 {
			if utf8Values && !utf8.Valid(v[4:4+size]) {
				return invalid(path, "string value %d is not valid UTF-8", i-off)
			}
			continue
		}
		bi := int64(int32(binary.LittleEndian.Uint32(v[8:])))
		start := int64(int32(binary.LittleEndian.Uint32(v[12:])))
		if bi < 0 || bi+2 >= int64(len(bufs)) || bufs[bi+2] == nil {
			return invalid(path, "view %d names data buffer %d of %d", i-off, bi, max(len(bufs)-2, 0))
		}
		if start < 0 || start+int64(size) > int64(bufs[bi+2].Len()) {
			return invalid(path, "view %d: %d bytes at %d past the %d bytes of data buffer %d", i-off, size, start, bufs[bi+2].Len(), bi)
		}
		if utf8Values && !utf8.Valid(bufs[bi+2].Bytes()[start:start+int64(size)]) {
			return invalid(path, "string value %d is not valid UTF-8", i-off)
		}
	}
	return nil
}

// checkUTF8Slots checks that the valid slots of a string array hold UTF-8,
// as Arrow requires of utf8 arrays and the reader checks of STRING columns
// (a file we write must read back). Offsets have been checked; offset(i)
// reads offset i of the buffer. The slots' data is checked in one pass
// when it is ASCII or valid UTF-8 cut only at character starts, and value
// by value otherwise, skipping nulls (whose bytes Arrow leaves undefined).
func checkUTF8Slots(offset func(int) int64, data []byte, off, n int, isValid func(int) bool, path string) error {
	lo, hi := offset(off), offset(off+n)
	if isASCII(data[lo:hi]) {
		return nil
	}
	if utf8.Valid(data[lo:hi]) {
		split := false
		for i := off; i < off+n; i++ {
			if o := offset(i); o < hi {
				split = split || data[o]&0xc0 == 0x80
			}
		}
		if !split {
			return nil
		}
	}
	for i := off; i < off+n; i++ {
		if isValid(i) && !utf8.Valid(data[offset(i):offset(i+1)]) {
			return invalid(path, "string value %d is not valid UTF-8", i-off)
		}
	}
	return nil
}

// validateDictionary checks the indices of a dictionary array and its
// dictionary: every index of a valid slot is within the dictionary.
func validateDictionary(d arrow.ArrayData, t *arrow.DictionaryType, idx []byte, off, end int, isValid func(int) bool, path string) error {
	dict := d.Dictionary()
	if dict == nil {
		return invalid(path, "dictionary array without a dictionary")
	}
	if err := validateData(dict, t.ValueType, childPath(path, "dictionary")); err != nil {
		return err
	}
	it, ok := t.IndexType.(arrow.FixedWidthDataType)
	if !ok || !arrow.IsInteger(t.IndexType.ID()) {
		return invalid(path, "dictionary index type %v is not an integer", t.IndexType)
	}
	w := it.BitWidth() / 8
	n := end - off
	if n > 0 && len(idx)/w < end {
		return invalid(path, "indices buffer of %d bytes for %d indices of %d bytes at offset %d", len(idx), n, w, off)
	}
	size := uint64(dict.Len())
	signed := arrow.IsSignedInteger(t.IndexType.ID())
	for i := off; i < end; i++ {
		if !isValid(i) {
			continue
		}
		var v uint64
		switch w {
		case 1:
			v = uint64(idx[i])
			if signed {
				v = uint64(int64(int8(idx[i])))
			}
		case 2:
			v = uint64(binary.LittleEndian.Uint16(idx[2*i:]))
			if signed {
				v = uint64(int64(int16(v)))
			}
		case 4:
			v = uint64(binary.LittleEndian.Uint32(idx[4*i:]))
			if signed {
				v = uint64(int64(int32(v)))
			}
		default:
			v = binary.LittleEndian.Uint64(idx[8*i:])
		}
		// A negative signed index is a huge uint64: out of range too.
		if v >= size {
			return invalid(path, "dictionary index %d of slot %d is outside the %d values of the dictionary", int64(v), i-off, size)
		}
	}
	return nil
}

// validateColumn checks a top-level column of a batch of numRows rows
// against the schema field it is written as.
func validateColumn(arr arrow.Array, f arrow.Field, numRows int) error {
	if arr == nil {
		return invalid("", "missing column")
	}
	if arr.Len() != numRows {
		return invalid("", "column of %d rows in a batch of %d", arr.Len(), numRows)
	}
	return validateData(arr.Data(), f.Type, "")
}
