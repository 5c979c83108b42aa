package oracle

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// Engines are the independent readers behind dump.mjs.
var Engines = []string{"duckdb", "hyparquet", "parquetwasm"}

// Dir is ../shared/oracle beside the repository, with symlinks resolved:
// dump.mjs runs its command line only when started by its real path.
func Dir() string {
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "shared", "oracle")
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// ErrNotInstalled says that the engines are not installed and setup.sh
// could not install them (it needs node, npm and the npm registry).
var ErrNotInstalled = errors.New("oracle engines are not installed: run ../shared/oracle/setup.sh")

// Result is one engine's rendering of one file: Rows as JSON lines, or the
// engine's error.
type Result struct {
	Rows []byte
	Err  string
}

var (
	setupOnce sync.Once
	setupErr  error
)

// ensureInstalled runs ../shared/oracle/setup.sh once per process when the
// engines are not installed yet, so that `go test ./...` works on a fresh
// machine (setup.sh is idempotent and takes a few seconds).
func ensureInstalled(home string) error {
	if _, err := os.Stat(filepath.Join(home, "node_modules")); err == nil {
		return nil
	}
	setupOnce.Do(func() {
		cmd := exec.Command("bash", filepath.Join(Dir(), "setup.sh"))
		if out, err := cmd.CombinedOutput(); err != nil {
			setupErr = fmt.Errorf("%w: setup.sh: %v: %s", ErrNotInstalled, err, out)
		}
	})
	if setupErr != nil {
		return setupErr
	}
	if _, err := os.Stat(filepath.Join(home, "node_modules")); err != nil {
		return ErrNotInstalled
	}
	return nil
}

// Install makes sure the engines are installed (see ensureInstalled), for
// tests that run dump.mjs themselves.
func Install() error {
	if _, err := os.Stat(filepath.Join(Dir(), "dump.mjs")); err != nil {
		return fmt.Errorf("%w: %s is missing beside the repository", ErrNotInstalled, Dir())
	}
	return ensureInstalled(home())
}

// Need skips t with one line when ../shared/oracle is missing beside the
// repository (a fresh clone), or fails it when ARROWPQ_REQUIRE_SHARED=1
// (CI); see package testshared. Tests call it just before they use an
// engine, so that the checks before it still run.
func Need(t testing.TB) {
	t.Helper()
	testshared.Need(t, filepath.Join(Dir(), "dump.mjs"))
}

// Home is where setup.sh installs the engines: $PQ_ORACLE_HOME, or
// ~/.cache/pq-oracle.
func Home() string { return home() }

func home() string {
	if h := os.Getenv("PQ_ORACLE_HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return filepath.Join(h, ".cache", "pq-oracle")
}

// DumpMany renders files with engine in one Node process.
func DumpMany(engine string, files []string) ([]Result, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	out, err := os.MkdirTemp("", "pq-oracle-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	_, here, _, _ := runtime.Caller(0)
	args := append([]string{filepath.Join(filepath.Dir(here), "dumpmany.mjs"), Dir(), engine, out}, files...)
	cmd := exec.Command("node", args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("node dumpmany.mjs %s: %v: %s", engine, err, msg)
	}
	results := make([]Result, len(files))
	for i := range files {
		base := filepath.Join(out, strconv.Itoa(i))
		if msg, err := os.ReadFile(base + ".err"); err == nil {
			results[i].Err = string(msg)
			continue
		}
		rows, err := os.ReadFile(base + ".jsonl")
		if err != nil {
			return nil, fmt.Errorf("%s: no output for %s", engine, files[i])
		}
		results[i].Rows = rows
	}
	return results, nil
}
