package benchmarks

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// capturedProfile is DuckDB 1.5.5's JSON profile (PRAGMA
// enable_profiling='json') of scanQuery on the nested SNAPPY file with 2
// threads, cut down to the keys around the operator tree. The operator
// timings are sums over the threads: 0.64 s of operators in 0.33 s of
// latency.
const capturedProfile = `{
 "rows_returned": 1,
 "query_name": "SELECT count(*) AS n, bit_xor(hash(COLUMNS(*))) FROM read_parquet('/tmp/arrowpq-bench/nested-500000-SNAPPY.parquet')",
 "cpu_time": 0.6374222610000002,
 "extra_info": {},
 "cumulative_rows_scanned": 1000000,
 "latency": 0.332339358,
 "children": [
  {
   "operator_timing": 0.006857757999999997,
   "operator_type": "UNGROUPED_AGGREGATE",
   "cpu_time": 0.6374128370000002,
   "extra_info": {},
   "operator_cardinality": 1,
   "operator_name": "UNGROUPED_AGGREGATE",
   "children": [
    {
     "operator_timing": 0.18447314600000006,
     "operator_type": "PROJECTION",
     "cpu_time": 0.6305550790000002,
     "extra_info": {"Projections": ["hash(id)", "hash(ints)", "hash(items)", "hash(attrs)"]},
     "operator_cardinality": 500000,
     "operator_name": "PROJECTION",
     "children": [
      {
       "operator_timing": 0.4460819330000001,
       "operator_type": "TABLE_SCAN",
       "cpu_time": 0.4460819330000001,
       "extra_info": {"Function": "READ_PARQUET", "Projections": ["id", "ints", "items", "attrs"], "Total Files Read": "1"},
       "operator_cardinality": 500000,
       "operator_name": "READ_PARQUET",
       "children": []
      }
     ]
    }
   ]
  }
 ]
}`

func TestParseScanTime(t *testing.T) {
	got, err := parseScanTime(capturedProfile)
	if err != nil {
		t.Fatal(err)
	}
	want := scanTime{scan: 446081933 * time.Nanosecond, operators: 637422261 * time.Nanosecond, latency: 332339358 * time.Nanosecond}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}

	// Two scans (a join, say) add up; no scan, or no JSON, is an error.
	two := `{"latency": 1, "children": [{"operator_type": "HASH_JOIN", "operator_timing": 0.5, "children": [
		{"operator_type": "TABLE_SCAN", "operator_timing": 0.25, "children": []},
		{"operator_type": "TABLE_SCAN", "operator_timing": 0.125}]}]}`
	if got, err := parseScanTime(two); err != nil || got.scan != 375*time.Millisecond {
		t.Errorf("two scans: %v, %v; want 375ms", got.scan, err)
	}
	noScan := `{"latency": 0.1, "children": [{"operator_type": "PROJECTION", "operator_timing": 0.1, "children": []}]}`
	if _, err := parseScanTime(noScan); err == nil || !strings.Contains(err.Error(), "no TABLE_SCAN") {
		t.Errorf("no scan: err = %v", err)
	}
	if _, err := parseScanTime("Query Profiling Information"); err == nil {
		t.Error("text profile: no error")
	}
}

func TestSamples(t *testing.T) {
	s := samples{5, 1, 4, 2, 3}
	if s.median() != 3 || s.min() != 1 || s.max() != 5 || s.spread(1) != "3.0 (1.0–5.0)" {
		t.Errorf("odd: median %v min %v max %v spread %q", s.median(), s.min(), s.max(), s.spread(1))
	}
	if m := (samples{4, 1, 3, 2}).median(); m != 2.5 {
		t.Errorf("even median = %v, want 2.5", m)
	}
}

// TestDuckDBWideFile writes a small wide file (2,000 INT64 columns, 2,000
// rows) with DuckDB as the read comparison does, checks through arrowpq's
// reader that it has one row group of dictionary-encoded chunks, and
// compares every column's sum as arrowpq reads it with DuckDB's.
func TestDuckDBWideFile(t *testing.T) {
	const rows = 2000
	duck := duckDB(t, 1)
	for _, codec := range benchCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wide.parquet")
			duck.must(t, "run", wideSQL(path, rows, codec))
			if err := checkWideFile(path, rows); err != nil {
				t.Fatal(err)
			}
			sums := make([]string, wideColumns)
			for k := range sums {
				sums[k] = fmt.Sprintf("sum(c%d)::VARCHAR AS s%d", k, k)
			}
			want := duck.must(t, "run", fmt.Sprintf("SELECT %s FROM read_parquet(%s)", strings.Join(sums, ", "), sqlString(path))).Rows
			if len(want) != 1 {
				t.Fatalf("duckdb: %d rows", len(want))
			}
			got := make([]int64, wideColumns)
			r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n := 0
			for r.Next() {
				rec := r.RecordBatch()
				n += int(rec.NumRows())
				for k := range wideColumns {
					for _, v := range rec.Column(k).(*array.Int64).Int64Values() {
						got[k] += v
					}
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if n != rows {
				t.Fatalf("read %d rows, want %d", n, rows)
			}
			for k := range wideColumns {
				w, err := strconv.ParseInt(fmt.Sprint(want[0][fmt.Sprintf("s%d", k)]), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				if got[k] != w {
					t.Errorf("column c%d: sum %d, DuckDB %d", k, got[k], w)
				}
			}
			// Column 7 holds rows/8 distinct values, so its sum is far
			// from that of a column of zeros or of one repeated value.
			if got[7] < rows || got[7] > rows*rows/8 {
				t.Errorf("column c7: sum %d out of range", got[7])
			}
		})
	}
}
