//go:build !amd64 || purego

package snappy

// decode decodes the elements of src into dst and reports whether they fill
// it exactly.
func decode(dst, src []byte) bool { return decodeGeneric(dst, src, 0, 0) }
