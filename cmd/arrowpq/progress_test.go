package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestMain removes the binary buildCLI builds.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// buildCLI builds the arrowpq binary once per test binary run, for tests
// that need a real process (a pty on stderr).
func buildCLI(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "arrowpq-cli-*"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "arrowpq"), ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "arrowpq")
}

// TestProgressInPty runs convert with stderr on a pseudo-terminal and
// stdin fed slowly in chunks, so that the progress line must redraw:
// it shows several distinct states (rows growing), and the last thing
// written to the terminal erases it.
func TestProgressInPty(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pty test runs on linux")
	}
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "out.parquet")
	cmd := exec.Command(bin, "convert", "--from", "csv", "-", out)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	cmd.Stderr = tty
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var screen bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		io.Copy(&screen, ptmx) // ends with EIO when the child exits
		close(readDone)
	}()
	// 8 chunks of 70,000 rows, 250 ms apart: every chunk completes at
	// least one batch (64 Ki rows) and more than redrawEvery passes.
	fmt.Fprintln(stdin, "id,name,x")
	row := 0
	for chunk := 0; chunk < 8; chunk++ {
		var b strings.Builder
		for i := 0; i < 70_000; i++ {
			fmt.Fprintf(&b, "%d,name%d,%d.5\n", row, row%100, row)
			row++
		}
		io.WriteString(stdin, b.String())
		time.Sleep(250 * time.Millisecond)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("convert: %v\n%q", err, screen.String())
	}
	select {
	case <-readDone:
	case <-time.After(10 * time.Second):
		t.Fatal("pty output did not end")
	}
	text := screen.String()
	re := regexp.MustCompile(`\r([0-9,]+) rows, [0-9.]+ [KMG]?i?B, [0-9.]+ [KMG]?i?B/s\x1b\[K`)
	states := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		states[m[1]] = true
	}
	if len(states) < 3 {
		t.Fatalf("want at least 3 distinct progress states, got %d in %q", len(states), text)
	}
	if !strings.HasSuffix(text, "\r\x1b[K") {
		t.Fatalf("the progress line is not erased at the end: output ends %q", text[max(0, len(text)-80):])
	}
	// The file has every row.
	o, _, code := runCLI("rowcount", out)
	if code != 0 || strings.TrimSpace(o) != fmt.Sprint(row) {
		t.Fatalf("rowcount %q (exit %d), want %d", o, code, row)
	}
}

// TestProgressSilentWhenNotTerminal: stderr to a pipe shows nothing
// unless --progress forces it; --quiet wins on a terminal.
func TestProgressSilentWhenNotTerminal(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("a,b\n1,2\n3,4\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--progress"}, true},
		{[]string{"--quiet"}, false},
	} {
		args := append([]string{"convert"}, tc.args...)
		args = append(args, in, filepath.Join(dir, "o.parquet"))
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v %s", args, err, stderr.String())
		}
		if got := strings.Contains(stderr.String(), "rows"); got != tc.want {
			t.Errorf("%v: stderr %q, want progress %v", tc.args, stderr.String(), tc.want)
		}
	}
}

// TestProgressLine checks the rendering: rows, bytes, rate, percent, ETA.
func TestProgressLine(t *testing.T) {
	p := &progress{totalRows: 1000, totalBytes: 4 << 20}
	got := p.line(250, 1<<20, 2*time.Second)
	want := "250 rows of 1,000, 1.0 MiB, 512.0 KiB/s, 25%, ETA 6s"
	if got != want {
		t.Fatalf("line = %q, want %q", got, want)
	}
	p = &progress{totalRows: -1, totalBytes: -1}
	if got, want := p.line(1234567, 0, time.Second), "1,234,567 rows, 1,234,567 rows/s"; got != want {
		t.Fatalf("line = %q, want %q", got, want)
	}
}
