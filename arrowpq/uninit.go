package arrowpq

import "github.com/arrowpq/arrowpq/internal/uninit"

// uninitBytes returns n bytes (len = cap = n) of new memory that the
// runtime did not zero (internal/uninit; zeroed with the purego tag).
// Every caller writes every byte before the slice reaches a user
// (newUninitBuffer's contract; a test fills these buffers with poison
// bytes and compares the arrays with the zeroed path's).
//
// Zeroing was memclrNoHeapPointers at 6.2% of a single-threaded read of
// lineitem and 4.5% of numeric (docs/performance.md).
func uninitBytes(n int) []byte { return uninit.Bytes(n) }
