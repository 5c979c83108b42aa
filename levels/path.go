package levels

import (
	"errors"
	"fmt"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

// ErrCorrupt is wrapped by errors about malformed levels. It is the same
// sentinel as the bit-packing layer's, so one errors.Is covers both.
var ErrCorrupt = bitpack.ErrCorrupt

// ErrLimit is wrapped by errors about sizes past what the package supports.
var ErrLimit = errors.New("limit exceeded")

// ErrInvalid is wrapped by errors about inconsistent Arrow layout handed to
// the write side (a null in a required node, offsets out of range).
var ErrInvalid = errors.New("invalid array data")

// MaxPathLen bounds the number of nodes of a [Path].
const MaxPathLen = 1000

// Repetition is the repetition of a schema node, as in parquet.thrift's
// FieldRepetitionType.
type Repetition uint8

// The repetitions of a schema node.
const (
	Required Repetition = iota
	Optional
	Repeated
)

// String returns the repetition as parquet.thrift spells it, lower case.
func (r Repetition) String() string {
	switch r {
	case Required:
		return "required"
	case Optional:
		return "optional"
	case Repeated:
		return "repeated"
	}
	return fmt.Sprintf("Repetition(%d)", uint8(r))
}

// Node describes one schema node on the path from the root's child to a leaf.
//
// Slots: every node belongs to a nesting Depth, the number of repeated nodes
// above it. Depth 0 has one slot per record; depth d > 0 has one slot per
// element of the lists of the d-th repeated node. All nodes of one depth share
// its slots, as the arrays of a struct and its children share indices in
// Arrow; a repeated node's own slots are its lists (in its parent's depth),
// the elements of those lists are the slots of depth Depth+1.
type Node struct {
	Repetition Repetition
	// Depth is the number of repeated nodes above this one.
	Depth int
	// DefLevel is the definition level at and above which this node is
	// present: non-null for an optional node, a non-empty list for a repeated
	// one. DefLevel-1 means null (optional) or empty list (repeated) here;
	// lower levels mean an ancestor is null or empty. For a required node it
	// equals its parent's.
	DefLevel int16
	// RepLevel is, for a repeated node, the repetition level that starts a new
	// element of its list (Depth+1); for others it is Depth.
	RepLevel int16
}

// Path describes the levels of one leaf column. The zero value is not
// useful; use [NewPath]. A Path is immutable and safe for concurrent use.
type Path struct {
	Nodes  []Node
	MaxDef int16
	MaxRep int16

	// slotDepth[def] is the deepest depth at which a level with that
	// definition level has a slot.
	slotDepth []int16
	// depthFirst[d] is the first node of depth d; depth d's nodes run to
	// depthFirst[d+1]-1 (the repeated node closing it, when d < MaxRep).
	depthFirst []int
}

// NewPath builds the path of a leaf from the repetitions of the schema nodes
// from the root's child down to the leaf itself (the root is not included).
// For `optional group a (LIST) { repeated group list { optional int32 element } }`
// that is {Optional, Repeated, Optional}.
func NewPath(reps []Repetition) (*Path, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("levels: empty path: %w", ErrInvalid)
	}
	if len(reps) > MaxPathLen {
		return nil, fmt.Errorf("levels: path of %d nodes > %d: %w", len(reps), MaxPathLen, ErrLimit)
	}
	p := &Path{Nodes: make([]Node, len(reps))}
	var def, rep int16
	p.depthFirst = append(p.depthFirst, 0)
	for i, r := range reps {
		n := Node{Repetition: r, Depth: int(rep)}
		switch r {
		case Required:
		case Optional:
			def++
		case Repeated:
			def++
			rep++
			p.depthFirst = append(p.depthFirst, i+1)
		default:
			return nil, fmt.Errorf("levels: node %d: unknown repetition %d: %w", i, r, ErrInvalid)
		}
		n.DefLevel, n.RepLevel = def, rep
		p.Nodes[i] = n
	}
	p.depthFirst = append(p.depthFirst, len(reps)+1)
	p.MaxDef, p.MaxRep = def, rep
	p.slotDepth = make([]int16, def+1)
	for d := range p.slotDepth {
		var depth int16
		for _, n := range p.Nodes {
			if n.Repetition == Repeated && int(n.DefLevel) <= d {
				depth = n.RepLevel
			}
		}
		p.slotDepth[d] = depth
	}
	return p, nil
}

// Leaf returns the index of the leaf node (the last one).
func (p *Path) Leaf() int { return len(p.Nodes) - 1 }

// IsFlat reports whether the column has no repetition and at most one
// optional node, so its definition levels are exactly its validity.
func (p *Path) IsFlat() bool { return p.MaxRep == 0 && p.MaxDef <= 1 }

// depthNodes returns the node index range [first, last) of depth d; for
// d < MaxRep the last node in it is the repeated node that closes d.
func (p *Path) depthNodes(d int) (first, last int) {
	return p.depthFirst[d], min(p.depthFirst[d+1], len(p.Nodes))
}
