package arrowpq

// Binding a Predicate to a file: each column name resolves to a path of
// Arrow fields (top-level, then struct children) and, when there is one, to
// its Parquet leaf; each value is converted once to the column's domain, so
// that evaluation runs plain typed loops and pruning compares exact values.
//
// Integer-valued columns (integers, decimals by their unscaled value,
// dates, timestamps) compare in their own units: a literal q, exact as a
// big.Rat in those units, becomes an integer comparison (x < 2.5 is
// x <= 2) or a constant (x = 2.5 is FALSE for every non-null x, x < 300 on
// an int8 is TRUE), so that no value is ever rounded into a wrong answer.

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/arrowpq/arrowpq/metadata"
)

// colClass is how a column's values are compared.
type colClass uint8

const (
	classOther  colClass = iota // only IS [NOT] NULL
	classInt                    // int64 domain: signed integers, dates, timestamps, Decimal32/64 unscaled
	classUint                   // uint64 domain
	classDec128                 // decimal128.Num unscaled
	classDec256                 // decimal256.Num unscaled
	classFloat                  // float64 domain (Float16/32 widen exactly)
	classBytes                  // byte-wise: strings and binaries
	classBool
)

// canonKind is the domain in which pruning compares a literal with
// statistics: exact numbers, instants in nanoseconds, floats, bytes, bools.
type canonKind uint8

const (
	canonNone canonKind = iota
	canonNum
	canonInstant
	canonFloat
	canonBytes
	canonBool
)

// canon is a value in a pruning domain.
type canon struct {
	kind canonKind
	r    *big.Rat // canonNum, canonInstant (nanoseconds)
	f    float64
	b    []byte
	bo   bool
}

// boundColumn is one column a bound predicate reads.
type boundColumn struct {
	name  string
	path  []int          // field indices: top-level, then struct children
	typ   arrow.DataType // the field's type (a dictionary's value type for comparisons)
	class colClass
	canon canonKind
	// mult converts a raw integer value to its canonical value: raw * mult
	// (nanoseconds per unit for dates and timestamps, 10^-scale for
	// decimals, 1 for integers).
	mult   *big.Rat
	lo, hi *big.Int // domain of raw values
	leaf   *metadata.Column
}

// constOutcome marks a comparison that does not depend on the value.
type constOutcome int8

const (
	constNone    constOutcome = iota
	constTrue                 // TRUE for every non-null value
	constFalse                // FALSE for every non-null value
	constUnknown              // unknown for every row (a NULL literal)
)

// bnode is one node of a bound predicate.
type bnode struct {
	op filterOp // opEQ…opGE, opIn, opIsNull, opIsNotNull, opStartsWith, opAnd, opOr, opNot
	// origOp is the comparison as written: op may differ after rounding
	// a literal to the column's integers; pruning compares exact values.
	origOp filterOp
	col    *boundColumn
	kids   []*bnode
	konst  constOutcome

	// The operand in the column's domain (comparisons) or the set (IN).
	i64   int64
	u64   uint64
	f64   float64
	bytes []byte
	bo    bool
	d128  decimal128.Num
	d256  decimal256.Num

	setI64    []int64
	setU64    []uint64
	setF64    []float64
	setBytes  []string
	setD128   []decimal128.Num
	setD256   []decimal256.Num
	inHasNull bool // IN list holds NULL: a non-match is unknown, not FALSE

	// The operands in the pruning domain; canonSet for IN.
	canonVal canon
	canonSet []canon
}

// BoundPredicate is a [Predicate] resolved against one schema: the result
// of [Predicate.Bind]. It is immutable and safe for concurrent use.
type BoundPredicate struct {
	src  *Predicate
	root *bnode
	cols []*boundColumn
	text string // filter text of the node being bound, for error positions
}

// Predicate returns the predicate p was bound from.
func (b *BoundPredicate) Predicate() *Predicate { return b.src }

// Bind resolves p's columns in schema, the Arrow schema of the file (or of
// the batches to evaluate), and pq, the file's Parquet schema (nil when
// there is none: no pruning then), and converts p's values to the columns'
// types. Errors name the column and the value, and point at them in the
// filter text when p came from [ParseFilter].
func (p *Predicate) Bind(schema *arrow.Schema, pq *metadata.Schema) (*BoundPredicate, error) {
	if p == nil {
		return nil, errors.New("arrowpq: filter: nil predicate")
	}
	b := &BoundPredicate{src: p}
	cols := map[string]*boundColumn{}
	root, err := b.bind(p, schema, pq, cols, 0)
	if err != nil {
		return nil, err
	}
	b.root = root
	return b, nil
}

// errorf reports a binding error: a *FilterSyntaxError pointing at pos
// when the node came from filter text, a plain error otherwise.
func (b *BoundPredicate) errorf(pos int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if b.text != "" && pos >= 0 {
		return &FilterSyntaxError{Text: b.text, Offset: pos, Msg: msg}
	}
	return errors.New("arrowpq: filter: " + msg)
}

func (b *BoundPredicate) bind(p *Predicate, schema *arrow.Schema, pq *metadata.Schema, cols map[string]*boundColumn, depth int) (*bnode, error) {
	if p == nil {
		return nil, b.errorf(-1, "nil predicate inside And, Or or Not")
	}
	if depth > 10000 {
		return nil, b.errorf(-1, "predicate nested deeper than 10000 levels")
	}
	switch p.op {
	case opAnd, opOr, opNot:
		n := &bnode{op: p.op}
		for _, k := range p.kids {
			bk, err := b.bind(k, schema, pq, cols, depth+1)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, bk)
		}
		if p.op == opNot && len(n.kids) != 1 {
			return nil, b.errorf(-1, "Not takes one predicate")
		}
		return n, nil
	}
	b.text = p.text
	col, err := b.column(p, schema, pq, cols)
	if err != nil {
		return nil, err
	}
	for _, l := range p.lits {
		if l.err != nil {
			return nil, b.errorf(p.pos, "column %s: %v", quoteIdent(p.col), l.err)
		}
	}
	switch p.op {
	case opIsNull, opIsNotNull:
		return &bnode{op: p.op, col: col}, nil
	case opBetween:
		lo, err := b.compare(opGE, col, p, p.lits[0])
		if err != nil {
			return nil, err
		}
		hi, err := b.compare(opLE, col, p, p.lits[1])
		if err != nil {
			return nil, err
		}
		return &bnode{op: opAnd, kids: []*bnode{lo, hi}}, nil
	case opIn:
		return b.in(col, p)
	case opStartsWith:
		if col.class != classBytes {
			return nil, b.errorf(p.pos, "column %s is %s: LIKE 'prefix%%' (starts with) needs a string or binary column", quoteIdent(p.col), col.typ)
		}
		if l := p.lits[0]; l.kind != litString && l.kind != litBytes {
			return nil, b.errorf(l.pos, "column %s: starts-with prefix %s is not a string", quoteIdent(p.col), l.text)
		}
		return &bnode{op: opStartsWith, col: col, bytes: []byte(p.lits[0].s), canonVal: canon{kind: canonBytes, b: []byte(p.lits[0].s)}}, nil
	}
	return b.compare(p.op, col, p, p.lits[0])
}

// column resolves p.col, once per name.
func (b *BoundPredicate) column(p *Predicate, schema *arrow.Schema, pq *metadata.Schema, cols map[string]*boundColumn) (*boundColumn, error) {
	if c, ok := cols[p.col]; ok {
		return c, nil
	}
	path, names, typ, err := resolveField(schema, p.col)
	if err != nil {
		return nil, b.errorf(p.pos, "%v", err)
	}
	c := &boundColumn{name: p.col, path: path, typ: typ}
	if d, ok := typ.(*arrow.DictionaryType); ok {
		typ = d.ValueType
		c.typ = typ
	}
	c.classify(typ)
	if pq != nil {
		if leaf := pq.ColumnByNames(names); leaf != nil && leaf.MaxRep == 0 {
			c.leaf = leaf
		}
	}
	cols[p.col] = c
	b.cols = append(b.cols, c)
	return c, nil
}

// resolveField finds name in schema: a top-level field, or a dotted path
// through struct fields. It returns the field indices, the field names and
// the type.
func resolveField(schema *arrow.Schema, name string) ([]int, []string, arrow.DataType, error) {
	if idx := schema.FieldIndices(name); len(idx) == 1 {
		return idx, []string{name}, schema.Field(idx[0]).Type, nil
	} else if len(idx) > 1 {
		return nil, nil, nil, fmt.Errorf("column %s is ambiguous: %d top-level fields have that name", quoteIdent(name), len(idx))
	}
	parts := strings.Split(name, ".")
	idx := schema.FieldIndices(parts[0])
	if len(idx) != 1 {
		return nil, nil, nil, fmt.Errorf("column %s is not in the schema", quoteIdent(name))
	}
	path := []int{idx[0]}
	typ := schema.Field(idx[0]).Type
	for i, part := range parts[1:] {
		st, ok := typ.(*arrow.StructType)
		if !ok {
			where := strings.Join(parts[:i+1], ".")
			switch typ.(type) {
			case arrow.ListLikeType:
				return nil, nil, nil, fmt.Errorf("column %s: %s is a %s: a filter compares one value per row, not the elements of a list or map", quoteIdent(name), quoteIdent(where), typ)
			}
			return nil, nil, nil, fmt.Errorf("column %s: %s is %s, not a struct", quoteIdent(name), quoteIdent(where), typ)
		}
		j, ok := st.FieldIdx(part)
		if !ok {
			return nil, nil, nil, fmt.Errorf("column %s: struct %s has no field %s", quoteIdent(name), quoteIdent(strings.Join(parts[:i+1], ".")), quoteIdent(part))
		}
		path = append(path, j)
		typ = st.Field(j).Type
	}
	return path, parts, typ, nil
}

var (
	ratOne     = big.NewRat(1, 1)
	nsPerDay   = big.NewRat(86400e9, 1)
	int64Lo    = big.NewInt(math.MinInt64)
	int64Hi    = big.NewInt(math.MaxInt64)
	dec128Lo   = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	dec128Hi   = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
	dec256Lo   = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 255))
	dec256Hi   = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(1))
	bigZero    = big.NewInt(0)
	uint64Hi   = new(big.Int).SetUint64(math.MaxUint64)
	intBitsMax = func(bits uint) (*big.Int, *big.Int) {
		h := new(big.Int).Lsh(big.NewInt(1), bits-1)
		return new(big.Int).Neg(h), h.Sub(h, big.NewInt(1))
	}
)

func pow10Rat(scale int32) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs32(scale))), nil)
	if scale >= 0 {
		return new(big.Rat).SetFrac(big.NewInt(1), p)
	}
	return new(big.Rat).SetInt(p)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// classify sets c's class, canonical domain, unit and raw domain from its
// Arrow type.
func (c *boundColumn) classify(typ arrow.DataType) {
	c.mult = ratOne
	signed := func(bits uint) { c.class, c.canon = classInt, canonNum; c.lo, c.hi = intBitsMax(bits) }
	unsigned := func(bits uint) {
		c.class, c.canon, c.lo = classUint, canonNum, bigZero
		c.hi = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
	}
	switch t := typ.(type) {
	case *arrow.Int8Type:
		signed(8)
	case *arrow.Int16Type:
		signed(16)
	case *arrow.Int32Type:
		signed(32)
	case *arrow.Int64Type:
		signed(64)
	case *arrow.Uint8Type:
		unsigned(8)
	case *arrow.Uint16Type:
		unsigned(16)
	case *arrow.Uint32Type:
		unsigned(32)
	case *arrow.Uint64Type:
		unsigned(64)
	case *arrow.Float16Type, *arrow.Float32Type, *arrow.Float64Type:
		c.class, c.canon = classFloat, canonFloat
	case *arrow.Date32Type:
		signed(32)
		c.canon, c.mult = canonInstant, nsPerDay
	case *arrow.Date64Type:
		signed(64)
		c.canon, c.mult = canonInstant, big.NewRat(1e6, 1)
	case *arrow.TimestampType:
		signed(64)
		c.canon, c.mult = canonInstant, big.NewRat(int64(t.Unit.Multiplier()), 1)
	case *arrow.Decimal32Type:
		signed(32)
		c.mult = pow10Rat(t.Scale)
	case *arrow.Decimal64Type:
		signed(64)
		c.mult = pow10Rat(t.Scale)
	case *arrow.Decimal128Type:
		c.class, c.canon, c.lo, c.hi, c.mult = classDec128, canonNum, dec128Lo, dec128Hi, pow10Rat(t.Scale)
	case *arrow.Decimal256Type:
		c.class, c.canon, c.lo, c.hi, c.mult = classDec256, canonNum, dec256Lo, dec256Hi, pow10Rat(t.Scale)
	case *arrow.StringType, *arrow.LargeStringType, *arrow.BinaryType, *arrow.LargeBinaryType,
		*arrow.FixedSizeBinaryType, *arrow.StringViewType, *arrow.BinaryViewType:
		c.class, c.canon = classBytes, canonBytes
	case *arrow.BooleanType:
		c.class, c.canon = classBool, canonBool
	case arrow.ExtensionType:
		c.classify(t.StorageType())
	default:
		c.class, c.canon = classOther, canonNone
	}
}

// isText reports whether c holds text, not binary.
func (c *boundColumn) isText() bool {
	switch c.typ.(type) {
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return true
	}
	return false
}

// coerce converts literal l for column c: a string becomes a date,
// timestamp or float where the column needs one, as SQL casts it.
func (b *BoundPredicate) coerce(c *boundColumn, l literal) (literal, error) {
	if l.kind != litString {
		return l, nil
	}
	switch {
	case c.canon == canonInstant:
		if d, err := parseDate(l.s); err == nil {
			d.pos, d.text = l.pos, l.text
			return d, nil
		}
		t, err := parseTimestamp(l.s)
		if err != nil {
			return l, b.errorf(l.pos, "column %s is %s: %v", quoteIdent(c.name), c.typ, err)
		}
		t.pos, t.text = l.pos, l.text
		return t, nil
	case c.class == classFloat:
		switch strings.ToLower(l.s) {
		case "nan":
			return literal{kind: litFloat, f: math.NaN(), pos: l.pos, text: l.text}, nil
		case "infinity", "inf", "+infinity":
			return literal{kind: litFloat, f: math.Inf(1), pos: l.pos, text: l.text}, nil
		case "-infinity", "-inf":
			return literal{kind: litFloat, f: math.Inf(-1), pos: l.pos, text: l.text}, nil
		}
	}
	return l, nil
}

// operand converts one literal for a comparison with column c into n's
// operand fields and canonVal; op may be changed (integer rounding) and
// the result may be a constant.
func (b *BoundPredicate) operand(n *bnode, c *boundColumn, l literal) error {
	l, err := b.coerce(c, l)
	if err != nil {
		return err
	}
	mismatch := func() error {
		return b.errorf(l.pos, "column %s is %s: cannot compare it with %s", quoteIdent(c.name), c.typ, l.text)
	}
	if l.kind == litNull {
		n.konst = constUnknown
		return nil
	}
	switch c.class {
	case classOther:
		return b.errorf(l.pos, "column %s is %s: only IS NULL and IS NOT NULL apply to it", quoteIdent(c.name), c.typ)
	case classBool:
		if l.kind != litBool {
			return mismatch()
		}
		n.bo, n.canonVal = l.b, canon{kind: canonBool, bo: l.b}
		return nil
	case classBytes:
		switch {
		case l.kind == litString, l.kind == litBytes && !c.isText():
			n.bytes, n.canonVal = []byte(l.s), canon{kind: canonBytes, b: []byte(l.s)}
			return nil
		}
		return mismatch()
	case classFloat:
		switch l.kind {
		case litFloat:
			n.f64 = l.f
		case litNumber:
			n.f64, _ = l.num.Float64()
		default:
			return mismatch()
		}
		n.canonVal = canon{kind: canonFloat, f: n.f64}
		return nil
	}
	// Integer-valued columns: an exact value q in the column's units.
	var q *big.Rat
	switch {
	case c.canon == canonNum && l.kind == litNumber:
		q = l.num
	case c.canon == canonNum && l.kind == litFloat:
		if math.IsNaN(l.f) || math.IsInf(l.f, 0) {
			// DuckDB's order: NaN above everything, as +Inf is.
			n.konst = infConst(n.op, !math.IsInf(l.f, -1))
			return nil
		}
		q = new(big.Rat).SetFloat64(l.f)
	case c.canon == canonInstant && l.kind == litDate:
		q = new(big.Rat).Mul(l.num, nsPerDay)
	case c.canon == canonInstant && l.kind == litTimestamp:
		q = l.num
	default:
		return mismatch()
	}
	n.canonVal = canon{kind: c.canon, r: q}
	if c.canon == canonInstant {
		n.canonVal.r = q // nanoseconds
	}
	raw := new(big.Rat).Quo(q, c.mult)
	op, k, konst := intCompare(n.op, raw, c.lo, c.hi)
	n.op, n.konst = op, konst
	if konst == constNone {
		n.setRaw(c, k)
	}
	return nil
}

// infConst is x op +Inf (pos) or x op -Inf for a finite x.
func infConst(op filterOp, pos bool) constOutcome {
	t := false
	switch op {
	case opNE:
		t = true
	case opLT, opLE:
		t = pos
	case opGT, opGE:
		t = !pos
	}
	if t {
		return constTrue
	}
	return constFalse
}

// setRaw stores the integer k, inside c's domain, as n's operand.
func (n *bnode) setRaw(c *boundColumn, k *big.Int) {
	switch c.class {
	case classInt:
		n.i64 = k.Int64()
	case classUint:
		n.u64 = k.Uint64()
	case classDec128:
		n.d128 = decimal128.FromBigInt(k)
	case classDec256:
		n.d256 = decimal256.FromBigInt(k)
	}
}

// intCompare turns x op q, for an integer x in [lo, hi] and an exact q,
// into x op' k with k in [lo, hi], or into a constant.
func intCompare(op filterOp, q *big.Rat, lo, hi *big.Int) (filterOp, *big.Int, constOutcome) {
	var k *big.Int
	if q.IsInt() {
		k = new(big.Int).Set(q.Num())
	} else {
		switch op {
		case opEQ:
			return op, nil, constFalse
		case opNE:
			return op, nil, constTrue
		case opLT, opLE:
			op, k = opLE, floorRat(q)
		default:
			op, k = opGE, new(big.Int).Add(floorRat(q), big.NewInt(1))
		}
	}
	belowLo, atLo := k.Cmp(lo) < 0, k.Cmp(lo) == 0
	aboveHi, atHi := k.Cmp(hi) > 0, k.Cmp(hi) == 0
	yes := func(b bool) (filterOp, *big.Int, constOutcome) {
		if b {
			return op, nil, constTrue
		}
		return op, nil, constFalse
	}
	switch op {
	case opEQ, opNE:
		if belowLo || aboveHi {
			return yes(op == opNE)
		}
	case opLT:
		if aboveHi || belowLo || atLo {
			return yes(aboveHi)
		}
	case opLE:
		if aboveHi || atHi || belowLo {
			return yes(!belowLo)
		}
	case opGT:
		if aboveHi || atHi || belowLo {
			return yes(belowLo)
		}
	case opGE:
		if aboveHi || belowLo || atLo {
			return yes(!aboveHi)
		}
	}
	return op, k, constNone
}

func floorRat(q *big.Rat) *big.Int {
	f := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean: floor for a positive denominator
	return f
}

func (b *BoundPredicate) compare(op filterOp, c *boundColumn, p *Predicate, l literal) (*bnode, error) {
	n := &bnode{op: op, origOp: op, col: c}
	if err := b.operand(n, c, l); err != nil {
		return nil, err
	}
	return n, nil
}

// in binds column IN (list): every element is converted like a
// comparison with =; elements that can equal no value of the column drop out.
func (b *BoundPredicate) in(c *boundColumn, p *Predicate) (*bnode, error) {
	if c.class == classOther {
		return nil, b.errorf(p.pos, "column %s is %s: only IS NULL and IS NOT NULL apply to it", quoteIdent(c.name), c.typ)
	}
	n := &bnode{op: opIn, col: c}
	seen := map[string]bool{}
	for _, l := range p.lits {
		e := &bnode{op: opEQ, origOp: opEQ, col: c}
		if err := b.operand(e, c, l); err != nil {
			return nil, err
		}
		switch e.konst {
		case constUnknown:
			n.inHasNull = true
			continue
		case constFalse:
			continue
		}
		key := fmt.Sprint(e.i64, e.u64, math.Float64bits(e.f64), string(e.bytes), e.bo, e.d128, e.d256)
		if c.class == classFloat && e.f64 == 0 {
			key = "zero" // -0 = +0
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		n.canonSet = append(n.canonSet, e.canonVal)
		switch c.class {
		case classInt:
			n.setI64 = append(n.setI64, e.i64)
		case classUint:
			n.setU64 = append(n.setU64, e.u64)
		case classDec128:
			n.setD128 = append(n.setD128, e.d128)
		case classDec256:
			n.setD256 = append(n.setD256, e.d256)
		case classFloat:
			n.setF64 = append(n.setF64, e.f64)
		case classBytes:
			n.setBytes = append(n.setBytes, string(e.bytes))
		case classBool:
			n.setI64 = append(n.setI64, boolInt(e.bo))
		}
	}
	return n, nil
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Fields returns the indices of the top-level fields of the bound schema
// that evaluation reads, in increasing order: the columns a filtered read
// decodes first.
func (b *BoundPredicate) Fields() []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range b.cols {
		if !seen[c.path[0]] {
			seen[c.path[0]] = true
			out = append(out, c.path[0])
		}
	}
	slices.Sort(out)
	return out
}
