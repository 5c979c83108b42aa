package arrowpq

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/column"
)

// Batches whose byte arrays outgrow 32-bit offsets.
//
// A String or Binary array addresses its data with int32 offsets, so one
// batch of one leaf holds at most math.MaxInt32 bytes of byte array data
// (large_string_map.brotli.parquet has two 1 GiB strings in one column
// chunk). As Arrow C++ does, such a batch ends early: when a byte array
// leaf would overflow, the reader decodes fewer rows, halving the batch
// until every leaf fits, and keeps the smaller size for the batches that
// follow (readPlan.batchCap). A batch that overflowed has already consumed
// pages of every column, so the row group restarts from its first page and
// the rows already returned are decoded again and dropped: this costs one
// pass over the row group's earlier rows per overflow, and happens only
// where a batch would exceed 2 GiB. A single row whose data alone exceeds
// the limit is an error (the cause, wrapping pagecodec.ErrLimit).

// decodeFitting decodes a batch of up to n rows: n, or fewer when the
// byte array data of n rows does not fit 32-bit offsets (see above). It
// returns the arrays and their length.
func (r *Reader) decodeFitting(n int) ([]arrow.Array, int, error) {
	p := r.plan
	if p.batchCap > 0 && n > p.batchCap {
		n = p.batchCap
	}
	for {
		cols, err := r.decodeBatch(n)
		var full *column.BatchFullError
		if err == nil || n == 1 || !errors.As(err, &full) {
			return cols, n, err
		}
		n = (n + 1) / 2
		p.batchCap = n
		if err := r.restartRowGroup(); err != nil {
			return nil, 0, err
		}
	}
}

// restartRowGroup sets the decoders back to the start of the current row
// group and skips the rows already returned (column.Reader.SkipRecords:
// pages wholly before them are not decoded again when their row counts
// are known from their headers).
func (r *Reader) restartRowGroup() error {
	// The failed batch left records half assembled; a new chunk does not
	// clear them (a batch that ends normally does, with Finish).
	for _, f := range r.plan.fields {
		if fr, ok := f.(*fieldReader); ok {
			for _, lr := range fr.leaves {
				if lr.asm != nil {
					lr.asm.Reset()
				}
			}
		}
	}
	if err := r.plan.startRowGroup(r, r.rg, r.plan.chunks); err != nil {
		return err
	}
	done := int(r.file.Meta.RowGroups[r.rg].NumRows - r.rowsLeft)
	for _, f := range r.plan.fields {
		if fr, ok := f.(*fieldReader); ok {
			if err := fr.skipRows(done); err != nil {
				return err
			}
		}
	}
	return nil
}
