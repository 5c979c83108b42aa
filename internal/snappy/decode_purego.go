//go:build (!amd64 && !arm64) || purego

package snappy

// decode decodes the elements of src into dst and reports whether they fill
// it exactly.
func decode(dst, src []byte) bool { return decodeGeneric(dst, src, 0, 0) }

// decodeBlock decodes the block src, whose header is h bytes long, into dst
// (exactly the decoded length) and reports whether it succeeded.
func decodeBlock(dst, src []byte, h int) bool { return decode(dst, src[h:]) }
