// Package archtest enforces the dependency direction of the module's
// packages (STYLE.md §1) by asking the go command for their imports.
package archtest

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/arrowpq/arrowpq"

// allowed lists, for each package of ours, the packages of ours it may
// import directly. A package missing from the table fails the test, so that
// a new package must take a place in the drawing.
var allowed = map[string][]string{
	"metadata":            {"metadata/format"},
	"metadata/format":     {},
	"internal/bitpack":    {},
	"internal/archtest":   {},
	"internal/codectest":  {"metadata/format", "internal/bitpack"},
	"internal/oracle":     {"internal/testshared"},
	"internal/forge":      {"metadata", "metadata/format"},
	"internal/testshared": {},
	"levels":              {"internal/bitpack"},
	"pagecodec":           {"metadata", "metadata/format", "internal/bitpack"},
	"typemap":             {"metadata", "metadata/format"},
	"column":              {"metadata", "metadata/format", "pagecodec", "levels", "internal/bitpack"},
	"arrowpq":             {"column", "metadata", "metadata/format", "typemap", "pagecodec", "levels", "internal/bitpack"},
	"pqflight":            {"arrowpq", "metadata", "metadata/format", "typemap", "pagecodec"},
	"benchmarks":          {"arrowpq", "metadata", "metadata/format", "typemap", "pagecodec", "levels"},
	"cmd/arrowpq":         {"arrowpq", "pqflight", "metadata", "metadata/format", "typemap", "pagecodec", "levels"},
}

// arrowUsers may import arrow-go in product code; no product package may
// import arrow-go's own Parquet implementation, which is our test oracle.
var arrowUsers = map[string]bool{"internal/oracle": true, "typemap": true, "arrowpq": true, "pqflight": true, "cmd/arrowpq": true, "benchmarks": true}

type goPackage struct {
	ImportPath string
	Imports    []string
}

func TestImportDirection(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var n int
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		self := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		ok, known := allowed[self]
		if !known {
			t.Errorf("package %s has no place in the dependency table of internal/archtest", self)
			continue
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/apache/arrow-go/") {
				if !arrowUsers[self] {
					t.Errorf("%s imports %s: only %v may use arrow-go", self, imp, keys(arrowUsers))
				}
				if strings.HasPrefix(imp, "github.com/apache/arrow-go/v18/parquet") && self != "benchmarks" {
					t.Errorf("%s imports %s: arrow-go's Parquet packages are for tests only", self, imp)
				}
				continue
			}
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if !contains(ok, dep) {
				t.Errorf("%s imports %s, which the dependency direction does not allow", self, dep)
			}
		}
	}
	if n < 5 {
		t.Fatalf("go list found only %d packages", n)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
