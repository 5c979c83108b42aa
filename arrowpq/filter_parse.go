package arrowpq

// The text syntax of filters, a small subset of SQL's WHERE clause:
//
//	filter     = or
//	or         = and { OR and }
//	and        = not { AND not }
//	not        = NOT not | primary
//	primary    = "(" or ")" | TRUE | FALSE | column test
//	test       = cmp value
//	           | [NOT] BETWEEN value AND value
//	           | [NOT] IN "(" [ value { "," value } ] ")"
//	           | IS [NOT] NULL
//	           | [NOT] LIKE string          (only 'prefix%'; \ escapes % _ \)
//	cmp        = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	column     = ident { "." ident }        (ident: [A-Za-z_][A-Za-z0-9_]* or "quoted" with "" for ")
//	value      = [ "-" | "+" ] number | string | X string | DATE string | TIMESTAMP string
//	           | TRUE | FALSE | NULL
//	number     = digits [ "." digits ] [ ( "e" | "E" ) [ "+" | "-" ] digits ]
//	string     = "'" { char | "''" } "'"
//
// Keywords are case-insensitive. A number with an exponent is a float
// (DOUBLE); one without is exact (an integer or a decimal). A string
// compared with a float column may be 'NaN', 'Infinity' or '-Infinity';
// with a date or timestamp column it is read as DATE or TIMESTAMP.

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// FilterSyntaxError is the error of [ParseFilter] and of binding a parsed
// filter: it points at the offending token of Text.
type FilterSyntaxError struct {
	Text   string
	Offset int // byte offset of the token in Text
	Msg    string
}

// Error renders the message with the 1-based character column of the token
// and the text with a caret under it, on three lines.
func (e *FilterSyntaxError) Error() string {
	off := min(max(e.Offset, 0), len(e.Text))
	col := utf8.RuneCountInString(e.Text[:off])
	line := strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(e.Text)
	return fmt.Sprintf("arrowpq: filter: column %d: %s\n\t%s\n\t%s^", col+1, e.Msg, line, strings.Repeat(" ", col))
}

var keywords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true, "IS": true,
	"NULL": true, "LIKE": true, "TRUE": true, "FALSE": true, "DATE": true, "TIMESTAMP": true}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokKeyword
	tokNumber
	tokString
	tokOp // = != <> < <= > >= ( ) , . - +
)

type token struct {
	kind tokKind
	text string // keyword upper-cased; identifier and string unquoted
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "the end of the filter"
	case tokString:
		return "string " + quoteString(t.text)
	case tokIdent:
		return "identifier " + quoteIdent(t.text)
	}
	return "'" + t.text + "'"
}

type filterParser struct {
	text string
	toks []token
	i    int
}

// ParseFilter parses a filter written in the SQL-like syntax described in
// docs/filters.md, for example
//
//	l_orderkey BETWEEN 100 AND 200 AND l_shipmode IN ('AIR', 'MAIL')
//
// Errors are *FilterSyntaxError and point at the offending token. Column
// names and types are checked later, by Bind, when the reader opens.
func ParseFilter(text string) (*Predicate, error) {
	toks, err := lexFilter(text)
	if err != nil {
		return nil, err
	}
	p := &filterParser{text: text, toks: toks}
	pred, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errAt(t, "unexpected %s after a complete filter", t.describe())
	}
	return pred, nil
}

func (p *filterParser) errAt(t token, format string, args ...any) error {
	return &FilterSyntaxError{Text: p.text, Offset: t.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *filterParser) peek() token { return p.toks[p.i] }

func (p *filterParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *filterParser) isKeyword(word string) bool {
	t := p.peek()
	return t.kind == tokKeyword && t.text == word
}

func (p *filterParser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.text == op
}

// maxFilterDepth bounds the nesting of parentheses and NOTs, so that a
// hostile filter cannot exhaust the stack.
const maxFilterDepth = 200

func (p *filterParser) or(depth int) (*Predicate, error) {
	if depth > maxFilterDepth {
		return nil, p.errAt(p.peek(), "filter nested deeper than %d levels", maxFilterDepth)
	}
	first, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	kids := []*Predicate{first}
	for p.isKeyword("OR") {
		p.next()
		k, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	if len(kids) == 1 {
		return first, nil
	}
	return &Predicate{op: opOr, pos: -1, kids: kids}, nil
}

func (p *filterParser) and(depth int) (*Predicate, error) {
	first, err := p.not(depth)
	if err != nil {
		return nil, err
	}
	kids := []*Predicate{first}
	for p.isKeyword("AND") {
		p.next()
		k, err := p.not(depth)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	if len(kids) == 1 {
		return first, nil
	}
	return &Predicate{op: opAnd, pos: -1, kids: kids}, nil
}

func (p *filterParser) not(depth int) (*Predicate, error) {
	if p.isKeyword("NOT") {
		t := p.next()
		if depth > maxFilterDepth {
			return nil, p.errAt(t, "filter nested deeper than %d levels", maxFilterDepth)
		}
		k, err := p.not(depth + 1)
		if err != nil {
			return nil, err
		}
		return Not(k), nil
	}
	return p.primary(depth)
}

func (p *filterParser) primary(depth int) (*Predicate, error) {
	t := p.peek()
	switch {
	case t.kind == tokOp && t.text == "(":
		p.next()
		inner, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if !p.isOp(")") {
			return nil, p.errAt(p.peek(), "expected ')' to close the '(' at column %d, found %s",
				utf8.RuneCountInString(p.text[:t.pos])+1, p.peek().describe())
		}
		p.next()
		return inner, nil
	case t.kind == tokKeyword && (t.text == "TRUE" || t.text == "FALSE"):
		p.next()
		if t.text == "TRUE" {
			return And(), nil
		}
		return Or(), nil
	}
	col, pos, err := p.column()
	if err != nil {
		return nil, err
	}
	return p.test(col, pos)
}

// column reads a possibly dotted column name.
func (p *filterParser) column() (string, int, error) {
	t := p.peek()
	// DATE and TIMESTAMP are keywords only before a string; as the
	// first word of a test they can only be a column.
	if t.kind != tokIdent && !(t.kind == tokKeyword && (t.text == "DATE" || t.text == "TIMESTAMP")) {
		return "", 0, p.errAt(t, "expected a column name, found %s", t.describe())
	}
	p.next()
	name := t.text
	if t.kind == tokKeyword {
		name = strings.ToLower(t.text)
	}
	for p.isOp(".") {
		p.next()
		part := p.next()
		if part.kind != tokIdent {
			return "", 0, p.errAt(part, "expected a field name after '.', found %s", part.describe())
		}
		name += "." + part.text
	}
	return name, t.pos, nil
}

func (p *filterParser) test(col string, pos int) (*Predicate, error) {
	mk := func(op filterOp, lits ...literal) *Predicate {
		return &Predicate{op: op, col: col, pos: pos, lits: lits, text: p.text}
	}
	t := p.next()
	if t.kind == tokOp {
		var op filterOp
		switch t.text {
		case "=":
			op = opEQ
		case "!=", "<>":
			op = opNE
		case "<":
			op = opLT
		case "<=":
			op = opLE
		case ">":
			op = opGT
		case ">=":
			op = opGE
		default:
			return nil, p.errAt(t, "expected a comparison after column %s, found %s", quoteIdent(col), t.describe())
		}
		v, err := p.value(t)
		if err != nil {
			return nil, err
		}
		return mk(op, v), nil
	}
	if t.kind != tokKeyword {
		return nil, p.errAt(t, "expected a comparison, BETWEEN, IN, IS or LIKE after column %s, found %s", quoteIdent(col), t.describe())
	}
	negate := false
	if t.text == "NOT" {
		negate = true
		t = p.next()
		if t.kind != tokKeyword || (t.text != "BETWEEN" && t.text != "IN" && t.text != "LIKE") {
			return nil, p.errAt(t, "expected BETWEEN, IN or LIKE after NOT, found %s", t.describe())
		}
	}
	var pred *Predicate
	switch t.text {
	case "IS":
		op := opIsNull
		if p.isKeyword("NOT") {
			p.next()
			op = opIsNotNull
		}
		if !p.isKeyword("NULL") {
			return nil, p.errAt(p.peek(), "expected NULL after IS, found %s", p.peek().describe())
		}
		p.next()
		return mk(op), nil
	case "BETWEEN":
		lo, err := p.value(t)
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("AND") {
			return nil, p.errAt(p.peek(), "expected AND in BETWEEN … AND …, found %s", p.peek().describe())
		}
		and := p.next()
		hi, err := p.value(and)
		if err != nil {
			return nil, err
		}
		pred = mk(opBetween, lo, hi)
	case "IN":
		if !p.isOp("(") {
			return nil, p.errAt(p.peek(), "expected '(' after IN, found %s", p.peek().describe())
		}
		open := p.next()
		var lits []literal
		if !p.isOp(")") {
			for prev := open; ; {
				v, err := p.value(prev)
				if err != nil {
					return nil, err
				}
				lits = append(lits, v)
				if !p.isOp(",") {
					break
				}
				prev = p.next()
			}
		}
		if !p.isOp(")") {
			return nil, p.errAt(p.peek(), "expected ',' or ')' in the IN list, found %s", p.peek().describe())
		}
		p.next()
		pred = mk(opIn, lits...)
	case "LIKE":
		pat := p.next()
		if pat.kind != tokString {
			return nil, p.errAt(pat, "expected a 'prefix%%' string after LIKE, found %s", pat.describe())
		}
		prefix, ok := likePrefix(pat.text)
		if !ok {
			return nil, p.errAt(pat, "only LIKE 'prefix%%' (starts with) is supported, not %s", quoteString(pat.text))
		}
		pred = mk(opStartsWith, literal{kind: litString, s: prefix, pos: pat.pos, text: quoteString(pat.text)})
	default:
		return nil, p.errAt(t, "expected a comparison, BETWEEN, IN, IS or LIKE after column %s, found %s", quoteIdent(col), t.describe())
	}
	if negate {
		return Not(pred), nil
	}
	return pred, nil
}

// likePrefix returns the prefix of a 'prefix%' pattern: one trailing
// unescaped %, no other wildcard; a backslash escapes % _ and itself.
func likePrefix(pat string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '\\':
			if i+1 == len(pat) {
				return "", false
			}
			i++
			b.WriteByte(pat[i])
		case '%':
			return b.String(), i == len(pat)-1
		case '_':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return "", false // no % at all: an equality, which = says better
}

// value reads a literal; after is the token before it, for the message
// when the value is missing.
func (p *filterParser) value(after token) (literal, error) {
	t := p.next()
	switch t.kind {
	case tokNumber:
		l, err := numberLiteral(t, false)
		if err != nil {
			return literal{}, p.errAt(t, "%v", err)
		}
		return l, nil
	case tokString:
		return literal{kind: litString, s: t.text, pos: t.pos, text: quoteString(t.text)}, nil
	case tokOp:
		if t.text == "-" || t.text == "+" {
			n := p.next()
			if n.kind != tokNumber {
				return literal{}, p.errAt(n, "expected a number after '%s', found %s", t.text, n.describe())
			}
			l, err := numberLiteral(n, t.text == "-")
			if err != nil {
				return literal{}, p.errAt(n, "%v", err)
			}
			l.pos = t.pos
			return l, nil
		}
	case tokIdent:
		if (t.text == "X" || t.text == "x") && p.peek().kind == tokString && p.peek().pos == t.pos+1 {
			s := p.next()
			var b []byte
			if _, err := fmt.Sscanf(s.text, "%x", &b); (err != nil || len(b)*2 != len(s.text)) && s.text != "" {
				return literal{}, p.errAt(s, "%s is not a hex blob", quoteString(s.text))
			}
			return literal{kind: litBytes, s: string(b), pos: t.pos, text: "X" + quoteString(s.text)}, nil
		}
	case tokKeyword:
		switch t.text {
		case "NULL":
			return literal{kind: litNull, pos: t.pos, text: "NULL"}, nil
		case "TRUE", "FALSE":
			return literal{kind: litBool, b: t.text == "TRUE", pos: t.pos, text: t.text}, nil
		case "DATE", "TIMESTAMP":
			s := p.next()
			if s.kind != tokString {
				return literal{}, p.errAt(s, "expected a string after %s, found %s", t.text, s.describe())
			}
			var l literal
			var err error
			if t.text == "DATE" {
				l, err = parseDate(s.text)
			} else {
				l, err = parseTimestamp(s.text)
			}
			if err != nil {
				return literal{}, p.errAt(s, "%v", err)
			}
			l.pos, l.text = t.pos, t.text+" "+quoteString(s.text)
			return l, nil
		}
	}
	return literal{}, p.errAt(t, "expected a value after %s, found %s", after.describe(), t.describe())
}

func numberLiteral(t token, neg bool) (literal, error) {
	text := t.text
	if neg {
		text = "-" + text
	}
	if strings.ContainsAny(text, "eE") {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return literal{}, fmt.Errorf("number %s is out of range", text)
		}
		return literal{kind: litFloat, f: f, pos: t.pos, text: text}, nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || len(text) > 400 {
		return literal{}, fmt.Errorf("number %s is too long", text)
	}
	return literal{kind: litNumber, num: r, pos: t.pos, text: text}, nil
}

// parseDate reads 'yyyy-mm-dd' into days since 1970-01-01.
func parseDate(s string) (literal, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return literal{}, fmt.Errorf("%s is not a date (yyyy-mm-dd)", quoteString(s))
	}
	return literal{kind: litDate, num: new(big.Rat).SetInt64(floorDiv(d.Unix(), 86400))}, nil
}

var timestampLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z0700", "2006-01-02 15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04", "2006-01-02",
}

// parseTimestamp reads 'yyyy-mm-dd[ hh:mm[:ss[.fraction]]][zone]' into
// nanoseconds since the epoch. Without a zone the time is UTC.
func parseTimestamp(s string) (literal, error) {
	s = strings.TrimSpace(s)
	for _, layout := range timestampLayouts {
		if ts, err := time.Parse(layout, s); err == nil {
			return literalOf(ts), nil
		}
	}
	return literal{}, fmt.Errorf("%s is not a timestamp (yyyy-mm-dd hh:mm:ss[.fraction][±hh:mm])", quoteString(s))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// lexFilter splits text into tokens; the last is tokEOF.
func lexFilter(text string) ([]token, error) {
	var toks []token
	fail := func(pos int, format string, args ...any) error {
		return &FilterSyntaxError{Text: text, Offset: pos, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
			// Bytes of multi-byte UTF-8 characters are identifier bytes
			// ("größe" is a column name).
			j := i + 1
			for j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z' || text[j] >= '0' && text[j] <= '9' || text[j] >= utf8.RuneSelf) {
				j++
			}
			word := text[i:j]
			if up := strings.ToUpper(word); keywords[up] {
				toks = append(toks, token{tokKeyword, up, i})
			} else {
				toks = append(toks, token{tokIdent, word, i})
			}
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9':
			j := i
			digits := func() {
				for j < len(text) && text[j] >= '0' && text[j] <= '9' {
					j++
				}
			}
			digits()
			if j < len(text) && text[j] == '.' {
				j++
				digits()
			}
			if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
				k := j + 1
				if k < len(text) && (text[k] == '+' || text[k] == '-') {
					k++
				}
				if k < len(text) && text[k] >= '0' && text[k] <= '9' {
					j = k
					digits()
				}
			}
			if j < len(text) && (text[j] == '_' || text[j] >= 'a' && text[j] <= 'z' || text[j] >= 'A' && text[j] <= 'Z') {
				return nil, fail(i, "malformed number %q", text[i:j+1])
			}
			toks = append(toks, token{tokNumber, text[i:j], i})
			i = j
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for {
				if j >= len(text) {
					what := "string"
					if c == '"' {
						what = "quoted identifier"
					}
					return nil, fail(i, "unterminated %s", what)
				}
				if text[j] == c {
					if j+1 < len(text) && text[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					break
				}
				b.WriteByte(text[j])
				j++
			}
			kind := tokString
			if c == '"' {
				kind = tokIdent
				if b.Len() == 0 {
					return nil, fail(i, "empty quoted identifier")
				}
			}
			toks = append(toks, token{kind, b.String(), i})
			i = j + 1
		default:
			op := ""
			for _, o := range []string{"<=", ">=", "<>", "!=", "=", "<", ">", "(", ")", ",", ".", "-", "+"} {
				if strings.HasPrefix(text[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(text[i:])
				return nil, fail(i, "unexpected character %q", r)
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{kind: tokEOF, pos: len(text)}), nil
}
