package metadata

// A hand-written Thrift compact-protocol reader for FileMetaData.
//
// It produces exactly what the generated format.FileMetaData.Read produces
// on the same bytes (or fails where it fails), with fewer allocations:
// structs of a list come from a few backing arrays instead of one
// allocation each, optional scalars and nested structs from typed slabs,
// equal strings (the path of a column repeats in every row group) share
// one allocation, and binaries are subslices of the input.
// A differential fuzz target (FuzzCompactDifferential) holds the two
// readers to the same results.
//
// Compact protocol, as far as FileMetaData needs it:
//
//	field header  byte: high nibble id delta (0: a zigzag varint id follows),
//	              low nibble type; low nibble 0 ends the struct. Types 1 and 2
//	              are booleans whose value is the type (1 = true).
//	i8            one byte; i16, i32, i64: zigzag varint (at most 10 bytes)
//	double        8 bytes little-endian
//	binary        varint length, bytes
//	list, set     byte: high nibble size (15: a varint size follows), low
//	              nibble element type; booleans in a list are one byte each
//	map           varint size; if not 0, a byte of key and value types
//
// Known fields with a wire type other than the declared one are skipped,
// like unknown fields; skipping nests at most 64 levels deep.

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// skipDepth is the nesting limit of the Thrift library's Skip.
const skipDepth = 64

// compactTypes maps a compact type nibble to its Thrift type; invalid
// nibbles map to 0xff.
var compactTypes = [16]thrift.TType{
	0: thrift.STOP, 1: thrift.BOOL, 2: thrift.BOOL, 3: thrift.BYTE, 4: thrift.I16, 5: thrift.I32,
	6: thrift.I64, 7: thrift.DOUBLE, 8: thrift.STRING, 9: thrift.LIST, 10: thrift.SET, 11: thrift.MAP,
	12: thrift.STRUCT, 13: thrift.UUID, 14: 0xff, 15: 0xff,
}

// minWireSize is the smallest encoding of one value of a Thrift type, as
// the library uses it to reject container sizes.
func minWireSize(t thrift.TType) int64 {
	switch t {
	case thrift.DOUBLE:
		return 8
	case thrift.UUID:
		return 16
	}
	return 1
}

// slab hands out pointers to values stored in shared chunks, so that
// optional fields cost no allocation each.
type slab[T any] []T

func (s *slab[T]) ptr(v T) *T {
	p := s.next()
	*p = v
	return p
}

// slice returns an empty slice of capacity n carved from the slab. Lists
// longer than smallList get their own array.
func (s *slab[T]) slice(n int) []T {
	if n == 0 {
		// Empty but not nil, as the generated reader makes it; this
		// does not allocate.
		return []T{}
	}
	if n > smallList {
		return make([]T, 0, n)
	}
	if cap(*s)-len(*s) < n {
		*s = make([]T, 0, max(n, min(max(16, 2*cap(*s)), 1024)))
	}
	l := len(*s)
	*s = (*s)[:l+n]
	return (*s)[l : l : l+n]
}

// smallList is the longest list that slab.slice carves from a slab.
const smallList = 256

// next returns a pointer to a new zero value. Extending the length of
// memory make already zeroed avoids copying a zero struct through write
// barriers.
func (s *slab[T]) next() *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, min(max(16, 2*cap(*s)), 1024))
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

type compactReader struct {
	b   []byte // the input; binaries are subslices of it
	pos int
	// interned holds every distinct string read so far.
	interned map[string]string

	i64s  slab[int64]
	i32s  slab[int32]
	bools slab[bool]
	strs  slab[string]
	types slab[format.Type]
	reps  slab[format.FieldRepetitionType]
	convs slab[format.ConvertedType]
	metas slab[format.ColumnMetaData]
	stats slab[format.Statistics]
	encs  slab[format.Encoding]

	// Elements of struct lists and the pointer slices that hold them.
	elems     slab[format.SchemaElement]
	elemPtrs  slab[*format.SchemaElement]
	groups    slab[format.RowGroup]
	groupPtrs slab[*format.RowGroup]
	chunks    slab[format.ColumnChunk]
	chunkPtrs slab[*format.ColumnChunk]
	kvs       slab[format.KeyValue]
	kvPtrs    slab[*format.KeyValue]
	orders    slab[format.ColumnOrder]
	orderPtrs slab[*format.ColumnOrder]
	sorts     slab[format.SortingColumn]
	sortPtrs  slab[*format.SortingColumn]
	pageStats slab[format.PageEncodingStats]
	pageSPtrs slab[*format.PageEncodingStats]
}

// parseFileMetaDataCompact parses a serialized FileMetaData like
// [ParseFileMetaData]. The binaries of the result (statistics, key
// metadata) alias b, which must not be modified while the result is in
// use; each binary is capped so that appending to it cannot overwrite b.
func parseFileMetaDataCompact(b []byte) (*format.FileMetaData, error) {
	if len(b) > math.MaxInt32 {
		return nil, fmt.Errorf("thrift message of %d bytes: %w", len(b), ErrLimit)
	}
	r := &compactReader{b: b, interned: make(map[string]string)}
	md := &format.FileMetaData{}
	if err := r.fileMetaData(md); err != nil {
		return nil, err
	}
	return md, nil
}

func (r *compactReader) fail(format string, args ...any) error {
	return fmt.Errorf("thrift decode at byte %d: %s: %w", r.pos, fmt.Sprintf(format, args...), ErrCorrupt)
}

// eof reports a message cut short. It wraps both ErrCorrupt, as every
// error of the footer parser does, and io.ErrUnexpectedEOF.
func (r *compactReader) eof() error {
	return fmt.Errorf("thrift decode at byte %d: %w: %w", r.pos, io.ErrUnexpectedEOF, ErrCorrupt)
}

func (r *compactReader) byte1() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, r.eof()
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// uvarint reads a varint of at most 10 bytes; bits past 64 are dropped as
// the library drops them.
func (r *compactReader) uvarint() (uint64, error) {
	// Most varints in a footer are a single byte.
	if r.pos < len(r.b) && r.b[r.pos] < 0x80 {
		v := r.b[r.pos]
		r.pos++
		return uint64(v), nil
	}
	var v uint64
	for i := 0; i < 10; i++ {
		if r.pos >= len(r.b) {
			return 0, r.eof()
		}
		c := r.b[r.pos]
		r.pos++
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, r.fail("varint longer than 10 bytes")
}

func (r *compactReader) i64() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (r *compactReader) i32() (int32, error) {
	u, err := r.uvarint()
	n := uint32(u)
	return int32(n>>1) ^ -int32(n&1), err
}

func (r *compactReader) double() (float64, error) {
	if len(r.b)-r.pos < 8 {
		r.pos = len(r.b)
		return 0, r.eof()
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.pos:]))
	r.pos += 8
	return v, nil
}

// length reads the size of a binary and checks it against the message and
// the bytes left.
func (r *compactReader) length() (int, error) {
	u, err := r.uvarint()
	if err != nil {
		return 0, err
	}
	n := int32(u)
	if n < 0 || int(n) > len(r.b) {
		return 0, r.fail("binary of %d bytes", n)
	}
	if int(n) > len(r.b)-r.pos {
		r.pos = len(r.b)
		return 0, r.eof()
	}
	return int(n), nil
}

func (r *compactReader) binary() ([]byte, error) {
	n, err := r.length()
	if err != nil {
		return nil, err
	}
	v := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return v, nil
}

func (r *compactReader) str() (string, error) {
	n, err := r.length()
	if err != nil {
		return "", err
	}
	raw := r.b[r.pos : r.pos+n]
	r.pos += n
	// The lookup with a converted key does not allocate.
	if v, ok := r.interned[string(raw)]; ok {
		return v, nil
	}
	v := string(raw)
	r.interned[v] = v
	return v, nil
}

// listHeader reads a list or set header and checks its size against the
// bytes left, counting the smallest encoding of the declared element type.
func (r *compactReader) listHeader() (int, thrift.TType, error) {
	c, err := r.byte1()
	if err != nil {
		return 0, 0, err
	}
	size := int64(c >> 4)
	if size == 15 {
		u, err := r.uvarint()
		if err != nil {
			return 0, 0, err
		}
		size = int64(int32(u))
	}
	t := compactTypes[c&0x0f]
	if t == 0xff {
		return 0, 0, r.fail("unknown element type %d", c&0x0f)
	}
	if size < 0 || size*minWireSize(t) > int64(len(r.b)-r.pos) {
		return 0, 0, r.fail("list of %d elements with %d bytes left", size, len(r.b)-r.pos)
	}
	return int(size), t, nil
}

// field reads a field header. last is the previous field id of the
// struct. For booleans the value comes with the header.
func (r *compactReader) field(last *int16) (t thrift.TType, id int16, bv bool, err error) {
	c, err := r.byte1()
	if err != nil {
		return 0, 0, false, err
	}
	if c&0x0f == 0 {
		return thrift.STOP, 0, false, nil
	}
	if delta := int16(c >> 4); delta != 0 {
		id = *last + delta
	} else {
		v, err := r.i32()
		if err != nil {
			return 0, 0, false, err
		}
		id = int16(v)
	}
	t = compactTypes[c&0x0f]
	if t == 0xff {
		return 0, 0, false, r.fail("unknown field type %d", c&0x0f)
	}
	*last = id
	return t, id, c&0x0f == 1, nil
}

// skip skips one value of type t, as the library's Skip with depth.
func (r *compactReader) skip(t thrift.TType, depth int) error {
	if depth <= 0 {
		return r.fail("nesting deeper than %d", skipDepth)
	}
	switch t {
	case thrift.BOOL:
		// A boolean field carries its value in the header; only list
		// elements reach here with a byte to read, and fields come with
		// an empty read below.
		return nil
	case thrift.BYTE:
		_, err := r.byte1()
		return err
	case thrift.I16, thrift.I32, thrift.I64:
		_, err := r.uvarint()
		return err
	case thrift.DOUBLE:
		_, err := r.double()
		return err
	case thrift.STRING:
		_, err := r.binary()
		return err
	case thrift.UUID:
		if len(r.b)-r.pos < 16 {
			r.pos = len(r.b)
			return r.eof()
		}
		r.pos += 16
		return nil
	case thrift.STRUCT:
		var last int16
		for {
			ft, _, _, err := r.field(&last)
			if err != nil {
				return err
			}
			if ft == thrift.STOP {
				return nil
			}
			if err := r.skip(ft, depth-1); err != nil {
				return err
			}
		}
	case thrift.MAP:
		u, err := r.uvarint()
		if err != nil {
			return err
		}
		size := int64(int32(u))
		kt, vt := thrift.TType(thrift.STOP), thrift.TType(thrift.STOP)
		if size != 0 {
			c, err := r.byte1()
			if err != nil {
				return err
			}
			if kt = compactTypes[c>>4]; kt == 0xff {
				kt = thrift.STOP
			}
			if vt = compactTypes[c&0x0f]; vt == 0xff {
				vt = thrift.STOP
			}
		}
		if size < 0 || size*(minWireSize(kt)+minWireSize(vt)) > int64(len(r.b)-r.pos) {
			return r.fail("map of %d entries with %d bytes left", size, len(r.b)-r.pos)
		}
		for range size {
			if err := r.skipElem(kt, depth-1); err != nil {
				return err
			}
			if err := r.skipElem(vt, depth-1); err != nil {
				return err
			}
		}
		return nil
	case thrift.LIST, thrift.SET:
		n, et, err := r.listHeader()
		if err != nil {
			return err
		}
		for range n {
			if err := r.skipElem(et, depth-1); err != nil {
				return err
			}
		}
		return nil
	}
	return r.fail("cannot skip type %d", t)
}

// skipElem skips a container element: unlike a field, a boolean element
// is a byte.
func (r *compactReader) skipElem(t thrift.TType, depth int) error {
	if t == thrift.BOOL {
		if depth <= 0 {
			return r.fail("nesting deeper than %d", skipDepth)
		}
		_, err := r.byte1()
		return err
	}
	return r.skip(t, depth)
}

// skipField skips a field of wire type t that the struct reader does not
// take.
func (r *compactReader) skipField(t thrift.TType) error { return r.skip(t, skipDepth) }

// emptyStruct reads a struct without known fields.
func (r *compactReader) emptyStruct() error {
	var last int16
	for {
		t, _, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		if err := r.skipField(t); err != nil {
			return err
		}
	}
}

func missing(name string) error {
	return fmt.Errorf("thrift decode: required field %s is not set: %w", name, ErrCorrupt)
}

// structList reads a list of structs. Elements come from the items slab,
// the slice of pointers from ptrs (or its own array for a long list); a
// slab chunk never holds more than twice the elements read so far (plus a
// few), so a list whose size lies allocates in proportion to the bytes
// that are really there.
func structList[T any](r *compactReader, items *slab[T], ptrs *slab[*T], read func(*compactReader, *T) error) ([]*T, error) {
	n, _, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	out := ptrs.slice(n)
	for range n {
		el := items.next()
		if err := read(r, el); err != nil {
			return nil, err
		}
		out = append(out, el)
	}
	return out, nil
}

func i32List[T ~int32 | ~int64](r *compactReader, s *slab[T]) ([]T, error) {
	n, _, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	out := s.slice(n)
	for range n {
		v, err := r.i32()
		if err != nil {
			return nil, err
		}
		out = append(out, T(v))
	}
	return out, nil
}

func (r *compactReader) i64List() ([]int64, error) {
	n, _, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	out := r.i64s.slice(n)
	for range n {
		v, err := r.i64()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (r *compactReader) strList() ([]string, error) {
	n, _, err := r.listHeader()
	if err != nil {
		return nil, err
	}
	out := r.strs.slice(n)
	for range n {
		v, err := r.str()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
