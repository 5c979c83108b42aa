//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm) || purego

package column

import "github.com/arrowpq/arrowpq/metadata/format"

// viewDictionary uses INT96 and FIXED_LEN_BYTE_ARRAY dictionaries where
// they lie (bytes in any byte order); numbers are decoded value by value
// on big-endian machines and with the purego tag (dictview_le.go).
func viewDictionary(v *Values, b []byte, n int) bool {
	if !viewDictionaries || n <= 0 {
		return false
	}
	switch v.Physical {
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return viewFixed(v, b, n)
	}
	return false
}

// viewsDictionary reports whether viewDictionary uses dictionaries of
// physical type t where they lie.
func viewsDictionary(t format.Type) bool {
	return viewDictionaries && (t == format.Type_INT96 || t == format.Type_FIXED_LEN_BYTE_ARRAY)
}
