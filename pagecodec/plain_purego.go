//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm) || purego

package pagecodec

import (
	"encoding/binary"
	"math"
)

// The portable twin of plain_le.go for big-endian machines and the purego
// tag: one value at a time through encoding/binary.

func sizeOf[T fixed]() uintptr {
	switch any(*new(T)).(type) {
	case int32, uint32, float32:
		return 4
	}
	return 8
}

func copyLE[T fixed](dst []T, src []byte) {
	switch d := any(dst).(type) {
	case []int32:
		for i := range d {
			d[i] = int32(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case []uint32:
		for i := range d {
			d[i] = binary.LittleEndian.Uint32(src[4*i:])
		}
	case []float32:
		for i := range d {
			d[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case []int64:
		for i := range d {
			d[i] = int64(binary.LittleEndian.Uint64(src[8*i:]))
		}
	case []uint64:
		for i := range d {
			d[i] = binary.LittleEndian.Uint64(src[8*i:])
		}
	case []float64:
		for i := range d {
			d[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
		}
	default:
		panic("unreachable")
	}
}

func appendLE[T fixed](dst []byte, values []T) []byte {
	switch v := any(values).(type) {
	case []int32:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(x))
		}
	case []uint32:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint32(dst, x)
		}
	case []float32:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
		}
	case []int64:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(x))
		}
	case []uint64:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint64(dst, x)
		}
	case []float64:
		for _, x := range v {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(x))
		}
	default:
		panic("unreachable")
	}
	return dst
}
