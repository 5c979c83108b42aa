//go:build amd64 && !purego

#include "textflag.h"

// func expandInPlace64(vals *uint64, valid *byte, nbytes int, k int) int
//
// Spreads slots [0, 8*nbytes) of vals back to front, a validity byte (8
// slots) a step: k drops by the byte's set bits, the 8 values from k are
// loaded, VPEXPANDQ with the byte as mask puts the first of them at the
// set lanes and zeroes the others, and the 8 slots are stored. The values
// of a byte never lie above its slots, so the load stays below 8*nbytes
// and reads nothing the stores changed that is still to move.
TEXT ·expandInPlace64(SB), NOSPLIT, $0-40
	MOVQ vals+0(FP), DI
	MOVQ valid+8(FP), SI
	MOVQ nbytes+16(FP), CX
	MOVQ k+24(FP), DX

loop64:
	TESTQ CX, CX
	JZ    done64
	DECQ  CX
	MOVBLZX (SI)(CX*1), AX
	POPCNTL AX, BX
	SUBQ  BX, DX
	KMOVB AX, K1
	VMOVDQU64 (DI)(DX*8), Z0
	VPEXPANDQ.Z Z0, K1, Z1
	MOVQ  CX, R8
	SHLQ  $6, R8
	VMOVDQU64 Z1, (DI)(R8*1)
	JMP   loop64

done64:
	VZEROUPPER
	MOVQ DX, ret+32(FP)
	RET

// func expandInPlace32(vals *uint32, valid *byte, nhalves int, k int) int
//
// expandInPlace64 for 4-byte values, 16 slots (two validity bytes) a step
// with VPEXPANDD.
TEXT ·expandInPlace32(SB), NOSPLIT, $0-40
	MOVQ vals+0(FP), DI
	MOVQ valid+8(FP), SI
	MOVQ nhalves+16(FP), CX
	MOVQ k+24(FP), DX

loop32:
	TESTQ CX, CX
	JZ    done32
	DECQ  CX
	MOVWLZX (SI)(CX*2), AX
	POPCNTL AX, BX
	SUBQ  BX, DX
	KMOVW AX, K1
	VMOVDQU32 (DI)(DX*4), Z0
	VPEXPANDD.Z Z0, K1, Z1
	MOVQ  CX, R8
	SHLQ  $6, R8
	VMOVDQU32 Z1, (DI)(R8*1)
	JMP   loop32

done32:
	VZEROUPPER
	MOVQ DX, ret+32(FP)
	RET
