package arrowpq

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/pagecodec"
)

// TestFixedSizePaddingLimit: a fixed-size list whose size (from a hostile
// ARROW:schema) would make null lists need billions of null children is
// refused with ErrLimit before anything is allocated; a small one is
// padded.
func TestFixedSizePaddingLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	elem := array.NewInt32Builder(mem).NewArray()
	defer elem.Release()
	valid := []byte{0} // two null lists, with nothing under them in Parquet
	huge := arrow.FixedSizeListOf(1<<30, arrow.PrimitiveTypes.Int32)
	_, err := listArray(mem, huge, 2, valid, 2, []int32{0, 0, 0}, elem)
	if !errors.Is(err, pagecodec.ErrLimit) {
		t.Fatalf("size 2^30: %v", err)
	}
	small := arrow.FixedSizeListOf(4, arrow.PrimitiveTypes.Int32)
	arr, err := listArray(mem, small, 2, valid, 2, []int32{0, 0, 0}, elem)
	if err != nil {
		t.Fatal(err)
	}
	defer arr.Release()
	if child := arr.(*array.FixedSizeList).ListValues(); child.Len() != 8 || child.NullN() != 8 {
		t.Errorf("padded child: %d slots, %d null; want 8 and 8", child.Len(), child.NullN())
	}
}
