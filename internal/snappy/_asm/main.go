// Command _asm generates decode_amd64.s, the Snappy decoder's fast loop
// decodeFast, with avo. It is its own module so the main module does not
// depend on avo; decode_amd64.go's go:generate line runs it:
//
//	cd _asm && go run . -out ../decode_amd64.s -pkg snappy
//
// The Go declaration of decodeFast stays hand-written in decode_amd64.go
// (no stubs). Registers are fixed (no allocation): R8 dst base, R9 last DI
// of the fast loop; R11 src base, R12 last SI of the fast loop; DI, SI the
// cursors; CX the tag at SI; R14 the tag table.
package main

import (
	"log"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// addr is the frame address of an argument or result, for stores of
// immediates (Store takes only a register).
func addr(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	return b.Addr
}

// l is a jump target.
func l(name string) LabelRef { return LabelRef(name) }

func main() {
	ConstraintExpr("amd64,!purego")

	TEXT("decodeFast", NOSPLIT, "func(dst, src []byte, d, s int, tab *[256]uint64) (dOut, sOut, n int)")
	Comment(
		"Registers: R8 dst base, R9 last DI of the fast loop; R11 src base, R12",
		"last SI of the fast loop; DI, SI the cursors; CX the tag at SI; R14 the",
		"tag table; R10 and R13 (the ends of dst and src) are free after the",
		"start. The caller guarantees the loop is entered with room (the",
		"limits cannot underflow).",
	)
	Load(Param("dst").Base(), R8)
	Load(Param("dst").Len(), R10)
	ADDQ(R8, R10)
	LEAQ(Mem{Base: R10, Disp: -80}, R9)
	Load(Param("src").Base(), R11)
	Load(Param("src").Len(), R13)
	ADDQ(R11, R13)
	LEAQ(Mem{Base: R13, Disp: -72}, R12)
	Load(Param("d"), RDI)
	ADDQ(R8, RDI)
	Load(Param("s"), RSI)
	ADDQ(R11, RSI)
	Load(Param("tab"), R14)

	Comment(
		"CX holds the tag at SI throughout: each element loads the next",
		"tag as soon as it knows where it is, from the tag alone for the",
		"common kinds (literals up to 60 bytes, 1- and 2-byte-offset",
		"copies), so the chain from one tag to the next is an add and a",
		"load; the table lookup for the element's own fields is off it.",
	)
	MOVBQZX(Mem{Base: RSI}, RCX)

	Label("loop")
	CMPQ(RSI, R12)
	JA(l("stop"))
	CMPQ(RDI, R9)
	JA(l("stop"))

	Comment(
		"DX = tab[tag] >> 32 (length | offset bits 8-10 | extra << 16);",
		"AX = the 4 bytes after the tag, masked to the element's extra bytes.",
	)
	MOVQ(Mem{Base: R14, Index: RCX, Scale: 8}, RDX)
	MOVL(Mem{Base: RSI, Disp: 1}, EAX)
	ANDL(EDX, EAX)
	SHRQ(U8(32), RDX)
	MOVL(ECX, EBX)
	ANDL(U8(3), EBX)
	JNZ(l("copyTag"))

	Comment("Literal.")
	SHRL(U8(2), ECX)
	CMPL(ECX, U8(60))
	JAE(l("litExtra"))
	LEAQ(Mem{Base: RSI, Disp: 1}, R15)
	LEAQ(Mem{Base: RSI, Index: RCX, Scale: 1, Disp: 2}, RSI)
	LEAQ(Mem{Base: RCX, Disp: 1}, RBX)
	MOVBQZX(Mem{Base: RSI}, RCX)

	Label("lit")
	Comment(
		"Literal of BX bytes from R15. Up to 64 are moved as whole 16-byte",
		"words: the loop's room covers the overshoot in src and dst.",
	)
	CMPQ(RBX, U8(16))
	JA(l("litLong"))
	MOVOU(Mem{Base: R15}, X0)
	MOVOU(X0, Mem{Base: RDI})
	ADDQ(RBX, RDI)
	JMP(l("loop"))

	Label("litLong")
	CMPQ(RBX, U8(64))
	JA(l("litHuge"))
	MOVOU(Mem{Base: R15}, X0)
	MOVOU(Mem{Base: R15, Disp: 16}, X1)
	MOVOU(Mem{Base: R15, Disp: 32}, X2)
	MOVOU(Mem{Base: R15, Disp: 48}, X3)
	MOVOU(X0, Mem{Base: RDI})
	MOVOU(X1, Mem{Base: RDI, Disp: 16})
	MOVOU(X2, Mem{Base: RDI, Disp: 32})
	MOVOU(X3, Mem{Base: RDI, Disp: 48})
	ADDQ(RBX, RDI)
	JMP(l("loop"))

	Label("litExtra")
	Comment("length-1 is in AX, in the CX-59 bytes after the tag.")
	LEAQ(Mem{Base: RSI, Index: RCX, Scale: 1, Disp: -58}, R15)
	LEAQ(Mem{Base: RAX, Disp: 1}, RBX)
	CMPQ(RBX, U8(64))
	JA(l("litHuge"))
	LEAQ(Mem{Base: R15, Index: RBX, Scale: 1}, RSI)
	MOVBQZX(Mem{Base: RSI}, RCX)
	JMP(l("lit"))

	Label("litHuge")
	Comment("The caller checks the bounds and moves it.")
	MOVQ(R15, RSI)
	Store(RBX, Return("n"))
	JMP(l("ret"))

	Label("copyTag")
	Comment("Copy: next tag after 1 + 1, 2 or 4 bytes.")
	CMPL(EBX, U8(3))
	JEQ(l("copy4"))
	LEAQ(Mem{Base: RSI, Index: RBX, Scale: 1, Disp: 1}, RSI)
	MOVBQZX(Mem{Base: RSI}, RCX)
	JMP(l("copyFields"))

	Label("copy4")
	ADDQ(U8(5), RSI)
	MOVBQZX(Mem{Base: RSI}, RCX)

	Label("copyFields")
	Comment(
		"BX = length (1 to 64), AX = offset: the extra bytes + the",
		"1-byte-offset copy's high bits; 1 <= offset <= output so far.",
	)
	MOVBQZX(DL, RBX)
	ANDL(U32(0x700), EDX)
	ADDQ(RDX, RAX)
	JZ(l("corrupt"))
	MOVQ(RDI, R15)
	SUBQ(R8, R15)
	CMPQ(RAX, R15)
	JA(l("corrupt"))
	MOVQ(RDI, RDX)
	SUBQ(RAX, RDX)
	CMPQ(RBX, U8(16))
	JA(l("copyLong"))
	CMPQ(RAX, U8(8))
	JB(l("double"))

	Comment(
		"Length <= 16, offset >= 8, one path for every offset (wide's",
		"pages alternate offsets 8 and 16-64 at random: a branch between",
		"them was mispredicted) and no load of a byte stored here (that",
		"stalled on store forwarding: numeric's copies, offsets 8-15).",
		"A, C = the 16 bytes at DX, stored at 0 and 8; then A again at",
		"k = min(offset, 16). For an offset below 16, C's bytes from",
		"offset-8 on were read at or beyond DI (not yet the copy's), and A",
		"at offset writes the pattern over them; for 16 and up A lands",
		"past the copy's 16 bytes, in slack the next elements overwrite.",
	)
	MOVQ(Mem{Base: RDX}, R15)
	MOVQ(Mem{Base: RDX, Disp: 8}, R13)
	MOVQ(U32(16), RDX)
	CMPQ(RAX, RDX)
	CMOVQCS(RAX, RDX)
	MOVQ(R15, Mem{Base: RDI})
	MOVQ(R13, Mem{Base: RDI, Disp: 8})
	MOVQ(R15, Mem{Base: RDI, Index: RDX, Scale: 1})
	ADDQ(RBX, RDI)
	JMP(l("loop"))

	Label("copyLong")
	CMPQ(RAX, U8(16))
	JB(l("shortOffset"))

	Comment(
		"Offset >= 16, length 17 to 64: each 16-byte word read was written",
		"before (by an earlier element or an earlier store here).",
	)
	MOVOU(Mem{Base: RDX}, X0)
	MOVOU(X0, Mem{Base: RDI})
	MOVOU(Mem{Base: RDX, Disp: 16}, X1)
	MOVOU(X1, Mem{Base: RDI, Disp: 16})
	CMPQ(RBX, U8(32))
	JBE(l("copyDone"))
	MOVOU(Mem{Base: RDX, Disp: 32}, X2)
	MOVOU(X2, Mem{Base: RDI, Disp: 32})
	MOVOU(Mem{Base: RDX, Disp: 48}, X3)
	MOVOU(X3, Mem{Base: RDI, Disp: 48})

	Label("copyDone")
	ADDQ(RBX, RDI)
	JMP(l("loop"))

	Label("shortOffset")
	CMPQ(RAX, U8(8))
	JAE(l("copy8"))

	Label("double")
	Comment(
		"Offset < 8: copy the pattern onto itself until the distance from",
		"DX to DI is at least 8; BX may go negative (the copy was shorter).",
	)
	MOVQ(Mem{Base: RDX}, R15)
	MOVQ(R15, Mem{Base: RDI})
	ADDQ(RAX, RDI)
	SUBQ(RAX, RBX)
	ADDQ(RAX, RAX)
	CMPQ(RAX, U8(8))
	JB(l("double"))

	Label("copy8")
	Comment("8-byte words from DX to R15; DI is set to the end first.")
	MOVQ(RDI, R15)
	ADDQ(RBX, RDI)

	Label("copy8Loop")
	CMPQ(RBX, U8(0))
	JLE(l("loop"))
	MOVQ(Mem{Base: RDX}, RAX)
	MOVQ(RAX, Mem{Base: R15})
	ADDQ(U8(8), RDX)
	ADDQ(U8(8), R15)
	SUBQ(U8(8), RBX)
	JMP(l("copy8Loop"))

	Label("corrupt")
	MOVQ(I32(-1), addr(Return("n")))
	JMP(l("ret"))

	Label("stop")
	MOVQ(U32(0), addr(Return("n")))

	Label("ret")
	SUBQ(R8, RDI)
	Store(RDI, Return("dOut"))
	SUBQ(R11, RSI)
	Store(RSI, Return("sOut"))
	RET()

	Generate()
}
