//go:build amd64 && !purego

#include "textflag.h"

// func decodeFast(dst, src []byte, d, s int, tab *[256]uint64) (dOut, sOut, n int)
//
// Registers: R8 dst base, R9 last DI of the fast loop; R11 src base, R12
// last SI of the fast loop; DI, SI the cursors; CX the tag at SI; R14 the
// tag table; R10 and R13 (the ends of dst and src) are free after the
// start. The caller guarantees the loop is entered with room (the
// limits cannot underflow).
TEXT ·decodeFast(SB), NOSPLIT, $0-96
	MOVQ dst_base+0(FP), R8
	MOVQ dst_len+8(FP), R10
	ADDQ R8, R10
	LEAQ -80(R10), R9
	MOVQ src_base+24(FP), R11
	MOVQ src_len+32(FP), R13
	ADDQ R11, R13
	LEAQ -72(R13), R12
	MOVQ d+48(FP), DI
	ADDQ R8, DI
	MOVQ s+56(FP), SI
	ADDQ R11, SI
	MOVQ tab+64(FP), R14

	// CX holds the tag at SI throughout: each element loads the next
	// tag as soon as it knows where it is, from the tag alone for the
	// common kinds (literals up to 60 bytes, 1- and 2-byte-offset
	// copies), so the chain from one tag to the next is an add and a
	// load; the table lookup for the element's own fields is off it.
	MOVBQZX (SI), CX

loop:
	CMPQ SI, R12
	JA   stop
	CMPQ DI, R9
	JA   stop

	// DX = tab[tag] >> 32 (length | offset bits 8-10 | extra << 16);
	// AX = the 4 bytes after the tag, masked to the element's extra bytes.
	MOVQ (R14)(CX*8), DX
	MOVL 1(SI), AX
	ANDL DX, AX
	SHRQ $32, DX
	MOVL CX, BX
	ANDL $3, BX
	JNZ  copyTag

	// Literal.
	SHRL  $2, CX
	CMPL  CX, $60
	JAE   litExtra
	LEAQ  1(SI), R15
	LEAQ  2(SI)(CX*1), SI
	LEAQ  1(CX), BX
	MOVBQZX (SI), CX

lit:
	// Literal of BX bytes from R15. Up to 64 are moved as whole 16-byte
	// words: the loop's room covers the overshoot in src and dst.
	CMPQ  BX, $16
	JA    litLong
	MOVOU (R15), X0
	MOVOU X0, (DI)
	ADDQ  BX, DI
	JMP   loop

litLong:
	CMPQ  BX, $64
	JA    litHuge
	MOVOU (R15), X0
	MOVOU 16(R15), X1
	MOVOU 32(R15), X2
	MOVOU 48(R15), X3
	MOVOU X0, (DI)
	MOVOU X1, 16(DI)
	MOVOU X2, 32(DI)
	MOVOU X3, 48(DI)
	ADDQ  BX, DI
	JMP   loop

litExtra:
	// length-1 is in AX, in the CX-59 bytes after the tag.
	LEAQ    -58(SI)(CX*1), R15
	LEAQ    1(AX), BX
	CMPQ    BX, $64
	JA      litHuge
	LEAQ    (R15)(BX*1), SI
	MOVBQZX (SI), CX
	JMP     lit

litHuge:
	// The caller checks the bounds and moves it.
	MOVQ R15, SI
	MOVQ BX, n+88(FP)
	JMP  ret

copyTag:
	// Copy: next tag after 1 + 1, 2 or 4 bytes.
	CMPL    BX, $3
	JEQ     copy4
	LEAQ    1(SI)(BX*1), SI
	MOVBQZX (SI), CX
	JMP     copyFields

copy4:
	ADDQ    $5, SI
	MOVBQZX (SI), CX

copyFields:
	// BX = length (1 to 64), AX = offset: the extra bytes + the
	// 1-byte-offset copy's high bits; 1 <= offset <= output so far.
	MOVBQZX DX, BX
	ANDL    $0x700, DX
	ADDQ    DX, AX
	JZ      corrupt
	MOVQ    DI, R15
	SUBQ    R8, R15
	CMPQ    AX, R15
	JA      corrupt
	MOVQ    DI, DX
	SUBQ    AX, DX
	CMPQ    BX, $16
	JA      copyLong
	CMPQ    AX, $8
	JB      double

	// Length <= 16, offset >= 8, one path for every offset (wide's
	// pages alternate offsets 8 and 16-64 at random: a branch between
	// them was mispredicted) and no load of a byte stored here (that
	// stalled on store forwarding: numeric's copies, offsets 8-15).
	// A, C = the 16 bytes at DX, stored at 0 and 8; then A again at
	// k = min(offset, 16). For an offset below 16, C's bytes from
	// offset-8 on were read at or beyond DI (not yet the copy's), and A
	// at offset writes the pattern over them; for 16 and up A lands
	// past the copy's 16 bytes, in slack the next elements overwrite.
	MOVQ    (DX), R15
	MOVQ    8(DX), R13
	MOVQ    $16, DX
	CMPQ    AX, DX
	CMOVQCS AX, DX
	MOVQ    R15, (DI)
	MOVQ    R13, 8(DI)
	MOVQ    R15, (DI)(DX*1)
	ADDQ    BX, DI
	JMP     loop

copyLong:
	CMPQ AX, $16
	JB   shortOffset

	// Offset >= 16, length 17 to 64: each 16-byte word read was written
	// before (by an earlier element or an earlier store here).
	MOVOU (DX), X0
	MOVOU X0, (DI)
	MOVOU 16(DX), X1
	MOVOU X1, 16(DI)
	CMPQ  BX, $32
	JBE   copyDone
	MOVOU 32(DX), X2
	MOVOU X2, 32(DI)
	MOVOU 48(DX), X3
	MOVOU X3, 48(DI)

copyDone:
	ADDQ BX, DI
	JMP  loop

shortOffset:
	CMPQ AX, $8
	JAE  copy8

double:
	// Offset < 8: copy the pattern onto itself until the distance from
	// DX to DI is at least 8; BX may go negative (the copy was shorter).
	MOVQ (DX), R15
	MOVQ R15, (DI)
	ADDQ AX, DI
	SUBQ AX, BX
	ADDQ AX, AX
	CMPQ AX, $8
	JB   double

copy8:
	// 8-byte words from DX to R15; DI is set to the end first.
	MOVQ DI, R15
	ADDQ BX, DI

copy8Loop:
	CMPQ BX, $0
	JLE  loop
	MOVQ (DX), AX
	MOVQ AX, (R15)
	ADDQ $8, DX
	ADDQ $8, R15
	SUBQ $8, BX
	JMP  copy8Loop

corrupt:
	MOVQ $-1, n+88(FP)
	JMP  ret

stop:
	MOVQ $0, n+88(FP)

ret:
	SUBQ R8, DI
	MOVQ DI, dOut+72(FP)
	SUBQ R11, SI
	MOVQ SI, sOut+80(FP)
	RET
