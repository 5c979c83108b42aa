package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
)

// boxWriter renders record batches as a box table in the style of
// DuckDB's CLI: a header with the column names and their Arrow types, one
// line per row, and a footer that counts rows and columns.
//
// When width is set (a terminal, or --max-width), the table fits it: long
// cells are cut with "…", and when the columns still do not fit, the first
// and last columns are shown with a "…" column between them. With width 0
// (output to a file or pipe, or --wide) nothing is cut or left out.
//
// Nulls print as NULL and strings as they are, so a string "NULL" and a
// null look alike here; --format jsonl tells them apart. Control
// characters in cells print escaped (\n, \t, \x01) to keep one row a line.
//
// The writer keeps at most maxRows rows: a table is for looking at, and
// full tells the caller to stop reading once it has them.
type boxWriter struct {
	w         io.Writer
	width     int   // 0: no limit
	maxRows   int   // rows kept at most
	totalRows int64 // rows in the source, -1 when unknown
	names     []string
	types     []string
	right     []bool // numbers are right-aligned
	rows      [][]string
}

// defaultTableRows is how many rows cat shows in table format; beyond it,
// --format jsonl or csv is the way to see everything.
const defaultTableRows = 10000

// maxCell bounds a cell's width when fitting a terminal, so that one long
// value does not push every other column out of view.
const maxCell = 40

// comfortWidth is the width a column keeps before columns are left out:
// enough for a timestamp to the second or a 20-character name.
const comfortWidth = 20

func newBoxWriter(w io.Writer, width, maxRows int, totalRows int64) *boxWriter {
	return &boxWriter{w: w, width: width, maxRows: maxRows, totalRows: totalRows}
}

// setSchema fixes the header; write calls it with the first batch, and
// the caller calls it when there are no batches at all.
func (bw *boxWriter) setSchema(sc *arrow.Schema) {
	if bw.names != nil {
		return
	}
	bw.names = make([]string, 0, sc.NumFields())
	for _, f := range sc.Fields() {
		bw.names = append(bw.names, escapeControl(f.Name))
		bw.types = append(bw.types, shortType(f.Type))
		bw.right = append(bw.right, isNumeric(f.Type))
	}
}

func (bw *boxWriter) full() bool { return len(bw.rows) >= bw.maxRows }

func (bw *boxWriter) write(rec arrow.RecordBatch) error {
	bw.setSchema(rec.Schema())
	for row := 0; row < int(rec.NumRows()) && !bw.full(); row++ {
		cells := make([]string, rec.NumCols())
		for c, col := range rec.Columns() {
			if col.IsNull(row) {
				cells[c] = "NULL"
				continue
			}
			// cellText may return a string that points into the batch's
			// buffers; the table outlives the batch, so it gets a copy
			// (escapeControl copies; strings.Clone when nothing changed).
			cells[c] = strings.Clone(escapeControl(cellText(col, row)))
		}
		bw.rows = append(bw.rows, cells)
	}
	return nil
}

func (bw *boxWriter) flush() error {
	if bw.names == nil {
		return nil
	}
	var b strings.Builder
	bw.render(&b)
	_, err := io.WriteString(bw.w, b.String())
	return err
}

// render writes the table to b.
func (bw *boxWriter) render(b *strings.Builder) {
	n := len(bw.names)
	nat := make([]int, n) // natural width
	hdr := make([]int, n) // header width
	for i := range bw.names {
		hdr[i] = textWidth(bw.names[i])
		nat[i] = max(hdr[i], textWidth(bw.types[i]), 1)
	}
	for _, r := range bw.rows {
		for i, c := range r {
			nat[i] = max(nat[i], textWidth(c))
		}
	}
	shown, widths := layout(nat, hdr, bw.width)

	// The columns as drawn: the shown ones, with a "…" column where the
	// others would be.
	type col struct {
		idx   int // -1: the "…" column
		width int
	}
	var cols []col
	for k, i := range shown {
		if k > 0 && i != shown[k-1]+1 {
			cols = append(cols, col{-1, 1})
		}
		cols = append(cols, col{i, widths[k]})
	}
	if len(shown) > 0 && shown[len(shown)-1] != n-1 {
		cols = append(cols, col{-1, 1})
	}
	rule := func(left, mid, right string) {
		b.WriteString(left)
		for k, c := range cols {
			if k > 0 {
				b.WriteString(mid)
			}
			b.WriteString(strings.Repeat("─", c.width+2))
		}
		b.WriteString(right)
		b.WriteByte('\n')
	}
	line := func(cell func(c col) (text string, right, center bool)) {
		for _, c := range cols {
			b.WriteString("│ ")
			text, right, center := cell(c)
			pad := c.width - textWidth(text)
			switch {
			case center:
				b.WriteString(strings.Repeat(" ", pad/2))
				b.WriteString(text)
				b.WriteString(strings.Repeat(" ", pad-pad/2))
			case right:
				b.WriteString(strings.Repeat(" ", pad))
				b.WriteString(text)
			default:
				b.WriteString(text)
				b.WriteString(strings.Repeat(" ", pad))
			}
			b.WriteByte(' ')
		}
		b.WriteString("│\n")
	}
	if len(cols) > 0 {
		rule("┌", "┬", "┐")
		line(func(c col) (string, bool, bool) {
			if c.idx < 0 {
				return ellipsis, false, false
			}
			return cutMiddle(bw.names[c.idx], c.width), false, true
		})
		line(func(c col) (string, bool, bool) {
			if c.idx < 0 {
				return "", false, false
			}
			return cutEnd(bw.types[c.idx], c.width), false, true
		})
		rule("├", "┼", "┤")
		for _, r := range bw.rows {
			line(func(c col) (string, bool, bool) {
				if c.idx < 0 {
					return ellipsis, false, false
				}
				return cutEnd(r[c.idx], c.width), bw.right[c.idx], false
			})
		}
		rule("└", "┴", "┘")
	}
	foot := bw.footer(len(shown))
	if bw.width > 0 && textWidth(foot) > bw.width {
		// A narrow terminal gets the counts on two lines.
		foot = strings.Replace(foot, " × ", "\n× ", 1)
	}
	b.WriteString(foot)
	b.WriteByte('\n')
}

// footer says how many rows and columns there are and how many are shown:
// "7300 rows (10 shown) × 11 columns (5 shown)".
func (bw *boxWriter) footer(shownCols int) string {
	rows := int64(len(bw.rows))
	total := bw.totalRows
	if total < rows {
		total = rows
	}
	s := plural(total, "row")
	if rows < total {
		s += fmt.Sprintf(" (%d shown)", rows)
	}
	s += " × " + plural(int64(len(bw.names)), "column")
	if shownCols < len(bw.names) {
		s += fmt.Sprintf(" (%d shown)", shownCols)
	}
	return s
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
}

// layout picks the columns to show and their widths so that the table is
// at most width characters wide (0: no limit, every column at its natural
// width). A drawn column of width w takes w+3 characters ("│ " and a
// space) and the table one more for its right border.
//
// The steps, in the order a reader of the table loses the least:
//  1. cap cells at maxCell, keeping headers whole where they fit;
//  2. narrow the widest columns down to comfortWidth (or their header);
//  3. leave out columns from the middle, keeping the first and last ones
//     (alternately from the left and the right), with a "…" column;
//  4. hand leftover room back to the narrowed columns that are shown.
func layout(nat, hdr []int, width int) (shown, widths []int) {
	n := len(nat)
	if width <= 0 {
		for i := range nat {
			shown = append(shown, i)
		}
		return shown, append([]int(nil), nat...)
	}
	cost := func(ws []int) int {
		t := 1
		for _, w := range ws {
			t += w + 3
		}
		return t
	}
	want := make([]int, n)    // width without fitting pressure
	comfort := make([]int, n) // narrowest before leaving columns out
	for i := range nat {
		want[i] = min(nat[i], max(maxCell, min(hdr[i], 2*maxCell)))
		comfort[i] = min(want[i], max(comfortWidth, min(hdr[i], maxCell)))
	}
	ws := append([]int(nil), want...)
	// Step 2: take a character at a time from the widest column above its
	// comfort width, until the table fits or none is left to narrow.
	for cost(ws) > width {
		pick := -1
		for i := range ws {
			if ws[i] > comfort[i] && (pick < 0 || ws[i] > ws[pick]) {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		ws[pick]--
	}
	if cost(ws) <= width {
		for i := range nat {
			shown = append(shown, i)
		}
		return shown, growInto(shown, ws, want, nat, width-cost(ws))
	}
	// Step 3: columns at their comfort width, taken from both ends while
	// they fit beside the "…" column (4 characters).
	order := make([]int, 0, n)
	for l, r := 0, n-1; l <= r; l, r = l+1, r-1 {
		order = append(order, l)
		if r != l {
			order = append(order, r)
		}
	}
	used := 1 + 4
	take := make([]bool, n)
	for _, i := range order {
		if used+comfort[i]+3 > width {
			break
		}
		take[i] = true
		used += comfort[i] + 3
	}
	for i := range take {
		if take[i] {
			shown = append(shown, i)
			widths = append(widths, comfort[i])
		}
	}
	if len(shown) == 0 {
		// Not even the first column fits at its comfort width: show it
		// as wide as the terminal allows, at least 3 characters.
		return []int{0}, []int{max(3, min(want[0], width-1-3-4))}
	}
	return shown, growInto(shown, widths, want, nat, width-used)
}

// growInto hands room characters to the shown columns narrower than they
// want, widest shortfall first: first up to want (the capped width), then
// up to nat, so that a wide terminal shows long cells whole.
func growInto(shown, widths, want, nat []int, room int) []int {
	for _, target := range [][]int{want, nat} {
		for room > 0 {
			pick := -1
			for k, i := range shown {
				if widths[k] < target[i] && (pick < 0 || target[i]-widths[k] > target[shown[pick]]-widths[pick]) {
					pick = k
				}
			}
			if pick < 0 {
				break
			}
			widths[pick]++
			room--
		}
	}
	return widths
}

// textWidth is the number of terminal cells s takes: two for East Asian
// wide and fullwidth characters (CJK, Hangul, most emoji), none for
// combining marks and format characters, one for the rest.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// wideRanges are the East Asian Wide (W) and Fullwidth (F) blocks of
// Unicode's EastAsianWidth.txt, merged into the ranges that matter for
// text in tables.
var wideRanges = [][2]rune{
	{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
	{0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
	{0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	for _, w := range wideRanges {
		if r < w[0] {
			return 1
		}
		if r <= w[1] {
			return 2
		}
	}
	return 1
}

// cutEnd shortens s to at most n cells, marking the cut with "…" at the
// end.
func cutEnd(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return ellipsis
	}
	return prefixWidth(s, n-1) + ellipsis
}

// cutMiddle shortens s to at most n cells by replacing its middle with
// "…", which keeps column names that share a prefix (bool_col,
// bigint_col) apart.
func cutMiddle(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	if n <= 1 {
		return ellipsis
	}
	head := prefixWidth(s, n/2)
	// The tail: the longest suffix that fits beside the head.
	room := n - 1 - textWidth(head)
	r := []rune(s)
	k := len(r)
	for w := 0; k > 0 && w+runeWidth(r[k-1]) <= room; k-- {
		w += runeWidth(r[k-1])
	}
	return head + ellipsis + string(r[k:])
}

// prefixWidth is the longest prefix of s at most n cells wide.
func prefixWidth(s string, n int) string {
	w := 0
	for i, r := range s {
		if w+runeWidth(r) > n {
			return s[:i]
		}
		w += runeWidth(r)
	}
	return s
}

// escapeControl shows control characters as Go escapes so that a cell
// stays on one line of the table.
func escapeControl(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shortType names an Arrow type for the table header: the primitive names
// of arrow-go ("int32", "timestamp[us, tz=UTC]") and nested types by their
// shape only ("struct", "list<int32>", "map<utf8, int32>"), since a full
// struct type can be longer than the terminal.
func shortType(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.StructType:
		return "struct"
	case *arrow.MapType:
		return "map<" + shortType(t.KeyType()) + ", " + shortType(t.ItemType()) + ">"
	case arrow.ListLikeType:
		name := "list"
		switch t.(type) {
		case *arrow.LargeListType:
			name = "large_list"
		case *arrow.FixedSizeListType:
			name = "fixed_size_list"
		case *arrow.ListViewType, *arrow.LargeListViewType:
			name = "list_view"
		}
		return name + "<" + shortType(t.Elem()) + ">"
	case *arrow.DictionaryType:
		return "dictionary<" + shortType(t.ValueType) + ">"
	case arrow.ExtensionType:
		return t.ExtensionName()
	}
	return t.String()
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}
