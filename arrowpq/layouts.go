package arrowpq

// Arrow layouts Parquet has no shape for, kept through ARROW:schema:
// run-end encoded arrays are stored as their logical values and list views
// as lists. The reader builds them back after decoding (runEndEncode here;
// list views in listArray); the writer turns them into the plain forms
// before it shreds a batch (plainLayout*).

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// runEndEncode turns the plain values of a batch into a run-end encoded
// array of type dt (runs of equal values, nulls included, become one
// value each), with arrow-go's run_end_encode kernel.
func runEndEncode(mem memory.Allocator, dt *arrow.RunEndEncodedType, values arrow.Array) (arrow.Array, error) {
	ctx := compute.WithAllocator(context.Background(), mem)
	out, err := compute.RunEndEncodeArray(ctx, compute.RunEndEncodeOptions{RunEndType: dt.RunEnds()}, values)
	if err != nil {
		return nil, fmt.Errorf("run-end encoding %d values as %s: %w", values.Len(), dt, err)
	}
	return out, nil
}
