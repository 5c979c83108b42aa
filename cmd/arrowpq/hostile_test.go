package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCatHostile runs "arrowpq cat" on each file of testdata/hostile
// (size fields forged so that they once made the reader allocate without
// bound or panic): exit status 1 with a one-line located error, in under a
// second, with under 64 MiB allocated.
func TestCatHostile(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "testdata", "hostile")
	needSharedDir(t, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 4 {
		t.Fatalf("%d files in %s, want the 4 hostile files", len(entries), dir)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			var out, errOut bytes.Buffer
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			code := run([]string{"cat", filepath.Join(dir, e.Name())}, &out, &errOut)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			msg := errOut.String()
			t.Logf("exit %d in %v, %d bytes allocated: %s", code, elapsed, alloc, msg)
			if code != 1 || !strings.HasPrefix(msg, "arrowpq cat: read ") || strings.Count(msg, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line of a read error", code, msg)
			}
			if strings.Contains(msg, "panic:") || strings.Contains(msg, "internal error") {
				t.Errorf("stderr %q tells of a panic", msg)
			}
			if elapsed > time.Second {
				t.Errorf("took %v, want under a second", elapsed)
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d bytes, want under 64 MiB", alloc)
			}
		})
	}
}
