package pagecodec_test

import (
	"fmt"
	"math"

	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Prices encoded with ALP: decimal values become 14-bit integers, the NaN an
// exception; decoding gives every value back bit for bit.
func ExampleALPEncoder() {
	prices := []float64{19.99, 5.25, 100, math.NaN(), 0.5, 7.75, 12.3, 42}
	var e pagecodec.ALPEncoder
	e.AppendDouble(prices)
	page := e.AppendTo(nil)

	var d pagecodec.ALPDecoder
	if err := d.Reset(page, format.Type_DOUBLE); err != nil {
		panic(err)
	}
	out := make([]float64, d.Len())
	if _, err := d.DecodeDouble(out); err != nil {
		panic(err)
	}
	fmt.Println(len(page), "bytes instead of", 8*len(prices))
	fmt.Println(out)
	// Output:
	// 48 bytes instead of 64
	// [19.99 5.25 100 NaN 0.5 7.75 12.3 42]
}
