package arrowpq

import (
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/typemap"
)

// readPlan is what a Reader reads: the projected Arrow schema, one decoder
// per projected top-level field and the leaf columns they need.
type readPlan struct {
	manifest *typemap.Manifest
	schema   *arrow.Schema
	fields   []fieldDecoder
	// chunks are the column chunks of the current row group, kept for a
	// restart (bigbatch.go); batchCap, when not zero, caps the rows of a
	// batch after a byte array overflow.
	chunks   map[int][]byte
	batchCap int
	leaves   []int // sorted leaf column indices
	// order is the order in which parallel decoding takes up the fields:
	// the most work first, so that no goroutine starts the biggest
	// column last while the others run out of work (orderByWork).
	order []int
}

// fieldDecoder produces the arrays of one top-level field.
type fieldDecoder interface {
	// startRowGroup hands the decoder the column chunks of a row group.
	startRowGroup(r *Reader, rg int, chunks map[int][]byte) error
	// next decodes the next numRows rows.
	next(numRows int) (arrow.Array, error)
}

func newReadPlan(f *metadata.File, opts *ReadOptions) (*readPlan, error) {
	topts := typemap.ReadOptions{IgnoreArrowSchema: opts.IgnoreArrowSchema, SmallDecimals: opts.SmallDecimals,
		Views: opts.Views, ListViews: opts.ListViews}
	switch opts.Int96Unit {
	case arrow.Microsecond:
		topts.Int96Unit = typemap.Int96Micros
	case arrow.Millisecond:
		topts.Int96Unit = typemap.Int96Millis
	}
	for _, sel := range opts.Dictionary {
		for _, c := range f.Schema.Columns {
			if matchesLeaf(sel, c, nil) {
				topts.Dictionary = append(topts.Dictionary, c.DottedPath)
			}
		}
	}
	for _, sel := range opts.RunEndEncoded {
		for _, c := range f.Schema.Columns {
			if matchesLeaf(sel, c, nil) {
				topts.RunEndEncoded = append(topts.RunEndEncoded, c.DottedPath)
			}
		}
	}
	m, err := typemap.ToArrow(f.Schema, f.Meta.KeyValueMetadata, topts)
	if err != nil {
		return nil, err
	}
	selected, err := selectLeaves(m, f.Schema, opts.Columns)
	if err != nil {
		return nil, err
	}
	p := &readPlan{manifest: m}
	var arrowFields []arrow.Field
	for _, field := range m.Fields {
		pruned := prune(field, selected)
		if pruned == nil {
			continue
		}
		arrowFields = append(arrowFields, pruned.Arrow)
		p.fields = append(p.fields, newFieldReader(pruned, f, opts))
	}
	for i := range p.fields {
		p.order = append(p.order, i)
	}
	for leaf := range selected {
		p.leaves = append(p.leaves, leaf)
	}
	sort.Ints(p.leaves)
	md := m.Schema.Metadata()
	p.schema = arrow.NewSchema(arrowFields, &md)
	return p, nil
}

// orderByWork sorts p.order by the work of each field in row group rg
// (orderByWork).
func (p *readPlan) orderByWork(f *metadata.File, rg int) {
	p.order = orderByWork(f, rg, p.fields)
}

// orderByWork returns the indices of fields sorted by the uncompressed
// size of each field's column chunks in row group rg, largest first
// (longest-processing-time scheduling; lineitem's comment column is the
// last field and the heaviest).
func orderByWork(f *metadata.File, rg int, fields []fieldDecoder) []int {
	work := make([]int64, len(fields))
	for i, fd := range fields {
		work[i] = fieldWork(f, rg, fd)
	}
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return work[order[a]] > work[order[b]] })
	return order
}

// fieldWork is the uncompressed size of fd's column chunks in row group
// rg: the measure of decoding work that orderByWork and the pipeline's
// splits use.
func fieldWork(f *metadata.File, rg int, fd fieldDecoder) int64 {
	var work int64
	if fr, ok := fd.(*fieldReader); ok {
		for _, leaf := range fr.order {
			if md := f.Meta.RowGroups[rg].Columns[leaf].MetaData; md != nil {
				work += max(md.TotalUncompressedSize, 0)
			}
		}
	}
	return work
}

func (p *readPlan) startRowGroup(r *Reader, rg int, chunks map[int][]byte) error {
	p.chunks = chunks
	for _, f := range p.fields {
		if err := f.startRowGroup(r, rg, chunks); err != nil {
			return err
		}
	}
	return nil
}

// release frees what the decoders hold across batches (the Arrow forms of
// the current dictionaries).
func (p *readPlan) release() {
	for _, f := range p.fields {
		if fr, ok := f.(*fieldReader); ok {
			fr.release()
		}
	}
}

// selectLeaves resolves ReadOptions.Columns to the set of leaf columns to
// read. Every selection must match something.
func selectLeaves(m *typemap.Manifest, s *metadata.Schema, cols []string) (map[int]bool, error) {
	selected := make(map[int]bool)
	if len(cols) == 0 {
		for i := range s.Columns {
			selected[i] = true
		}
		return selected, nil
	}
	for _, sel := range cols {
		found := false
		for i, c := range s.Columns {
			if matchesLeaf(sel, c, m.Leaves[i]) {
				selected[i] = true
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no column %q in the file", sel)
		}
	}
	// A map needs both its keys and its values: selecting either keeps the
	// whole map.
	for _, f := range m.Fields {
		widenMaps(f, selected)
	}
	return selected, nil
}

// matchesLeaf reports whether selection sel names leaf c or one of its
// ancestors, by Parquet path or by Arrow field path.
func matchesLeaf(sel string, c *metadata.Column, leaf *typemap.Field) bool {
	if sel == c.DottedPath || strings.HasPrefix(c.DottedPath, sel+".") {
		return true
	}
	if leaf == nil {
		return false
	}
	var names []string
	for f := leaf; f != nil; f = f.Parent {
		names = append(names, f.Arrow.Name)
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	arrowPath := strings.Join(names, ".")
	return sel == arrowPath || strings.HasPrefix(arrowPath, sel+".")
}

func widenMaps(f *typemap.Field, selected map[int]bool) {
	if f.Kind == typemap.Map || isExtension(f.Arrow.Type) {
		any := false
		forEachLeaf(f, func(l *typemap.Field) { any = any || selected[l.Column] })
		if any {
			forEachLeaf(f, func(l *typemap.Field) { selected[l.Column] = true })
		}
		return
	}
	for _, c := range f.Children {
		widenMaps(c, selected)
	}
}

func isExtension(dt arrow.DataType) bool {
	_, ok := dt.(arrow.ExtensionType)
	return ok
}

func forEachLeaf(f *typemap.Field, fn func(*typemap.Field)) {
	if f.Kind == typemap.Leaf {
		fn(f)
		return
	}
	for _, c := range f.Children {
		forEachLeaf(c, fn)
	}
}

// prune returns f restricted to the selected leaves, or nil when none is
// under it. Pruned structs get new Arrow types; everything else keeps its
// type (lists and maps are kept whole or dropped whole below a struct).
func prune(f *typemap.Field, selected map[int]bool) *typemap.Field {
	if f.Kind == typemap.Leaf {
		if selected[f.Column] {
			return f
		}
		return nil
	}
	all, none := true, true
	forEachLeaf(f, func(l *typemap.Field) {
		if selected[l.Column] {
			none = false
		} else {
			all = false
		}
	})
	if none {
		return nil
	}
	if all || f.Kind != typemap.Struct || isExtension(f.Arrow.Type) {
		if !all && f.Kind == typemap.List {
			return pruneList(f, selected)
		}
		return f
	}
	cp := *f
	cp.Children = nil
	var fields []arrow.Field
	for _, c := range f.Children {
		if pc := prune(c, selected); pc != nil {
			pcCopy := *pc
			pcCopy.Parent = &cp
			cp.Children = append(cp.Children, &pcCopy)
			fields = append(fields, pc.Arrow)
		}
	}
	cp.Arrow.Type = arrow.StructOf(fields...)
	return &cp
}

// pruneList prunes the element of a list whose element is a struct.
func pruneList(f *typemap.Field, selected map[int]bool) *typemap.Field {
	elem := prune(f.Children[0], selected)
	if elem == nil {
		return nil
	}
	cp := *f
	e := *elem
	e.Parent = &cp
	cp.Children = []*typemap.Field{&e}
	switch t := f.Arrow.Type.(type) {
	case *arrow.ListType:
		cp.Arrow.Type = arrow.ListOfField(e.Arrow)
	case *arrow.LargeListType:
		cp.Arrow.Type = arrow.LargeListOfField(e.Arrow)
	case *arrow.FixedSizeListType:
		cp.Arrow.Type = arrow.FixedSizeListOfField(t.Len(), e.Arrow)
	default:
		return f
	}
	return &cp
}
