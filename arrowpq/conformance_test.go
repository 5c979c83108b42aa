package arrowpq_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"
)

const sharedTestdata = "../../shared/testdata"

// conformanceCase says how a corpus file must read when it is not simply
// "reads, and matches the first engine that can read it".
type conformanceCase struct {
	opts *arrowpq.ReadOptions
	// err, when set, is a sentinel the read must fail with.
	err error
	// errText must appear in the error message.
	errText string
	// rows, when set, is the expected canonical rendering, from a source
	// other than the engines (which get the file wrong).
	rows string
	why  string
}

var conformanceCases = map[string]conformanceCase{
	"parquet-testing/data/int96_from_spark.parquet": {
		opts: &arrowpq.ReadOptions{Int96Unit: arrow.Microsecond},
		// The values CATALOG.md gives (from the upstream README); DuckDB
		// overflows on the last one and the other engines wrap it in ns.
		rows: `{"a":"ts:1704141296123456us"}
{"a":"ts:1704070800000000us"}
{"a":"ts:253402225200000000us"}
{"a":"ts:1735599600000000us"}
{"a":null}
{"a":"ts:9089380393200000000us"}
`,
		why: "dates outside the nanosecond range: read in microseconds (in nanoseconds the read fails with a clear error)",
	},
	"parquet-testing/data/datapage_v1-corrupt-checksum.parquet": {
		err: pagecodec.ErrChecksum, errText: "page 0", why: "page CRC mismatch must be reported with the page",
	},
	"parquet-testing/data/rle-dict-uncompressed-corrupt-checksum.parquet": {
		err: pagecodec.ErrChecksum, errText: "page 0", why: "dictionary page CRC mismatch",
	},
	"parquet-testing/data/encrypt_columns_plaintext_footer.parquet.encrypted": {
		err: metadata.ErrEncrypted, errText: "column float_field", why: "plaintext footer, two encrypted columns, read without keys (TestReadEncryptedWithoutKeys reads the others; TestReadEncryptedCorpus with keys)",
	},
	"parquet-testing/data/aes256/encrypt_columns_plaintext_footer.parquet.encrypted": {
		err: metadata.ErrEncrypted, errText: "column", why: "plaintext footer, encrypted columns, read without keys (TestReadEncryptedCorpus reads it with keys)",
	},
	"arrow-testing/data/parquet/ARROW-17100.parquet": {
		// No engine of the oracle reads this file (pyarrow 2.0 v2 pages
		// flagged uncompressed that are Snappy). The values are those of
		// the Arrow C++ regression test for ARROW-17100, which wrote it.
		rows: `{"col1":"1","col2":"a","col3":1,"col4":"a"}
{"col1":"2","col2":"b","col3":2,"col4":"a"}
{"col1":"3","col2":"c","col3":3,"col4":"a"}
{"col1":"4","col2":"d","col3":4,"col4":"b"}
{"col1":"5","col2":"e","col3":5,"col4":"b"}
`,
	},
	"parquet-testing/data/large_string_map.brotli.parquet": {
		err: pagecodec.ErrLimit, why: "a 1 GiB page; reading it needs MaxPageSize above 1 GiB (the default is 256 MiB) and ~4 GB of memory",
	},
}

// TestConformance reads every readable file of the shared corpora and
// compares the data with independent engines (DuckDB, else hyparquet, else
// arrow-rs in WebAssembly), rendered canonically as ../shared/oracle
// describes.
func TestConformance(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	var paths, rels []string
	var ours [][]byte
	for _, tree := range []string{"parquet-testing", "arrow-testing"} {
		root := filepath.Join(sharedTestdata, tree)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(sharedTestdata, p)
			rel = filepath.ToSlash(rel)
			if strings.Contains(rel, "/bad_data/") || strings.Contains(rel, "/fuzzing/") {
				return nil // TestHostileFiles
			}
			if _, err := footer(p); err != nil {
				return nil // not Parquet, or encrypted: metadata's corpus test covers them
			}
			tc := conformanceCases[rel]
			out, err := readCanonical(p, tc.opts)
			if tc.err != nil || tc.errText != "" {
				if err == nil {
					t.Errorf("%s: read without error; want %v (%s)", rel, tc.err, tc.why)
				} else if (tc.err != nil && !errors.Is(err, tc.err)) || !strings.Contains(err.Error(), tc.errText) {
					t.Errorf("%s: error %v; want %v containing %q", rel, err, tc.err, tc.errText)
				}
				return nil
			}
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				return nil
			}
			if tc.rows != "" {
				if err := oracle.Compare(out, []byte(tc.rows), oracle.Allowances{}); err != nil {
					t.Errorf("%s: %v", rel, err)
				}
				return nil
			}
			paths = append(paths, p)
			rels = append(rels, rel)
			ours = append(ours, out)
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", root, err)
		}
	}
	if len(paths) < 200 {
		t.Fatalf("only %d readable files found; the corpus looks incomplete", len(paths))
	}
	// Each file is compared with the first engine of its list that reads
	// it; a file no engine reads is listed in the log.
	pending := make([]int, len(paths))
	for i := range pending {
		pending[i] = i
	}
	checked := map[string]int{}
	var unchecked []string
	for round := 0; round < len(oracle.Engines) && len(pending) > 0; round++ {
		byEngine := map[string][]int{}
		for _, k := range pending {
			order := engineOrder(rels[k])
			if round < len(order) {
				byEngine[order[round]] = append(byEngine[order[round]], k)
			} else {
				unchecked = append(unchecked, rels[k])
			}
		}
		pending = nil
		for _, engine := range oracle.Engines {
			ks := byEngine[engine]
			if len(ks) == 0 {
				continue
			}
			files := make([]string, len(ks))
			for i, k := range ks {
				files[i] = paths[k]
			}
			results, err := oracle.DumpMany(engine, files)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range results {
				k := ks[i]
				if r.Err != "" {
					pending = append(pending, k)
					continue
				}
				if err := oracle.Compare(ours[k], r.Rows, oracle.AllowancesFor(engine)); err != nil {
					t.Errorf("%s: differs from %s: %v", rels[k], engine, err)
				}
				checked[engine]++
			}
		}
	}
	for _, k := range pending {
		unchecked = append(unchecked, rels[k])
	}
	sort.Strings(unchecked)
	t.Logf("compared %d files: %v; no engine could read %d: %v", len(paths)-len(unchecked), checked, len(unchecked), unchecked)
}

// engineOrder is the order in which engines serve as the oracle for a
// corpus file. DuckDB comes first where it shows the stored values; it
// reads GEOMETRY/GEOGRAPHY and VARIANT as its own types (WKT, JSON), and
// hyparquet misreads shredded Variant groups (all null) and shows a map
// without values as a struct, so those go to arrow-rs first.
func engineOrder(rel string) []string {
	switch {
	case strings.Contains(rel, "/shredded_variant/"), strings.HasSuffix(rel, "/map_no_value.parquet"):
		return []string{"parquetwasm", "hyparquet"}
	case strings.Contains(rel, "/geospatial/"):
		return []string{"hyparquet", "parquetwasm"}
	}
	return []string{"duckdb", "hyparquet", "parquetwasm"}
}

func footer(p string) (*metadata.File, error) {
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

func readCanonical(p string, opts *arrowpq.ReadOptions) ([]byte, error) {
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	tbl, err := arrowpq.ReadTable(context.Background(), fh, st.Size(), opts)
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	return oracle.RenderTable(tbl)
}

// pqarrowReadsWrong lists corpus files that arrow-go's pqarrow reads
// without error but differently from the spec (CATALOG.md).
var pqarrowReadsWrong = map[string]string{
	"parquet-testing/data/old_list_structure.parquet": "reads list<struct<array: list<int32>>>",
}

// TestAgreesWithPqarrow compares our reading with arrow-go's pqarrow on
// every file pqarrow reads correctly.
func TestAgreesWithPqarrow(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	var n int
	for _, tree := range []string{"parquet-testing/data", "arrow-testing/data/parquet"} {
		root := filepath.Join(sharedTestdata, tree)
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, "/fuzzing/") {
				return err
			}
			rel, _ := filepath.Rel(sharedTestdata, p)
			if _, skip := pqarrowReadsWrong[rel]; skip {
				return nil
			}
			if _, err := footer(p); err != nil {
				return nil
			}
			theirs, err := readPqarrowCanonical(p)
			if err != nil {
				return nil // pqarrow fails on it: the conformance test covers it
			}
			tc := conformanceCases[rel]
			if tc.err != nil || tc.opts != nil {
				return nil
			}
			ours, err := readCanonical(p, nil)
			if err != nil {
				t.Errorf("%s: pqarrow reads it, we fail: %v", rel, err)
				return nil
			}
			// pqarrow reads INT96 as UTC-adjusted: allow the zone flag.
			if err := oracle.Compare(ours, theirs, oracle.Allowances{LegacyTimestampNaive: true}); err != nil {
				t.Errorf("%s: differs from pqarrow: %v", rel, err)
			}
			n++
			return nil
		})
	}
	if n < 50 {
		t.Errorf("compared only %d files with pqarrow", n)
	}
}

func readPqarrowCanonical(p string) (out []byte, err error) {
	// pqarrow panics on some corpus files (unknown-logical-type.parquet);
	// for the oracle that is just "cannot read it".
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, errors.New("pqarrow panicked")
		}
	}()
	fh, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	pf, err := file.NewParquetReader(fh)
	if err != nil {
		return nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer tbl.Release()
	return oracle.RenderTable(tbl)
}

// TestHostileFiles reads every file of bad_data/ and of the arrow-testing
// fuzz corpus to the end: each must give an error or data, never a panic
// (a panic fails the test binary) or a hang.
func TestHostileFiles(t *testing.T) {
	testshared.Need(t, sharedTestdata)
	// Files of bad_data/ that are expected to read: only the reproducer of
	// a crash with a 0-bit dictionary index (every index is 0).
	readable := map[string]bool{"ARROW-GH-43605.parquet": true}
	var n int
	for _, dir := range []string{"parquet-testing/bad_data", "arrow-testing/data/parquet/fuzzing"} {
		entries, err := os.ReadDir(filepath.Join(sharedTestdata, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p := filepath.Join(sharedTestdata, dir, e.Name())
			_, err := readCanonical(p, &arrowpq.ReadOptions{MaxPageSize: 64 << 20})
			n++
			if errors.Is(err, arrowpq.ErrInternal) {
				t.Errorf("%s: %v", e.Name(), err) // a recovered panic is a bug
			}
			if strings.HasSuffix(dir, "bad_data") {
				if readable[e.Name()] {
					if err != nil {
						t.Errorf("%s: %v", e.Name(), err)
					}
				} else if err == nil {
					t.Errorf("%s: read without error", e.Name())
				} else {
					var ae *arrowpq.Error
					if !errors.As(err, &ae) {
						t.Errorf("%s: error %v is not an *arrowpq.Error", e.Name(), err)
					}
					t.Logf("%s: %v", e.Name(), err)
				}
			}
		}
	}
	if n < 140 {
		t.Errorf("only %d hostile files", n)
	}
}
