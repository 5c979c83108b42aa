//go:build amd64 && !purego

package levels

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// spreadExpandOK says whether the CPU has AVX-512 with the mask moves of
// bytes (AVX512DQ): SpreadInPlace's whole words then go through
// VPEXPANDQ/VPEXPANDD (expand_amd64.s). Tests turn it off to compare with
// the Go words.
var spreadExpandOK = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

//go:noescape
func expandInPlace64(vals *uint64, valid *byte, nbytes int, k int) int

//go:noescape
func expandInPlace32(vals *uint32, valid *byte, nhalves int, k int) int

// spreadExpand spreads the slots [0, m) of vals (m a multiple of 64),
// whose values are the k at the start of vals, in place with AVX-512
// VPEXPAND: 8 or 16 slots an instruction, where the Go words take a load,
// a mask and a store a slot. BenchmarkSpreadInPlaceMode, process CPU per
// 64Ki 8-byte slots, 10% and 50% random nulls: about 43 us in Go
// (spreadWord64), 12 us here, the same at every density. It reports
// false, having done nothing, without AVX-512 or when the set bits of
// valid below m are not k (the Go words then fail as they always did):
// the assembly trusts k to keep its loads in vals.
func spreadExpand[T uint32 | uint64](vals []T, valid []byte, m, k int) bool {
	if !spreadExpandOK || m == 0 || len(vals) < m || len(valid) < m/8 || m-CountNulls(valid, 0, m) != k {
		return false
	}
	var z T
	switch unsafe.Sizeof(z) {
	case 8:
		expandInPlace64((*uint64)(unsafe.Pointer(&vals[0])), &valid[0], m/8, k)
	default:
		expandInPlace32((*uint32)(unsafe.Pointer(&vals[0])), &valid[0], m/16, k)
	}
	return true
}
