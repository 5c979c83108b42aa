package arrowpq_test

import (
	"crypto/md5"
	"encoding/hex"
	"flag"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

var largeFiles = flag.Bool("large", false, "run tests that read GiBs (on by default with ARROWPQ_REQUIRE_SHARED=1)")

// TestLargeStringMap reads large_string_map.brotli.parquet: a MAP<STRING,
// INT32> column whose column chunk holds two 1 GiB keys, 2 GiB in all,
// beyond what the int32 offsets of one String array reach. The batch ends
// early, after the first row, and both rows read in full.
//
// The expectations are DuckDB's (1.5.5, through the oracle's
// @duckdb/node-api; 42 s, 6.4 GB RSS):
//
//	SELECT cardinality(arr), length(map_keys(arr)[1]), md5(map_keys(arr)[1]), map_values(arr)[1]
//	FROM read_parquet('large_string_map.brotli.parquet')
//
// gives for both rows 1, 1073741824, adb5a28fda6ec2a01075b9945887a083, 1
// (the MD5 of 2^30 bytes 'a', as Python's hashlib computes it too).
func TestLargeStringMap(t *testing.T) {
	if !testshared.Required() && !*largeFiles {
		t.Skip("skipped: reads 2 GiB of strings; runs with ARROWPQ_REQUIRE_SHARED=1 (CI) or -large")
	}
	testshared.Need(t, sharedTestdata)
	path := filepath.Join(sharedTestdata, "parquet-testing/data/large_string_map.brotli.parquet")
	// Collect garbage early: each batch is a GiB, and the default GOGC
	// would let the heap reach twice the live GiBs before collecting.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	start := time.Now()
	// The pages hold 1 GiB + 4 bytes: above DefaultMaxPageSize.
	r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{MaxPageSize: 2 << 30, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var peak uint64
	var ms runtime.MemStats
	rows := 0
	var batches []int64
	for r.Next() {
		batch := r.RecordBatch()
		batches = append(batches, batch.NumRows())
		m := batch.Column(0).(*array.Map)
		keys := m.Keys().(*array.String)
		items := m.Items().(*array.Int32)
		for i := range m.Len() {
			lo, hi := m.ValueOffsets(i)
			if m.IsNull(i) || hi-lo != 1 {
				t.Errorf("row %d: %d entries (null %v), want 1", rows, hi-lo, m.IsNull(i))
				rows++
				continue
			}
			key := keys.Value(int(lo))
			// In pieces: []byte(key) would copy the GiB.
			h := md5.New()
			for k := 0; k < len(key); k += 1 << 20 {
				h.Write([]byte(key[k:min(k+1<<20, len(key))]))
			}
			sum := h.Sum(nil)
			if len(key) != 1<<30 || hex.EncodeToString(sum[:]) != "adb5a28fda6ec2a01075b9945887a083" {
				t.Errorf("row %d: key of %d bytes, MD5 %x; want 1073741824 bytes, MD5 adb5a28fda6ec2a01075b9945887a083", rows, len(key), sum)
			}
			if v := items.Value(int(lo)); items.IsNull(int(lo)) || v != 1 {
				t.Errorf("row %d: value %d (null %v), want 1", rows, v, items.IsNull(int(lo)))
			}
			rows++
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.Sys)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 2 {
		t.Errorf("%d rows, want 2", rows)
	}
	if len(batches) != 2 {
		t.Errorf("batches of %v rows, want two of one row each", batches)
	}
	t.Logf("%d rows in batches of %v rows in %v; Go runtime memory (Sys) up to %.1f GiB", rows, batches, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<30))
}
