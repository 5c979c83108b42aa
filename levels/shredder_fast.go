package levels

import (
	"fmt"
	"slices"
)

// shredFlat is Shred for columns without repetition: one level per row.
// Definition levels start at MaxDef and each optional node, from the leaf up,
// lowers the levels of its null slots to its own null level, so the
// shallowest null wins; all passes are branch-free, 64 slots per bitmap load.
func (s *Shredder) shredFlat(data []NodeData, rowStart, numRows int) error {
	p := s.p
	maxDef := p.MaxDef
	var def []int16
	if maxDef > 0 {
		def = slices.Grow(s.def[:0], numRows)[:numRows]
		for i := range def {
			def[i] = maxDef
		}
		for i := len(p.Nodes) - 1; i >= 0; i-- {
			nd := &data[i]
			if p.Nodes[i].Repetition != Optional || nd.Validity == nil {
				continue
			}
			null := p.Nodes[i].DefLevel - 1
			for j := 0; j < numRows; j += 64 {
				w := loadBits(nd.Validity, nd.Offset+rowStart+j, min(64, numRows-j))
				chunk := def[j:min(j+64, numRows)]
				for k := range chunk {
					m := int16(w>>uint(k)&1) - 1 // 0 if valid, all ones if null
					chunk[k] = chunk[k]&^m | null&m
				}
			}
		}
	}
	// Required nodes must have no nulls in the slots they are reached in
	// (those whose level is at least their own).
	for i, n := range p.Nodes {
		nd := &data[i]
		if n.Repetition != Required || nd.Validity == nil {
			continue
		}
		for j := 0; j < numRows; j++ {
			b := nd.Offset + rowStart + j
			if nd.Validity[b/8]>>(b%8)&1 == 0 && (def == nil || def[j] >= n.DefLevel) {
				return fmt.Errorf("levels: null at slot %d of required node %d: %w", rowStart+j, i, ErrInvalid)
			}
		}
	}
	vals := slices.Grow(s.values[:0], numRows)[:numRows]
	k := 0
	if def == nil {
		for j := range vals {
			vals[j] = int64(rowStart + j)
		}
		k = numRows
	} else {
		for j, d := range def {
			vals[k] = int64(rowStart + j)
			k += int(b2u(d == maxDef))
		}
	}
	s.def, s.values = def, vals[:k]
	return nil
}

// shredList1 is Shred for columns with one repeated node (LIST, MAP and
// legacy lists): a loop over rows and, inside, over list elements, in place
// of the general depth stack.
func (s *Shredder) shredList1(data []NodeData, rowStart, numRows int) error {
	p := s.p
	repNode := p.depthFirst[1] - 1
	maxDef := p.MaxDef
	cap1 := int64(s.caps[1])
	def, rep, vals := s.def[:0], s.rep[:0], s.values[:0]
	// The nodes below the list that may be null, with their null levels.
	var inner [8]int
	nInner := 0
	for i := repNode + 1; i < len(p.Nodes); i++ {
		if data[i].Validity != nil {
			if nInner == len(inner) {
				return s.shredGeneric(data, rowStart, numRows)
			}
			inner[nInner] = i
			nInner++
		}
	}
	rd := &data[repNode]
rows:
	for row := int64(rowStart); row < int64(rowStart+numRows); row++ {
		for i := 0; i < repNode; i++ {
			nd := &data[i]
			if nd.Validity == nil {
				continue
			}
			b := int64(nd.Offset) + row
			if nd.Validity[b>>3]>>(b&7)&1 == 0 {
				if p.Nodes[i].Repetition != Optional {
					return fmt.Errorf("levels: null at slot %d of %s node %d: %w", row, p.Nodes[i].Repetition, i, ErrInvalid)
				}
				def = append(def, p.Nodes[i].DefLevel-1)
				rep = append(rep, 0)
				continue rows
			}
		}
		if rd.Validity != nil {
			b := int64(rd.Offset) + row
			if rd.Validity[b>>3]>>(b&7)&1 == 0 {
				return fmt.Errorf("levels: null at slot %d of repeated node %d: %w", row, repNode, ErrInvalid)
			}
		}
		a, b := listRange(rd, row)
		if a == b {
			def = append(def, p.Nodes[repNode].DefLevel-1)
			rep = append(rep, 0)
			continue
		}
		if a > b || a < 0 || b > cap1 {
			return fmt.Errorf("levels: list %d of node %d spans [%d, %d), outside [0, %d]: %w", row, repNode, a, b, cap1, ErrInvalid)
		}
		r := int16(0)
		for e := a; e < b; e++ {
			d := maxDef
			for _, i := range inner[:nInner] {
				nd := &data[i]
				x := int64(nd.Offset) + e
				if nd.Validity[x>>3]>>(x&7)&1 == 0 {
					if p.Nodes[i].Repetition != Optional {
						return fmt.Errorf("levels: null at slot %d of %s node %d: %w", e, p.Nodes[i].Repetition, i, ErrInvalid)
					}
					d = p.Nodes[i].DefLevel - 1
					break
				}
			}
			def = append(def, d)
			rep = append(rep, r)
			if d == maxDef {
				vals = append(vals, e)
			}
			r = 1
		}
	}
	s.def, s.rep, s.values = def, rep, vals
	return nil
}
