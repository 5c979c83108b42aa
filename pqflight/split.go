package pqflight

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
)

// DefaultMaxBatchBytes is the size above which record batches are split
// before they are sent, when Options.MaxBatchBytes or
// ClientOptions.MaxBatchBytes is zero. It keeps each Flight message under
// gRPC's default 4 MiB receive limit, so that peers with default settings
// can read every stream.
const DefaultMaxBatchBytes = 3 << 20

// maxRecvMsgSize is the largest message Dial's clients accept, for
// servers that send bigger batches than ours.
const maxRecvMsgSize = 256 << 20

// bufferBytes is the size of the buffers of an array and its children: the
// size of its IPC body, give or take padding, when it is not a slice.
func bufferBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += bufferBytes(c)
	}
	// Dictionary returns a typed nil for other types: ask the type first.
	if d.DataType().ID() == arrow.DICTIONARY {
		n += bufferBytes(d.Dictionary())
	}
	return n
}

// writeSplit sends rec, cut into slices of about limit bytes when it is
// larger (limit < 0: never). The size of a slice is estimated from the
// whole buffers, so a record that is itself a slice is cut finer than
// needed, never coarser. A single row larger than limit goes alone.
func writeSplit(w *flight.Writer, rec arrow.RecordBatch, limit int64) error {
	n := rec.NumRows()
	if limit < 0 || n <= 1 {
		return w.Write(rec)
	}
	var size int64
	for _, c := range rec.Columns() {
		size += bufferBytes(c.Data())
	}
	if size <= limit {
		return w.Write(rec)
	}
	parts := (size + limit - 1) / limit
	step := max((n+parts-1)/parts, 1)
	for start := int64(0); start < n; start += step {
		part := rec.NewSlice(start, min(start+step, n))
		err := w.Write(part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// limitOr returns the split limit an option field asks for.
func limitOr(v int64) int64 {
	if v == 0 {
		return DefaultMaxBatchBytes
	}
	return v
}
