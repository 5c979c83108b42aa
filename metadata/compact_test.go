package metadata

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// sameValue is reflect.DeepEqual except that floats compare by bits, so
// that NaN equals NaN.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() || a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// checkCompactSame parses b with both readers and fails unless both fail
// or both give the same FileMetaData.
func checkCompactSame(t *testing.T, b []byte) {
	t.Helper()
	want, werr := ParseFileMetaData(b)
	got, gerr := parseFileMetaDataCompact(b)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("generated reader error %v, compact reader error %v", werr, gerr)
	}
	if werr == nil && !sameValue(reflect.ValueOf(want), reflect.ValueOf(got)) {
		t.Fatalf("readers differ:\ngenerated %v\ncompact   %v", want, got)
	}
}

func TestCompactCorpus(t *testing.T) {
	footers := corpusFooters(t)
	ok := 0
	for name, b := range footers {
		t.Run(name, func(t *testing.T) {
			checkCompactSame(t, b)
		})
		if _, err := parseFileMetaDataCompact(b); err == nil {
			ok++
		}
	}
	if ok < 200 {
		t.Errorf("only %d of %d footers parse", ok, len(footers))
	}
	checkCompactSame(t, wideFooter(t, 100, 3))
}

// TestCompactHandBuilt covers wire forms the corpus does not: long field
// id deltas, wrong wire types for known fields, unknown fields of every
// type, booleans in both encodings.
func TestCompactHandBuilt(t *testing.T) {
	// FileMetaData{version: 1, schema: [{name: "r"}], num_rows: 0, row_groups: []}
	base := []byte{0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, 'r', 0x00, 0x16, 0x00, 0x19, 0x0c}
	tests := map[string][]byte{
		"minimal": append(append([]byte{}, base...), 0x00),
		// Unknown field 20 (absolute id) of each type, then STOP.
		"unknown i32":          append(append([]byte{}, base...), 0x05, 0x28, 0x02, 0x00),
		"unknown double":       append(append([]byte{}, base...), 0x07, 0x28, 1, 2, 3, 4, 5, 6, 7, 8, 0x00),
		"unknown binary":       append(append([]byte{}, base...), 0x08, 0x28, 0x03, 'a', 'b', 'c', 0x00),
		"unknown list":         append(append([]byte{}, base...), 0x09, 0x28, 0x35, 0x02, 0x04, 0x06, 0x00),
		"unknown set of bools": append(append([]byte{}, base...), 0x0a, 0x28, 0x21, 0x01, 0x02, 0x00),
		"unknown map":          append(append([]byte{}, base...), 0x0b, 0x28, 0x02, 0x58, 0x02, 0x01, 'k', 0x04, 0x01, 'l', 0x06, 0x00),
		"unknown empty map":    append(append([]byte{}, base...), 0x0b, 0x28, 0x00, 0x00),
		"unknown struct":       append(append([]byte{}, base...), 0x0c, 0x28, 0x15, 0x02, 0x11, 0x00, 0x00),
		"unknown uuid":         append(append(append([]byte{}, base...), 0x0d, 0x28), append(make([]byte, 16), 0x00)...),
		"unknown bool true":    append(append([]byte{}, base...), 0x01, 0x28, 0x00),
		"unknown byte":         append(append([]byte{}, base...), 0x03, 0x28, 0x7f, 0x00),
		// created_by (6) sent as an i32: skipped.
		"created_by with the wrong type":    append(append([]byte{}, base...), 0x25, 0x04, 0x00),
		"created_by":                        append(append([]byte{}, base...), 0x28, 0x02, 'h', 'i', 0x00),
		"truncated":                         base,
		"unknown type nibble":               append(append([]byte{}, base...), 0x0e, 0x00),
		"list with an unknown element type": append(append([]byte{}, base...), 0x09, 0x28, 0x1e, 0x00, 0x00),
		"list longer than the input":        append(append([]byte{}, base...), 0x09, 0x28, 0xf5, 0x80, 0x80, 0x04, 0x00),
		"varint of 11 bytes":                append(append([]byte{}, base...), 0x05, 0x28, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00),
		"negative binary length":            append(append([]byte{}, base...), 0x28, 0x01, 0x00),
		"struct nested past the skip limit": append(append(append([]byte{}, base...), 0x0c, 0x28), append(bytes.Repeat([]byte{0x1c}, 70), bytes.Repeat([]byte{0x00}, 72)...)...),
		"struct nested at the skip limit":   append(append(append([]byte{}, base...), 0x0c, 0x28), append(bytes.Repeat([]byte{0x1c}, 62), bytes.Repeat([]byte{0x00}, 64)...)...),
		"missing version":                   {0x29, 0x1c, 0x48, 0x01, 'r', 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00},
	}
	for name, b := range tests {
		t.Run(name, func(t *testing.T) { checkCompactSame(t, b) })
	}
	md, err := parseFileMetaDataCompact(tests["created_by"])
	if err != nil || md.CreatedBy == nil || *md.CreatedBy != "hi" || md.Schema[0].Name != "r" || md.Version != 1 {
		t.Errorf("created_by: %v, %v", md, err)
	}
}

// FuzzCompactDifferential holds the compact reader to the generated one:
// the same FileMetaData, or an error from both. Seeds: the FuzzFooter
// corpus.
func FuzzCompactDifferential(f *testing.F) {
	for _, b := range corpusFooters(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkCompactSame(t, b)
		n := allocated(func() { _, _ = parseFileMetaDataCompact(b) })
		if limit := uint64(parseAllocPerByte*len(b) + parseAllocSlack); n > limit {
			t.Fatalf("compact parse of %d bytes allocated %d, over %d", len(b), n, limit)
		}
	})
}
