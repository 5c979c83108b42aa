package levels

import (
	"fmt"
	"math"
	"slices"
)

// Assembler turns the definition and repetition levels of a nested column
// into Arrow layout, batch by batch: for each optional node a validity
// bitmap, for each repeated node list offsets, and for the leaf a bitmap of
// which leaf slots hold a value (to spread densely decoded values into place).
//
// A batch is built by one or more Append or AppendRecords calls (say one
// per page piece) and closed by Finish; the batch must hold whole records,
// which [Assembler.AppendRecords] (or [SplitRecords]) finds. Outputs are owned by the Assembler and valid until the next Append
// or Reset; buffers are reused, so the steady state allocates nothing.
//
// Levels are validated as they are consumed; after an error the batch is
// garbage and the Assembler must be Reset. Not safe for concurrent use.
type Assembler struct {
	p     *Path
	nodes []asmNode
	depth []asmDepth

	leaf      bitBuf
	numLevels int
	numValues int

	// prevDepth is the deepest depth at which the previous level had a slot,
	// -1 when the next level must start a record.
	prevDepth int
	finished  bool

	// fast: every repeated node has offsets of one width (int64 if
	// large), which the compacting paths (assembler_list.go) require.
	fast, large bool
	offScratch  []int32

	// generic forces the per-level path for every column (tests compare
	// the fast paths against it); zeros stands in for absent rep levels.
	generic bool
	zeros   []int16
}

type asmNode struct {
	valid bitBuf  // optional nodes
	off32 []int32 // repeated nodes with 32-bit offsets
	off64 []int64 // repeated nodes with 64-bit offsets
	large bool
}

type asmDepth struct {
	slots    int     // slots of this depth in the batch
	optional []int   // optional nodes of this depth
	optDef   []int16 // their definition levels
	repeated int     // the repeated node closing this depth, or -1
	// defs is scratch of the compacting paths: the definition levels of
	// the slots of this depth made by the current piece.
	defs []int16
}

// bitBuf is a growable bitmap with its null count. Between grow and trim,
// buf is sized for the bits to come and its unused bytes are zero, so bits
// are set by index without append.
type bitBuf struct {
	buf   []byte
	n     int
	nulls int
}

func (b *bitBuf) reset() { b.buf, b.n, b.nulls = b.buf[:0], 0, 0 }

// grow makes room for k more bits.
func (b *bitBuf) grow(k int) {
	need := (b.n + k + 7) / 8
	if need > len(b.buf) {
		old := len(b.buf)
		if need > cap(b.buf) {
			b.buf = append(b.buf[:cap(b.buf)], make([]byte, need-cap(b.buf))...)
		}
		b.buf = b.buf[:need]
		clear(b.buf[old:])
	}
}

// trim drops the bytes past the last bit.
func (b *bitBuf) trim() { b.buf = b.buf[:(b.n+7)/8] }

// appendLevels appends the validity of levels against threshold in bulk.
func (b *bitBuf) appendLevels(levels []int16, threshold int16) {
	b.grow(len(levels))
	b.nulls += ValidityFromLevels(b.buf, b.n, levels, threshold)
	b.n += len(levels)
	b.trim()
}

// AssemblerOptions configures an Assembler; the zero value gives 32-bit
// offsets everywhere.
type AssemblerOptions struct {
	// Int64Offsets lists the repeated nodes (by index in Path.Nodes) whose
	// offsets are built as int64 (Arrow LargeList); the others get int32.
	Int64Offsets []int
}

// NewAssembler returns an Assembler for the column described by p.
func NewAssembler(p *Path, opts *AssemblerOptions) (*Assembler, error) {
	a := &Assembler{p: p, nodes: make([]asmNode, len(p.Nodes)), depth: make([]asmDepth, p.MaxRep+1)}
	if opts != nil {
		for _, i := range opts.Int64Offsets {
			if i < 0 || i >= len(p.Nodes) || p.Nodes[i].Repetition != Repeated {
				return nil, fmt.Errorf("levels: Int64Offsets names node %d, not a repeated node: %w", i, ErrInvalid)
			}
			a.nodes[i].large = true
		}
	}
	for d := range a.depth {
		a.depth[d].repeated = -1
	}
	for i, n := range p.Nodes {
		switch n.Repetition {
		case Optional:
			a.depth[n.Depth].optional = append(a.depth[n.Depth].optional, i)
			a.depth[n.Depth].optDef = append(a.depth[n.Depth].optDef, n.DefLevel)
		case Repeated:
			a.depth[n.Depth].repeated = i
		}
	}
	a.fast, a.large = true, false
	first := true
	for i, n := range p.Nodes {
		if n.Repetition == Repeated {
			if first {
				a.large, first = a.nodes[i].large, false
			} else if a.nodes[i].large != a.large {
				a.fast = false
			}
		}
	}
	a.Reset()
	return a, nil
}

// NewAssemblerFrom is NewAssembler on the buffers of old, an Assembler
// the caller is done with (nil: none), so that a caller reading file after
// file keeps its offsets, validity and scratch instead of growing new ones
// for every column of every file. Node i takes the buffers of old's node i,
// depth d those of old's depth d; old must not be used afterwards.
func NewAssemblerFrom(old *Assembler, p *Path, opts *AssemblerOptions) (*Assembler, error) {
	a, err := NewAssembler(p, opts)
	if err != nil || old == nil {
		return a, err
	}
	for i := range min(len(a.nodes), len(old.nodes)) {
		n, o := &a.nodes[i], &old.nodes[i]
		n.valid.buf, n.off32, n.off64 = o.valid.buf, o.off32, o.off64
	}
	for d := range min(len(a.depth), len(old.depth)) {
		a.depth[d].defs = old.depth[d].defs
	}
	a.leaf.buf, a.offScratch = old.leaf.buf, old.offScratch
	*old = Assembler{}
	a.Reset()
	return a, nil
}

// Reset prepares for a new column chunk: outputs are dropped and the next
// level must start a record.
func (a *Assembler) Reset() {
	a.clear()
	a.prevDepth = -1
	a.finished = false
}

func (a *Assembler) clear() {
	for i := range a.nodes {
		n := &a.nodes[i]
		n.valid.reset()
		n.off32, n.off64 = n.off32[:0], n.off64[:0]
	}
	for d := range a.depth {
		a.depth[d].slots = 0
	}
	a.leaf.reset()
	a.numLevels, a.numValues = 0, 0
}

// Append consumes levels of the current batch. def and rep have equal
// length; rep is ignored (may be nil) when MaxRep is 0. (A column with
// MaxDef 0 is flat and required: it has no levels and needs no Assembler.)
// Levels may end inside a record; the next Append continues it. The first
// Append after Finish starts a new batch.
func (a *Assembler) Append(def, rep []int16) error {
	_, err := a.AppendRecords(def, rep, math.MaxInt)
	return err
}

// Reserve makes room in the outputs for a batch of numRecords records
// where their size is known: the offsets of the outermost repeated node
// (one per record and one more). Call it after the empty Append that
// starts a batch; it only sizes memory.
func (a *Assembler) Reserve(numRecords int) {
	if numRecords <= 0 || len(a.depth) == 0 || a.depth[0].repeated < 0 {
		return
	}
	n := &a.nodes[a.depth[0].repeated]
	if n.large {
		n.off64 = growRoom(n.off64, numRecords+1+chunk-len(n.off64))
	} else {
		n.off32 = growRoom(n.off32, numRecords+1+chunk-len(n.off32))
	}
}

// AppendRecords is Append with a record limit, so the caller needs no scan
// of its own for where a batch of maxRecords records ends: it consumes def
// and rep up to, not including, the first level that would start a record
// past maxRecords in the batch (a level with repetition level 0 once
// NumRows() = maxRecords), or all of them, and returns how many levels it
// consumed. NumRows() then counts the records started in the batch.
//
// consumed < len(def) means the next level starts a record: the batch is
// complete. consumed = len(def) means the input ran out, possibly inside a
// record; feed the next page's levels to AppendRecords with the same
// maxRecords, which takes only the rest of that record (repetition levels >
// 0) once NumRows() = maxRecords, and returns 0 if the page starts a record.
// A maxRecords at or below NumRows() likewise consumes only the rest of the
// current record. Without repetition every level is a record. As with
// Append, the first call after Finish starts a new batch, def and rep are
// only read during the call, and the outputs are the Assembler's.
//
// Levels are validated up to the cut only: a bad level after it is left
// for the next batch to report. On error, consumed is the number of levels
// before the bad one; the batch is garbage and the Assembler must be Reset.
func (a *Assembler) AppendRecords(def, rep []int16, maxRecords int) (consumed int, err error) {
	if a.finished {
		a.clear()
		a.finished = false
	}
	p := a.p
	limit := max(maxRecords-a.depth[0].slots, 0)
	if p.MaxRep == 0 {
		def = def[:min(len(def), limit)]
	} else if len(rep) != len(def) {
		return 0, fmt.Errorf("levels: %d repetition levels for %d definition levels: %w", len(rep), len(def), ErrInvalid)
	}
	if a.numLevels+len(def) > math.MaxInt32 {
		return 0, fmt.Errorf("levels: batch of more than 2^31-1 levels: %w", ErrLimit)
	}
	switch {
	case p.MaxRep == 0 && a.generic:
		a.zeros = slices.Grow(a.zeros[:0], len(def))[:len(def)]
		clear(a.zeros)
		consumed, err = a.appendNested(def, a.zeros, limit)
	case p.MaxRep == 0:
		consumed, err = a.appendFlat(def)
	case a.generic || !a.fast:
		consumed, err = a.appendNested(def, rep, limit)
	case p.MaxRep == 1 && a.large:
		consumed, err = appendList[int64](a, def, rep, limit)
	case p.MaxRep == 1:
		consumed, err = appendList[int32](a, def, rep, limit)
	case p.MaxRep == 2 && a.large:
		consumed, err = appendList2[int64](a, def, rep, limit)
	case p.MaxRep == 2:
		consumed, err = appendList2[int32](a, def, rep, limit)
	case a.large:
		consumed, err = appendDeep[int64](a, def, rep, limit)
	default:
		consumed, err = appendDeep[int32](a, def, rep, limit)
	}
	a.numLevels += consumed
	return consumed, err
}

// appendFlat handles columns without repetition: every level is one slot
// of depth 0, so each optional node's validity is a bulk comparison.
func (a *Assembler) appendFlat(def []int16) (int, error) {
	p := a.p
	var lo, hi int16
	for _, d := range def {
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 0 || hi > p.MaxDef {
		// Take the levels before the bad one, as the other paths do.
		i := slices.IndexFunc(def, func(d int16) bool { return d < 0 || d > p.MaxDef })
		a.appendFlat(def[:i])
		return i, a.levelError(i, def[i], 0, 0)
	}
	for i, n := range p.Nodes {
		if n.Repetition == Optional {
			a.nodes[i].valid.appendLevels(def, n.DefLevel)
		}
	}
	a.leaf.appendLevels(def, p.MaxDef)
	a.depth[0].slots += len(def)
	a.numValues = a.leaf.n - a.leaf.nulls
	a.prevDepth = 0
	return len(def), nil
}

// appendNested is the general case, one level at a time: a level with
// repetition level r and definition level d makes a new slot at every depth
// from r down to the deepest one d reaches. The fast paths are tested
// against it.
func (a *Assembler) appendNested(def, rep []int16, limit int) (int, error) {
	p := a.p
	// Room for every level to make a slot at every depth, so the loop
	// below writes bits by index.
	for i := range a.nodes {
		n := &a.nodes[i]
		switch p.Nodes[i].Repetition {
		case Optional:
			n.valid.grow(len(def))
		case Repeated:
			if n.large {
				n.off64 = growRoom(n.off64, len(def)+1)
			} else {
				n.off32 = growRoom(n.off32, len(def)+1)
			}
		}
	}
	a.leaf.grow(len(def))
	defer a.trimBits()
	maxDef, maxRep := p.MaxDef, p.MaxRep
	slotDepth := p.slotDepth
	prev := a.prevDepth
	rows := 0
	rep = rep[:len(def)]
	for i, d := range def {
		r := rep[i]
		if r == 0 {
			if rows == limit {
				a.prevDepth = prev
				return i, nil
			}
			rows++
		}
		if uint16(d) > uint16(maxDef) || uint16(r) > uint16(maxRep) {
			a.prevDepth = prev
			return i, a.levelError(i, d, r, prev)
		}
		depth := int(slotDepth[d])
		if int(r) > depth || r > 0 && int(r) > prev {
			a.prevDepth = prev
			return i, a.levelError(i, d, r, prev)
		}
		for k := int(r); k <= depth; k++ {
			dep := &a.depth[k]
			for j, oi := range dep.optional {
				v := &a.nodes[oi].valid
				if d >= dep.optDef[j] {
					v.buf[v.n>>3] |= 1 << (v.n & 7)
				} else {
					v.nulls++
				}
				v.n++
			}
			if k < int(maxRep) {
				n := &a.nodes[dep.repeated]
				c := a.depth[k+1].slots
				if n.large {
					n.off64 = append(n.off64, int64(c))
				} else {
					n.off32 = append(n.off32, int32(c))
				}
			} else {
				l := &a.leaf
				if d == maxDef {
					l.buf[l.n>>3] |= 1 << (l.n & 7)
				} else {
					l.nulls++
				}
				l.n++
			}
			dep.slots++
		}
		prev = depth
	}
	a.prevDepth = prev
	return len(def), nil
}

// trimBits ends an append that set bits by index.
func (a *Assembler) trimBits() {
	for i := range a.nodes {
		a.nodes[i].valid.trim()
	}
	a.leaf.trim()
	a.numValues = a.leaf.n - a.leaf.nulls
}

// levelError describes why the level at index i of the piece, with
// definition level d and repetition level r, is invalid after a level whose
// slots reached depth prev (-1 when it must start a record). Every append
// path reports its first bad level with it, so all paths fail alike.
func (a *Assembler) levelError(i int, d, r int16, prev int) error {
	p := a.p
	var err error
	switch {
	case uint16(d) > uint16(p.MaxDef):
		err = fmt.Errorf("definition level %d outside [0, %d]", d, p.MaxDef)
	case uint16(r) > uint16(p.MaxRep):
		err = fmt.Errorf("repetition level %d outside [0, %d]", r, p.MaxRep)
	case int(r) > int(p.slotDepth[d]):
		err = fmt.Errorf("repetition level %d with definition level %d: the repeated field it continues is empty", r, d)
	case r > 0 && prev < 0:
		err = fmt.Errorf("repetition level %d at the start of a record", r)
	case int(r) > prev:
		err = fmt.Errorf("repetition level %d continues a list the previous level left empty", r)
	default:
		// A fast path flagged a level the checks above accept: a bug,
		// reported rather than let through (the differential tests
		// compare errors with the generic path's).
		err = fmt.Errorf("level (def %d, rep %d) rejected", d, r)
	}
	return a.fail(i, err)
}

func (a *Assembler) fail(i int, err error) error {
	return fmt.Errorf("levels: level %d of batch: %w: %w", a.numLevels+i, err, ErrCorrupt)
}

// Finish closes the batch: the last list of every repeated node gets its
// end offset. Outputs can be read until the next Append or Reset, which
// starts the next batch; its first level must start a record.
func (a *Assembler) Finish() {
	if a.finished {
		return
	}
	for k := 0; k < int(a.p.MaxRep); k++ {
		n := &a.nodes[a.depth[k].repeated]
		c := a.depth[k+1].slots
		if n.large {
			n.off64 = append(n.off64, int64(c))
		} else {
			n.off32 = append(n.off32, int32(c))
		}
	}
	a.prevDepth = -1
	a.finished = true
}

// NumLevels returns the number of levels in the batch.
func (a *Assembler) NumLevels() int { return a.numLevels }

// NumRows returns the number of records (slots of depth 0) in the batch:
// those started so far while it is being appended to, and, after Finish,
// those of the finished batch until the next Append.
func (a *Assembler) NumRows() int { return a.depth[0].slots }

// NumValues returns the number of non-null leaf values in the batch: how
// many values the page decoder must produce for it.
func (a *Assembler) NumValues() int { return a.numValues }

// Len returns the number of slots of node i in the batch: the length of its
// Arrow array (for a repeated node, the number of lists).
func (a *Assembler) Len(i int) int { return a.depth[a.p.Nodes[i].Depth].slots }

// NumLeafSlots returns the length of the leaf's Arrow array: the slots of
// the deepest depth, including nulls and slots under null parents.
func (a *Assembler) NumLeafSlots() int { return a.depth[a.p.MaxRep].slots }

// Validity returns the validity bitmap of optional node i (LSB first, Len(i)
// bits, trailing bits zero) and its null count; nil for other nodes. A slot
// under a null parent of the same depth is null here too.
func (a *Assembler) Validity(i int) (bitmap []byte, nullCount int) {
	if a.p.Nodes[i].Repetition != Optional {
		return nil, 0
	}
	v := &a.nodes[i].valid
	return v.buf, v.nulls
}

// Offsets32 returns the Len(i)+1 offsets of repeated node i after Finish, or
// nil if the node has int64 offsets or is not repeated. Null and empty lists
// have equal start and end.
func (a *Assembler) Offsets32(i int) []int32 {
	if a.p.Nodes[i].Repetition != Repeated || a.nodes[i].large {
		return nil
	}
	return a.nodes[i].off32
}

// Offsets64 is Offsets32 for nodes listed in AssemblerOptions.Int64Offsets.
func (a *Assembler) Offsets64(i int) []int64 {
	if a.p.Nodes[i].Repetition != Repeated || !a.nodes[i].large {
		return nil
	}
	return a.nodes[i].off64
}

// LeafValues returns a bitmap over the NumLeafSlots leaf slots, 1 where the
// slot holds a value (definition level = MaxDef), and the number of slots
// without one. For an optional leaf it equals the leaf's validity; densely
// decoded values go into place with [Spread].
func (a *Assembler) LeafValues() (bitmap []byte, nullCount int) {
	return a.leaf.buf, a.leaf.nulls
}
