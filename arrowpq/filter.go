package arrowpq

// Predicates for filtered reads (issue 14): the syntax tree, the Go
// builders and the literal values. A Predicate is untyped; [Predicate.Bind]
// resolves its columns against a file's schemas and converts its values to
// the columns' types (filter_bind.go). Evaluation over Arrow batches is in
// filter_eval.go, pruning from statistics, bloom filters and the page index
// in filter_prune.go, the text syntax in filter_parse.go. docs/filters.md
// describes the semantics.

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// filterOp is the operator of one node of a predicate tree.
type filterOp uint8

const (
	opEQ filterOp = iota
	opNE
	opLT
	opLE
	opGT
	opGE
	opBetween
	opIn
	opIsNull
	opIsNotNull
	opStartsWith
	opAnd
	opOr
	opNot
)

var opText = [...]string{opEQ: "=", opNE: "!=", opLT: "<", opLE: "<=", opGT: ">", opGE: ">="}

// Predicate is a boolean expression over the columns of a file, built with
// [Col], [And], [Or], [Not] or parsed by [ParseFilter]. A row matches when
// the predicate is TRUE under SQL's three-valued logic (see
// ReadOptions.Filter for the semantics). A Predicate is immutable and may be
// shared; the zero value is not a valid predicate.
type Predicate struct {
	op   filterOp
	col  string // column name or dotted path (comparison nodes)
	pos  int    // byte offset of the column in the filter text; -1 when built in Go
	text string // the filter text this node was parsed from, for error positions
	lits []literal
	kids []*Predicate
}

// ColumnRef names a column in a predicate: a top-level field or a dotted
// path to a field inside structs. Build one with [Col].
type ColumnRef struct{ name string }

// Col refers to the column name: a top-level field name or a dotted path
// through struct fields ("address.city"). A name that is both a top-level
// field and a path means the top-level field.
func Col(name string) ColumnRef { return ColumnRef{name} }

func (c ColumnRef) cmp(op filterOp, vals ...any) *Predicate {
	p := &Predicate{op: op, col: c.name, pos: -1}
	for _, v := range vals {
		p.lits = append(p.lits, literalOf(v))
	}
	return p
}

// Values accepted by the comparison builders: Go integers (int, int8 …
// uint64), float32, float64, string, []byte, bool, time.Time (an instant),
// *big.Int, *big.Rat (exact decimals), nil (SQL NULL), arrow.Date32,
// arrow.Date64, and arrow scalars (scalar.Scalar: integers, floats,
// strings, binaries, booleans, dates, timestamps, decimals with their
// scale, nulls). A value that cannot be used is reported by Bind.

// EQ is column = v.
func (c ColumnRef) EQ(v any) *Predicate { return c.cmp(opEQ, v) }

// NE is column != v.
func (c ColumnRef) NE(v any) *Predicate { return c.cmp(opNE, v) }

// LT is column < v.
func (c ColumnRef) LT(v any) *Predicate { return c.cmp(opLT, v) }

// LE is column <= v.
func (c ColumnRef) LE(v any) *Predicate { return c.cmp(opLE, v) }

// GT is column > v.
func (c ColumnRef) GT(v any) *Predicate { return c.cmp(opGT, v) }

// GE is column >= v.
func (c ColumnRef) GE(v any) *Predicate { return c.cmp(opGE, v) }

// Between is lo <= column AND column <= hi.
func (c ColumnRef) Between(lo, hi any) *Predicate { return c.cmp(opBetween, lo, hi) }

// In is column IN (vals...). An empty list matches no row.
func (c ColumnRef) In(vals ...any) *Predicate { return c.cmp(opIn, vals...) }

// IsNull is column IS NULL; it is never unknown. The column may be of any
// type, including a struct, list or map.
func (c ColumnRef) IsNull() *Predicate { return c.cmp(opIsNull) }

// IsNotNull is column IS NOT NULL.
func (c ColumnRef) IsNotNull() *Predicate { return c.cmp(opIsNotNull) }

// StartsWith is true when a string or binary column begins with prefix
// (SQL: column LIKE 'prefix%').
func (c ColumnRef) StartsWith(prefix string) *Predicate { return c.cmp(opStartsWith, prefix) }

// And is the conjunction of ps (Kleene AND); And() is TRUE.
func And(ps ...*Predicate) *Predicate { return &Predicate{op: opAnd, pos: -1, kids: ps} }

// Or is the disjunction of ps (Kleene OR); Or() is FALSE.
func Or(ps ...*Predicate) *Predicate { return &Predicate{op: opOr, pos: -1, kids: ps} }

// Not is the negation of p: TRUE where p is FALSE, unknown where p is.
func Not(p *Predicate) *Predicate { return &Predicate{op: opNot, pos: -1, kids: []*Predicate{p}} }

// Columns returns the distinct column names the predicate refers to, in
// order of first appearance.
func (p *Predicate) Columns() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*Predicate)
	walk = func(q *Predicate) {
		if q == nil {
			return
		}
		if q.op < opAnd && !seen[q.col] {
			seen[q.col] = true
			out = append(out, q.col)
		}
		for _, k := range q.kids {
			walk(k)
		}
	}
	walk(p)
	return out
}

// String renders p in the syntax of [ParseFilter], which reads it back to
// an equal predicate. Go values without a literal syntax ([]byte) render as
// X'hex' blobs.
func (p *Predicate) String() string {
	var b strings.Builder
	p.render(&b, 0)
	return b.String()
}

// render writes p; prec is the binding strength of the context (0 top,
// 1 inside OR, 2 inside AND, 3 inside NOT), so that parentheses appear
// only where the SQL precedence needs them.
func (p *Predicate) render(b *strings.Builder, prec int) {
	if p == nil {
		b.WriteString("<nil>")
		return
	}
	switch p.op {
	case opAnd, opOr:
		my, word, empty := 2, " AND ", "TRUE"
		if p.op == opOr {
			my, word, empty = 1, " OR ", "FALSE"
		}
		if len(p.kids) == 0 {
			b.WriteString(empty)
			return
		}
		if prec > my {
			b.WriteByte('(')
		}
		for i, k := range p.kids {
			if i > 0 {
				b.WriteString(word)
			}
			k.render(b, my+1)
		}
		if prec > my {
			b.WriteByte(')')
		}
		return
	case opNot:
		if prec > 3 {
			b.WriteByte('(')
		}
		b.WriteString("NOT ")
		p.kids[0].render(b, 4)
		if prec > 3 {
			b.WriteByte(')')
		}
		return
	}
	b.WriteString(quoteIdent(p.col))
	switch p.op {
	case opIsNull:
		b.WriteString(" IS NULL")
	case opIsNotNull:
		b.WriteString(" IS NOT NULL")
	case opStartsWith:
		b.WriteString(" LIKE ")
		b.WriteString(quoteString(escapeLikePrefix(p.lits[0].s) + "%"))
	case opBetween:
		b.WriteString(" BETWEEN ")
		b.WriteString(p.lits[0].String())
		b.WriteString(" AND ")
		b.WriteString(p.lits[1].String())
	case opIn:
		b.WriteString(" IN (")
		for i, l := range p.lits {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l.String())
		}
		b.WriteByte(')')
	default:
		b.WriteByte(' ')
		b.WriteString(opText[p.op])
		b.WriteByte(' ')
		b.WriteString(p.lits[0].String())
	}
}

// escapeLikePrefix escapes the LIKE wildcards of a starts-with prefix with
// a backslash, the escape character of our LIKE (see ParseFilter).
func escapeLikePrefix(s string) string {
	if !strings.ContainsAny(s, `%_\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '%' || c == '_' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quoteIdent returns name as is when it is a plain dotted identifier, or in
// double quotes otherwise (each part of a dotted path separately).
func quoteIdent(name string) string {
	parts := strings.Split(name, ".")
	for i, part := range parts {
		if !plainIdent(part) {
			parts[i] = `"` + strings.ReplaceAll(part, `"`, `""`) + `"`
		}
	}
	return strings.Join(parts, ".")
}

func plainIdent(s string) bool {
	if s == "" || keywords[strings.ToUpper(s)] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// litKind is the class of a literal before it meets a column.
type litKind uint8

const (
	litNull litKind = iota
	litBool
	litNumber    // exact: integers and decimals, in num
	litFloat     // float64 in f (NaN, infinities, or a float the caller gave as one)
	litString    // text in s
	litBytes     // binary in s
	litDate      // days since 1970-01-01 in num
	litTimestamp // nanoseconds since 1970-01-01T00:00:00Z in num
)

// literal is one value of a predicate. Exact numbers are big.Rat so that
// comparisons with any integer width, decimal scale or time unit are exact.
type literal struct {
	kind litKind
	b    bool
	num  *big.Rat
	f    float64
	s    string
	// text is how the value was written (filter text) or %v of the Go
	// value, for error messages; pos is its byte offset in the text or -1.
	text string
	pos  int
	err  error // a Go value that cannot be a literal, reported by Bind
}

func (l literal) String() string {
	switch l.kind {
	case litNull:
		return "NULL"
	case litBool:
		if l.b {
			return "TRUE"
		}
		return "FALSE"
	case litNumber:
		return ratText(l.num)
	case litFloat:
		switch {
		case math.IsNaN(l.f):
			return "'NaN'"
		case math.IsInf(l.f, 1):
			return "'Infinity'"
		case math.IsInf(l.f, -1):
			return "'-Infinity'"
		}
		s := strconv.FormatFloat(l.f, 'g', -1, 64)
		if !strings.ContainsAny(s, "eE") {
			s += "e0" // an exponent keeps it a float when read back
		}
		return s
	case litString:
		return quoteString(l.s)
	case litBytes:
		return fmt.Sprintf("X'%x'", l.s)
	case litDate:
		return "DATE '" + time.Unix(l.num.Num().Int64()*86400, 0).UTC().Format("2006-01-02") + "'"
	case litTimestamp:
		ns := l.num.Num()
		sec, rem := new(big.Int).DivMod(ns, big.NewInt(1e9), new(big.Int))
		return "TIMESTAMP '" + time.Unix(sec.Int64(), rem.Int64()).UTC().Format("2006-01-02 15:04:05.999999999") + "'"
	}
	return "?"
}

// ratText renders an exact number as a decimal literal: integers as is,
// terminating fractions with their digits.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	// A literal from the text or a decimal has a denominator 2^a * 5^b,
	// and max(a, b) fraction digits render it exactly.
	d := new(big.Int).Set(r.Denom())
	twos, fives := 0, 0
	for m := new(big.Int); ; twos++ {
		if q, _ := new(big.Int).QuoRem(d, big.NewInt(2), m); m.Sign() == 0 {
			d = q
			continue
		}
		break
	}
	for m := new(big.Int); ; fives++ {
		if q, _ := new(big.Int).QuoRem(d, big.NewInt(5), m); m.Sign() == 0 {
			d = q
			continue
		}
		break
	}
	digits := max(twos, fives)
	if d.Cmp(big.NewInt(1)) != 0 {
		digits = 40 // a fraction from *big.Rat that no decimal writes exactly
	}
	return r.FloatString(digits)
}

// literalOf converts a Go value or an arrow scalar to a literal.
func literalOf(v any) literal {
	l := literal{pos: -1, text: fmt.Sprintf("%v", v)}
	num := func(r *big.Rat) literal { l.kind, l.num = litNumber, r; return l }
	integer := func(i int64) literal { return num(new(big.Rat).SetInt64(i)) }
	switch x := v.(type) {
	case nil:
		l.kind, l.text = litNull, "NULL"
		return l
	case bool:
		l.kind, l.b = litBool, x
		return l
	case int:
		return integer(int64(x))
	case int8:
		return integer(int64(x))
	case int16:
		return integer(int64(x))
	case int32:
		return integer(int64(x))
	case int64:
		return integer(x)
	case uint:
		return num(new(big.Rat).SetInt(new(big.Int).SetUint64(uint64(x))))
	case uint8:
		return integer(int64(x))
	case uint16:
		return integer(int64(x))
	case uint32:
		return integer(int64(x))
	case uint64:
		return num(new(big.Rat).SetInt(new(big.Int).SetUint64(x)))
	case float32:
		l.kind, l.f = litFloat, float64(x)
		return l
	case float64:
		l.kind, l.f = litFloat, x
		return l
	case *big.Int:
		if x == nil {
			break
		}
		return num(new(big.Rat).SetInt(x))
	case *big.Rat:
		if x == nil {
			break
		}
		return num(new(big.Rat).Set(x))
	case string:
		l.kind, l.s = litString, x
		return l
	case []byte:
		l.kind, l.s = litBytes, string(x)
		return l
	case time.Time:
		ns := new(big.Int).Mul(big.NewInt(x.Unix()), big.NewInt(1e9))
		ns.Add(ns, big.NewInt(int64(x.Nanosecond())))
		l.kind, l.num = litTimestamp, new(big.Rat).SetInt(ns)
		return l
	case arrow.Date32:
		l.kind, l.num = litDate, new(big.Rat).SetInt64(int64(x))
		return l
	case arrow.Date64:
		// Milliseconds since the epoch; a whole day is a date.
		if x%86400000 == 0 {
			l.kind, l.num = litDate, new(big.Rat).SetInt64(int64(x)/86400000)
		} else {
			l.kind, l.num = litTimestamp, new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(int64(x)), big.NewInt(1e6)))
		}
		return l
	case scalar.Scalar:
		return literalOfScalar(x)
	}
	l.err = fmt.Errorf("value %v of Go type %T cannot be used in a filter", v, v)
	return l
}

// literalOfScalar converts an arrow scalar: its type carries what a bare
// Go value lacks (a decimal's scale, a timestamp's unit).
func literalOfScalar(s scalar.Scalar) literal {
	if !s.IsValid() {
		return literal{kind: litNull, pos: -1, text: "NULL"}
	}
	switch x := s.(type) {
	case *scalar.Boolean:
		return literalOf(x.Value)
	case *scalar.Int8:
		return literalOf(x.Value)
	case *scalar.Int16:
		return literalOf(x.Value)
	case *scalar.Int32:
		return literalOf(x.Value)
	case *scalar.Int64:
		return literalOf(x.Value)
	case *scalar.Uint8:
		return literalOf(x.Value)
	case *scalar.Uint16:
		return literalOf(x.Value)
	case *scalar.Uint32:
		return literalOf(x.Value)
	case *scalar.Uint64:
		return literalOf(x.Value)
	case *scalar.Float32:
		return literalOf(x.Value)
	case *scalar.Float64:
		return literalOf(x.Value)
	case *scalar.String:
		return literalOf(x.String())
	case *scalar.Binary:
		return literalOf(x.Data())
	case *scalar.Date32:
		return literalOf(x.Value)
	case *scalar.Date64:
		return literalOf(x.Value)
	case *scalar.Timestamp:
		unit := x.Type.(*arrow.TimestampType).Unit
		ns := new(big.Int).Mul(big.NewInt(int64(x.Value)), big.NewInt(int64(unit.Multiplier())))
		return literal{kind: litTimestamp, num: new(big.Rat).SetInt(ns), pos: -1, text: x.String()}
	case *scalar.Decimal128:
		scale := x.Type.(*arrow.Decimal128Type).Scale
		return decimalLiteral(decimal128.Num(x.Value).BigInt(), scale, x.String())
	case *scalar.Decimal256:
		scale := x.Type.(*arrow.Decimal256Type).Scale
		return decimalLiteral(decimal256.Num(x.Value).BigInt(), scale, x.String())
	}
	return literal{pos: -1, text: s.String(), err: fmt.Errorf("arrow scalar of type %s cannot be used in a filter", s.DataType())}
}

func decimalLiteral(unscaled *big.Int, scale int32, text string) literal {
	r := new(big.Rat).SetInt(unscaled)
	if scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	} else if scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)))
	}
	return literal{kind: litNumber, num: r, pos: -1, text: text}
}
