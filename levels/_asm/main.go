// Command _asm generates levels/expand_amd64.s with avo: the AVX-512 words
// of SpreadInPlace (VPEXPANDQ/VPEXPANDD with zeroing masks). It is its own
// module, so the levels module never builds it nor requires avo. Run it with
// go generate in levels (expand_amd64.go):
//
//	cd _asm && go run . -out ../expand_amd64.s -pkg levels
//
// The Go declarations stay in expand_amd64.go (no stubs are generated);
// go vet checks them against the frames written here.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")
	expand64()
	expand32()
	Generate()
}

// expand64 spreads slots [0, 8*nbytes) of vals back to front, a validity
// byte (8 slots) a step: k drops by the byte's set bits, the 8 values from k
// are loaded, VPEXPANDQ with the byte as mask puts the first of them at the
// set lanes and zeroes the others, and the 8 slots are stored. The values of
// a byte never lie above its slots, so the load stays below 8*nbytes and
// reads nothing the stores changed that is still to move.
func expand64() {
	TEXT("expandInPlace64", NOSPLIT, "func(vals *uint64, valid *byte, nbytes int, k int) int")
	Comment(
		"Spreads slots [0, 8*nbytes) of vals back to front, a validity",
		"byte (8 slots) a step: k drops by the byte's set bits, the 8 values from k",
		"are loaded, VPEXPANDQ with the byte as mask puts the first of them at the",
		"set lanes and zeroes the others, and the 8 slots are stored. The values of",
		"a byte never lie above its slots, so the load stays below 8*nbytes and",
		"reads nothing the stores changed that is still to move.",
	)
	expandLoop("64", 1, MOVBLZX, KMOVB, VMOVDQU64, VPEXPANDQ_Z, 8)
}

// expand32 is expand64 for 4-byte values, 16 slots (two validity bytes) a
// step with VPEXPANDD.
func expand32() {
	TEXT("expandInPlace32", NOSPLIT, "func(vals *uint32, valid *byte, nhalves int, k int) int")
	Comment(
		"expandInPlace64 for 4-byte values, 16 slots (two validity bytes) a",
		"step with VPEXPANDD.",
	)
	expandLoop("32", 2, MOVWLZX, KMOVW, VMOVDQU32, VPEXPANDD_Z, 4)
}

// expandLoop writes the body shared by both widths: maskBytes validity bytes
// a step (one 64-byte vector of slots), loaded by movzx into AX and moved to
// K1 by kmov; load/expand/store move the values, of size bytes each. The
// registers are fixed (as in the hand-written file this replaces): DI vals,
// SI valid, CX steps left, DX k, AX mask, BX set bits, R8 store offset.
func expandLoop(
	suffix string,
	maskBytes uint8,
	movzx func(mr, r Op),
	kmov func(kmr, kmr1 Op),
	vmov func(ops ...Op),
	expand func(mxyz, k, xyz Op),
	size uint8,
) {
	params := []string{"vals", "valid", "nbytes", "k"}
	if maskBytes == 2 {
		params[2] = "nhalves"
	}
	Load(Param(params[0]), RDI)
	Load(Param(params[1]), RSI)
	Load(Param(params[2]), RCX)
	Load(Param(params[3]), RDX)

	loop, done := "loop"+suffix, "done"+suffix
	Label(loop)
	TESTQ(RCX, RCX)
	JZ(LabelRef(done))
	DECQ(RCX)
	movzx(Mem{Base: RSI, Index: RCX, Scale: maskBytes}, EAX)
	POPCNTL(EAX, EBX)
	SUBQ(RBX, RDX)
	kmov(EAX, K1)
	vmov(Mem{Base: RDI, Index: RDX, Scale: size}, Z0)
	expand(Z0, K1, Z1)
	MOVQ(RCX, R8)
	SHLQ(U8(6), R8)
	vmov(Z1, Mem{Base: RDI, Index: R8, Scale: 1})
	JMP(LabelRef(loop))

	Label(done)
	VZEROUPPER()
	Store(RDX, ReturnIndex(0))
	RET()
}
