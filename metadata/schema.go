package metadata

import (
	"fmt"
	"strings"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// MaxSchemaDepth bounds the nesting of a schema tree. Levels are 16-bit
// integers, and no real schema comes near this; a deeper tree is taken as
// hostile input rather than risking deep recursion further up.
const MaxSchemaDepth = 1000

// Repetition is the repetition of a schema node. The root has none and
// reports Required.
type Repetition = format.FieldRepetitionType

// Repetition values, re-exported for readability at call sites.
const (
	Required = format.FieldRepetitionType_REQUIRED
	Optional = format.FieldRepetitionType_OPTIONAL
	Repeated = format.FieldRepetitionType_REPEATED
	Vector   = format.FieldRepetitionType_VECTOR
)

// Node is one element of the schema tree: a group (with children) or a
// primitive leaf (a column).
type Node struct {
	// Element is the SchemaElement this node was built from.
	Element *format.SchemaElement
	// Name is the field name.
	Name string
	// Repetition is the node's repetition; Required for the root.
	Repetition Repetition
	// Parent is nil for the root.
	Parent *Node
	// Children is empty for leaves.
	Children []*Node
	// Index is the position of the element in FileMetaData.schema.
	Index int
	// Column is the leaf column index, or -1 for a group.
	Column int
	// DefLevel and RepLevel are the levels of this node: the number of
	// optional-or-repeated and of repeated nodes from the root down to and
	// including it.
	DefLevel, RepLevel int16
}

// IsLeaf reports whether n is a primitive column rather than a group.
func (n *Node) IsLeaf() bool { return n.Column >= 0 }

// Path returns the names from the root's child down to n.
func (n *Node) Path() []string {
	var depth int
	for p := n; p.Parent != nil; p = p.Parent {
		depth++
	}
	path := make([]string, depth)
	for p := n; p.Parent != nil; p = p.Parent {
		depth--
		path[depth] = p.Name
	}
	return path
}

// LogicalType returns the node's LogicalType annotation, or nil. An
// annotation this package does not know (a union with no member set, as a
// newer writer may produce) is reported as nil too.
func (n *Node) LogicalType() *format.LogicalType {
	lt := n.Element.LogicalType
	if lt == nil || lt.CountSetFieldsLogicalType() != 1 {
		return nil
	}
	return lt
}

// ConvertedType returns the node's legacy ConvertedType annotation and
// whether there is one.
func (n *Node) ConvertedType() (format.ConvertedType, bool) {
	if n.Element.ConvertedType == nil {
		return 0, false
	}
	return *n.Element.ConvertedType, true
}

// FieldID returns the node's field id and whether it has one.
func (n *Node) FieldID() (int32, bool) {
	if n.Element.FieldID == nil {
		return 0, false
	}
	return *n.Element.FieldID, true
}

// Column describes one leaf column of the schema.
type Column struct {
	// Node is the leaf node.
	Node *Node
	// Index is the position of the column among the leaves, which is also
	// its position in every row group's column list.
	Index int
	// Path holds the field names from the root's child to the leaf;
	// DottedPath joins them with '.'.
	Path       []string
	DottedPath string
	// MaxDef and MaxRep are the maximum definition and repetition levels.
	MaxDef, MaxRep int16
	// Physical is the physical type; TypeLength is the byte width of
	// FIXED_LEN_BYTE_ARRAY values.
	Physical   format.Type
	TypeLength int32
}

// Schema is the schema tree of a file with its leaf columns. It is
// immutable once built.
type Schema struct {
	Root    *Node
	Nodes   []*Node // in FileMetaData.schema order
	Columns []*Column
	byPath  map[string]int
}

// NewSchema builds and validates the schema tree from the depth-first
// flattened list of schema elements of a footer.
func NewSchema(elems []*format.SchemaElement) (*Schema, error) {
	if len(elems) == 0 {
		return nil, fmt.Errorf("metadata: schema has no root element: %w", ErrCorrupt)
	}
	s := &Schema{Nodes: make([]*Node, len(elems))}
	type frame struct {
		node      *Node
		remaining int
	}
	// An explicit stack instead of recursion: hostile footers can describe
	// very deep trees.
	var stack []frame
	for i, el := range elems {
		if el == nil {
			return nil, fmt.Errorf("metadata: schema element %d is missing: %w", i, ErrCorrupt)
		}
		n := &Node{Element: el, Name: el.Name, Index: i, Column: -1}
		s.Nodes[i] = n
		if i == 0 {
			if el.IsSetRepetitionType() && el.GetRepetitionType() == Repeated {
				return nil, fmt.Errorf("metadata: schema root %q is repeated: %w", el.Name, ErrCorrupt)
			}
			n.Repetition = Required
			if el.NumChildren == nil && el.Type != nil {
				return nil, fmt.Errorf("metadata: schema root %q is a primitive, not a group: %w", el.Name, ErrCorrupt)
			}
		} else {
			if len(stack) == 0 {
				return nil, fmt.Errorf("metadata: schema element %d (%q) lies outside the tree of the root, which has %d elements: %w",
					i, el.Name, i, ErrCorrupt)
			}
			top := &stack[len(stack)-1]
			n.Parent = top.node
			top.node.Children = append(top.node.Children, n)
			top.remaining--
			if !el.IsSetRepetitionType() {
				return nil, fmt.Errorf("metadata: schema element %d (%q) has no repetition type: %w", i, el.Name, ErrCorrupt)
			}
			n.Repetition = el.GetRepetitionType()
			switch n.Repetition {
			case Required:
				n.DefLevel, n.RepLevel = n.Parent.DefLevel, n.Parent.RepLevel
			case Optional:
				n.DefLevel, n.RepLevel = n.Parent.DefLevel+1, n.Parent.RepLevel
			case Repeated:
				n.DefLevel, n.RepLevel = n.Parent.DefLevel+1, n.Parent.RepLevel+1
			case Vector:
				// A fixed-size vector slot is always present: no level of its own.
				n.DefLevel, n.RepLevel = n.Parent.DefLevel, n.Parent.RepLevel
			default:
				return nil, fmt.Errorf("metadata: schema element %d (%q) has unknown repetition type %d: %w",
					i, el.Name, int32(n.Repetition), ErrCorrupt)
			}
		}
		if el.NumChildren != nil && *el.NumChildren < 0 {
			return nil, fmt.Errorf("metadata: schema element %d (%q) has %d children: %w", i, el.Name, *el.NumChildren, ErrCorrupt)
		}
		isGroup := el.NumChildren != nil && (*el.NumChildren > 0 || el.Type == nil)
		if isGroup {
			nc := int(*el.NumChildren)
			if nc < 0 {
				return nil, fmt.Errorf("metadata: schema element %d (%q) has %d children: %w", i, el.Name, nc, ErrCorrupt)
			}
			if nc > len(elems)-1-i {
				return nil, fmt.Errorf("metadata: schema element %d (%q) claims %d children but only %d elements follow: %w",
					i, el.Name, nc, len(elems)-1-i, ErrCorrupt)
			}
			if len(stack) >= MaxSchemaDepth {
				return nil, fmt.Errorf("metadata: schema nesting deeper than %d: %w", MaxSchemaDepth, ErrLimit)
			}
			if nc > 0 {
				n.Children = make([]*Node, 0, nc)
				stack = append(stack, frame{node: n, remaining: nc})
			}
		} else if i == 0 {
			// A root without children: an empty schema.
		} else {
			if el.Type == nil {
				return nil, fmt.Errorf("metadata: schema leaf %d (%q) has no physical type: %w", i, el.Name, ErrCorrupt)
			}
			if !validPhysicalType(*el.Type) {
				return nil, fmt.Errorf("metadata: schema leaf %d (%q) has unknown physical type %d: %w",
					i, el.Name, int32(*el.Type), ErrCorrupt)
			}
			col := &Column{Node: n, Index: len(s.Columns), Physical: *el.Type}
			if *el.Type == format.Type_FIXED_LEN_BYTE_ARRAY {
				if el.TypeLength == nil || *el.TypeLength <= 0 {
					return nil, fmt.Errorf("metadata: schema leaf %d (%q) is FIXED_LEN_BYTE_ARRAY without a positive type_length: %w",
						i, el.Name, ErrCorrupt)
				}
				col.TypeLength = *el.TypeLength
			}
			n.Column = col.Index
			s.Columns = append(s.Columns, col)
		}
		for len(stack) > 0 && stack[len(stack)-1].remaining == 0 {
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		top := stack[len(stack)-1]
		return nil, fmt.Errorf("metadata: schema element %d (%q) is missing %d of its children: %w",
			top.node.Index, top.node.Name, top.remaining, ErrCorrupt)
	}
	s.Root = s.Nodes[0]
	s.byPath = make(map[string]int, len(s.Columns))
	for _, c := range s.Columns {
		c.Path = c.Node.Path()
		c.DottedPath = strings.Join(c.Path, ".")
		c.MaxDef, c.MaxRep = c.Node.DefLevel, c.Node.RepLevel
		if _, dup := s.byPath[c.DottedPath]; !dup {
			s.byPath[c.DottedPath] = c.Index
		}
	}
	return s, nil
}

// ColumnByPath returns the leaf column with the given dotted path, or nil.
// When field names contain dots, paths can be ambiguous; the first column
// in schema order wins and [Schema.ColumnByNames] is exact.
func (s *Schema) ColumnByPath(dotted string) *Column {
	i, ok := s.byPath[dotted]
	if !ok {
		return nil
	}
	return s.Columns[i]
}

// ColumnByNames returns the leaf column whose path is exactly names, or nil.
func (s *Schema) ColumnByNames(names []string) *Column {
	for _, c := range s.Columns {
		if equalPath(c.Path, names) {
			return c
		}
	}
	return nil
}

// Column returns the leaf column at index i, or nil when i is out of range.
func (s *Schema) Column(i int) *Column {
	if i < 0 || i >= len(s.Columns) {
		return nil
	}
	return s.Columns[i]
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func validPhysicalType(t format.Type) bool {
	return t >= format.Type_BOOLEAN && t <= format.Type_FIXED_LEN_BYTE_ARRAY
}
