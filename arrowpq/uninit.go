//go:build !purego

package arrowpq

import (
	"strings"
	"unsafe"
)

// uninitBytes returns n bytes (len = cap = n) of new Go memory that the
// runtime did not zero: strings.Builder.Grow allocates its buffer without
// zeroing it (internal/bytealg.MakeNoZero), since a builder only ever
// exposes the bytes written to it. The builder and its string are dropped
// here, so nothing else refers to the memory, which stays a plain noscan
// allocation the collector frees when the slice is gone. The content is
// whatever the heap held there before: every caller writes every byte
// before the slice reaches a user (newUninitBuffer's contract; a test
// fills these buffers with poison bytes and compares the arrays with the
// zeroed path's). Should a future Go zero in Grow, this only costs time.
// The capacity is cut at n, so that bytes past n, never written, are not
// reachable through the slice.
//
// Zeroing was memclrNoHeapPointers at 6.2% of a single-threaded read of
// lineitem and 4.5% of numeric (docs/performance.md).
func uninitBytes(n int) []byte {
	if n <= 0 {
		return []byte{}
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), n)
}
