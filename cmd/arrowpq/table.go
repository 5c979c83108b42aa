package main

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// table renders rows of cells as aligned columns that fit a width: when the
// table is too wide, the columns with the highest shrink priority give up
// characters first, the widest of them first, and their cells are cut with
// an ellipsis.
type table struct {
	header     []string
	rightAlign []bool // per column: numbers read better right-aligned
	// shrink is the per-column shrink priority: 0 never shrinks, higher
	// numbers shrink before lower ones.
	shrink []int
	rows   [][]string
}

const ellipsis = "…"

// minShrunk is the narrowest a shrinkable column becomes.
const minShrunk = 6

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write renders the table with each line prefixed by indent and no wider
// than width runes (0 means no limit).
func (t *table) write(w io.Writer, indent string, width int) error {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if n := utf8.RuneCountInString(c); n > widths[i] {
				widths[i] = n
			}
		}
	}
	if width > 0 {
		total := func() int {
			n := len(indent) + 2*(len(widths)-1)
			for _, w := range widths {
				n += w
			}
			return n
		}
		for total() > width {
			pick := -1
			for i, w := range widths {
				if i >= len(t.shrink) || t.shrink[i] == 0 || w <= minShrunk {
					continue
				}
				if pick < 0 || t.shrink[i] > t.shrink[pick] || t.shrink[i] == t.shrink[pick] && w > widths[pick] {
					pick = i
				}
			}
			if pick < 0 {
				break // nothing left to give; let the terminal wrap
			}
			widths[pick]--
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString(indent)
		for i, c := range cells {
			c = cut(c, widths[i])
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i < len(t.rightAlign) && t.rightAlign[i] {
				b.WriteString(pad)
				b.WriteString(c)
			} else {
				b.WriteString(c)
				if i < len(cells)-1 {
					b.WriteString(pad)
				}
			}
			if i < len(cells)-1 {
				b.WriteString("  ")
			}
		}
		b.WriteString("\n")
	}
	line(t.header)
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cut shortens s to n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return ellipsis[:0] + string([]rune(s)[:n])
	}
	return string([]rune(s)[:n-1]) + ellipsis
}

// outputWidth is the width to fit when out is a terminal: $COLUMNS, else
// the terminal's own width, else 80; and 0 (no limit) when out is not a
// terminal, so that output to a file or a pipe is never cut.
func outputWidth(out io.Writer) int {
	if !isTTY(out) {
		return 0
	}
	if w := envColumns(); w > 0 {
		return w
	}
	if w := ttyWidth(out); w > 0 {
		return w
	}
	return 80
}

// isTTY and ttyWidth ask the terminal about out; tests replace them to
// play a terminal of a given width.
var (
	isTTY = func(out io.Writer) bool {
		f, ok := out.(*os.File)
		return ok && isTerminal(f)
	}
	ttyWidth = func(out io.Writer) int {
		if f, ok := out.(*os.File); ok {
			return terminalWidth(f)
		}
		return 0
	}
)

func envColumns() int {
	s := os.Getenv("COLUMNS")
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
		if n > 10000 {
			return 0
		}
	}
	return n
}
