package column

import (
	"fmt"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// Fixed is the element type of the fixed-width physical types INT32,
// INT64, FLOAT and DOUBLE.
type Fixed interface {
	int32 | int64 | float32 | float64
}

// ReadFixed reads up to len(values) levels (and at most len(def) or
// len(rep) when the column has those levels) of an INT32, INT64, FLOAT or
// DOUBLE column, decoding the values straight into values, without a copy:
// values[:numValues] hold the non-null values in order. T must match the
// column's physical type. See [Reader.Read] for the counts and io.EOF.
func ReadFixed[T Fixed](r *Reader, values []T, def, rep []int16) (numLevels, numValues int, err error) {
	var v Values
	v.Reset(r.col)
	var want format.Type
	switch dst := any(values).(type) {
	case []int32:
		v.Int32, want = dst[:0], format.Type_INT32
	case []int64:
		v.Int64, want = dst[:0], format.Type_INT64
	case []float32:
		v.Float32, want = dst[:0], format.Type_FLOAT
	case []float64:
		v.Float64, want = dst[:0], format.Type_DOUBLE
	}
	if want != r.col.Physical {
		return 0, 0, fmt.Errorf("column: %T values from a %v column", values, r.col.Physical)
	}
	// A level carries at most one value, so len(values) levels never
	// outgrow values: the decoder appends in place.
	return r.Read(&v, len(values), def, rep)
}

// ReadByteArray reads up to n levels of a BYTE_ARRAY column, appending the
// values' bytes to data and their end offsets to offsets (offsets must
// hold the start offset of the first value, usually 0; the values address
// data from its start). Pointing offsets and data at memory with room,
// such as the buffers of an Arrow array, decodes into it without a copy.
func ReadByteArray(r *Reader, offsets []int32, data []byte, n int, def, rep []int16) (offsets2 []int32, data2 []byte, numLevels, numValues int, err error) {
	if r.col.Physical != format.Type_BYTE_ARRAY {
		return offsets, data, 0, 0, fmt.Errorf("column: byte arrays from a %v column", r.col.Physical)
	}
	if len(offsets) == 0 {
		offsets = append(offsets, int32(len(data)))
	}
	v := Values{Physical: format.Type_BYTE_ARRAY, Offsets: offsets, Data: data}
	numLevels, numValues, err = r.Read(&v, n, def, rep)
	return v.Offsets, v.Data, numLevels, numValues, err
}
