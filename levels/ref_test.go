package levels

// A plain reference implementation of record shredding and assembly over Go
// values, written for obviousness, not speed. A value of node i is:
//   - Required: the value of node i+1;
//   - Optional: nil (null) or *some holding the value of node i+1;
//   - Repeated: []any of values of node i+1 (possibly empty);
//   - past the leaf: an int64 payload, numbered in document order.

import (
	"math/rand/v2"
)

type some struct{ v any }

type refLevels struct {
	def, rep []int16
	values   []int64 // payloads of the non-null leaf values
}

// genValue makes a random value of node i; fixed[i] > 0 forces list sizes.
func genValue(rng *rand.Rand, reps []Repetition, fixed []int, i int, id *int64, pNull float64, maxLen int) any {
	if i == len(reps) {
		*id++
		return *id - 1
	}
	switch reps[i] {
	case Optional:
		if rng.Float64() < pNull {
			return nil
		}
		return &some{genValue(rng, reps, fixed, i+1, id, pNull, maxLen)}
	case Repeated:
		n := rng.IntN(maxLen + 1)
		if fixed != nil && fixed[i] >= 0 {
			n = fixed[i]
		}
		l := make([]any, n)
		for j := range l {
			l[j] = genValue(rng, reps, fixed, i+1, id, pNull, maxLen)
		}
		return l
	}
	return genValue(rng, reps, fixed, i+1, id, pNull, maxLen)
}

// refShred is Dremel's shredding of one path: the definition level counts
// the optional and repeated nodes that are present (non-null, non-empty);
// the repetition level of a list's first element is the one its parent got,
// later elements get the list's own repetition depth.
func refShred(p *Path, v any, i int, def, rep int16, out *refLevels) {
	if i == len(p.Nodes) {
		out.def = append(out.def, def)
		out.rep = append(out.rep, rep)
		out.values = append(out.values, v.(int64))
		return
	}
	n := p.Nodes[i]
	switch n.Repetition {
	case Required:
		refShred(p, v, i+1, def, rep, out)
	case Optional:
		if v == nil {
			out.def = append(out.def, def)
			out.rep = append(out.rep, rep)
			return
		}
		refShred(p, v.(*some).v, i+1, def+1, rep, out)
	case Repeated:
		l := v.([]any)
		if len(l) == 0 {
			out.def = append(out.def, def)
			out.rep = append(out.rep, rep)
			return
		}
		for j, e := range l {
			r := rep
			if j > 0 {
				r = n.RepLevel
			}
			refShred(p, e, i+1, def+1, r, out)
		}
	}
}

func refShredAll(p *Path, records []any) refLevels {
	var out refLevels
	for _, r := range records {
		refShred(p, r, 0, 0, 0, &out)
	}
	return out
}

// refAssemble rebuilds records from levels (assumed valid), numbering leaf
// payloads from firstID in order.
func refAssemble(p *Path, def, rep []int16, firstID int64) []any {
	var records []any
	id := firstID
	for k := range def {
		if rep[k] == 0 {
			records = append(records, nil)
		}
		insert(p, &records[len(records)-1], 0, def[k], rep[k], &id)
	}
	return records
}

// insert places one level into the tree whose slot for node i is *slot.
// Nodes at depth >= r get fresh slots; shallower ones continue existing ones.
func insert(p *Path, slot *any, i int, d, r int16, id *int64) {
	if i == len(p.Nodes) {
		*slot = *id
		*id++
		return
	}
	n := p.Nodes[i]
	switch n.Repetition {
	case Required:
		insert(p, slot, i+1, d, r, id)
	case Optional:
		if int(r) <= n.Depth { // a fresh slot
			if d < n.DefLevel {
				*slot = nil
				return
			}
			*slot = &some{}
		}
		insert(p, &(*slot).(*some).v, i+1, d, r, id)
	case Repeated:
		if int(r) <= n.Depth { // a fresh list
			if d < n.DefLevel {
				*slot = []any{}
				return
			}
			l := []any{nil}
			*slot = l
			insert(p, &l[0], i+1, d, r, id)
			return
		}
		l := (*slot).([]any)
		if r == n.RepLevel { // a new element
			l = append(l, nil)
			*slot = l
		}
		insert(p, &l[len(l)-1], i+1, d, r, id)
	}
}

// refLayoutT is Arrow layout computed from records by walking them.
type refLayoutT struct {
	valid       [][]bool  // per optional node
	offsets     [][]int64 // per repeated node, starting with 0
	leafPresent []bool
	leafPayload []int64 // -1 where absent
}

// refLayout walks records; with junk != nil, null lists get junk children
// (as Arrow allows; fixed[i] >= 0 forces exactly fixed[i]).
func refLayout(p *Path, records []any, junk *rand.Rand, fixed []int) *refLayoutT {
	l := &refLayoutT{valid: make([][]bool, len(p.Nodes)), offsets: make([][]int64, len(p.Nodes))}
	for i, n := range p.Nodes {
		if n.Repetition == Repeated {
			l.offsets[i] = []int64{0}
		}
	}
	for _, r := range records {
		l.walk(p, r, 0, true, junk, fixed)
	}
	return l
}

func (l *refLayoutT) walk(p *Path, v any, i int, present bool, junk *rand.Rand, fixed []int) {
	if i == len(p.Nodes) {
		l.leafPresent = append(l.leafPresent, present)
		if present {
			l.leafPayload = append(l.leafPayload, v.(int64))
		} else {
			l.leafPayload = append(l.leafPayload, -1)
		}
		return
	}
	switch p.Nodes[i].Repetition {
	case Required:
		l.walk(p, v, i+1, present, junk, fixed)
	case Optional:
		ok := present && v != nil
		l.valid[i] = append(l.valid[i], ok)
		var child any
		if ok {
			child = v.(*some).v
		}
		l.walk(p, child, i+1, ok, junk, fixed)
	case Repeated:
		var list []any
		if present {
			list = v.([]any)
		}
		nJunk := 0
		if !present {
			if fixed != nil && fixed[i] >= 0 {
				nJunk = fixed[i]
			} else if junk != nil {
				nJunk = junk.IntN(3)
			}
		}
		o := l.offsets[i]
		l.offsets[i] = append(o, o[len(o)-1]+int64(len(list)+nJunk))
		for _, e := range list {
			l.walk(p, e, i+1, true, junk, fixed)
		}
		for range nJunk {
			l.walk(p, nil, i+1, false, junk, fixed)
		}
	}
}
