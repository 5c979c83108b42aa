package arrowpq

import (
	"fmt"
	"slices"
	"strings"
)

// RowRange is the rows [Start, End) of a file (ReadOptions.Rows) or of a
// row group (pruning).
type RowRange struct{ Start, End int64 }

// RowRanges is a set of rows as sorted, disjoint, non-adjacent, non-empty
// ranges; [NewRowRanges] normalizes any list into that form. As
// ReadOptions.Rows, nil means every row and an empty non-nil value none.
type RowRanges []RowRange

// NewRowRanges returns the union of rs in normal form; empty and inverted
// ranges are dropped.
func NewRowRanges(rs ...RowRange) RowRanges {
	out := make(RowRanges, 0, len(rs))
	for _, r := range rs {
		if r.End > r.Start {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b RowRange) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	w := 0
	for _, r := range out {
		if w > 0 && r.Start <= out[w-1].End {
			out[w-1].End = max(out[w-1].End, r.End)
			continue
		}
		out[w] = r
		w++
	}
	return out[:w]
}

// Len returns the number of rows in r.
func (r RowRanges) Len() int64 {
	var n int64
	for _, x := range r {
		n += x.End - x.Start
	}
	return n
}

// Contains reports whether row is in r.
func (r RowRanges) Contains(row int64) bool {
	i, _ := slices.BinarySearchFunc(r, row, func(x RowRange, row int64) int {
		switch {
		case x.End <= row:
			return -1
		case x.Start > row:
			return 1
		}
		return 0
	})
	return i < len(r) && r[i].Start <= row && row < r[i].End
}

// Union returns the rows in r or o.
func (r RowRanges) Union(o RowRanges) RowRanges {
	return NewRowRanges(append(slices.Clone(r), o...)...)
}

// Intersect returns the rows in both r and o (both in normal form).
func (r RowRanges) Intersect(o RowRanges) RowRanges {
	out := RowRanges{}
	for i, j := 0, 0; i < len(r) && j < len(o); {
		lo, hi := max(r[i].Start, o[j].Start), min(r[i].End, o[j].End)
		if lo < hi {
			out = append(out, RowRange{lo, hi})
		}
		if r[i].End < o[j].End {
			i++
		} else {
			j++
		}
	}
	return out
}

// Complement returns the rows of [0, n) not in r (in normal form).
func (r RowRanges) Complement(n int64) RowRanges {
	out := RowRanges{}
	at := int64(0)
	for _, x := range r {
		if x.Start >= n {
			break
		}
		if x.Start > at {
			out = append(out, RowRange{at, x.Start})
		}
		at = max(at, x.End)
	}
	if at < n {
		out = append(out, RowRange{at, n})
	}
	return out
}

// Shift returns r with every row moved by delta (a row group's ranges to
// file rows and back).
func (r RowRanges) Shift(delta int64) RowRanges {
	out := make(RowRanges, len(r))
	for i, x := range r {
		out[i] = RowRange{x.Start + delta, x.End + delta}
	}
	return out
}

// String renders r as "[0,10) [20,25)".
func (r RowRanges) String() string {
	parts := make([]string, len(r))
	for i, x := range r {
		parts[i] = fmt.Sprintf("[%d,%d)", x.Start, x.End)
	}
	return strings.Join(parts, " ")
}
