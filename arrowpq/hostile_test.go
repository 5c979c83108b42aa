package arrowpq_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"

	"github.com/arrowpq/arrowpq/internal/racedetect"
	"github.com/arrowpq/arrowpq/internal/testshared"
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
	testshared.Need(t, dir)
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

// TestRepetitiveDictionaryStrings reads a legitimate file whose batch
// expands far beyond its column chunk: 64Ki rows of one 2 KiB string,
// dictionary encoded (128 MiB of Arrow data from a chunk of a few KB). The
// limits on values that expand from their page must let it through.
func TestRepetitiveDictionaryStrings(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 128 MiB")
	}
	racedetect.SkipSequential(t, "one column, read on one goroutine")
	const rows = 64 << 10
	long := strings.Repeat("0123456789abcdef", 128)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for range rows {
		b.Append(long)
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, rows)
	defer rec.Release()
	data := writeBytes(t, rec, nil)
	t.Logf("%d rows of %d bytes in a %d-byte file", rows, len(long), len(data))
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		s := r.RecordBatch().Column(0).(*array.String)
		n += s.Len()
		if s.Value(s.Len()-1) != long {
			t.Fatal("wrong value")
		}
	}
	if err := r.Err(); err != nil || n != rows {
		t.Fatalf("read %d rows, err %v; want %d", n, err, rows)
	}
}
