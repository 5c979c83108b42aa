package metadata_test

import (
	"fmt"
	"math"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// The statistics a writer stores for a DOUBLE page under
// IEEE_754_TOTAL_ORDER: NaNs are counted, not used as bounds, and -0 is a
// bound of its own.
func ExampleTotalOrderBounds() {
	var b metadata.TotalOrderBounds
	b.AddDouble([]float64{math.NaN(), 2.5, math.Copysign(0, -1), 7})
	var s format.Statistics
	b.Fill(&s)
	lo, hi, _ := b.MinMax()
	fmt.Println(*s.NanCount, lo, hi)
	fmt.Println(metadata.CompareTotalOrder64(math.Copysign(0, -1), 0), metadata.CompareTotalOrder64(math.Inf(1), math.NaN()))
	// Output:
	// 1 [0 0 0 0 0 0 0 128] [0 0 0 0 0 0 28 64]
	// -1 -1
}
