package bitpack_test

import (
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// The spec's example: 0..7 at bit width 3 pack LSB-first into 3 bytes.
func ExampleUnpack32() {
	dst := make([]uint32, 8)
	bitpack.Unpack32(dst, []byte{0x88, 0xC6, 0xFA}, 3)
	fmt.Println(dst)
	// Output: [0 1 2 3 4 5 6 7]
}

// Reading the hybrid run by run: an RLE run of ten 5s, then one bit-packed
// group.
func ExampleHybridReader() {
	var r bitpack.HybridReader
	r.Reset([]byte{0x14, 0x05, 0x03, 0x88, 0xC6, 0xFA}, 3)
	for {
		run, err := r.NextRun()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if run.Packed == nil {
			fmt.Printf("RLE %d x %d\n", run.Count, run.Value)
		} else {
			fmt.Printf("bit-packed %d values in % x\n", run.Count, run.Packed)
		}
	}
	// Output:
	// RLE 10 x 5
	// bit-packed 8 values in 88 c6 fa
}

func ExampleHybridEncoder() {
	var e bitpack.HybridEncoder
	e.Reset(3)
	e.AppendRepeat(5, 10)
	e.Append32([]uint32{0, 1, 2, 3, 4, 5, 6, 7})
	fmt.Printf("% x\n", e.Finish())
	// Output: 14 05 03 88 c6 fa
}
