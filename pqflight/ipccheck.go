package pqflight

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A DoPut stream is decoded by arrow-go's IPC reader, which trusts the
// counts in each message's flatbuffer header: the number of children of a
// field, of schema fields, of metadata entries, of variadic buffers, sizes
// whose make() runs before anything is read. A header of a few bytes
// claiming 2^32 children had the server allocate hundreds of gigabytes,
// a fatal error that no recover catches (found by TestDoPutStreamFuzz).
// checkedStream walks every header before the reader sees it, with bounds
// checks at each step, and refuses a message whose counts cannot be true
// (a vector longer than the bytes that hold it), whose schema has more
// fields than the server takes (shared subtables counted each time they
// are reached, so a small header cannot describe a huge tree), or whose
// batch claims more rows than maxPutBatchRows.
//
// The flatbuffer layout, in our words: a buffer starts with a uint32
// offset to the root table. A table starts with an int32 that, subtracted
// from the table's position, gives its vtable: uint16 vtable size, uint16
// table size, then one uint16 per field, the field's offset in the table
// (0: absent). A reference field (table, vector, string) holds a uint32
// offset from the field's own position to its target; a vector or string
// is a uint32 count followed by its elements.
type checkedStream struct {
	flight.DataStreamReader
	maxFields int
}

// maxPutBatchRows bounds the rows of a record batch and the lengths of its
// arrays in a DoPut message. Real batches are far smaller (a gRPC message
// is 4 MiB by default); the bound matters for arrays without buffers (the
// null type), whose length alone sets the work.
const maxPutBatchRows = 1 << 26

func (c checkedStream) Recv() (*flight.FlightData, error) {
	fd, err := c.DataStreamReader.Recv()
	if err != nil || len(fd.DataHeader) == 0 {
		return fd, err
	}
	if err := checkMessage(fd.DataHeader, c.maxFields); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "pqflight: DoPut: bad IPC message header: %v", err)
	}
	return fd, nil
}

// fbuf is a flatbuffer under bounds checks.
type fbuf []byte

func (b fbuf) u32(pos int) (int, error) {
	if pos < 0 || pos > len(b)-4 {
		return 0, fmt.Errorf("offset %d outside the %d-byte header", pos, len(b))
	}
	return int(binary.LittleEndian.Uint32(b[pos:])), nil
}

// table returns the position of the table referenced at pos (a uoffset)
// and its vtable.
func (b fbuf) table(ref int) (t, vt int, err error) {
	off, err := b.u32(ref)
	if err != nil {
		return 0, 0, err
	}
	t = ref + off
	so, err := b.u32(t)
	if err != nil {
		return 0, 0, err
	}
	vt = t - int(int32(so))
	if vt < 0 || vt > len(b)-4 {
		return 0, 0, fmt.Errorf("vtable at %d outside the header", vt)
	}
	size := int(binary.LittleEndian.Uint16(b[vt:]))
	tsize := int(binary.LittleEndian.Uint16(b[vt+2:]))
	if size < 4 || size%2 != 0 || vt+size > len(b) || t+tsize > len(b) {
		return 0, 0, fmt.Errorf("table at %d does not fit the header", t)
	}
	return t, vt, nil
}

// field returns the position of field i of the table at t, or 0.
func (b fbuf) field(t, vt, i int) int {
	size := int(binary.LittleEndian.Uint16(b[vt:]))
	if 4+2*i+2 > size {
		return 0
	}
	off := int(binary.LittleEndian.Uint16(b[vt+4+2*i:]))
	if off == 0 {
		return 0
	}
	return t + off
}

// vector returns the position of the first element and the count of the
// vector referenced at ref, whose elements are elem bytes each; the whole
// vector must lie inside the buffer.
func (b fbuf) vector(ref, elem int) (start, n int, err error) {
	off, err := b.u32(ref)
	if err != nil {
		return 0, 0, err
	}
	v := ref + off
	n, err = b.u32(v)
	if err != nil {
		return 0, 0, err
	}
	if n > (len(b)-v-4)/elem {
		return 0, 0, fmt.Errorf("a vector of %d elements of %d bytes in a %d-byte header", n, elem, len(b))
	}
	return v + 4, n, nil
}

func (b fbuf) i64(pos int) (int64, error) {
	if pos < 0 || pos > len(b)-8 {
		return 0, fmt.Errorf("offset %d outside the header", pos)
	}
	return int64(binary.LittleEndian.Uint64(b[pos:])), nil
}

// Message header union types of the Arrow IPC format (Message.fbs).
const (
	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
)

// checkMessage checks an IPC Message flatbuffer: Message {version,
// header_type, header, bodyLength, custom_metadata}.
func checkMessage(h []byte, maxFields int) error {
	b := fbuf(h)
	t, vt, err := b.table(0)
	if err != nil {
		return err
	}
	if p := b.field(t, vt, 4); p != 0 {
		if err := b.checkKeyValues(p); err != nil {
			return err
		}
	}
	p := b.field(t, vt, 2)
	if p == 0 {
		return nil // no header: the reader refuses it
	}
	var kind byte
	if k := b.field(t, vt, 1); k != 0 && k < len(b) {
		kind = b[k]
	}
	switch kind {
	case headerSchema:
		return b.checkSchema(p, maxFields)
	case headerRecordBatch:
		return b.checkRecordBatch(p)
	case headerDictionaryBatch:
		t, vt, err := b.table(p)
		if err != nil {
			return err
		}
		if d := b.field(t, vt, 1); d != 0 {
			return b.checkRecordBatch(d)
		}
		return nil
	default:
		return fmt.Errorf("message type %d is not a schema, dictionary batch or record batch", kind)
	}
}

// checkKeyValues checks a vector of KeyValue {key: string, value: string}.
func (b fbuf) checkKeyValues(ref int) error {
	start, n, err := b.vector(ref, 4)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		t, vt, err := b.table(start + 4*i)
		if err != nil {
			return err
		}
		for f := 0; f < 2; f++ {
			if p := b.field(t, vt, f); p != 0 {
				if _, _, err := b.vector(p, 1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkSchema checks Schema {endianness, fields, custom_metadata, features}.
func (b fbuf) checkSchema(ref, maxFields int) error {
	t, vt, err := b.table(ref)
	if err != nil {
		return err
	}
	count := 0
	if p := b.field(t, vt, 1); p != 0 {
		if err := b.checkFields(p, 0, &count, maxFields); err != nil {
			return err
		}
	}
	if p := b.field(t, vt, 2); p != 0 {
		if err := b.checkKeyValues(p); err != nil {
			return err
		}
	}
	if p := b.field(t, vt, 3); p != 0 {
		if _, _, err := b.vector(p, 8); err != nil {
			return err
		}
	}
	return nil
}

// typeUnion is the Type union's tag of Union (Schema.fbs), whose table
// holds a vector of type ids.
const typeUnion = 14

// checkFields checks a vector of Field {name, nullable, type_type, type,
// dictionary, children, custom_metadata}, counting every field reached.
func (b fbuf) checkFields(ref, depth int, count *int, maxFields int) error {
	if depth > 64 {
		return fmt.Errorf("fields nested deeper than 64")
	}
	start, n, err := b.vector(ref, 4)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if *count++; *count > maxFields {
			return fmt.Errorf("more than %d fields", maxFields)
		}
		t, vt, err := b.table(start + 4*i)
		if err != nil {
			return err
		}
		if p := b.field(t, vt, 0); p != 0 {
			if _, _, err := b.vector(p, 1); err != nil {
				return err
			}
		}
		if p := b.field(t, vt, 3); p != 0 {
			tt, tvt, err := b.table(p)
			if err != nil {
				return err
			}
			if k := b.field(t, vt, 2); k != 0 && k < len(b) && b[k] == typeUnion {
				if q := b.field(tt, tvt, 1); q != 0 {
					if _, _, err := b.vector(q, 4); err != nil {
						return err
					}
				}
			}
		}
		if p := b.field(t, vt, 4); p != 0 {
			if _, _, err := b.table(p); err != nil {
				return err
			}
		}
		if p := b.field(t, vt, 5); p != 0 {
			if err := b.checkFields(p, depth+1, count, maxFields); err != nil {
				return err
			}
		}
		if p := b.field(t, vt, 6); p != 0 {
			if err := b.checkKeyValues(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRecordBatch checks RecordBatch {length, nodes, buffers,
// compression, variadicBufferCounts}: the vectors fit, the lengths are
// within maxPutBatchRows, and the variadic buffer counts add up to no more
// than the buffers the batch has.
func (b fbuf) checkRecordBatch(ref int) error {
	t, vt, err := b.table(ref)
	if err != nil {
		return err
	}
	if p := b.field(t, vt, 0); p != 0 {
		n, err := b.i64(p)
		if err != nil {
			return err
		}
		if n < 0 || n > maxPutBatchRows {
			return fmt.Errorf("a batch of %d rows (the server takes at most %d)", n, maxPutBatchRows)
		}
	}
	if p := b.field(t, vt, 1); p != 0 {
		start, n, err := b.vector(p, 16)
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			l, _ := b.i64(start + 16*i)
			nulls, _ := b.i64(start + 16*i + 8)
			if l < 0 || l > maxPutBatchRows || nulls < -1 || nulls > l {
				return fmt.Errorf("array %d: length %d with %d nulls", i, l, nulls)
			}
		}
	}
	numBuffers := 0
	if p := b.field(t, vt, 2); p != 0 {
		if _, numBuffers, err = b.vector(p, 16); err != nil {
			return err
		}
	}
	if p := b.field(t, vt, 3); p != 0 {
		if _, _, err := b.table(p); err != nil {
			return err
		}
	}
	if p := b.field(t, vt, 4); p != 0 {
		start, n, err := b.vector(p, 8)
		if err != nil {
			return err
		}
		total := int64(0)
		for i := 0; i < n; i++ {
			c, _ := b.i64(start + 8*i)
			if c < 0 || c > int64(numBuffers) {
				return fmt.Errorf("%d variadic buffers of %d", c, numBuffers)
			}
			if total += c; total > int64(numBuffers) {
				return fmt.Errorf("variadic buffer counts add up past the %d buffers", numBuffers)
			}
		}
	}
	return nil
}
