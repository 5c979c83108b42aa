package column

import "unsafe"

// viewDictionaries turns the no-copy dictionary off when false (the tests
// compare both ways).
var viewDictionaries = true

// holds reports whether b lies within the memory of buf (up to its
// capacity): then a page's bytes are in a buffer the reader owns, not in
// the chunk, a window or a decryption buffer.
func holds(buf, b []byte) bool {
	if len(b) == 0 || cap(buf) == 0 {
		return false
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= lo && p-lo <= uintptr(cap(buf)) && uintptr(len(b)) <= uintptr(cap(buf))-(p-lo)
}

// viewFixed makes v's INT96 or FIXED_LEN_BYTE_ARRAY slice the first n
// values of the PLAIN bytes b, without a copy; the capacity ends there,
// so that nothing appends into b.
func viewFixed(v *Values, b []byte, n int) bool {
	size := n * v.Width
	if v.Width <= 0 || size > len(b) {
		return false
	}
	v.Fixed = b[:size:size]
	return true
}
