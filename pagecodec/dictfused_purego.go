//go:build purego

package pagecodec

// decodeDictArrays is the twin of dictfused_arrays.go without unsafe:
// every width takes gatherFixed.
func decodeDictArrays(d *DictIndexDecoder, dst, dict []byte, width int) (n int, ok bool, err error) {
	return 0, false, nil
}
