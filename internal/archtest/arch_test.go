// Package archtest enforces the dependency direction of the module's
// packages (STYLE.md §1) by asking the go command for their imports, the
// product imports and those of their test files.
package archtest

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/arrowpq/arrowpq"

// allowed lists, for each package of ours, the packages of ours it may
// import directly. A package missing from the table fails the test, so that
// a new package must take a place in the drawing.
var allowed = map[string][]string{
	"metadata":              {"metadata/format"},
	"metadata/format":       {},
	"internal/bitpack":      {},
	"internal/snappy":       {},
	"internal/archtest":     {},
	"internal/codectest":    {"metadata/format", "internal/bitpack"},
	"internal/oracle":       {"internal/testshared", "internal/arrowjson"},
	"internal/arrowjson":    {},
	"benchmarks/cmd/charts": {},
	"internal/forge":        {"metadata", "metadata/format"},
	"internal/testshared":   {},
	"internal/faultproxy":   {},
	"internal/miniotest":    {"objstore"},
	"internal/localfile":    {},
	"internal/lifo":         {},
	"internal/uninit":       {},
	"internal/racedetect":   {},
	"objstore":              {"internal/localfile"},
	"levels":                {"internal/bitpack"},
	"pagecodec":             {"metadata", "metadata/format", "internal/bitpack", "internal/snappy", "internal/uninit"},
	"column":                {"pagecodec", "levels", "metadata", "metadata/format", "internal/bitpack", "internal/lifo"},
	"typemap":               {"metadata", "metadata/format"},
	"encryption":            {"metadata", "metadata/format"},
	"arrowpq":               {"column", "encryption", "metadata", "metadata/format", "typemap", "pagecodec", "levels", "internal/bitpack", "objstore", "internal/localfile", "internal/lifo", "internal/uninit"},
	"pqflight":              {"arrowpq", "encryption", "metadata", "metadata/format", "typemap", "pagecodec"},
	"benchmarks":            {"arrowpq", "metadata", "metadata/format", "typemap", "pagecodec", "levels"},
	"cmd/arrowpq":           {"arrowpq", "encryption", "pqflight", "metadata", "metadata/format", "typemap", "pagecodec", "column", "objstore", "internal/arrowjson", "internal/localfile"},
}

// testHelpers may be imported by the test files of any package: they exist
// for tests (shared corpora, the oracle engines, codec harnesses, forged
// files). No product package may import them (they are absent from
// allowed's lists, except where a helper builds on another).
var testHelpers = []string{"internal/testshared", "internal/racedetect", "internal/oracle", "internal/codectest", "internal/forge", "internal/faultproxy", "internal/miniotest"}

// testAlsoAllowed lists test imports beyond a package's own list and the
// helpers, each with its reason.
var testAlsoAllowed = map[string][]string{
	// The column reader's decryption tests encrypt chunks page by page.
	"column": {"encryption"},
	// forge's tests read the forged files with the reader they target.
	"internal/forge": {"arrowpq"},
	// The object-storage tests write the benchmark datasets to MinIO.
	"arrowpq": {"benchmarks"},
	// convert's round trips run over the benchmark datasets.
	"cmd/arrowpq": {"benchmarks"},
	// The remote-read benchmark reads through objstore's range source;
	// the encrypted-read benchmark decrypts with a footer key.
	"benchmarks": {"objstore", "encryption"},
}

// arrowUsers may import arrow-go in product code; no product package may
// import arrow-go's own Parquet implementation, which is our test oracle.
var arrowUsers = map[string]bool{"internal/oracle": true, "internal/arrowjson": true, "typemap": true, "arrowpq": true, "pqflight": true, "cmd/arrowpq": true, "benchmarks": true}

type goPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// violations returns what is wrong with package self importing imports;
// test says whether they are the imports of its test files.
func violations(self string, imports []string, test bool) []string {
	ok, known := allowed[self]
	if !known {
		return []string{fmt.Sprintf("package %s has no place in the dependency table of internal/archtest", self)}
	}
	what := "imports"
	if test {
		what = "tests import"
		ok = slices.Concat(ok, []string{self}, testHelpers, testAlsoAllowed[self])
	}
	var out []string
	for _, imp := range imports {
		if strings.HasPrefix(imp, "github.com/apache/arrow-go/") {
			if test {
				continue
			}
			if !arrowUsers[self] {
				out = append(out, fmt.Sprintf("%s imports %s: only %v may use arrow-go", self, imp, keys(arrowUsers)))
			}
			if strings.HasPrefix(imp, "github.com/apache/arrow-go/v18/parquet") && self != "benchmarks" {
				out = append(out, fmt.Sprintf("%s imports %s: arrow-go's Parquet packages are for tests only", self, imp))
			}
			continue
		}
		if !strings.HasPrefix(imp, module+"/") {
			continue
		}
		dep := strings.TrimPrefix(imp, module+"/")
		if !slices.Contains(ok, dep) {
			out = append(out, fmt.Sprintf("%s %s %s, which the dependency direction does not allow", self, what, dep))
		}
	}
	return out
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
		for _, v := range violations(self, p.Imports, false) {
			t.Error(v)
		}
		for _, v := range violations(self, slices.Concat(p.TestImports, p.XTestImports), true) {
			t.Error(v)
		}
	}
	if n < 5 {
		t.Fatalf("go list found only %d packages", n)
	}
}

// TestViolationsFail shows the checks catch what they must.
func TestViolationsFail(t *testing.T) {
	for _, c := range []struct {
		self    string
		imports []string
		test    bool
	}{
		{"levels", []string{module + "/arrowpq"}, false},
		{"levels", []string{module + "/arrowpq"}, true},                     // tests may not import upward either
		{"column", []string{"github.com/apache/arrow-go/v18/arrow"}, false}, // no Arrow below arrowpq
		{"arrowpq", []string{"github.com/apache/arrow-go/v18/parquet/file"}, false},
		{"arrowpq", []string{module + "/internal/oracle"}, false}, // a test helper in product code
		{"pagecodec", []string{module + "/column"}, true},
		{"nosuch", nil, false},
	} {
		if len(violations(c.self, c.imports, c.test)) == 0 {
			t.Errorf("%s importing %v (test %v) passed", c.self, c.imports, c.test)
		}
	}
	for _, c := range []struct {
		self    string
		imports []string
	}{
		{"column", []string{"github.com/apache/arrow-go/v18/parquet/file", module + "/internal/testshared", module + "/column"}},
		{"internal/forge", []string{module + "/arrowpq"}},
	} {
		if v := violations(c.self, c.imports, true); len(v) != 0 {
			t.Errorf("%s tests importing %v: %v", c.self, c.imports, v)
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
