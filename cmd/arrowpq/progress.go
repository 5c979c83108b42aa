package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progressFlags are --progress and --quiet, on every long operation.
type progressFlags struct {
	force, quiet bool
}

func (pf *progressFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&pf.force, "progress", false, "show the progress line on stderr even when it is not a terminal")
	fs.BoolVar(&pf.quiet, "quiet", false, "never show the progress line (default: shown when stderr is a terminal)")
}

// open returns the progress line for this run: on stderr when it is a
// terminal, unless the data itself goes to that terminal (dataOnTTY), or
// as --progress/--quiet force.
func (pf *progressFlags) open(stderr *os.File, dataOnTTY bool) *progress {
	p := &progress{now: time.Now}
	switch {
	case pf.quiet:
	case pf.force:
		p.w = stderr
	case isTerminal(stderr) && !(dataOnTTY && isTerminal(os.Stdout)):
		p.w = stderr
	}
	return p
}

// progress draws one line on a terminal, "\r"-rewritten in place at most
// every redrawEvery, and erases it at the end: rows, bytes, rate and ETA.
// With w nil it does nothing. The zero value is silent.
type progress struct {
	w     io.Writer
	now   func() time.Time
	begin time.Time
	last  time.Time
	// totals, -1 when unknown; the ETA comes from bytes when their total
	// is known, else from rows.
	totalRows, totalBytes int64
	drawn                 bool
}

// redrawEvery caps redraws at 10 per second: a terminal redrawing a line
// per batch costs more than the batch.
const redrawEvery = 100 * time.Millisecond

func (p *progress) start(totalRows, totalBytes int64) {
	if p == nil || p.w == nil {
		return
	}
	p.begin = p.now()
	p.totalRows, p.totalBytes = totalRows, totalBytes
}

// update redraws the line with rows and bytes done, when the last redraw
// is old enough.
func (p *progress) update(rows, bytes int64) {
	if p == nil || p.w == nil {
		return
	}
	now := p.now()
	if p.begin.IsZero() {
		p.begin = now
	}
	if now.Sub(p.last) < redrawEvery {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(rows, bytes, now.Sub(p.begin)))
	p.drawn = true
}

// line renders the progress state.
func (p *progress) line(rows, bytes int64, elapsed time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s rows", groupDigits(rows))
	if p.totalRows > 0 {
		fmt.Fprintf(&b, " of %s", groupDigits(p.totalRows))
	}
	if bytes > 0 {
		fmt.Fprintf(&b, ", %s", humanBytes(bytes))
	}
	sec := elapsed.Seconds()
	if sec > 0 {
		if bytes > 0 {
			fmt.Fprintf(&b, ", %s/s", humanBytes(int64(float64(bytes)/sec)))
		} else {
			fmt.Fprintf(&b, ", %s rows/s", groupDigits(int64(float64(rows)/sec)))
		}
	}
	var frac float64
	switch {
	case p.totalBytes > 0 && bytes > 0:
		frac = float64(bytes) / float64(p.totalBytes)
	case p.totalRows > 0:
		frac = float64(rows) / float64(p.totalRows)
	}
	if frac > 0 && frac <= 1 {
		eta := time.Duration(float64(elapsed) * (1 - frac) / frac).Round(time.Second)
		fmt.Fprintf(&b, ", %.0f%%, ETA %s", 100*frac, eta)
	}
	return b.String()
}

// finish erases the line.
func (p *progress) finish() {
	if p == nil || p.w == nil || !p.drawn {
		return
	}
	io.WriteString(p.w, "\r\x1b[K")
	p.drawn = false
}

// groupDigits writes n with thousands separators: 1,234,567.
func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// humanBytes renders n in binary units with one decimal.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n), 0
	for f >= unit && u < 4 {
		f /= unit
		u++
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGT"[u-1])
}
