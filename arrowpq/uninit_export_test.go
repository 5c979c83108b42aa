package arrowpq

import "sync/atomic"

// SetUninitFill makes every buffer the default allocator hands out
// unzeroed (allocateUninit), down to minSize bytes, come back filled by
// fill and counted in count, and returns a function that undoes it. Tests
// that call it must not run in parallel with others.
func SetUninitFill(fill func([]byte), minSize int, count *atomic.Int64) (restore func()) {
	oldFill, oldMin := uninitFill, uninitMinSize
	uninitMinSize = minSize
	uninitFill = func(b []byte) {
		count.Add(1)
		fill(b)
	}
	return func() { uninitFill, uninitMinSize = oldFill, oldMin }
}

// SetInPlaceSpread turns buildLeaf's in-place spread of values with nulls
// on or off and returns a function that restores it.
func SetInPlaceSpread(on bool) (restore func()) {
	old := inPlaceSpread
	inPlaceSpread = on
	return func() { inPlaceSpread = old }
}
