//go:build !purego

package pagecodec

import "unsafe"

// decodeDictArrays is DecodeDictFixed for the widths that have a fused
// path: dst and dict viewed as slices of [width]byte go through
// DecodeDict, whose bit-packed runs gather eight values at a time straight
// from the unpacking registers (bitpack.UnpackGather32) with one compare
// an index, where gatherFixed takes the indices through d.buf and checks
// the bounds of both slices on every value. ok is false for other widths.
// The view is sound on any machine: a [width]byte has the alignment of a
// byte and the values are bytes, moved as they are. The purego twin
// (dictfused_purego.go) always says false, so the package tests run with
// -tags purego check gatherFixed against the same expectations.
func decodeDictArrays(d *DictIndexDecoder, dst, dict []byte, width int) (n int, ok bool, err error) {
	switch width {
	case 1:
		n, err = decodeDictAs[[1]byte](d, dst, dict)
	case 2:
		n, err = decodeDictAs[[2]byte](d, dst, dict)
	case 4:
		n, err = decodeDictAs[[4]byte](d, dst, dict)
	case 8:
		n, err = decodeDictAs[[8]byte](d, dst, dict)
	case 12:
		n, err = decodeDictAs[[12]byte](d, dst, dict)
	case 16:
		n, err = decodeDictAs[[16]byte](d, dst, dict)
	default:
		return 0, false, nil
	}
	return n, true, err
}

// decodeDictAs runs DecodeDict on dst and dict viewed as slices of A, a
// byte array type.
func decodeDictAs[A any](d *DictIndexDecoder, dst, dict []byte) (int, error) {
	return DecodeDict(d, viewArrays[A](dst), viewArrays[A](dict))
}

// viewArrays views b as len(b)/size(A) values of the byte array type A.
func viewArrays[A any](b []byte) []A {
	var a A
	n := len(b) / int(unsafe.Sizeof(a))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*A)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
