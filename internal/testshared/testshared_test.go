package testshared_test

import (
	"path/filepath"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

// TestNeedAndHas: without ARROWPQ_REQUIRE_SHARED a missing path skips (Need)
// or reports false (Has); a present one does neither. (With it set, the
// same calls fail the test: .ci/run and TestFreshClone's inner run show
// both sides on whole packages.)
func TestNeedAndHas(t *testing.T) {
	t.Setenv(testshared.RequireEnv, "")
	missing := filepath.Join(t.TempDir(), "shared", "testdata")
	var skipped, present bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		testshared.Need(t, ".", missing)
	})
	t.Run("present", func(t *testing.T) {
		defer func() { present = !t.Skipped() }()
		testshared.Need(t, ".")
	})
	if !skipped || !present {
		t.Errorf("Need: missing skipped %v, present ran %v", skipped, present)
	}
	if testshared.Has(t, missing) || !testshared.Has(t, ".") {
		t.Error("Has is wrong about which path exists")
	}
	if filepath.Base(testshared.Root()) != "shared" {
		t.Errorf("Root() = %s, want a directory named shared", testshared.Root())
	}
}
