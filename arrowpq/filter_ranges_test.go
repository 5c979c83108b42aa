package arrowpq_test

import (
	"math/rand/v2"
	"testing"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func TestRowRanges(t *testing.T) {
	r := arrowpq.NewRowRanges(arrowpq.RowRange{Start: 10, End: 20}, arrowpq.RowRange{Start: 0, End: 5},
		arrowpq.RowRange{Start: 5, End: 7}, arrowpq.RowRange{Start: 15, End: 25}, arrowpq.RowRange{Start: 30, End: 30})
	if got := r.String(); got != "[0,7) [10,25)" {
		t.Fatalf("NewRowRanges = %s", got)
	}
	o := arrowpq.NewRowRanges(arrowpq.RowRange{Start: 3, End: 12}, arrowpq.RowRange{Start: 24, End: 40})
	for _, tc := range []struct{ name, got, want string }{
		{"intersect", r.Intersect(o).String(), "[3,7) [10,12) [24,25)"},
		{"union", r.Union(o).String(), "[0,40)"},
		{"complement", r.Complement(30).String(), "[7,10) [25,30)"},
		{"complement past the end", r.Complement(5).String(), ""},
		{"complement of none", arrowpq.RowRanges{}.Complement(3).String(), "[0,3)"},
		{"shift", r.Shift(100).String(), "[100,107) [110,125)"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	if r.Len() != 22 || !r.Contains(6) || r.Contains(7) || !r.Contains(24) || r.Contains(25) || r.Contains(-1) {
		t.Fatalf("Len/Contains wrong for %s", r)
	}
}

// TestRowRangesRandom checks the set operations against bitsets, and
// Selection.Ranges against the selection's bits.
func TestRowRangesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	const n = 200
	random := func() (arrowpq.RowRanges, []bool) {
		var rs []arrowpq.RowRange
		bits := make([]bool, n)
		for range rng.IntN(6) {
			s := rng.Int64N(n)
			e := s + rng.Int64N(n-s+1)
			rs = append(rs, arrowpq.RowRange{Start: s, End: e})
			for i := s; i < e; i++ {
				bits[i] = true
			}
		}
		return arrowpq.NewRowRanges(rs...), bits
	}
	check := func(what string, r arrowpq.RowRanges, want []bool) {
		t.Helper()
		for i := range want {
			if r.Contains(int64(i)) != want[i] {
				t.Fatalf("%s %s: row %d", what, r, i)
			}
		}
		for i := 1; i < len(r); i++ {
			if r[i].Start <= r[i-1].End || r[i].Start >= r[i].End {
				t.Fatalf("%s %s is not in normal form", what, r)
			}
		}
	}
	for range 500 {
		a, abits := random()
		b, bbits := random()
		and, or, not := make([]bool, n), make([]bool, n), make([]bool, n)
		for i := range n {
			and[i], or[i], not[i] = abits[i] && bbits[i], abits[i] || bbits[i], !abits[i]
		}
		check("a", a, abits)
		check("intersect", a.Intersect(b), and)
		check("union", a.Union(b), or)
		check("complement", a.Complement(n), not)
		sel := arrowpq.NewSelection(abits)
		check("selection", sel.Ranges(), abits)
	}
}
