package levels

import (
	"encoding/binary"
	"fmt"
)

// The one-list fast path of Assembler.Append: MaxRep = 1 and at most one
// optional node per depth, which covers LIST of primitives (3-level and
// legacy 2-level) and both leaves of MAP. Every per-level step is
// branch-free except the row start: slot counters live in registers, and a
// level without a slot at depth 1 writes a 0 bit at the next depth-1 position
// without advancing it (the buffers are zeroed ahead), instead of branching.

// list1 holds what the fast path needs, resolved once in NewAssembler.
type list1 struct {
	ok       bool
	opt0     int   // optional node of depth 0, or -1
	opt1     int   // optional node of depth 1, or -1
	repNode  int   // the repeated node
	thr0     int16 // definition level of opt0
	thr1     int16 // definition level of opt1
	elemDef  int16 // definition level at which a level has a depth-1 slot
	scratch0 bitBuf
	scratch1 bitBuf
}

func newList1(p *Path) list1 {
	l := list1{opt0: -1, opt1: -1, repNode: -1}
	if p.MaxRep != 1 {
		return l
	}
	for i, n := range p.Nodes {
		switch {
		case n.Repetition == Repeated:
			l.repNode, l.elemDef = i, n.DefLevel
		case n.Repetition == Optional && n.Depth == 0:
			if l.opt0 >= 0 {
				return l
			}
			l.opt0, l.thr0 = i, n.DefLevel
		case n.Repetition == Optional:
			if l.opt1 >= 0 {
				return l
			}
			l.opt1, l.thr1 = i, n.DefLevel
		}
	}
	l.ok = true
	return l
}

func b2u(b bool) uint {
	var u uint
	if b {
		u = 1
	}
	return u
}

// wordBits is a bitmap being extended 64 bits at a time from a register:
// acc holds the bits of the word holding bit n.
type wordBits struct {
	buf []byte
	n   uint
	acc uint64
}

func loadWordBits(b *bitBuf) wordBits {
	w := wordBits{buf: b.buf, n: uint(b.n)}
	if r := w.n & 63; r != 0 {
		w.acc = binary.LittleEndian.Uint64(w.buf[w.n>>6*8:]) & (1<<r - 1)
	}
	return w
}

// store writes the current word.
func (w *wordBits) store() { binary.LittleEndian.PutUint64(w.buf[w.n>>6*8:], w.acc) }

// growWords makes room for k more bits plus a whole trailing word, so
// wordBits can store 8 bytes at any word holding one of them.
func (b *bitBuf) growWords(k int) {
	b.grow(k + 64)
	b.buf = b.buf[:cap(b.buf)]
	if need := (b.n + k + 63) / 64 * 8; len(b.buf) < need {
		panic("levels: growWords")
	}
}

// appendList1 runs the fast path; off is the repeated node's offsets, with
// capacity for len(def) more entries.
func appendList1[O int32 | int64](a *Assembler, def, rep []int16, off []O) ([]O, error) {
	l := &a.list
	p := a.p
	v0, v1 := &l.scratch0, &l.scratch1
	if l.opt0 >= 0 {
		v0 = &a.nodes[l.opt0].valid
	} else {
		v0.reset()
	}
	if l.opt1 >= 0 {
		v1 = &a.nodes[l.opt1].valid
	} else {
		v1.reset()
	}
	leaf := &a.leaf
	v0.growWords(len(def))
	v1.growWords(len(def))
	leaf.growWords(len(def))
	w0, w1, wL := loadWordBits(v0), loadWordBits(v1), loadWordBits(leaf)
	n0, n1 := a.depth[0].slots, uint(a.depth[1].slots)
	ones0, ones1, onesL := uint(0), uint(0), uint(0)
	thr0, thr1, elemDef, maxDef := l.thr0, l.thr1, l.elemDef, p.MaxDef
	if l.opt0 < 0 {
		thr0 = 0
	}
	if l.opt1 < 0 {
		thr1 = 0
	}
	prevElem := a.prevDepth == 1
	started := a.prevDepth >= 0
	rep = rep[:len(def)]
	var err error
	i := 0
	for ; i < len(def); i++ {
		d, r := def[i], rep[i]
		if uint16(d) > uint16(maxDef) || uint16(r) > 1 {
			err = fmt.Errorf("level (def %d, rep %d) outside [0, %d], [0, 1]", d, r, maxDef)
			break
		}
		elem := d >= elemDef
		if r == 0 {
			x := b2u(d >= thr0)
			w0.acc |= uint64(x) << (w0.n & 63)
			ones0 += x
			w0.n++
			if w0.n&63 == 0 {
				binary.LittleEndian.PutUint64(w0.buf[(w0.n>>6-1)*8:], w0.acc)
				w0.acc = 0
			}
			off = append(off, O(n1))
			n0++
			started = true
		} else if !elem || !prevElem {
			if !started {
				err = fmt.Errorf("repetition level %d at the start of a record", r)
			} else {
				err = fmt.Errorf("repetition level %d continues a list that is empty here or before", r)
			}
			break
		}
		// A level without a depth-1 slot ORs a 0 bit (its definition level
		// is below both thresholds) and does not advance.
		x := b2u(d >= thr1)
		w1.acc |= uint64(x) << (w1.n & 63)
		ones1 += x
		y := b2u(d == maxDef)
		wL.acc |= uint64(y) << (wL.n & 63)
		onesL += y
		e := b2u(elem)
		w1.n += e
		wL.n += e
		n1 += e
		if w1.n&63 == 0 && e != 0 {
			binary.LittleEndian.PutUint64(w1.buf[(w1.n>>6-1)*8:], w1.acc)
			w1.acc = 0
		}
		if wL.n&63 == 0 && e != 0 {
			binary.LittleEndian.PutUint64(wL.buf[(wL.n>>6-1)*8:], wL.acc)
			wL.acc = 0
		}
		prevElem = elem
	}
	w0.store()
	w1.store()
	wL.store()
	// Write back what was consumed (up to an error, where the batch is
	// garbage anyway).
	v0.nulls += int(w0.n) - v0.n - int(ones0)
	v0.n = int(w0.n)
	v1.nulls += int(w1.n) - v1.n - int(ones1)
	v1.n = int(w1.n)
	leaf.nulls += int(wL.n) - leaf.n - int(onesL)
	leaf.n = int(wL.n)
	a.depth[0].slots, a.depth[1].slots = n0, int(n1)
	if prevElem {
		a.prevDepth = 1
	} else if started {
		a.prevDepth = 0
	}
	if err != nil {
		return off, a.fail(i, err)
	}
	return off, nil
}
