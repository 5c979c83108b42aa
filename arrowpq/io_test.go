package arrowpq

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/internal/racedetect"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// countingReaderAt records the ReadAt calls made on it and fails those
// that start in [4, failAt) (when set): the column chunks after the
// leading magic, not the magic or the footer.
type countingReaderAt struct {
	r      *bytes.Reader
	mu     sync.Mutex
	calls  [][2]int64 // offset, length
	failAt int64
}

var errInjected = errors.New("injected read failure")

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	c.calls = append(c.calls, [2]int64{off, int64(len(p))})
	c.mu.Unlock()
	if c.failAt > 0 && off >= 4 && off < c.failAt {
		return 0, errInjected
	}
	return c.r.ReadAt(p, off)
}

func TestAppendPieces(t *testing.T) {
	buf := make([]byte, 5<<20)
	for _, c := range []struct {
		size, parallelism int
		want              []int // piece lengths
	}{
		{5 << 20, 1, []int{5 << 20}},
		{5 << 20, 2, []int{5 << 19, 5 << 19}},
		{5<<20 - 1, 2, []int{5 << 19, 5<<19 - 1}},
		{3 << 19, 4, []int{3 << 19}}, // 1.5 MiB: one piece of at least 1 MiB
		{5 << 20, 4, []int{5 << 18, 5 << 18, 5 << 18, 5 << 18}},
		{100, 8, []int{100}},
	} {
		pieces := appendPieces(nil, buf[:c.size], 1000, c.parallelism)
		if len(pieces) != len(c.want) {
			t.Errorf("%d bytes, parallelism %d: %d pieces, want %d", c.size, c.parallelism, len(pieces), len(c.want))
			continue
		}
		off := int64(1000)
		for i, p := range pieces {
			if len(p.dst) != c.want[i] || p.offset != off || &p.dst[0] != &buf[off-1000] {
				t.Errorf("%d bytes, parallelism %d: piece %d is %d bytes at %d", c.size, c.parallelism, i, len(p.dst), p.offset)
			}
			off += int64(len(p.dst))
		}
	}
}

// TestOneReadPerRowGroup: reading whole chunks (ChunkWindow < 0) and
// without parallelism, the reader makes one ReadAt per row group for the
// projected columns (neighbouring chunks coalesced), and reads no chunk
// twice.
func TestOneReadPerRowGroup(t *testing.T) {
	data, src := poolTestFile(t, 20_000) // two row groups
	defer src.Release()
	for _, cols := range [][]string{nil, {"i", "l"}, {"s"}} {
		c := &countingReaderAt{r: bytes.NewReader(data)}
		r, err := NewReader(c, int64(len(data)), &ReadOptions{Columns: cols, Parallelism: 1, BatchSize: 3000, ChunkWindow: -1})
		if err != nil {
			t.Fatal(err)
		}
		footerCalls := len(c.calls)
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if got := len(c.calls) - footerCalls; got != 2 {
			t.Errorf("columns %v: %d reads for 2 row groups: %v", cols, got, c.calls[footerCalls:])
		}
		// The chunk reads do not overlap.
		for i, a := range c.calls[footerCalls:] {
			for _, b := range c.calls[footerCalls+i+1:] {
				if a[0] < b[0]+b[1] && b[0] < a[0]+a[1] {
					t.Errorf("columns %v: reads %v and %v overlap", cols, a, b)
				}
			}
		}
	}
}

// TestWindowedReads: reading chunks in windows, each ReadAt stays within
// one chunk and reads at most a window (or a page and its header, when
// larger), and every byte of the projected chunks is read once: the start
// of a page cut by the end of a window is kept, not read again.
func TestWindowedReads(t *testing.T) {
	data, src := poolTestFile(t, 20_000) // two row groups
	defer src.Release()
	for _, window := range []int{0, 64 << 10, 4096, 100} {
		// Two goroutines only under the race detector; the plain run reads
		// with one as well.
		for _, par := range racedetect.Sample([]int{2, 1}, 2) {
			for _, cols := range [][]string{nil, {"i", "l"}, {"s"}} {
				c := &countingReaderAt{r: bytes.NewReader(data)}
				r, err := NewReader(c, int64(len(data)), &ReadOptions{Columns: cols, Parallelism: par, BatchSize: 3000, ChunkWindow: window})
				if err != nil {
					t.Fatal(err)
				}
				footerCalls := len(c.calls)
				var chunks []chunkRange
				maxPage := 0 // header and body
				for rg := range r.file.Meta.RowGroups {
					cr, _, _, err := r.chunkLayout(rg)
					if err != nil {
						t.Fatal(err)
					}
					chunks = append(chunks, cr...)
					for _, ch := range cr {
						var pr pagecodec.PageReader
						pr.Reset(data[ch.offset:ch.end], 0, pagecodec.PageReaderOptions{})
						for {
							start := pr.Offset()
							if _, err := pr.NextHeader(); err != nil {
								break
							}
							pr.Skip()
							maxPage = max(maxPage, pr.Offset()-start)
						}
					}
				}
				for r.Next() {
				}
				if err := r.Err(); err != nil {
					t.Fatal(err)
				}
				r.Close()
				name := fmt.Sprintf("window %d, parallelism %d, columns %v", window, par, cols)
				calls := c.calls[footerCalls:]
				covered := make(map[int64]int)
				for _, call := range calls {
					in := false
					for _, ch := range chunks {
						in = in || call[0] >= ch.offset && call[0]+call[1] <= ch.end
					}
					if !in {
						t.Errorf("%s: read %v is not inside one chunk", name, call)
					}
					if call[1] > int64(max(window, DefaultChunkWindow*b2i(window == 0), maxPage)) {
						t.Errorf("%s: read %v larger than the window and the pages", name, call)
					}
					for o := call[0]; o < call[0]+call[1]; o++ {
						covered[o]++
					}
				}
				var want, twice int64
				for _, ch := range chunks {
					want += ch.end - ch.offset
					for o := ch.offset; o < ch.end; o++ {
						switch covered[o] {
						case 0:
							t.Fatalf("%s: byte %d of chunk %v not read", name, o, ch)
						case 1:
						default:
							twice++
						}
					}
				}
				if twice > 0 {
					t.Errorf("%s: %d bytes read twice in %d reads", name, twice, len(calls))
				}
				t.Logf("%s: %d reads of %d chunk bytes", name, len(calls), want)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestReadErrorSaysWhere: a failing ReadAt, with parallel pieces or not,
// surfaces as an *Error naming the row group and the offset of the failed
// read, wrapping the cause.
func TestReadErrorSaysWhere(t *testing.T) {
	data, src := poolTestFile(t, 20_000)
	defer src.Release()
	for _, par := range []int{1, 4} {
		c := &countingReaderAt{r: bytes.NewReader(data), failAt: 100}
		r, err := NewReader(c, int64(len(data)), &ReadOptions{Parallelism: par})
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		err = r.Err()
		r.Close()
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, errInjected) {
			t.Fatalf("parallelism %d: %v", par, err)
		}
		if e.RowGroup != 0 || e.Offset < 4 || e.Offset >= 100 {
			t.Errorf("parallelism %d: error at row group %d, offset %d: %v", par, e.RowGroup, e.Offset, err)
		}
	}
}

// TestOrderByWork: parallel decoding starts with the field whose chunks
// are largest (the strings of poolTestFile), then the others by size.
func TestOrderByWork(t *testing.T) {
	data, src := poolTestFile(t, 20_000)
	defer src.Release()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	size := func(field int) int64 {
		var n int64
		for _, leaf := range r.plan.fields[field].(*fieldReader).order {
			n += r.file.Meta.RowGroups[0].Columns[leaf].MetaData.TotalUncompressedSize
		}
		return n
	}
	order := r.plan.order
	if len(order) != 3 || r.Schema().Field(order[0]).Name != "s" {
		t.Fatalf("order %v: want the string field first", order)
	}
	for i := 1; i < len(order); i++ {
		if size(order[i-1]) < size(order[i]) {
			t.Errorf("order %v: field %d (%d bytes) before field %d (%d bytes)", order, order[i-1], size(order[i-1]), order[i], size(order[i]))
		}
	}
}

// corpusDir holds the shared corpora (as sharedTestdata of the external tests).
const corpusDir = "../../shared/testdata"

// TestChunkWindowsMatchWhole reads every file of the shared corpora (bad
// files included) and a file of two row groups with large string chunks
// with whole chunks (ChunkWindow < 0) and in windows of every size (1
// byte, smaller than a page, about a page, the default), serially and in
// parallel: the same batches, and the same error.
func TestChunkWindowsMatchWhole(t *testing.T) {
	testshared.Need(t, corpusDir)
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for _, tree := range []string{"parquet-testing", "arrow-testing"} {
		root := filepath.Join(corpusDir, tree)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 8<<20 {
				return err
			}
			inputs = append(inputs, input{strings.TrimPrefix(p, root+"/"), b})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	data, src := poolTestFile(t, 20_000)
	defer src.Release()
	inputs = append(inputs, input{"poolTestFile", data})
	read := func(data []byte, opts ReadOptions) ([]arrow.RecordBatch, error) {
		r, err := NewReader(bytes.NewReader(data), int64(len(data)), &opts)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var out []arrow.RecordBatch
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			out = append(out, rec)
		}
		return out, r.Err()
	}
	release := func(recs []arrow.RecordBatch) {
		for _, r := range recs {
			r.Release()
		}
	}
	for i, in := range inputs {
		for _, par := range []int{1, 2} {
			opts := ReadOptions{Parallelism: par, BatchSize: []int{0, 1000, 77}[i%3]}
			opts.ChunkWindow = -1
			want, wantErr := read(in.data, opts)
			for _, w := range []int{1, 97, 4096, 0} {
				opts.ChunkWindow = w
				got, err := read(in.data, opts)
				name := fmt.Sprintf("%s window %d parallelism %d", in.name, w, par)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("%s: error %v, in whole chunks %v", name, err, wantErr)
				}
				if len(got) != len(want) {
					t.Errorf("%s: %d batches, in whole chunks %d", name, len(got), len(want))
				} else {
					for k := range got {
						if !array.RecordEqual(got[k], want[k]) && !array.RecordApproxEqual(got[k], want[k], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
							t.Errorf("%s: batch %d differs", name, k)
							break
						}
					}
				}
				release(got)
			}
			release(want)
		}
	}
}
