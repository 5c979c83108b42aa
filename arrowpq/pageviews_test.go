package arrowpq_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// viewEncodingsFile is a file whose string columns take every way a view
// is made: PLAIN pages, dictionary pages, a dictionary that falls back to
// PLAIN within the chunk, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY
// pages, a list of strings; with nulls, values of 0 to 60 bytes and small
// pages, so that a batch spans pages and a page spans batches.
func viewEncodingsFile(t *testing.T, codec compress.Compression, v2 bool) []byte {
	t.Helper()
	const rows = 6000
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "plain", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dict", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "fallback", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dlba", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "dba", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rng := rand.New(rand.NewPCG(12, 21))
	text := func(n int) string {
		const letters = "abcdefghijklmnopqrstuvwxyzé€"
		var s strings.Builder
		for s.Len() < n {
			s.WriteByte(letters[rng.IntN(26)])
			if rng.IntN(20) == 0 {
				s.WriteString("é")
			}
		}
		return s.String()
	}
	for i := range rows {
		for c := range 5 {
			if rng.IntN(8) == 0 {
				b.Field(c).AppendNull()
				continue
			}
			var s string
			switch c {
			case 1:
				s = fmt.Sprintf("category %d", rng.IntN(30)) // dictionary-friendly
			default:
				s = fmt.Sprintf("%d:%s", i, text(rng.IntN(60)))
			}
			if c == 4 {
				b.Field(c).(*array.BinaryBuilder).Append([]byte(s))
			} else {
				b.Field(c).(*array.StringBuilder).Append(s)
			}
		}
		lb := b.Field(5).(*array.ListBuilder)
		if rng.IntN(10) == 0 {
			lb.AppendNull()
			continue
		}
		lb.Append(true)
		for range rng.IntN(4) {
			lb.ValueBuilder().(*array.StringBuilder).Append(text(rng.IntN(30)))
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	return writePqarrow(t, rec, parquet.NewWriterProperties(
		parquet.WithCompression(codec),
		parquet.WithDataPageVersion(version),
		parquet.WithMaxRowGroupLength(2500),
		parquet.WithDataPageSize(2<<10),
		parquet.WithDictionaryPageSizeLimit(4<<10),
		parquet.WithDictionaryFor("plain", false),
		parquet.WithDictionaryFor("dlba", false),
		parquet.WithEncodingFor("dlba", parquet.Encodings.DeltaLengthByteArray),
		parquet.WithDictionaryFor("dba", false),
		parquet.WithEncodingFor("dba", parquet.Encodings.DeltaByteArray)))
}

// TestPageViewsKeepValues reads files with ReadOptions.Views, whose long
// values point into the pages and dictionaries they were decoded from,
// keeping every batch; then reads them again twice into the closed
// Readers' buffers, poisoned first, and collects garbage. Every batch kept
// must still show the values of the default read (strings decoded into
// their own offsets and data, a separate path), row for row, and be a
// valid Arrow array: a page buffer, read-ahead slot or dictionary that the
// reader read into again, or handed to a later Reader, would show another
// page's bytes or the poison. Serial, with read ahead (Parallelism 2, every chunk),
// through small chunk windows (uncompressed pages are then copied), and
// filtered (the encodings file: pages skipped, rows dropped);
// the files: the encodings above (SNAPPY and UNCOMPRESSED, v1 and v2
// pages), the benchmark datasets, all types, parquet-testing's data files.
func TestPageViewsKeepValues(t *testing.T) {
	files := []uninitFile{
		{"encodings/snappy-v1", viewEncodingsFile(t, compress.Codecs.Snappy, false)},
		{"encodings/uncompressed-v1", viewEncodingsFile(t, compress.Codecs.Uncompressed, false)},
		{"encodings/zstd-v2", viewEncodingsFile(t, compress.Codecs.Zstd, true)},
		{"encodings/uncompressed-v2", viewEncodingsFile(t, compress.Codecs.Uncompressed, true)},
	}
	files = append(files, uninitFiles(t)...)
	opts := []struct {
		name string
		opts arrowpq.ReadOptions
	}{
		{"serial", arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1}},
		{"parallel", arrowpq.ReadOptions{BatchSize: 1500, Parallelism: 2}},
		{"windows", arrowpq.ReadOptions{BatchSize: 700, Parallelism: 1, ChunkWindow: 1 << 10}},
		{"filtered", arrowpq.ReadOptions{BatchSize: 900, Parallelism: 1, Filter: mustFilter(t, "dict IN ('category 3', 'category 17') OR plain < '2'")}},
	}
	// Every chunk read ahead with Parallelism 2, not only those of 1 MiB.
	arrowpq.SetPrefetchMinBytes(1)
	defer arrowpq.SetPrefetchMinBytes(0)
	viewColumns := 0
	for _, f := range files {
		for _, o := range opts {
			if o.opts.Filter != nil && !strings.HasPrefix(f.name, "encodings/") {
				continue // the filter names the encodings file's columns
			}
			t.Run(f.name+"/"+o.name, func(t *testing.T) {
				want, werr := readAllBatches(f.data, o.opts)
				defer releaseAll(want)
				vo := o.opts
				vo.Views = true
				got, err := readAllBatches(f.data, vo)
				defer releaseAll(got)
				if (err == nil) != (werr == nil) {
					t.Fatalf("views: %v, default read: %v", err, werr)
				}
				if err != nil && !strings.HasPrefix(f.name, "parquet-testing/") {
					t.Fatal(err)
				}
				for _, fill := range []byte{0xA5, 0x5A} {
					arrowpq.PoisonRetired(fill)
					again, _ := readAllBatches(f.data, vo)
					releaseAll(again)
				}
				runtime.GC()
				runtime.GC()
				if len(got) != len(want) {
					t.Fatalf("%d batches, default read %d", len(got), len(want))
				}
				for i := range got {
					viewColumns += countViews(got[i].Schema().Fields())
					for c, col := range got[i].Columns() {
						if v, ok := col.(interface{ ValidateFull() error }); ok {
							if err := v.ValidateFull(); err != nil {
								t.Fatalf("batch %d column %d: %v", i, c, err)
							}
						}
					}
					for c := range got[i].Columns() {
						g, w := got[i].Column(c), want[i].Column(c)
						for row := range g.Len() {
							if gs, ws := g.ValueStr(row), w.ValueStr(row); gs != ws || g.IsNull(row) != w.IsNull(row) {
								t.Fatalf("batch %d column %d row %d: views %s, default %s", i, c, row, gs, ws)
							}
						}
					}
				}
			})
		}
	}
	if viewColumns == 0 {
		t.Fatal("no batch held a view column: the test covers nothing")
	}
}

// countViews counts the string and binary view fields in fields and their
// children.
func countViews(fields []arrow.Field) int {
	n := 0
	for _, f := range fields {
		switch dt := f.Type.(type) {
		case *arrow.StringViewType, *arrow.BinaryViewType:
			n++
		case arrow.NestedType:
			n += countViews(dt.Fields())
		}
	}
	return n
}

func mustFilter(t *testing.T, text string) *arrowpq.Predicate {
	t.Helper()
	p, err := arrowpq.ParseFilter(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFilteredReadLayouts reads the encodings file filtered, with the
// layouts arrow-go's compute.Filter has no kernels for (string and binary
// views, lists as list views, a column run-end encoded), against the same
// filtered read in the default layouts, row for row: a filter that keeps
// scattered rows copies them column by column (filterColumns).
func TestFilteredReadLayouts(t *testing.T) {
	data := viewEncodingsFile(t, compress.Codecs.Snappy, false)
	filter := mustFilter(t, "dict IN ('category 3', 'category 17') OR plain < '2'")
	base := arrowpq.ReadOptions{BatchSize: 1000, Parallelism: 1, Filter: filter}
	want, err := readAllBatches(data, base)
	defer releaseAll(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		set  func(*arrowpq.ReadOptions)
	}{
		{"views", func(o *arrowpq.ReadOptions) { o.Views = true }},
		{"list views", func(o *arrowpq.ReadOptions) { o.ListViews = true }},
		{"run-end encoded", func(o *arrowpq.ReadOptions) { o.RunEndEncoded = []string{"fallback"} }},
		{"all", func(o *arrowpq.ReadOptions) {
			o.Views, o.ListViews, o.RunEndEncoded = true, true, []string{"fallback", "dlba"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.set(&o)
			got, err := readAllBatches(data, o)
			defer releaseAll(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d batches, want %d", len(got), len(want))
			}
			rows := 0
			for i := range got {
				if err := array.ValidateRecordFull(got[i]); err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				if got[i].NumRows() != want[i].NumRows() {
					t.Fatalf("batch %d: %d rows, want %d", i, got[i].NumRows(), want[i].NumRows())
				}
				for col := range got[i].Columns() {
					g, w := got[i].Column(col), want[i].Column(col)
					for row := range int(got[i].NumRows()) {
						if gs, ws := valueText(g, row), valueText(w, row); gs != ws {
							t.Fatalf("batch %d column %d row %d: %s, want %s", i, col, row, gs, ws)
						}
					}
				}
				rows += int(got[i].NumRows())
			}
			if rows == 0 || rows == 6000 {
				t.Fatalf("the filter kept %d of 6,000 rows: the test covers no scattered selection", rows)
			}
		})
	}
}

// valueText is row i of arr as text, a run-end encoded array's row as its
// value's.
func valueText(arr arrow.Array, i int) string {
	if ree, ok := arr.(*array.RunEndEncoded); ok {
		return valueText(ree.Values(), ree.GetPhysicalIndex(i))
	}
	if arr.IsNull(i) {
		return "null"
	}
	return arr.ValueStr(i)
}
