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
// on short lists, plus the reader's own record scan), 3.3 ns now; a
// list<struct> leaf (the generic path before) 21 ns, 3.8 ns now.

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
	// The pass writes int32 offsets relative to the piece (int64 ones go
	// through scratch), adding the batch's depth-1 slots after; its
	// outputs have a chunk of slack (see listPass).
	*offp = slices.Grow(*offp, cut+chunk)
	var off32 []int32
	if o, ok := any((*offp)[base : base+cut+chunk]).([]int32); ok {
		off32 = o
	} else {
		a.offScratch = slices.Grow(a.offScratch[:0], cut+chunk)[:cut+chunk]
		off32 = a.offScratch
	}
	dep0.defs = grow16(dep0.defs, cut+chunk)
	dep1.defs = grow16(dep1.defs, cut+chunk)
	i, j0, j1, prev := listPass(def[:cut], rep[:cut], off32, dep0.defs, dep1.defs,
		p.Nodes[dep0.repeated].DefLevel, p.MaxDef, b2u(a.prevDepth == 1))
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
	var tailDef, tailRep [chunk]int16
	for i < len(def) {
		m := min(chunk, len(def)-i)
		dc, rc := &tailDef, &tailRep
		if m == chunk {
			dc, rc = (*[chunk]int16)(def[i:]), (*[chunk]int16)(rep[i:])
		} else {
			copy(dc[:], def[i:])
			copy(rc[:], rep[i:])
		}
		t, k0, k1, p := listChunk(dc, rc, m, (*[chunk]int32)(off[j0:]), (*[chunk]int16)(d0[j0:]), (*[chunk]int16)(d1[j1:]),
			int32(j1), elemDef, maxDef, prev)
		i += t
		j0 += k0
		j1 += k1
		prev = p
		if t < m {
			break
		}
	}
	return i, j0, j1, prev
}

// listChunk runs up to m (<= chunk) levels. Fixed-size arrays indexed by
// masked counters need no bounds checks, which leaves registers for the
// counters: with slices they spilled, and the loop-carried counters went
// through memory. Flags are sign bits of differences, fewer instructions
// than comparisons made 0 or 1. (list<int64>: 3.9 ns/level with slices and
// comparisons, 3.0 with arrays, 2.7 with sign bits.)
func listChunk(def, rep *[chunk]int16, m int, off *[chunk]int32, d0, d1 *[chunk]int16, base1 int32, elemDef, maxDef int16, prev uint) (t int, j0, j1, last uint) {
	em1, mx := int(elemDef)-1, int(maxDef)
	p := int(prev)
	var n0, n1 int
	for t = 0; t < m; t++ {
		d := def[t&(chunk-1)]
		ud, ur := int(uint16(d)), int(uint16(rep[t&(chunk-1)]))
		s := 1 - ur                  // record start: 1 for rep 0, < 0 past max rep 1
		e := int(uint(em1-ud) >> 63) // the level has a depth-1 slot
		// Negative when the level is out of range, or has rep 1 where
		// it or the level before has no element to continue.
		if (mx-ud)|s|((s|e&p)-1) < 0 {
			break
		}
		// Written for every level; a level that starts no record writes
		// the next record's entry, which that record overwrites.
		off[n0&(chunk-1)] = base1 + int32(n1)
		d0[n0&(chunk-1)] = d
		d1[n1&(chunk-1)] = d
		n0 += s
		n1 += e
		p = e
	}
	return t, uint(n0), uint(n1), uint(p)
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
			*offp[k] = slices.Grow(*offp[k], n+1)
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
