package typemap

import "encoding/binary"

// arrow-go's IPC reader trusts the flatbuffer it is given: a vector length
// becomes a make() and an offset an index, so hostile ARROW:schema bytes
// could exhaust memory or panic (found by FuzzDecodeArrowSchema). The
// verifier below walks the parts of an IPC Schema message that the reader
// touches (Format/Message.fbs and Schema.fbs: Message, Schema, Field,
// KeyValue, DictionaryEncoding, Int and the Type union members) and checks
// that every table, vtable, scalar, string and vector lies inside the
// buffer, before the reader sees it.

// fbVerifier checks offsets against one flatbuffer.
type fbVerifier struct {
	fb    []byte
	depth int
}

// maxFieldDepth bounds the nesting of Field.children, as metadata bounds
// schema trees.
const maxFieldDepth = 1000

func (v *fbVerifier) in(off, size int) bool {
	return off >= 0 && size >= 0 && off <= len(v.fb) && size <= len(v.fb)-off
}

func (v *fbVerifier) u32(off int) (int, bool) {
	if !v.in(off, 4) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(v.fb[off:])), true
}

func (v *fbVerifier) u16(off int) (int, bool) {
	if !v.in(off, 2) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(v.fb[off:])), true
}

// table verifies the table at t whose slots have the given byte sizes
// (0 for "offset to a sub-object": 4 bytes) and returns, per slot, the
// absolute position of the field or -1 when absent.
func (v *fbVerifier) table(t int, sizes []int) ([]int, bool) {
	soff, ok := v.u32(t)
	if !ok {
		return nil, false
	}
	vt := t - int(int32(uint32(soff)))
	vtSize, ok := v.u16(vt)
	if !ok || vtSize < 4 || vtSize%2 != 0 || !v.in(vt, vtSize) {
		return nil, false
	}
	pos := make([]int, len(sizes))
	for i, size := range sizes {
		pos[i] = -1
		slot := 4 + 2*i
		if slot+2 > vtSize {
			continue
		}
		off, _ := v.u16(vt + slot)
		if off == 0 {
			continue
		}
		if size == 0 {
			size = 4
		}
		if !v.in(t+off, size) {
			return nil, false
		}
		pos[i] = t + off
	}
	return pos, true
}

// deref follows the offset stored at pos (-1: absent).
func (v *fbVerifier) deref(pos int) (int, bool) {
	if pos < 0 {
		return -1, true
	}
	off, ok := v.u32(pos)
	if !ok {
		return 0, false
	}
	return pos + off, v.in(pos+off, 4)
}

// vector verifies a vector of n elements of elemSize bytes at the offset
// stored at pos and returns the position of its first element and n.
func (v *fbVerifier) vector(pos, elemSize int) (int, int, bool) {
	at, ok := v.deref(pos)
	if !ok || at < 0 {
		return -1, 0, ok
	}
	n, ok := v.u32(at)
	if !ok || n > len(v.fb)/max(elemSize, 1) || !v.in(at+4, n*elemSize) {
		return 0, 0, false
	}
	return at + 4, n, true
}

// tables verifies a vector of tables at pos with check applied to each.
func (v *fbVerifier) tables(pos int, check func(t int) bool) bool {
	first, n, ok := v.vector(pos, 4)
	if !ok {
		return false
	}
	for i := 0; i < n; i++ {
		t, ok := v.deref(first + 4*i)
		if !ok || !check(t) {
			return false
		}
	}
	return true
}

func (v *fbVerifier) keyValue(t int) bool {
	p, ok := v.table(t, []int{0, 0})
	if !ok {
		return false
	}
	_, _, ok1 := v.vector(p[0], 1)
	_, _, ok2 := v.vector(p[1], 1)
	return ok1 && ok2
}

// message verifies a Message holding a Schema and returns its bodyLength.
func (v *fbVerifier) message() (int64, bool) {
	root, ok := v.u32(0)
	if !ok {
		return 0, false
	}
	// version i16, header_type u8, header, bodyLength i64, custom_metadata
	p, ok := v.table(root, []int{2, 1, 0, 8, 0})
	if !ok || !v.tables(p[4], v.keyValue) {
		return 0, false
	}
	var bodyLen int64
	if p[3] >= 0 {
		bodyLen = int64(binary.LittleEndian.Uint64(v.fb[p[3]:]))
	}
	const headerSchema = 1
	if p[1] < 0 || v.fb[p[1]] != headerSchema {
		return 0, false
	}
	h, ok := v.deref(p[2])
	if !ok || h < 0 {
		return 0, false
	}
	// endianness i16, fields, custom_metadata, features [long]
	s, ok := v.table(h, []int{2, 0, 0, 0})
	if !ok || !v.tables(s[1], v.field) || !v.tables(s[2], v.keyValue) {
		return 0, false
	}
	if _, _, ok := v.vector(s[3], 8); !ok {
		return 0, false
	}
	return bodyLen, true
}

func (v *fbVerifier) field(t int) bool {
	if v.depth >= maxFieldDepth {
		return false
	}
	v.depth++
	defer func() { v.depth-- }()
	// name, nullable u8, type_type u8, type, dictionary, children, custom_metadata
	p, ok := v.table(t, []int{0, 1, 1, 0, 0, 0, 0})
	if !ok {
		return false
	}
	if _, _, ok := v.vector(p[0], 1); !ok {
		return false
	}
	ty, ok := v.deref(p[3])
	if !ok {
		return false
	}
	if ty >= 0 {
		kind := -1
		if p[2] >= 0 {
			kind = int(v.fb[p[2]])
		}
		tp, ok := v.table(ty, typeSlots(kind))
		if !ok {
			return false
		}
		// Values the reader does not check but panics on: an unknown type
		// id, a time unit outside the enum, a fixed list size below 1.
		// Unions are refused outright: Parquet cannot store them, so no
		// real ARROW:schema has one.
		if kind < 1 || kind > 26 || kind == 14 {
			return false
		}
		switch kind {
		case 9: // Time.unit
			if tp[0] >= 0 && !validTimeUnit(int16(binary.LittleEndian.Uint16(v.fb[tp[0]:]))) {
				return false
			}
		case 10: // Timestamp.unit, Timestamp.timezone
			if tp[0] >= 0 && !validTimeUnit(int16(binary.LittleEndian.Uint16(v.fb[tp[0]:]))) {
				return false
			}
			if _, _, ok := v.vector(tp[1], 1); !ok {
				return false
			}
		case 16: // FixedSizeList.listSize
			if tp[0] < 0 || int32(binary.LittleEndian.Uint32(v.fb[tp[0]:])) < 1 {
				return false
			}
		}
	} else {
		return false // a field without a type
	}
	if d, ok := v.deref(p[4]); !ok {
		return false
	} else if d >= 0 {
		// id i64, indexType (Int), isOrdered u8, dictionaryKind i16
		dp, ok := v.table(d, []int{8, 0, 1, 2})
		if !ok {
			return false
		}
		if it, ok := v.deref(dp[1]); !ok {
			return false
		} else if it >= 0 {
			if _, ok := v.table(it, []int{4, 1}); !ok {
				return false
			}
		}
	}
	return v.tables(p[5], v.field) && v.tables(p[6], v.keyValue)
}

// typeSlots gives the slot sizes of the Type union member with the given
// type id (Schema.fbs), 0 for an offset.
func typeSlots(kind int) []int {
	switch kind {
	case 2: // Int: bitWidth, is_signed
		return []int{4, 1}
	case 3, 8, 11, 18: // FloatingPoint, Date, Interval, Duration: one short
		return []int{2}
	case 7: // Decimal: precision, scale, bitWidth
		return []int{4, 4, 4}
	case 9: // Time: unit, bitWidth
		return []int{2, 4}
	case 10: // Timestamp: unit, timezone
		return []int{2, 0}
	case 14: // Union: mode, typeIds
		return []int{2, 0}
	case 15, 16: // FixedSizeBinary, FixedSizeList
		return []int{4}
	case 17: // Map: keysSorted
		return []int{1}
	}
	return nil
}

func validTimeUnit(u int16) bool { return u >= 0 && u <= 3 }
