//go:build !purego

// Package uninit allocates byte slices that the runtime does not zero, for
// buffers every byte of which is written before it is read.
package uninit

import (
	"strings"
	"unsafe"
)

// Bytes returns n bytes (len = cap = n) of new Go memory that the runtime
// did not zero: strings.Builder.Grow allocates its buffer without zeroing
// it (internal/bytealg.MakeNoZero), since a builder only ever exposes the
// bytes written to it. The builder and its string are dropped here, so
// nothing else refers to the memory, which stays a plain noscan allocation
// the collector frees when the slice is gone. The content is whatever the
// heap held there before: a caller writes every byte it lets anyone read,
// and hands on no more of the slice than that. Should a future Go zero in
// Grow, this only costs time. The capacity is cut at n, so that bytes past
// n are not reachable through the slice.
func Bytes(n int) []byte {
	if n <= 0 {
		return []byte{}
	}
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	s := sb.String()
	return unsafe.Slice(unsafe.StringData(s), n)
}
