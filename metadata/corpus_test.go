package metadata_test

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
)

const sharedTestdata = "../../shared/testdata"

// readCorpusExpectations loads testdata/corpus.tsv: path → kind.
func readCorpusExpectations(t *testing.T) map[string]string {
	t.Helper()
	fh, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		path, kind, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("corpus.tsv: bad line %q", line)
		}
		want[path] = kind
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want
}

type catalogFact struct{ rows, groups int64 }

// catalogRowCounts reads the "rows (row groups)" column of CATALOG.md,
// whose figures were measured with arrow-go, an implementation independent
// of ours.
func catalogRowCounts(t *testing.T) map[string]catalogFact {
	t.Helper()
	fh, err := os.Open(filepath.Join(sharedTestdata, "parquet-testing/CATALOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	row := regexp.MustCompile("^\\| `([^`]+)` \\| \\d+ \\| (\\d+) \\((\\d+)\\) \\|")
	prefix := "parquet-testing/"
	facts := map[string]catalogFact{}
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			prefix = "parquet-testing/"
			if strings.HasPrefix(line, "## arrow-testing") {
				prefix = "arrow-testing/"
			}
			continue
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rows, _ := strconv.ParseInt(m[2], 10, 64)
		groups, _ := strconv.ParseInt(m[3], 10, 64)
		facts[prefix+m[1]] = catalogFact{rows, groups}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return facts
}

// TestCorpusFooters reads the footer of every file of the shared corpora.
// Every file must have an expectation in testdata/corpus.tsv; loadable
// footers must agree with the catalog's row and row-group counts and be
// internally consistent; bad ones must fail with the expected sentinel.
func TestCorpusFooters(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	want := readCorpusExpectations(t)
	facts := catalogRowCounts(t)
	var seen []string
	var checkedRows int
	for _, tree := range []string{"parquet-testing", "arrow-testing"} {
		root := filepath.Join(sharedTestdata, tree)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sharedTestdata, p)
			rel = filepath.ToSlash(rel)
			seen = append(seen, rel)
			kind, ok := want[rel]
			if !ok {
				t.Errorf("%s: no expectation in testdata/corpus.tsv; add one", rel)
				return nil
			}
			f, err := readFooterPath(p)
			switch kind {
			case "parquet":
				if err != nil {
					t.Errorf("%s: %v", rel, err)
					return nil
				}
				if !strings.Contains(rel, "/fuzzing/") && !strings.Contains(rel, "/bad_data/") {
					checkLoadedFooter(t, rel, f)
				}
				if fact, ok := facts[rel]; ok {
					checkedRows++
					if f.NumRows() != fact.rows || int64(len(f.Meta.RowGroups)) != fact.groups {
						t.Errorf("%s: %d rows in %d row groups, catalog says %d (%d)",
							rel, f.NumRows(), len(f.Meta.RowGroups), fact.rows, fact.groups)
					}
				}
			case "encrypted":
				expectSentinel(t, rel, err, metadata.ErrEncrypted)
			case "not-parquet":
				expectSentinel(t, rel, err, metadata.ErrNotParquet)
			case "corrupt":
				expectSentinel(t, rel, err, metadata.ErrCorrupt)
			default:
				t.Errorf("%s: unknown expectation %q", rel, kind)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v (the shared corpus must be beside the repository)", root, err)
		}
	}
	sort.Strings(seen)
	for path := range want {
		if i := sort.SearchStrings(seen, path); i == len(seen) || seen[i] != path {
			t.Errorf("%s: expected in the corpus but missing", path)
		}
	}
	if len(seen) < 500 || checkedRows < 80 {
		t.Errorf("walked %d files and checked %d row counts against the catalog; the corpus looks incomplete", len(seen), checkedRows)
	}
}

func readFooterPath(p string) (*metadata.File, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	return metadata.ReadFooter(fh, st.Size())
}

func expectSentinel(t *testing.T, rel string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: error %v, want %v", rel, err, sentinel)
	}
}

// checkLoadedFooter checks what must hold for any footer that loaded: the
// levels agree with the tree, and every chunk's path and physical type
// agree with the schema's leaves.
func checkLoadedFooter(t *testing.T, rel string, f *metadata.File) {
	t.Helper()
	for _, c := range f.Schema.Columns {
		var def, rep int16
		for n := c.Node; n.Parent != nil; n = n.Parent {
			switch n.Repetition {
			case metadata.Optional:
				def++
			case metadata.Repeated:
				def++
				rep++
			}
		}
		if def != c.MaxDef || rep != c.MaxRep {
			t.Errorf("%s: %s levels %d/%d, counted %d/%d", rel, c.DottedPath, c.MaxDef, c.MaxRep, def, rep)
		}
	}
	for rg := range f.Meta.RowGroups {
		for i, c := range f.Schema.Columns {
			md, err := f.ColumnChunk(rg, i)
			if err != nil {
				if errors.Is(err, metadata.ErrEncrypted) {
					continue // a plaintext footer with encrypted column metadata
				}
				t.Errorf("%s: %v", rel, err)
				continue
			}
			if got := strings.Join(md.PathInSchema, "."); got != c.DottedPath {
				t.Errorf("%s: row group %d chunk %d path %q, schema %q", rel, rg, i, got, c.DottedPath)
			}
			if md.Type != c.Physical {
				t.Errorf("%s: row group %d chunk %s type %v, schema %v", rel, rg, c.DottedPath, md.Type, c.Physical)
			}
		}
	}
}
