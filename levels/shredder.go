package levels

import (
	"fmt"
	"math"
)

// NodeData is the Arrow layout of one path node for the write side, in the
// terms of the Arrow array the node maps to. Slot s of the node's depth is
// logical index s of that array.
type NodeData struct {
	// Len is the length of the Arrow array (its logical slots).
	Len int
	// Offset is the Arrow array offset: the bit of Validity holding slot 0,
	// and for a repeated node the index into Offsets32/Offsets64 of slot 0
	// (or, for a fixed-size list, the list index of slot 0).
	Offset int
	// Validity is the array's validity bitmap (LSB first); nil means all
	// valid. For a required node a null among the slots reached is an error.
	Validity []byte
	// Repeated nodes: the list offsets (Offsets32 for List and Map,
	// Offsets64 for LargeList) or, when both are nil, FixedSize elements per
	// list (FixedSizeList). Element e of a list is slot e of the next depth.
	Offsets32 []int32
	Offsets64 []int64
	FixedSize int
	// ElemLen is, for a repeated leaf (`repeated int32 x`: the elements have
	// no node of their own), the length of the element array; slots past it
	// are an error. Ignored elsewhere.
	ElemLen int
}

// Shredder turns Arrow layout into definition levels, repetition levels and
// the indices of the non-null leaf values (record shredding), a batch of
// rows at a time. Outputs are owned by the Shredder and valid until the next
// Shred; buffers are reused. Not safe for concurrent use.
type Shredder struct {
	p      *Path
	def    []int16
	rep    []int16
	values []int64
	frames []frame
	caps   []int // per depth: slots the arrays of that depth can address
	kind   []Repetition

	generic bool // tests: the per-slot path for every column
}

type frame struct {
	cur, end int64 // slots of this depth still to visit
	rep      int16 // repetition level of the next slot's first level
}

// NewShredder returns a Shredder for the column described by p.
func NewShredder(p *Path) *Shredder {
	s := &Shredder{p: p, frames: make([]frame, p.MaxRep+1), caps: make([]int, p.MaxRep+1)}
	for _, n := range p.Nodes {
		s.kind = append(s.kind, n.Repetition)
	}
	return s
}

// Def returns the definition levels of the last Shred (nil if MaxDef is 0).
func (s *Shredder) Def() []int16 { return s.def }

// Rep returns the repetition levels of the last Shred (nil if MaxRep is 0).
func (s *Shredder) Rep() []int16 { return s.rep }

// ValueIndices returns, for each level with the maximum definition level in
// order, the logical index of its value in the leaf array: the values to
// write, densely.
func (s *Shredder) ValueIndices() []int64 { return s.values }

// Shred computes the levels of rows [rowStart, rowStart+numRows) of depth 0.
// data has one entry per path node. Slots under a null or empty parent, and
// list elements of null lists (whatever their offsets), are skipped, as the
// format requires. Malformed layout (offsets decreasing or past the child
// arrays, bitmaps too short, a null in a required node) gives an error
// wrapping [ErrInvalid].
func (s *Shredder) Shred(data []NodeData, rowStart, numRows int) error {
	p := s.p
	s.def, s.rep, s.values = s.def[:0], s.rep[:0], s.values[:0]
	if len(data) != len(p.Nodes) {
		return fmt.Errorf("levels: %d node data for %d nodes: %w", len(data), len(p.Nodes), ErrInvalid)
	}
	for d := range s.caps {
		s.caps[d] = math.MaxInt
	}
	for i, nd := range data {
		if err := s.check(i, &nd); err != nil {
			return err
		}
		c := &s.caps[p.Nodes[i].Depth]
		*c = min(*c, nd.Len)
	}
	if leaf := p.Leaf(); s.kind[leaf] == Repeated {
		s.caps[p.MaxRep] = max(data[leaf].ElemLen, 0)
	}
	if rowStart < 0 || numRows < 0 || rowStart > s.caps[0]-numRows {
		return fmt.Errorf("levels: rows [%d, %d+%d) outside %d: %w", rowStart, rowStart, numRows, s.caps[0], ErrInvalid)
	}
	if !s.generic {
		switch p.MaxRep {
		case 0:
			return s.shredFlat(data, rowStart, numRows)
		case 1:
			return s.shredList1(data, rowStart, numRows)
		}
	}
	return s.shredGeneric(data, rowStart, numRows)
}

// shredGeneric walks the slots depth-first with an explicit stack of list
// ranges, one frame per depth.
func (s *Shredder) shredGeneric(data []NodeData, rowStart, numRows int) error {
	p := s.p
	maxDef, maxRep := p.MaxDef, p.MaxRep
	nodes, kind := p.Nodes, s.kind
	frames := s.frames
	frames[0] = frame{cur: int64(rowStart), end: int64(rowStart + numRows)}
	k := 0
	for {
		f := &frames[k]
		if f.cur == f.end {
			if k == 0 {
				break
			}
			k--
			continue
		}
		slot := f.cur
		f.cur++
		r := f.rep
		f.rep = int16(k)
		first, last := p.depthNodes(k)
		def := maxDef // level to emit unless a node is null or empty
		descend := false
		for i := first; i < last; i++ {
			nd := &data[i]
			if nd.Validity != nil {
				b := int64(nd.Offset) + slot
				if nd.Validity[b>>3]>>(b&7)&1 == 0 {
					if kind[i] != Optional {
						return fmt.Errorf("levels: null at slot %d of %s node %d: %w", slot, kind[i], i, ErrInvalid)
					}
					def = nodes[i].DefLevel - 1
					break
				}
			}
			if kind[i] != Repeated {
				continue
			}
			a, b := listRange(nd, slot)
			if a == b {
				def = nodes[i].DefLevel - 1
				break
			}
			if a > b || a < 0 || b > int64(s.caps[k+1]) {
				return fmt.Errorf("levels: list %d of node %d spans [%d, %d), outside [0, %d]: %w", slot, i, a, b, s.caps[k+1], ErrInvalid)
			}
			frames[k+1] = frame{cur: a, end: b, rep: r}
			k++
			descend = true
			break
		}
		if descend {
			continue
		}
		if def == maxDef {
			s.values = append(s.values, slot)
		}
		if maxDef > 0 {
			s.def = append(s.def, def)
		}
		if maxRep > 0 {
			s.rep = append(s.rep, r)
		}
	}
	return nil
}

// listRange returns the element range of list slot of a repeated node.
func listRange(nd *NodeData, slot int64) (a, b int64) {
	i := int64(nd.Offset) + slot
	switch {
	case nd.Offsets32 != nil:
		return int64(nd.Offsets32[i]), int64(nd.Offsets32[i+1])
	case nd.Offsets64 != nil:
		return nd.Offsets64[i], nd.Offsets64[i+1]
	default:
		n := int64(nd.FixedSize)
		return i * n, i*n + n
	}
}

// check validates the buffers of node i against its Len once per batch, so
// the per-slot loop needs no checks beyond the list ranges.
func (s *Shredder) check(i int, nd *NodeData) error {
	if nd.Len < 0 || nd.Offset < 0 || nd.Offset > math.MaxInt-1-nd.Len {
		return fmt.Errorf("levels: node %d: length %d, offset %d: %w", i, nd.Len, nd.Offset, ErrInvalid)
	}
	if nd.Validity != nil && len(nd.Validity)*8 < nd.Offset+nd.Len {
		return fmt.Errorf("levels: node %d: validity of %d bytes for %d+%d slots: %w", i, len(nd.Validity), nd.Offset, nd.Len, ErrInvalid)
	}
	if s.kind[i] != Repeated {
		return nil
	}
	switch {
	case nd.Offsets32 != nil:
		if len(nd.Offsets32) < nd.Offset+nd.Len+1 {
			return fmt.Errorf("levels: node %d: %d offsets for %d+%d lists: %w", i, len(nd.Offsets32), nd.Offset, nd.Len, ErrInvalid)
		}
	case nd.Offsets64 != nil:
		if len(nd.Offsets64) < nd.Offset+nd.Len+1 {
			return fmt.Errorf("levels: node %d: %d offsets for %d+%d lists: %w", i, len(nd.Offsets64), nd.Offset, nd.Len, ErrInvalid)
		}
	default:
		if nd.FixedSize < 0 || (nd.FixedSize > 0 && nd.Offset+nd.Len > math.MaxInt64/nd.FixedSize) {
			return fmt.Errorf("levels: node %d: fixed size %d: %w", i, nd.FixedSize, ErrInvalid)
		}
	}
	return nil
}
