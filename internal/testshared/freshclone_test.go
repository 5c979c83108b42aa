package testshared_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

var freshClone = flag.Bool("fresh-clone", false, "run TestFreshClone")

// TestFreshClone copies the repository to a directory without ../shared
// beside it and runs `go test ./...` there, as a fresh clone would: every
// package must pass, the tests that need the corpora or the oracle
// engines skipping with one line each. It lists the skipped tests and
// their reasons. It builds and tests everything once more (about a minute
// with warm caches), so it runs only with -fresh-clone, as .ci/run does
// after the README's test command; the inner run sees neither the flag
// nor ARROWPQ_REQUIRE_SHARED.
func TestFreshClone(t *testing.T) {
	if !*freshClone {
		t.Skip("skipped: copies the repository and runs all its tests; runs with -fresh-clone (as .ci/run does)")
	}
	_, here, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(here), "..", "..")
	dst := filepath.Join(t.TempDir(), "arrowpq")
	files := copyRepo(t, repo, dst)
	if _, err := os.Stat(filepath.Join(dst, "..", "shared")); err == nil {
		t.Fatal("the copy has ../shared beside it")
	}
	t.Logf("copied %d files to %s", files, dst)

	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dst
	// The module and build caches are the user's (inherited GOCACHE,
	// GOMODCACHE or their defaults); only the requirement of ../shared is
	// dropped, or every skip would be a failure.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, testshared.RequireEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	res := parseTestJSON(t, out)
	runErr := cmd.Wait()
	elapsed := time.Since(start).Round(time.Second)

	for _, f := range res.failed {
		t.Errorf("FAIL %s\n%s", f, res.output[f])
	}
	if runErr != nil {
		t.Errorf("go test ./... in the copy: %v\n%s", runErr, stderr.String())
	}
	var lines []string
	missingShared := 0
	for name, why := range res.skipped {
		lines = append(lines, name+": "+why)
		if strings.Contains(why, "shared") {
			missingShared++
		}
	}
	sort.Strings(lines)
	t.Logf("go test ./... without ../shared: %d packages ok, %d tests passed, %d skipped, %d failed in %v", res.packagesOK, res.passed, len(res.skipped), len(res.failed), elapsed)
	t.Logf("skipped:\n  %s", strings.Join(lines, "\n  "))
	if len(res.seedless) > 0 {
		sort.Strings(res.seedless)
		t.Logf("ran without the seeds in ../shared:\n  %s", strings.Join(res.seedless, "\n  "))
	}
	// The copy must really lack the corpora: the tests that read them say so.
	if missingShared < 10 {
		t.Errorf("only %d tests skipped for a missing ../shared; the copy may not be what a fresh clone is", missingShared)
	}
	if res.passed < 100 {
		t.Errorf("only %d tests passed in the copy", res.passed)
	}
}

// copyRepo copies the files git tracks (and untracked ones it does not
// ignore), or every file but .git outside a git checkout, and returns how
// many.
func copyRepo(t *testing.T, repo, dst string) int {
	var names []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = repo
	if out, err := cmd.Output(); err == nil {
		for _, n := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if n != "" {
				names = append(names, n)
			}
		}
	} else {
		err := filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(repo, p)
				names = append(names, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, name := range names {
		src := filepath.Join(repo, name)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or a symlink
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// testResult sums up a `go test -json` stream.
type testResult struct {
	packagesOK int
	passed     int
	skipped    map[string]string // "pkg Test" -> the reason the test gave
	failed     []string
	seedless   []string
	output     map[string]string
}

type testEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// parseTestJSON reads test2json events. A skipped test's reason is the
// last line it logged before "--- SKIP".
func parseTestJSON(t *testing.T, r io.Reader) testResult {
	res := testResult{skipped: map[string]string{}, output: map[string]string{}}
	last := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	const module = "github.com/arrowpq/arrowpq/"
	for sc.Scan() {
		var e testEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a build line that is not an event
		}
		name := strings.TrimPrefix(e.Package, module) + " " + e.Test
		switch e.Action {
		case "output":
			line := strings.TrimSpace(e.Output)
			if e.Test != "" {
				res.output[name] += e.Output
				if line != "" && !strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "===") {
					last[name] = line
				}
				if strings.Contains(line, "running without the seeds") {
					res.seedless = append(res.seedless, name)
				}
			} else if e.Package != "" {
				res.output[name] += e.Output
			}
		case "pass":
			if e.Test == "" {
				res.packagesOK++
			} else if !strings.Contains(e.Test, "/") {
				res.passed++
			}
		case "skip":
			if e.Test != "" {
				res.skipped[name] = last[name]
			}
		case "fail":
			res.failed = append(res.failed, name)
		}
	}
	if err := sc.Err(); err != nil {
		t.Errorf("reading go test -json: %v", err)
	}
	return res
}
