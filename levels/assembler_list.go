package levels

import (
	"math/bits"
	"slices"
)

// The compacting paths of Assembler.AppendRecords, for columns with
// repetition whose repeated nodes all have offsets of one width. One
// branch-free pass over the levels writes the list offsets and, per depth,
// the definition levels of the slots the piece makes at that depth
// ("compacted" levels: every level is written at the depth's next index,
// which advances only if the level has a slot there). Each optional node's
// validity and the leaf-value bitmap then come from its depth's compacted
// levels with the bulk ValidityFromLevels, whatever the number of optional
// nodes per depth (list<struct<...>> leaves have two at depth 1).
//
// The record limit cuts the input first (recordCut); the pass then has one
// predictable branch per level, leaving the loop at the first invalid
// level, whose error levelError words exactly as the generic path would.
//
// BenchmarkAssembleRecords (the reader's pattern: pages of 10000 levels,
// batches of 4096 records), CPU time per level: list<int64> 11 ns before
// (per-level bit writes with a branch per record start, which mispredicts
// on short lists, plus the reader's own record scan), 3.1 ns now; a
// list<struct> leaf (the generic path before) 21 ns, 3.5 ns now;
// list<list<int64>> (generic) 19 ns, 5.6 ns now (appendList2).
//
// appendList and appendList2 (MaxRep 1 and 2) run the pass in chunks of
// fixed-size arrays (see listChunk); appendDeep is the same pass for any
// depth, one depth at a time per level, with its counters in memory.

// maxFastRep bounds the depth of the columns appendDeep handles, so its
// per-depth state fits a fixed array; deeper ones take the generic path.
const maxFastRep = 7

func b2u(b bool) uint {
	var u uint
	if b {
		u = 1
	}
	return u
}

// offsetsOf returns the offsets of repeated node n in the width O.
func offsetsOf[O int32 | int64](n *asmNode) *[]O {
	var z O
	if _, ok := any(z).(int32); ok {
		return any(&n.off32).(*[]O)
	}
	return any(&n.off64).(*[]O)
}

// growRoom returns s with room for n more elements: the batch's offsets,
// kept from batch to batch, grow by doubling. slices.Grow grows a large
// slice by a quarter, and pieces of a few thousand levels (readers hand
// pages in pieces, arrowpq's of 16Ki levels) then made the first batch
// allocate about five times its offsets.
func growRoom[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s
	}
	ns := make(S, len(s), max(2*cap(s), len(s)+n))
	copy(ns, s)
	return ns
}

// grow16 returns s resized to n, reusing its array when it is large enough.
func grow16(s []int16, n int) []int16 { return slices.Grow(s[:0], n)[:n] }

// appendList is the compacting pass for MaxRep = 1: LIST and MAP leaves,
// including list<struct<...>>.
func appendList[O int32 | int64](a *Assembler, def, rep []int16, limit int) (int, error) {
	p := a.p
	cut := recordCut(rep, limit)
	dep0, dep1 := &a.depth[0], &a.depth[1]
	offp := offsetsOf[O](&a.nodes[dep0.repeated])
	base := len(*offp)
	// The pass writes int32 offsets relative to the piece into scratch
	// with a chunk of slack (see listPass), then the batch's depth-1 slots
	// are added as they are copied out: the batch's offsets grow by the
	// records made only, not by the piece's levels and slack (written in
	// place they had to, and a batch sized for its records outgrew it).
	a.offScratch = slices.Grow(a.offScratch[:0], cut+chunk)[:cut+chunk]
	off32 := a.offScratch
	dep0.defs = grow16(dep0.defs, cut+chunk)
	dep1.defs = grow16(dep1.defs, cut+chunk)
	i, j0, j1, prev := listPass(def[:cut], rep[:cut], off32, dep0.defs, dep1.defs,
		p.Nodes[dep0.repeated].DefLevel, p.MaxDef, b2u(a.prevDepth == 1))
	*offp = growRoom(*offp, int(j0))
	off := (*offp)[base : base+int(j0)]
	n1 := O(dep1.slots)
	for k, o := range off32[:len(off)] {
		off[k] = O(o) + n1
	}
	*offp = (*offp)[:base+int(j0)]
	a.finishDepth(0, dep0.defs[:j0])
	a.finishDepth(1, dep1.defs[:j1])
	if i > 0 {
		a.prevDepth = int(prev)
	}
	if i < cut {
		return i, a.levelError(i, def[i], rep[i], a.prevDepth)
	}
	return i, nil
}

// chunk is the number of levels listPass handles as fixed-size arrays.
const chunk = 256

// listPass is appendList's per-level loop. It stops at the first invalid
// level and returns how many levels it took, the depth-0 and depth-1 slots
// they made, and whether the last one had a depth-1 slot. off, d0 and d1
// hold at least len(def)+chunk entries; rep is as long as def.
func listPass(def, rep []int16, off []int32, d0, d1 []int16, elemDef, maxDef int16, prev uint) (i int, j0, j1, last uint) {
	rep = rep[:len(def)]
	c := listConsts{elemDefM1: int(elemDef) - 1, maxDef: int(maxDef)}
	var tailDef, tailRep [chunk]int16
	p := int(prev)
	for i < len(def) {
		m := min(chunk, len(def)-i)
		dc, rc := chunkAt(def, rep, i, &tailDef, &tailRep)
		t, k0, k1, pt := listChunk(dc, rc, (*[chunk]int32)(off[j0:]), (*[chunk]int16)(d0[j0:]), (*[chunk]int16)(d1[j1:]), &c, p)
		for k := range off[j0 : j0+uint(k0)] {
			off[j0+uint(k)] += int32(j1)
		}
		i += t
		j0 += uint(k0)
		j1 += uint(k1)
		p = pt
		if t < m {
			break
		}
	}
	return i, j0, j1, uint(p)
}

// listConsts holds listChunk's loop invariants.
type listConsts struct{ elemDefM1, maxDef int }

// listChunk runs a chunk of levels, stopping at the first invalid one (the
// padding of a short chunk is invalid), and returns how many it took, the
// depth-0 and depth-1 slots they made and whether the last had a depth-1
// slot. Offsets are written relative to the chunk's first depth-1 slot.
//
// It is shaped for Go's register allocator, whose spills had put the
// loop-carried counters through memory: fixed-size arrays indexed by
// counters below chunk need no bounds checks (nor lengths in registers),
// the two slot counters share a register, the loop bound is a constant.
// Flags are sign bits of differences, fewer instructions than comparisons
// made 0 or 1. (BenchmarkAssembleRecords list<int64>, CPU per level of the
// whole append: 3.7 ns with arrays and comparisons, 3.3 with sign bits,
// 3.1 with shared counters, of which this loop takes 1.8.)
func listChunk(def, rep *[chunk]int16, off *[chunk]int32, d0, d1 *[chunk]int16, c *listConsts, prev int) (t, n0, n1, last int) {
	em1, mx := c.elemDefM1, c.maxDef
	// Nil checks once here rather than on every use in the loop.
	_, _, _, _, _ = def[0], rep[0], off[0], d0[0], d1[0]
	var n uint64 // n0 in the low half, n1 in the high half
	for t = 0; t < chunk; t++ {
		d := def[t]
		ud, ur := int(uint16(d)), int(uint16(rep[t]))
		s := 1 - ur                  // record start: 1 for rep 0, < 0 past max rep 1
		e := int(uint(em1-ud) >> 63) // the level has a depth-1 slot
		// Negative when the level is out of range, or has rep 1 where
		// it or the level before has no element to continue.
		if (mx-ud)|s|((s|e&prev)-1) < 0 {
			break
		}
		// Written for every level; a level that starts no record writes
		// the next record's entry, which that record overwrites.
		i0, i1 := uint8(n), uint8(n>>32)
		off[i0] = int32(i1)
		d0[i0] = d
		d1[i1] = d
		n += uint64(s) | uint64(e)<<32
		prev = e
	}
	return t, int(uint32(n)), int(n >> 32), prev
}

// recordCut returns how many levels come before the level with repetition
// level 0 that would start record limit+1, or len(rep) if there is none.
// A piece with at most limit levels needs no look; otherwise zeros are
// counted 64 levels a step (SWAR, branch-free), and only the block holding
// the cut is searched level by level.
func recordCut(rep []int16, limit int) int {
	if limit >= len(rep) {
		return len(rep)
	}
	seen, i := 0, 0
	for ; i+64 <= len(rep); i += 64 {
		z := zeros64((*[64]int16)(rep[i:]))
		if seen+z > limit {
			break
		}
		seen += z
	}
	for ; i < len(rep); i++ {
		if rep[i] == 0 {
			if seen == limit {
				return i
			}
			seen++
		}
	}
	return len(rep)
}

// zeros64 counts the levels equal to 0. A lane's bit 15 of
// (x&0x7fff + 0x7fff) | x is set exactly when the lane is not 0; the
// flags of four words, shifted to bits 15..12 of their lanes, share one
// popcount.
func zeros64(l *[64]int16) int {
	nonzero := 0
	for j := 0; j < 64; j += 16 {
		var acc uint64
		for k := 0; k < 4; k++ {
			x := lanes(l[j+4*k : j+4*k+4])
			acc |= ((x&lanesLow + lanesLow) | x) & lanesHigh >> k
		}
		nonzero += bits.OnesCount64(acc)
	}
	return 64 - nonzero
}

// appendList2 is appendList for MaxRep = 2 (list<list<...>>, a map or
// list inside a list), the depth-by-depth loop of appendDeep unrolled so
// that its counters stay in registers.
func appendList2[O int32 | int64](a *Assembler, def, rep []int16, limit int) (int, error) {
	p := a.p
	cut := recordCut(rep, limit)
	dep0, dep1, dep2 := &a.depth[0], &a.depth[1], &a.depth[2]
	offp0 := offsetsOf[O](&a.nodes[dep0.repeated])
	offp1 := offsetsOf[O](&a.nodes[dep1.repeated])
	base0, base1 := len(*offp0), len(*offp1)
	// int32 offsets relative to the piece, as in appendList.
	a.offScratch = slices.Grow(a.offScratch[:0], 2*(cut+chunk))[:2*(cut+chunk)]
	o0, o1 := a.offScratch[:cut+chunk], a.offScratch[cut+chunk:]
	dep0.defs = grow16(dep0.defs, cut+chunk)
	dep1.defs = grow16(dep1.defs, cut+chunk)
	dep2.defs = grow16(dep2.defs, cut+chunk)
	c := list2Consts{
		d1m1:   int(p.Nodes[dep0.repeated].DefLevel) - 1,
		d2m1:   int(p.Nodes[dep1.repeated].DefLevel) - 1,
		maxDef: int(p.MaxDef),
	}
	def, rep = def[:cut], rep[:cut]
	var tailDef, tailRep [chunk]int16
	prev := a.prevDepth
	var i, j0, j1, j2 int
	for i < len(def) {
		m := min(chunk, len(def)-i)
		dc, rc := chunkAt(def, rep, i, &tailDef, &tailRep)
		t, k0, k1, k2, pr := list2Chunk(dc, rc, (*[chunk]int32)(o0[j0:]), (*[chunk]int32)(o1[j1:]),
			(*[chunk]int16)(dep0.defs[j0:]), (*[chunk]int16)(dep1.defs[j1:]), (*[chunk]int16)(dep2.defs[j2:]), &c, prev)
		for k := range o0[j0 : j0+k0] {
			o0[j0+k] += int32(j1)
		}
		for k := range o1[j1 : j1+k1] {
			o1[j1+k] += int32(j2)
		}
		i, j0, j1, j2 = i+t, j0+k0, j1+k1, j2+k2
		if t > 0 {
			prev = pr
		}
		if t < m {
			break
		}
	}
	*offp0, *offp1 = growRoom(*offp0, j0), growRoom(*offp1, j1)
	off0, off1 := (*offp0)[base0:base0+j0], (*offp1)[base1:base1+j1]
	n1, n2 := O(dep1.slots), O(dep2.slots)
	for k, o := range o0[:len(off0)] {
		off0[k] = O(o) + n1
	}
	for k, o := range o1[:len(off1)] {
		off1[k] = O(o) + n2
	}
	*offp0, *offp1 = (*offp0)[:base0+j0], (*offp1)[:base1+j1]
	a.finishDepth(0, dep0.defs[:j0])
	a.finishDepth(1, dep1.defs[:j1])
	a.finishDepth(2, dep2.defs[:j2])
	a.prevDepth = prev
	if i < cut {
		return i, a.levelError(i, def[i], rep[i], prev)
	}
	return i, nil
}

// list2Consts holds list2Chunk's loop invariants: the definition levels
// minus one at which a level reaches depth 1 and 2, and the max.
type list2Consts struct{ d1m1, d2m1, maxDef int }

// list2Chunk runs a chunk of levels for appendList2, stopping at the first
// invalid one (the padding of a short chunk is invalid). Offsets are
// written relative to the chunk's first slot of the next depth.
func list2Chunk(def, rep *[chunk]int16, off0, off1 *[chunk]int32, d0, d1, d2 *[chunk]int16, c *list2Consts, prev int) (t, n0, n1, n2, last int) {
	d1m1, d2m1, mx := c.d1m1, c.d2m1, c.maxDef
	// Nil checks once here rather than on every use in the loop.
	_, _, _, _, _, _, _ = def[0], rep[0], off0[0], off1[0], d0[0], d1[0], d2[0]
	var n uint64 // the slot counters of depth 0, 1, 2 in 16-bit fields
	for t = 0; t < chunk; t++ {
		d := def[t]
		ud, ur := int(uint16(d)), int(uint16(rep[t]))
		e1 := int(uint(d1m1-ud) >> 63) // a slot at depth 1 ...
		e2 := int(uint(d2m1-ud) >> 63) // ... and 2 (e2 implies e1)
		sd := e1 + e2
		// Negative when out of range, or continuing a list this level
		// leaves empty, or one the previous level left empty (or none:
		// prev = -1 at the start of the batch).
		if (mx-ud)|(2-ur)|(sd-ur)|(max(prev, 0)-ur) < 0 {
			break
		}
		h0 := uint64(ur-1) >> 63                // rep 0
		h1 := uint64(e1) & (uint64(ur-2) >> 63) // rep <= 1 and a depth-1 slot
		i0, i1, i2 := uint8(n), uint8(n>>16), uint8(n>>32)
		off0[i0] = int32(i1)
		d0[i0] = d
		off1[i1] = int32(i2)
		d1[i1] = d
		d2[i2] = d
		n += h0 | h1<<16 | uint64(e2)<<32
		prev = sd
	}
	return t, int(uint16(n)), int(uint16(n >> 16)), int(uint16(n >> 32)), prev
}

// deepDepth is appendDeep's state for one depth.
type deepDepth[O int32 | int64] struct {
	defs []int16 // compacted levels
	off  []O     // offsets of the piece's lists (depths < MaxRep)
	j    uint    // slots made by the piece
	n    uint    // slots in the batch
}

// appendDeep is the compacting pass for MaxRep >= 2 (lists of lists): a
// level writes at every depth and has a slot at the depths from its
// repetition level to the deepest its definition level reaches.
func appendDeep[O int32 | int64](a *Assembler, def, rep []int16, limit int) (int, error) {
	p := a.p
	maxRep := int(p.MaxRep)
	if maxRep > maxFastRep {
		return a.appendNested(def, rep, limit)
	}
	n := len(def)
	var st [maxFastRep + 1]deepDepth[O]
	var offp [maxFastRep]*[]O
	var base [maxFastRep]int
	for k := 0; k <= maxRep; k++ {
		dep := &a.depth[k]
		dep.defs = grow16(dep.defs, n)
		st[k].defs = dep.defs[:n]
		st[k].n = uint(dep.slots)
		if k < maxRep {
			offp[k] = offsetsOf[O](&a.nodes[dep.repeated])
			base[k] = len(*offp[k])
			*offp[k] = growRoom(*offp[k], n+1)
			st[k].off = (*offp[k])[base[k] : base[k]+n]
		}
	}
	rep = rep[:n]
	maxDef, slotDepth := p.MaxDef, p.slotDepth
	lim := uint(limit)
	prev := a.prevDepth
	i := 0
	for ; i < n; i++ {
		d, r := def[i], rep[i]
		sd := int(slotDepth[min(uint16(d), uint16(maxDef))])
		s := b2u(r == 0)
		// Invalid: out of range, continuing a list this level leaves
		// empty, or one the previous level left empty (or none, at the
		// start of the batch: prev = -1).
		bad := b2u(uint16(d) > uint16(maxDef)) | b2u(uint16(r) > uint16(maxRep)) |
			b2u(int(r) > sd) | b2u(int(r) > max(prev, 0))
		if bad|b2u(st[0].j+s > lim) != 0 {
			break
		}
		ri := int(r)
		for k := 0; k < maxRep; k++ {
			x := &st[k]
			h := b2u(ri <= k) & b2u(k <= sd)
			x.defs[x.j] = d
			x.off[x.j] = O(st[k+1].n)
			x.j += h
			x.n += h
		}
		x := &st[maxRep]
		h := b2u(sd == maxRep)
		x.defs[x.j] = d
		x.j += h
		x.n += h
		prev = sd
	}
	for k := 0; k <= maxRep; k++ {
		if k < maxRep {
			*offp[k] = (*offp[k])[:base[k]+int(st[k].j)]
		}
		a.finishDepth(k, st[k].defs[:st[k].j])
	}
	a.prevDepth = prev
	if i < n && (rep[i] != 0 || st[0].j < lim) {
		return i, a.levelError(i, def[i], rep[i], prev)
	}
	return i, nil
}

// finishDepth appends the validity of depth k's optional nodes (and at the
// deepest depth the leaf-value bitmap) for the slots whose compacted
// definition levels are defs.
func (a *Assembler) finishDepth(k int, defs []int16) {
	dep := &a.depth[k]
	var last *bitBuf
	for j, oi := range dep.optional {
		last = &a.nodes[oi].valid
		last.appendLevels(defs, dep.optDef[j])
	}
	dep.slots += len(defs)
	if k < int(a.p.MaxRep) {
		return
	}
	if n := len(dep.optional); n > 0 && dep.optDef[n-1] == a.p.MaxDef {
		// An optional leaf: its validity is the leaf-value bitmap, bit
		// for bit from the start of the batch (both have one bit per
		// slot of this depth), so copy the bytes the piece touched.
		l := &a.leaf
		from := l.n / 8
		l.buf = append(l.buf[:from], last.buf[from:]...)
		l.nulls, l.n = last.nulls, last.n
	} else {
		a.leaf.appendLevels(defs, a.p.MaxDef)
	}
	a.numValues = a.leaf.n - a.leaf.nulls
}

// chunkAt returns levels [i, i+chunk) as arrays: views of def and rep when a
// whole chunk remains, else copies in tailDef and tailRep whose repetition
// levels past the end are -1, which stops a chunk pass.
func chunkAt(def, rep []int16, i int, tailDef, tailRep *[chunk]int16) (*[chunk]int16, *[chunk]int16) {
	if len(def)-i >= chunk {
		return (*[chunk]int16)(def[i:]), (*[chunk]int16)(rep[i:])
	}
	m := copy(tailDef[:], def[i:])
	copy(tailRep[:], rep[i:])
	for k := m; k < chunk; k++ {
		tailRep[k] = -1
	}
	return tailDef, tailRep
}
