package arrowpq

import "github.com/arrowpq/arrowpq/column"

// SetMaxBatchData lowers the byte array data one batch of one leaf may hold
// (math.MaxInt32 otherwise), so that tests reach the early end of a batch
// (bigbatch.go) with small files. Call it before the first Next.
func SetMaxBatchData(r *Reader, n int) {
	r.maxBatchData = n
	for _, f := range r.plan.fields {
		if fr, ok := f.(*fieldReader); ok {
			for _, lr := range fr.leaves {
				lr.cr = column.NewReader(lr.col, columnOptions(&r.opts, n))
			}
		}
	}
}
