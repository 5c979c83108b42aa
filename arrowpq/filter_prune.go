package arrowpq

// Pruning decisions: pure functions from a bound predicate and a row
// group's metadata (column statistics, bloom filters, ColumnIndex and
// OffsetIndex) to the rows that may match. No I/O happens here; the reader
// fetches what these functions ask for.
//
// Each comparison yields the set of outcomes (TRUE, FALSE, unknown) that
// its rows may have, as row ranges per outcome: statistics say which
// outcomes the values in [min, max] allow, a bloom filter can remove TRUE
// from an = or IN, and the page index gives one set per page. The sets
// combine up the tree with Kleene logic over sets (AND: TRUE where both may
// be TRUE, FALSE where either may be FALSE, …; NOT swaps TRUE and FALSE),
// which over-approximates every row's outcome. So a row outside the TRUE
// set cannot match, and a row in neither the FALSE nor the unknown set
// matches for sure; NOT needs the FALSE set, which is why "may match" alone
// cannot be inverted.

import (
	"bytes"
	"fmt"
	"math"
	"math/big"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Decision is what pruning knows about the rows of a row group or page.
type Decision uint8

const (
	// MayMatch: some rows may match; they must be read and evaluated.
	MayMatch Decision = iota
	// CannotMatch: no row matches; skip it.
	CannotMatch
	// AllMatch: every row matches; read it without evaluating.
	AllMatch
)

func (d Decision) String() string {
	switch d {
	case CannotMatch:
		return "cannot match"
	case AllMatch:
		return "all match"
	}
	return "may match"
}

// PruneInput is the metadata of one row group that pruning may use. The
// maps are keyed by leaf column index (metadata.Column.Index) and may be nil
// or miss columns; a ColumnIndex is used only with its OffsetIndex.
type PruneInput struct {
	File          *metadata.File
	RowGroup      int
	BloomFilters  map[int]*metadata.BloomFilter
	ColumnIndexes map[int]*format.ColumnIndex
	OffsetIndexes map[int]*format.OffsetIndex
}

// PruneResult is the pruning decision for one row group.
type PruneResult struct {
	// ByStatistics is the decision from column statistics alone.
	ByStatistics Decision
	// Decision adds the bloom filters and the page index.
	Decision Decision
	// MayMatch holds the rows of the row group (0 = its first row) that
	// may match; AllMatch those that match for sure (a subset of MayMatch).
	// Without a usable page index they are the whole row group or nothing.
	MayMatch, AllMatch RowRanges
	// Pages and PagesSkipped count the pages of the predicate's columns
	// with a usable page index, and those no row of MayMatch falls in.
	Pages, PagesSkipped int
	// Warnings say which bloom filters and page indexes were ignored
	// because they contradict the rest of the file.
	Warnings []string
}

const (
	outT = 1 << iota
	outF
	outU
	outAll = outT | outF | outU
)

// outcomes is, for each outcome, the rows that may have it.
type outcomes struct{ t, f, u RowRanges }

func fullOutcomes(mask uint8, n int64) outcomes {
	var o outcomes
	full := NewRowRanges(RowRange{0, n})
	empty := RowRanges{}
	o.t, o.f, o.u = empty, empty, empty
	if mask&outT != 0 {
		o.t = full
	}
	if mask&outF != 0 {
		o.f = full
	}
	if mask&outU != 0 {
		o.u = full
	}
	return o
}

// BloomColumns returns the leaf columns (metadata.Column.Index) whose
// bloom filter could prune: those compared with = or IN.
func (b *BoundPredicate) BloomColumns() []int {
	var out []int
	seen := map[int]bool{}
	var walk func(*bnode)
	walk = func(n *bnode) {
		if (n.op == opEQ || n.op == opIn) && n.konst == constNone && n.col.leaf != nil && !seen[n.col.leaf.Index] {
			seen[n.col.leaf.Index] = true
			out = append(out, n.col.leaf.Index)
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(b.root)
	return out
}

// IndexColumns returns the leaf columns whose statistics and page index
// pruning reads.
func (b *BoundPredicate) IndexColumns() []int {
	var out []int
	for _, c := range b.cols {
		if c.leaf != nil {
			out = append(out, c.leaf.Index)
		}
	}
	return out
}

// Prune decides which rows of in.RowGroup may match. It never reads
// anything and never fails: metadata it cannot trust is left out, with a
// warning when it contradicts the file.
func (b *BoundPredicate) Prune(in PruneInput) PruneResult {
	var res PruneResult
	f, rg := in.File, in.RowGroup
	if f == nil || rg < 0 || rg >= len(f.Meta.RowGroups) {
		res.MayMatch = RowRanges{}
		res.Warnings = append(res.Warnings, fmt.Sprintf("row group %d does not exist", rg))
		return res
	}
	numRows := f.Meta.RowGroups[rg].NumRows
	ctx := &pruneCtx{b: b, in: in, numRows: numRows, stats: map[int]*metadata.Stats{}, pages: map[int]*pageIndex{}}
	ctx.warn = func(s string) { res.Warnings = append(res.Warnings, fmt.Sprintf("row group %d, %s", rg, s)) }

	byStats := ctx.eval(b.root, false, false)
	res.ByStatistics = decide(byStats, numRows)
	all := ctx.eval(b.root, true, true)
	res.Decision = decide(all, numRows)
	res.MayMatch = all.t
	res.AllMatch = all.t.Intersect(all.f.Union(all.u).Complement(numRows))
	for _, pi := range ctx.pages {
		if pi == nil {
			continue
		}
		res.Pages += len(pi.rows)
		for _, r := range pi.rows {
			if len(NewRowRanges(r).Intersect(res.MayMatch)) == 0 {
				res.PagesSkipped++
			}
		}
	}
	return res
}

func decide(o outcomes, n int64) Decision {
	switch {
	case o.t.Len() == 0:
		return CannotMatch
	case o.f.Len() == 0 && o.u.Len() == 0 && o.t.Len() == n:
		return AllMatch
	}
	return MayMatch
}

type pageIndex struct {
	rows  []RowRange
	stats []metadata.Stats
}

type pruneCtx struct {
	b       *BoundPredicate
	in      PruneInput
	numRows int64
	stats   map[int]*metadata.Stats // by leaf index; nil entry: unusable
	pages   map[int]*pageIndex      // by leaf index; nil entry: unusable
	warn    func(string)
}

func (c *pruneCtx) eval(n *bnode, bloom, pages bool) outcomes {
	switch n.op {
	case opAnd, opOr:
		if len(n.kids) == 0 {
			if n.op == opAnd {
				return fullOutcomes(outT, c.numRows)
			}
			return fullOutcomes(outF, c.numRows)
		}
		acc := c.eval(n.kids[0], bloom, pages)
		for _, k := range n.kids[1:] {
			r := c.eval(k, bloom, pages)
			if n.op == opAnd {
				acc = outcomes{
					t: acc.t.Intersect(r.t),
					f: acc.f.Union(r.f),
					u: acc.u.Intersect(r.t.Union(r.u)).Union(r.u.Intersect(acc.t.Union(acc.u))),
				}
			} else {
				acc = outcomes{
					t: acc.t.Union(r.t),
					f: acc.f.Intersect(r.f),
					u: acc.u.Intersect(r.f.Union(r.u)).Union(r.u.Intersect(acc.f.Union(acc.u))),
				}
			}
		}
		return acc
	case opNot:
		r := c.eval(n.kids[0], bloom, pages)
		return outcomes{t: r.f, f: r.t, u: r.u}
	}
	leaf := n.col.leaf
	if leaf == nil {
		return fullOutcomes(outAll, c.numRows)
	}
	st := c.chunkStats(leaf)
	mask := uint8(outAll)
	if st != nil {
		mask = leafMask(n, st, c.numRows)
	}
	if bloom && mask&outT != 0 && (n.op == opEQ || n.op == opIn) && n.konst == constNone {
		if bf := c.in.BloomFilters[leaf.Index]; bf != nil && !bloomMayContain(n, leaf, bf) {
			if mask == outT {
				c.warn(fmt.Sprintf("column %s: bloom filter ignored: it rules out %s, which the statistics say is every value", leaf.DottedPath, n.col.name))
			} else {
				mask &^= outT
			}
		}
	}
	if !pages {
		return fullOutcomes(mask, c.numRows)
	}
	pi := c.pageIndex(leaf, st)
	if pi == nil {
		return fullOutcomes(mask, c.numRows)
	}
	var o outcomes
	o.t, o.f, o.u = RowRanges{}, RowRanges{}, RowRanges{}
	for i, r := range pi.rows {
		m := mask & leafMask(n, &pi.stats[i], r.End-r.Start)
		if m&outT != 0 {
			o.t = append(o.t, r)
		}
		if m&outF != 0 {
			o.f = append(o.f, r)
		}
		if m&outU != 0 {
			o.u = append(o.u, r)
		}
	}
	o.t, o.f, o.u = NewRowRanges(o.t...), NewRowRanges(o.f...), NewRowRanges(o.u...)
	return o
}

// chunkStats decodes the statistics of leaf in the row group once; nil
// when there are none or they cannot be decoded or contradict the row
// count.
func (c *pruneCtx) chunkStats(leaf *metadata.Column) *metadata.Stats {
	if st, ok := c.stats[leaf.Index]; ok {
		return st
	}
	c.stats[leaf.Index] = nil
	md, err := c.in.File.ColumnChunk(c.in.RowGroup, leaf.Index)
	if err != nil || md.Statistics == nil {
		return nil
	}
	st, err := metadata.DecodeStats(leaf, metadata.ColumnOrder(c.in.File, leaf.Index), md.Statistics)
	if err != nil {
		c.warn(fmt.Sprintf("column %s: statistics ignored: %v", leaf.DottedPath, err))
		return nil
	}
	if st.HasNullCount && st.NullCount > c.numRows {
		c.warn(fmt.Sprintf("column %s: statistics ignored: null count %d above the %d rows", leaf.DottedPath, st.NullCount, c.numRows))
		return nil
	}
	c.stats[leaf.Index] = &st
	return &st
}

// pageIndex checks and decodes the page index of leaf once; nil when there
// is none or it contradicts the file (with a warning).
func (c *pruneCtx) pageIndex(leaf *metadata.Column, chunk *metadata.Stats) *pageIndex {
	if pi, ok := c.pages[leaf.Index]; ok {
		return pi
	}
	c.pages[leaf.Index] = nil
	ci, oi := c.in.ColumnIndexes[leaf.Index], c.in.OffsetIndexes[leaf.Index]
	if ci == nil || oi == nil {
		return nil
	}
	pi, err := checkPageIndex(c.in.File, c.in.RowGroup, leaf, ci, oi, c.numRows, chunk)
	if err != nil {
		c.warn(fmt.Sprintf("column %s: page index ignored: %v", leaf.DottedPath, err))
		return nil
	}
	c.pages[leaf.Index] = pi
	return pi
}

// checkPageIndex validates a ColumnIndex and OffsetIndex against each other
// and the file, and decodes per-page statistics with the ordering rules of
// the chunk statistics.
func checkPageIndex(f *metadata.File, rg int, leaf *metadata.Column, ci *format.ColumnIndex, oi *format.OffsetIndex, numRows int64, chunk *metadata.Stats) (*pageIndex, error) {
	if err := metadata.CheckColumnIndex(leaf, ci); err != nil {
		return nil, err
	}
	start, length, err := f.ChunkRange(rg, leaf.Index)
	if err != nil {
		return nil, err
	}
	if err := metadata.CheckOffsetIndex(oi, start, start+length, numRows); err != nil {
		return nil, err
	}
	locs := oi.PageLocations
	if len(locs) != len(ci.NullPages) {
		return nil, fmt.Errorf("offset index has %d pages, column index %d", len(locs), len(ci.NullPages))
	}
	if len(locs) == 0 {
		if numRows == 0 {
			return &pageIndex{}, nil
		}
		return nil, fmt.Errorf("no pages for %d rows", numRows)
	}
	pi := &pageIndex{rows: make([]RowRange, len(locs)), stats: make([]metadata.Stats, len(locs))}
	order := metadata.ColumnOrder(f, leaf.Index)
	var nulls int64
	nullsKnown := ci.NullCounts != nil
	for i, loc := range locs {
		end := numRows
		if i+1 < len(locs) {
			end = locs[i+1].FirstRowIndex
		}
		rows := end - loc.FirstRowIndex
		pi.rows[i] = RowRange{loc.FirstRowIndex, end}
		s := format.NewStatistics()
		if ci.NullCounts != nil && ci.NullCounts[i] >= 0 {
			n := ci.NullCounts[i]
			if n > rows {
				return nil, fmt.Errorf("page %d: null count %d above its %d rows", i, n, rows)
			}
			if ci.NullPages[i] && n != rows {
				return nil, fmt.Errorf("page %d: a null page with %d nulls in %d rows", i, n, rows)
			}
			s.NullCount = &n
			nulls += n
		} else {
			nullsKnown = false
		}
		if ci.NullPages[i] {
			n := rows
			s.NullCount = &n
		} else {
			s.MinValue, s.MaxValue = ci.MinValues[i], ci.MaxValues[i]
		}
		if ci.NanCounts != nil {
			s.NanCount = &ci.NanCounts[i]
		}
		st, err := metadata.DecodeStats(leaf, order, s)
		if err != nil {
			return nil, fmt.Errorf("page %d: %v", i, err)
		}
		pi.stats[i] = st
	}
	if chunk != nil && chunk.HasNullCount && nullsKnown && nulls != chunk.NullCount {
		return nil, fmt.Errorf("page null counts add up to %d, the column chunk statistics say %d", nulls, chunk.NullCount)
	}
	// A page bound outside the chunk's bounds cannot be right. Byte
	// arrays are left out: either bound may be truncated.
	if chunk != nil {
		for i := range pi.stats {
			ps := &pi.stats[i]
			lo, hi := statCanon(&chunk.Min, chunk.HasMin), statCanon(&chunk.Max, chunk.HasMax)
			plo, phi := statCanon(&ps.Min, ps.HasMin), statCanon(&ps.Max, ps.HasMax)
			if lo.kind == canonNone || lo.kind == canonBytes || plo.kind != lo.kind || hi.kind != lo.kind || phi.kind != lo.kind {
				continue
			}
			if canonCmp(plo, lo) < 0 || canonCmp(phi, hi) > 0 {
				return nil, fmt.Errorf("page %d: bounds [%v, %v] outside the column chunk's [%v, %v]", i, ps.Min, ps.Max, chunk.Min, chunk.Max)
			}
		}
	}
	return pi, nil
}

// statCanon converts a statistics value to its pruning domain.
func statCanon(v *metadata.Value, has bool) canon {
	if !has {
		return canon{}
	}
	switch v.Kind {
	case metadata.KindInt:
		return canon{kind: canonNum, r: new(big.Rat).SetInt64(v.Int)}
	case metadata.KindUint:
		return canon{kind: canonNum, r: new(big.Rat).SetInt(new(big.Int).SetUint64(v.Uint))}
	case metadata.KindDecimal:
		if v.Unscaled == nil {
			return canon{}
		}
		r := new(big.Rat).SetInt(v.Unscaled)
		return canon{kind: canonNum, r: r.Mul(r, pow10Rat(v.Scale))}
	case metadata.KindDate:
		return canon{kind: canonInstant, r: new(big.Rat).Mul(new(big.Rat).SetInt64(v.Int), nsPerDay)}
	case metadata.KindTimestamp:
		per := int64(1)
		switch v.Unit {
		case metadata.Millis:
			per = 1e6
		case metadata.Micros:
			per = 1e3
		case metadata.Nanos:
		default:
			return canon{}
		}
		return canon{kind: canonInstant, r: new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(v.Int), big.NewInt(per)))}
	case metadata.KindInt96:
		day, nanos, ok := v.Int96()
		if !ok {
			return canon{}
		}
		ns := new(big.Int).Mul(big.NewInt(int64(day)-2440588), big.NewInt(86400e9))
		return canon{kind: canonInstant, r: new(big.Rat).SetInt(ns.Add(ns, big.NewInt(nanos)))}
	case metadata.KindFloat:
		return canon{kind: canonFloat, f: v.Float}
	case metadata.KindString, metadata.KindBytes, metadata.KindUUID:
		return canon{kind: canonBytes, b: v.Bytes}
	case metadata.KindBoolean:
		return canon{kind: canonBool, bo: v.Bool}
	}
	return canon{}
}

// canonCmp compares two values of the same domain; floats in DuckDB's
// order (NaN above everything, equal to itself; -0 = +0).
func canonCmp(a, b canon) int {
	switch a.kind {
	case canonNum, canonInstant:
		return a.r.Cmp(b.r)
	case canonFloat:
		an, bn := math.IsNaN(a.f), math.IsNaN(b.f)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a.f < b.f:
			return -1
		case a.f > b.f:
			return 1
		}
		return 0
	case canonBytes:
		return bytes.Compare(a.b, b.b)
	case canonBool:
		return int(boolInt(a.bo) - boolInt(b.bo))
	}
	return 0
}

// valueSet is what statistics say about the non-null values: inside
// [lo, hi] (a missing end is unbounded), plus NaN when nan.
type valueSet struct {
	lo, hi *canon
	nan    bool
	// onlyNaN: the NaN count equals the non-null values: every value is
	// NaN, whatever the bounds say.
	onlyNaN bool
}

// leafMask returns the outcomes a comparison may have on numRows rows
// whose leaf statistics are st.
func leafMask(n *bnode, st *metadata.Stats, numRows int64) uint8 {
	// A required leaf (max definition level 0) holds no null, whatever the
	// statistics say or leave out.
	required := n.col.leaf != nil && n.col.leaf.MaxDef == 0
	someNull := !required && (!st.HasNullCount || st.NullCount > 0)
	allNull := !required && st.HasNullCount && st.NullCount >= numRows && numRows > 0
	switch n.op {
	case opIsNull, opIsNotNull:
		var m uint8
		if someNull {
			m |= outT
		}
		if !allNull {
			m |= outF
		}
		if n.op == opIsNotNull {
			m = m&outT<<1 | m&outF>>1
		}
		return m
	}
	var u uint8
	if someNull {
		u = outU
	}
	if allNull || n.konst == constUnknown {
		return outU
	}
	switch n.konst {
	case constTrue:
		return outT | u
	case constFalse:
		return outF | u
	}
	set, ok := statsValueSet(n, st)
	if !ok {
		return outT | outF | u
	}
	if set.nan && st.HasNaNCount && st.HasNullCount && st.NaNCount > 0 && st.NaNCount == numRows-st.NullCount {
		set = valueSet{nan: true, onlyNaN: true}
	}
	m := setMask(n, set)
	if n.op == opIn && n.inHasNull && m&outF != 0 {
		m = m&^outF | outU
	}
	return m | u
}

// statsValueSet builds the value set of st in n's column domain; false
// when the statistics are in another domain (an Arrow type the Parquet
// type does not describe, such as an ARROW:schema hint).
func statsValueSet(n *bnode, st *metadata.Stats) (valueSet, bool) {
	want := n.col.canon
	var set valueSet
	if st.HasMin {
		c := statCanon(&st.Min, true)
		if c.kind != want {
			return set, false
		}
		if !(c.kind == canonFloat && math.IsNaN(c.f)) {
			set.lo = &c
		}
	}
	if st.HasMax {
		c := statCanon(&st.Max, true)
		if c.kind != want {
			return set, false
		}
		if c.kind == canonFloat && math.IsNaN(c.f) {
			set.nan = true
		} else {
			set.hi = &c
		}
	}
	if want == canonFloat {
		// Under TYPE_ORDER NaNs are left out of min and max: any chunk may
		// hold them unless its NaN count says none.
		if !(st.HasNaNCount && st.NaNCount == 0) || !st.HasMax {
			set.nan = true
		}
	}
	return set, true
}

// setMask returns which of TRUE and FALSE the comparison n may give for a
// value of set.
func setMask(n *bnode, set valueSet) uint8 {
	var m uint8
	if n.op == opStartsWith {
		p := canon{kind: canonBytes, b: n.bytes}
		t := set.hi == nil || canonCmp(*set.hi, p) >= 0
		if succ := prefixSuccessor(n.bytes); succ != nil && set.lo != nil {
			t = t && bytes.Compare(set.lo.b, succ) < 0
		}
		if t {
			m |= outT
		}
		if !(set.lo != nil && set.hi != nil && bytes.HasPrefix(set.lo.b, n.bytes) && bytes.HasPrefix(set.hi.b, n.bytes)) {
			m |= outF
		}
		return m
	}
	if n.op == opIn {
		point := set.lo != nil && set.hi != nil && canonCmp(*set.lo, *set.hi) == 0 && !set.nan
		inSet := false
		for _, v := range n.canonSet {
			if t, _ := intervalTF(opEQ, v, set); t {
				m |= outT
			}
			if point && canonCmp(*set.lo, v) == 0 {
				inSet = true
			}
		}
		if !inSet {
			m |= outF
		}
		return m
	}
	t, f := intervalTF(n.origOp, n.canonVal, set)
	if t {
		m |= outT
	}
	if f {
		m |= outF
	}
	return m
}

// intervalTF says whether x op v may be TRUE and may be FALSE for some x in
// set.
func intervalTF(op filterOp, v canon, set valueSet) (t, f bool) {
	below := func(b *canon, c int) bool { return b == nil || canonCmp(*b, v) < c } // lo < v (c=0) or lo <= v (c=1)
	above := func(b *canon, c int) bool { return b == nil || canonCmp(*b, v) > c } // hi > v (c=0) or hi >= v (c=-1)
	if v.kind == canonFloat && math.IsNaN(v.f) {
		// Every non-NaN value is below NaN. A missing min and max says
		// nothing, so a non-NaN value is possible unless the NaN count
		// covers every value.
		nonNaN := !set.onlyNaN
		switch op {
		case opEQ, opGE:
			return set.nan, nonNaN
		case opNE, opLT:
			return nonNaN, set.nan
		case opLE:
			return true, false
		case opGT:
			return false, true
		}
	}
	if set.onlyNaN {
		// NaN is above v and not equal to it.
		switch op {
		case opNE, opGT, opGE:
			return true, false
		}
		return false, true
	}
	switch op {
	case opEQ:
		t = below(set.lo, 1) && above(set.hi, -1)
		f = !(set.lo != nil && set.hi != nil && canonCmp(*set.lo, v) == 0 && canonCmp(*set.hi, v) == 0)
	case opNE:
		f = below(set.lo, 1) && above(set.hi, -1)
		t = !(set.lo != nil && set.hi != nil && canonCmp(*set.lo, v) == 0 && canonCmp(*set.hi, v) == 0)
	case opLT:
		t, f = below(set.lo, 0), above(set.hi, -1)
	case opLE:
		t, f = below(set.lo, 1), above(set.hi, 0)
	case opGT:
		t, f = above(set.hi, 0), below(set.lo, 1)
	case opGE:
		t, f = above(set.hi, -1), below(set.lo, 0)
	}
	if set.nan {
		// NaN is above every value and equal only to NaN.
		switch op {
		case opEQ, opLT, opLE:
			f = true
		case opNE, opGT, opGE:
			t = true
		}
	}
	if set.nan && set.lo == nil && set.hi == nil && v.kind == canonFloat {
		// Possibly only NaNs, possibly anything: both outcomes.
		t, f = true, true
	}
	return t, f
}

// prefixSuccessor is the smallest byte string above every string with
// prefix p, or nil when there is none (p empty or all 0xff).
func prefixSuccessor(p []byte) []byte {
	s := bytes.Clone(p)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xff {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}

// bloomMayContain reports whether bf may hold a value equal to n's
// operand (any element for IN). When a value cannot be hashed the way the
// writer hashed it, it says true.
func bloomMayContain(n *bnode, leaf *metadata.Column, bf *metadata.BloomFilter) bool {
	vals := n.canonSet
	if n.op == opEQ {
		vals = []canon{n.canonVal}
	}
	for _, v := range vals {
		hashes, ok := bloomHashes(leaf, v)
		if !ok {
			return true
		}
		for _, h := range hashes {
			if bf.MayContain(h) {
				return true
			}
		}
	}
	return false
}

// bloomHashes returns the XXH64 hashes of the PLAIN encodings that value v
// may have in column leaf (two for a float zero); false when unknown.
func bloomHashes(leaf *metadata.Column, v canon) ([]uint64, bool) {
	probe := make([]byte, 16)
	switch leaf.Physical {
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		if leaf.TypeLength <= 0 || leaf.TypeLength > 1<<20 {
			return nil, false
		}
		probe = make([]byte, leaf.TypeLength)
	case format.Type_INT32, format.Type_FLOAT:
		probe = probe[:4]
	case format.Type_INT64, format.Type_DOUBLE:
		probe = probe[:8]
	case format.Type_BYTE_ARRAY:
		probe = probe[:1]
	default:
		return nil, false
	}
	probe[0] = 0 // a decimal probe of one zero byte
	typ, err := metadata.DecodeValue(leaf, probe)
	if err != nil {
		return nil, false
	}
	integer := func(scaleBy *big.Rat) (*big.Int, bool) {
		if v.r == nil {
			return nil, false
		}
		q := new(big.Rat).Mul(v.r, scaleBy)
		if !q.IsInt() {
			return nil, false
		}
		return q.Num(), true
	}
	fixedInt := func(k *big.Int, ok bool, unsigned bool) ([]uint64, bool) {
		if !ok {
			return nil, false
		}
		switch leaf.Physical {
		case format.Type_INT32:
			if unsigned && k.Sign() >= 0 && k.BitLen() <= 32 || !unsigned && k.IsInt64() && k.Int64() >= math.MinInt32 && k.Int64() <= math.MaxInt32 {
				return []uint64{metadata.XXHash64Uint32(uint32(k.Int64()))}, true
			}
		case format.Type_INT64:
			if unsigned && k.IsUint64() {
				return []uint64{metadata.XXHash64Uint64(k.Uint64())}, true
			}
			if !unsigned && k.IsInt64() {
				return []uint64{metadata.XXHash64Uint64(uint64(k.Int64()))}, true
			}
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			w := int(leaf.TypeLength)
			if k.BitLen() >= w*8 {
				return nil, false
			}
			buf := make([]byte, w)
			m := new(big.Int).Set(k)
			if m.Sign() < 0 {
				m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(w*8)))
			}
			m.FillBytes(buf)
			return []uint64{metadata.XXHash64(buf)}, true
		}
		return nil, false
	}
	switch typ.Kind {
	case metadata.KindInt:
		if v.kind != canonNum {
			return nil, false
		}
		k, ok := integer(ratOne)
		return fixedInt(k, ok, false)
	case metadata.KindUint:
		if v.kind != canonNum {
			return nil, false
		}
		k, ok := integer(ratOne)
		return fixedInt(k, ok, true)
	case metadata.KindDecimal:
		if v.kind != canonNum || leaf.Physical == format.Type_BYTE_ARRAY {
			return nil, false
		}
		k, ok := integer(new(big.Rat).Inv(pow10Rat(typ.Scale)))
		return fixedInt(k, ok, false)
	case metadata.KindDate:
		if v.kind != canonInstant || leaf.Physical != format.Type_INT32 {
			return nil, false
		}
		k, ok := integer(new(big.Rat).Inv(nsPerDay))
		return fixedInt(k, ok, false)
	case metadata.KindTimestamp:
		if v.kind != canonInstant || leaf.Physical != format.Type_INT64 {
			return nil, false
		}
		per := map[metadata.TimeUnit]int64{metadata.Millis: 1e6, metadata.Micros: 1e3, metadata.Nanos: 1}[typ.Unit]
		if per == 0 {
			return nil, false
		}
		k, ok := integer(big.NewRat(1, per))
		return fixedInt(k, ok, false)
	case metadata.KindFloat:
		if v.kind != canonFloat || math.IsNaN(v.f) {
			return nil, false
		}
		switch leaf.Physical {
		case format.Type_DOUBLE:
			if v.f == 0 {
				return []uint64{metadata.XXHash64Uint64(0), metadata.XXHash64Uint64(1 << 63)}, true
			}
			return []uint64{metadata.XXHash64Uint64(math.Float64bits(v.f))}, true
		case format.Type_FLOAT:
			f32 := float32(v.f)
			if float64(f32) != v.f {
				return nil, false
			}
			if v.f == 0 {
				return []uint64{metadata.XXHash64Uint32(0), metadata.XXHash64Uint32(1 << 31)}, true
			}
			return []uint64{metadata.XXHash64Uint32(math.Float32bits(f32))}, true
		}
	case metadata.KindString, metadata.KindBytes, metadata.KindUUID:
		if v.kind != canonBytes {
			return nil, false
		}
		if leaf.Physical == format.Type_FIXED_LEN_BYTE_ARRAY && len(v.b) != int(leaf.TypeLength) {
			return nil, false
		}
		return []uint64{metadata.XXHash64(v.b)}, true
	}
	return nil, false
}
