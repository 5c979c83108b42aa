// Command charts draws the read and write comparisons of
// docs/performance.md (arrowpq vs pqarrow vs parquet-go, per dataset and
// codec) as SVG bar charts, from the tables in that file:
//
//	go run ./benchmarks/cmd/charts -in docs/performance.md -out docs/img
//
// It writes read.svg and write.svg. The SVG is written by hand (a few
// rectangles and text elements), which needs no plotting dependency.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// chart is one figure: the first table after the heading that starts
// with section, with the series taken from the named columns.
type chart struct {
	file, section, title string
	series               []string // column headers, one bar each
}

var charts = []chart{
	{"read.svg", "## Reading files", "Read throughput, single-threaded (MB/s of Arrow data, higher is better)",
		[]string{"arrowpq MB/s", "pqarrow MB/s", "parquet-go MB/s"}},
	{"write.svg", "## Writing files", "Write throughput, single-threaded (MB/s of Arrow data, higher is better)",
		[]string{"arrowpq MB/s", "pqarrow MB/s", "parquet-go MB/s"}},
}

func main() {
	in := flag.String("in", "docs/performance.md", "the Markdown file with the tables")
	out := flag.String("out", "docs/img", "directory to write the SVG files to")
	flag.Parse()
	text, err := os.ReadFile(*in)
	if err != nil {
		fail(err)
	}
	for _, c := range charts {
		groups, values, err := readTable(string(text), c.section, c.series)
		if err != nil {
			fail(fmt.Errorf("%s: %w", c.file, err))
		}
		f, err := os.Create(filepath.Join(*out, c.file))
		if err != nil {
			fail(err)
		}
		bw := bufio.NewWriter(f)
		drawBars(bw, c.title, groups, c.series, values)
		if err := bw.Flush(); err != nil {
			fail(err)
		}
		if err := f.Close(); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "charts:", err)
	os.Exit(1)
}

// readTable finds the first Markdown table after the heading line that
// starts with section and returns its groups ("dataset codec", from the
// first two columns) and, per group, the values of the series columns.
func readTable(text, section string, series []string) ([]string, [][]float64, error) {
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], section) {
		i++
	}
	if i == len(lines) {
		return nil, nil, fmt.Errorf("no heading %q", section)
	}
	for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
		i++
	}
	if i+2 >= len(lines) {
		return nil, nil, fmt.Errorf("no table after %q", section)
	}
	header := cells(lines[i])
	col := make([]int, len(series))
	for k, s := range series {
		col[k] = -1
		for j, h := range header {
			if h == s {
				col[k] = j
			}
		}
		if col[k] < 0 {
			return nil, nil, fmt.Errorf("table after %q has no column %q", section, s)
		}
	}
	var groups []string
	var values [][]float64
	for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		row := cells(lines[i])
		if len(row) < len(header) {
			continue
		}
		groups = append(groups, row[0]+" "+row[1])
		v := make([]float64, len(series))
		for k, j := range col {
			f, err := strconv.ParseFloat(strings.TrimSuffix(row[j], "×"), 64)
			if err != nil {
				return nil, nil, fmt.Errorf("row %q column %q: %v", row[0], series[k], err)
			}
			v[k] = f
		}
		values = append(values, v)
	}
	return groups, values, nil
}

func cells(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

var colors = []string{"#2b6cb0", "#dd6b20", "#718096"}

// drawBars writes a grouped bar chart: one group per table row, one bar
// per series, the value above each bar, a y axis with round ticks.
func drawBars(w io.Writer, title string, groups, series []string, values [][]float64) {
	const (
		left, right, top, bottom = 60.0, 20.0, 60.0, 60.0
		barW, gap                = 16.0, 18.0
	)
	groupW := float64(len(series))*barW + gap
	width := left + right + groupW*float64(len(groups))
	height := 380.0
	plotH := height - top - bottom
	maxV := 0.0
	for _, v := range values {
		for _, x := range v {
			maxV = math.Max(maxV, x)
		}
	}
	step := niceStep(maxV / 5)
	yMax := math.Ceil(maxV/step) * step
	y := func(v float64) float64 { return top + plotH*(1-v/yMax) }
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", left, escape(title))
	// Legend.
	x := left
	for k, s := range series {
		fmt.Fprintf(w, `<rect x="%.0f" y="32" width="12" height="12" fill="%s"/><text x="%.0f" y="42">%s</text>`+"\n", x, colors[k%len(colors)], x+16, escape(strings.TrimSuffix(s, " MB/s")))
		x += 16 + 8*float64(len(s))
	}
	// Axis and grid.
	for v := 0.0; v <= yMax+step/2; v += step {
		fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#e2e8f0"/><text x="%.0f" y="%.1f" text-anchor="end">%g</text>`+"\n", left, width-right, y(v), y(v), left-6, y(v)+4, v)
	}
	fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#4a5568"/>`+"\n", left, width-right, y(0), y(0))
	for g, name := range groups {
		gx := left + gap/2 + float64(g)*groupW
		for k, v := range values[g] {
			bx := gx + float64(k)*barW
			fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.0f" height="%.1f" fill="%s"><title>%s %s: %g</title></rect>`+"\n",
				bx, y(v), barW-2, y(0)-y(v), colors[k%len(colors)], escape(name), escape(series[k]), v)
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="8">%g</text>`+"\n", bx+(barW-2)/2, y(v)-3, v)
		}
		dataset, codec, _ := strings.Cut(name, " ")
		cx := gx + float64(len(series))*barW/2
		fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text><text x="%.1f" y="%.1f" text-anchor="middle" fill="#4a5568">%s</text>`+"\n",
			cx, y(0)+16, escape(dataset), cx, y(0)+30, escape(codec))
	}
	fmt.Fprintln(w, "</svg>")
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
