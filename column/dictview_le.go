//go:build (386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm) && !purego

package column

import (
	"unsafe"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// viewDictionary makes v's slice of its physical type the first n values
// of the PLAIN bytes b where they lie, instead of copying them out: on a
// little-endian machine fixed-width PLAIN values are the machine layout.
// Each row group of numeric's eight columns has a dictionary of about
// 1 MB, so the copy was 58 MB of 98 MB of Arrow output per read, and the
// dictionary's own slice 7 MB allocated per read. It reports false, and
// leaves v alone, for other types, misaligned bytes (a dictionary page
// starts its buffer, which Go allocates 8-byte aligned) and too few bytes.
func viewDictionary(v *Values, b []byte, n int) bool {
	if !viewDictionaries || n <= 0 {
		return false
	}
	switch v.Physical {
	case format.Type_INT32, format.Type_FLOAT:
		if len(b) < 4*n || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
			return false
		}
		if v.Physical == format.Type_INT32 {
			v.Int32 = unsafe.Slice((*int32)(unsafe.Pointer(&b[0])), n)
		} else {
			v.Float32 = unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
		}
		return true
	case format.Type_INT64, format.Type_DOUBLE:
		if len(b) < 8*n || uintptr(unsafe.Pointer(&b[0]))%8 != 0 {
			return false
		}
		if v.Physical == format.Type_INT64 {
			v.Int64 = unsafe.Slice((*int64)(unsafe.Pointer(&b[0])), n)
		} else {
			v.Float64 = unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
		}
		return true
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return viewFixed(v, b, n)
	}
	return false
}

// viewsDictionary reports whether viewDictionary uses dictionaries of
// physical type t where they lie.
func viewsDictionary(t format.Type) bool {
	switch t {
	case format.Type_INT32, format.Type_FLOAT, format.Type_INT64, format.Type_DOUBLE,
		format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return viewDictionaries
	}
	return false
}
