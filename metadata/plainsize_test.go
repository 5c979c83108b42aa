package metadata

import (
	"testing"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestPlainSize checks the PLAIN value sizes of parquet-format Encodings.md
// ("Plain"): BOOLEAN as statistics store it (one byte), INT32/FLOAT 4,
// INT64/DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY its type_length, and
// BYTE_ARRAY without a fixed size.
func TestPlainSize(t *testing.T) {
	for _, tc := range []struct {
		physical format.Type
		length   int32
		want     int
	}{
		{format.Type_BOOLEAN, 0, 1},
		{format.Type_INT32, 0, 4},
		{format.Type_FLOAT, 0, 4},
		{format.Type_INT64, 0, 8},
		{format.Type_DOUBLE, 0, 8},
		{format.Type_INT96, 0, 12},
		{format.Type_FIXED_LEN_BYTE_ARRAY, 16, 16},
		{format.Type_BYTE_ARRAY, 0, -1},
	} {
		c := &Column{Physical: tc.physical, TypeLength: tc.length}
		if got := c.PlainSize(); got != tc.want {
			t.Errorf("%s(%d): PlainSize %d, want %d", tc.physical, tc.length, got, tc.want)
		}
	}
}
