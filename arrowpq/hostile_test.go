package arrowpq_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// hostileFiles are the files of testdata/hostile, each with a size field
// forged so that it once made the reader allocate without bound, panic,
// or both, and the error each must now give.
var hostileFiles = []struct {
	name   string
	want   error
	column string
}{
	// num_values of a page of a repeated column forged to 2^31-1: it sized
	// the repetition-level buffer before the limit that guarded the
	// definition levels.
	{"arrowpq-crash-002553.parquet", pagecodec.ErrLimit, "my_map.key_value.value"},
	// type_length of a FIXED_LEN_BYTE_ARRAY forged to 1 GiB: 999 rows of
	// it sized a 1 TB buffer.
	{"arrowpq-crash-014425.parquet", pagecodec.ErrLimit, "flba_field"},
	// uncompressed_page_size forged to 1 GiB over a 380 KB LZ4_RAW body:
	// allocated in full before decompression failed. Now above the
	// default page limit; TestForgedPageSize reads it with a larger one.
	{"arrowpq-hang-036339.parquet", pagecodec.ErrLimit, "a"},
	// total_uncompressed_size forged to 2^63-1: the byte array buffer
	// estimate overflowed, the allocation panicked, and Close panicked
	// again releasing the buffer that was never made.
	{"arrowpq-panic-024913.parquet", metadata.ErrCorrupt, "String"},
}

func hostileDir(t *testing.T) string {
	dir := filepath.Join(sharedTestdata, "hostile")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/testdata/hostile is missing")
	}
	return dir
}

// TestForgedSizes reads each file of testdata/hostile fully with the default options:
// a clean, located error in under a second with under 64 MiB allocated.
func TestForgedSizes(t *testing.T) {
	dir := hostileDir(t)
	for _, h := range hostileFiles {
		t.Run(h.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			err := readHostile(filepath.Join(dir, h.name), nil)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%v in %v, %d bytes allocated", err, elapsed, alloc)
			if !errors.Is(err, h.want) || errors.Is(err, arrowpq.ErrInternal) {
				t.Fatalf("got %v, want an error wrapping %v", err, h.want)
			}
			var e *arrowpq.Error
			if !errors.As(err, &e) || e.RowGroup != 0 || e.Column != h.column {
				t.Errorf("error %#v does not name row group 0, column %s", e, h.column)
			}
			if elapsed > time.Second {
				t.Errorf("took %v, want under a second", elapsed)
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d bytes, want under 64 MiB", alloc)
			}
		})
	}
}

// readHostile reads path to the end and returns the error; Close runs
// after the failure, as it does in every caller.
func readHostile(path string, opts *arrowpq.ReadOptions) error {
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
	}
	return r.Err()
}

// TestForgedPageSize reads the file whose uncompressed_page_size is forged
// to 1 GiB with a page limit that lets the header pass: the LZ4 body of
// 380 KB cannot decode to it (256 bytes a byte at most), which is found
// before the buffer is allocated.
func TestForgedPageSize(t *testing.T) {
	path := filepath.Join(hostileDir(t), "arrowpq-hang-036339.parquet")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := readHostile(path, &arrowpq.ReadOptions{MaxPageSize: 2 << 30})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, pagecodec.ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d bytes, want under 64 MiB", alloc)
	}
}
