// Package testshared lets tests that read the conformance corpora and the
// oracle engines in ../shared (beside the repository, not part of it) skip
// when that directory is missing, so that a fresh clone runs everything
// else. CI sets ARROWPQ_REQUIRE_SHARED=1, which turns those skips into
// failures: there the corpora must be present.
//
// It is imported by tests only.
package testshared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// RequireEnv is the environment variable that turns a missing ../shared
// into a test failure instead of a skip when it is set to 1.
const RequireEnv = "ARROWPQ_REQUIRE_SHARED"

// Required reports whether RequireEnv asks for ../shared to be present.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Root is the directory ../shared beside the repository root, found from
// this file's location so that it is the same from every package.
func Root() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "shared")
}

// Need skips t with one line naming the missing path when any of paths
// does not exist, or fails t when RequireEnv is set. Paths are as the test
// spells them (typically relative to the package directory, such as
// "../../shared/testdata/parquet-testing").
func Need(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			missing(t, p)
			return
		}
	}
}

// NeedFile is Need for a file whose absence is only expected when the
// whole corpus is missing: when the corpus root dir exists, a missing file
// is a failure (a wrong name, not a missing checkout), so that a typo is
// never skipped silently.
func NeedFile(t testing.TB, dir, file string) {
	t.Helper()
	Need(t, dir)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("%s is missing although %s is present: %v", file, dir, err)
	}
}

func missing(t testing.TB, p string) {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	if Required() {
		t.Fatalf("%s is missing and %s=1 requires it", abs, RequireEnv)
	}
	t.Skipf("skipped: %s is missing (the shared corpora and oracle belong beside the repository; see README)", abs)
}

// Has reports whether path exists, for tests that only take optional input
// from ../shared (fuzz seeds): when it is missing it logs one line and
// returns false, or fails t when RequireEnv is set.
func Has(t testing.TB, path string) bool {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return true
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if Required() {
		t.Fatalf("%s is missing and %s=1 requires it", abs, RequireEnv)
	}
	t.Logf("%s is missing: running without the seeds it holds", abs)
	return false
}
