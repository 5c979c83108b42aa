package arrowpq_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestWriteEmpty: a file without rows (no Write, or a zero-row batch) is
// valid and keeps its schema.
func TestWriteEmpty(t *testing.T) {
	mem := memory.DefaultAllocator
	rec := genRecord(t, mem, 10, 0, 1)
	defer rec.Release()
	empty := rec.NewSlice(0, 0)
	defer empty.Release()
	for _, write := range []bool{false, true} {
		var buf bytes.Buffer
		w, err := arrowpq.NewWriter(&buf, rec.Schema(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if write {
			if err := w.Write(empty); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f := footerOf(t, buf.Bytes())
		if f.Meta.NumRows != 0 || len(f.Meta.RowGroups) != 0 {
			t.Errorf("%d rows in %d row groups", f.Meta.NumRows, len(f.Meta.RowGroups))
		}
		tbl := readOurs(t, buf.Bytes())
		if !tbl.Schema().Equal(rec.Schema()) || tbl.NumRows() != 0 {
			t.Errorf("read back %d rows of %s", tbl.NumRows(), tbl.Schema())
		}
		tbl.Release()
		if pt, err := readPqarrow(buf.Bytes()); err != nil && !strings.Contains(err.Error(), "duration") {
			t.Errorf("pqarrow: %v", err)
		} else if err == nil {
			pt.Release()
		}
	}
}

// TestWritePageAndRowGroupSizes: pages are cut by size for large values,
// row groups by bytes, and a chunked table is written chunk after chunk.
func TestWritePageAndRowGroupSizes(t *testing.T) {
	mem := memory.DefaultAllocator
	sb := array.NewStringBuilder(mem)
	for i := range 1000 {
		sb.Append(strings.Repeat(string(rune('a'+i%26)), 10_000))
	}
	arr := sb.NewArray()
	defer arr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arr.DataType(), Nullable: true}}, nil)
	// Three chunks of different lengths.
	var chunks []arrow.Array
	for _, r := range [][2]int64{{0, 100}, {100, 650}, {650, 1000}} {
		chunks = append(chunks, array.NewSlice(arr, r[0], r[1]))
	}
	chunked := arrow.NewChunked(arr.DataType(), chunks)
	col := arrow.NewColumn(schema.Field(0), chunked)
	tbl := array.NewTable(schema, []arrow.Column{*col}, 1000)
	defer tbl.Release()
	var buf bytes.Buffer
	opts := &arrowpq.WriteOptions{Dictionary: arrowpq.Off, Compression: arrowpq.Uncompressed, DataPageSize: 64 << 10, RowGroupBytes: 3 << 20}
	if err := arrowpq.WriteTable(&buf, tbl, opts); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	f := footerOf(t, b)
	// 10 MB of values in row groups of at least 3 MiB: 3 or 4 of them.
	if n := len(f.Meta.RowGroups); n < 3 || n > 4 {
		t.Errorf("%d row groups", n)
	}
	for rg, g := range f.Meta.RowGroups {
		oi, err := metadata.ReadOffsetIndex(bytes.NewReader(b), f, rg, 0)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range oi.PageLocations {
			// 64 KiB target, values of 10 KB: at most 7 values a page.
			if l.CompressedPageSize > 80_000 {
				t.Errorf("rg %d page %d: %d bytes", rg, i, l.CompressedPageSize)
			}
		}
		if g.NumRows > 0 && len(oi.PageLocations) < int(g.NumRows)/8 {
			t.Errorf("rg %d: %d pages for %d rows of 10 KB", rg, len(oi.PageLocations), g.NumRows)
		}
	}
	got := readOurs(t, b)
	defer got.Release()
	if err := oracle.Compare(renderTbl(t, got), renderTbl(t, tbl), oracle.Allowances{}); err != nil {
		t.Error(err)
	}
	for _, c := range chunks {
		c.Release()
	}
	chunked.Release()
}

// TestWriteDictionaryFallback: a dictionary that outgrows its limit falls
// back to the column's encoding mid-chunk; both kinds of pages are in the
// chunk, the dictionary page stays within the limit, and values survive.
func TestWriteDictionaryFallback(t *testing.T) {
	mem := memory.DefaultAllocator
	ib := array.NewInt64Builder(mem)
	for i := range 20_000 {
		// Ten values first, so that the dictionary pays, then new ones
		// until it is full.
		if i < 5000 {
			ib.Append(int64(i % 10))
		} else {
			ib.Append(int64(i))
		}
	}
	arr := ib.NewArray()
	rec := oneColumn("i", arr)
	defer rec.Release()
	for _, enc := range []arrowpq.Encoding{arrowpq.Plain, arrowpq.DeltaBinaryPacked} {
		b := writeBytes(t, rec, &arrowpq.WriteOptions{DictionaryPageSize: 8000, Encoding: enc, MaxRowsPerPage: 500})
		f := footerOf(t, b)
		md := f.Meta.RowGroups[0].Columns[0].MetaData
		var dictPages, dictData, other int32
		for _, es := range md.EncodingStats {
			switch {
			case es.PageType == format.PageType_DICTIONARY_PAGE:
				dictPages += es.Count
			case es.Encoding == format.Encoding_RLE_DICTIONARY:
				dictData += es.Count
			case es.Encoding == map[arrowpq.Encoding]format.Encoding{arrowpq.Plain: format.Encoding_PLAIN, arrowpq.DeltaBinaryPacked: format.Encoding_DELTA_BINARY_PACKED}[enc]:
				other += es.Count
			}
		}
		if dictPages != 1 || dictData == 0 || other == 0 {
			t.Errorf("%s: encoding stats %v", enc, md.EncodingStats)
		}
		// 8000 bytes hold 1000 INT64 values: the dictionary pages cover
		// at most that many rows.
		if md.DictionaryPageOffset == nil {
			t.Fatalf("%s: no dictionary page", enc)
		}
		dictSize := md.DataPageOffset - *md.DictionaryPageOffset
		if dictSize > 8100 {
			t.Errorf("%s: dictionary page of %d bytes", enc, dictSize)
		}
		tbl := readOurs(t, b)
		if err := oracle.Compare(renderTbl(t, tbl), renderRec(t, rec), oracle.Allowances{}); err != nil {
			t.Error(err)
		}
		tbl.Release()
		// 5000 rows of 10 values, then 1000 new values fill 8000 bytes.
		if dictData < 10 || dictData > 13 {
			t.Errorf("%s: %d dictionary-encoded pages of 500 rows, want 12", enc, dictData)
		}
	}

	// Unique values: the first page shows that the dictionary does not pay;
	// it is written PLAIN itself, as the rest of the chunk, long before the
	// limit, and the chunk has no dictionary page.
	ub := array.NewInt64Builder(mem)
	for i := range 20_000 {
		ub.Append(int64(i) * 7)
	}
	urec := oneColumn("u", ub.NewArray())
	defer urec.Release()
	b := writeBytes(t, urec, &arrowpq.WriteOptions{MaxRowsPerPage: 500})
	md := footerOf(t, b).Meta.RowGroups[0].Columns[0].MetaData
	if md.DictionaryPageOffset != nil {
		t.Errorf("dictionary page of unique values: %v", md.EncodingStats)
	}
	for _, es := range md.EncodingStats {
		if es.Encoding != format.Encoding_PLAIN {
			t.Errorf("unique values: encoding stats %v", md.EncodingStats)
		}
	}
	tbl := readOurs(t, b)
	defer tbl.Release()
	if err := oracle.Compare(renderTbl(t, tbl), renderRec(t, urec), oracle.Allowances{}); err != nil {
		t.Error(err)
	}
}

// TestWriteKeyValueMetadata: user metadata is written in key order,
// before ARROW:schema, and created_by names this package.
func TestWriteKeyValueMetadata(t *testing.T) {
	rec := genRecord(t, memory.DefaultAllocator, 3, 0, 1)
	defer rec.Release()
	b := writeBytes(t, rec, &arrowpq.WriteOptions{KeyValueMetadata: map[string]string{"b": "2", "a": "1"}})
	f := footerOf(t, b)
	var keys []string
	for _, kv := range f.Meta.KeyValueMetadata {
		keys = append(keys, kv.Key)
	}
	if strings.Join(keys, ",") != "a,b,ARROW:schema" {
		t.Errorf("keys %v", keys)
	}
	if f.CreatedBy() != "arrowpq version "+arrowpq.Version {
		t.Errorf("created_by %q", f.CreatedBy())
	}
	b = writeBytes(t, rec, &arrowpq.WriteOptions{ArrowSchema: arrowpq.Off})
	if _, ok := footerOf(t, b).KeyValue("ARROW:schema"); ok {
		t.Error("ARROW:schema written with ArrowSchema Off")
	}
}

// TestWriteNullFixedSizeList writes null fixed-size lists and checks them
// with pqarrow and DuckDB (our reader: TestNullFixedSizeList).
func TestWriteNullFixedSizeList(t *testing.T) {
	mem := memory.DefaultAllocator
	lb := array.NewFixedSizeListBuilder(mem, 2, arrow.PrimitiveTypes.Int32)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	for i := range 10 {
		if i%3 == 1 {
			lb.AppendNull() // the builder adds two child slots under it
			continue
		}
		lb.Append(true)
		vb.Append(int32(i))
		vb.AppendNull()
	}
	arr := lb.NewArray()
	rec := oneColumn("fsl", arr)
	defer rec.Release()
	sliced := rec.NewSlice(1, 9)
	defer sliced.Release()
	b := writeBytes(t, sliced, nil)
	want := renderRec(t, sliced)
	pt, err := readPqarrow(b)
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Release()
	if err := oracle.Compare(renderTbl(t, pt), want, oracle.Allowances{}); err != nil {
		t.Errorf("pqarrow: %v", err)
	}
	p := t.TempDir() + "/fsl.parquet"
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.Need(t)
	res, err := oracle.DumpMany("duckdb", []string{p})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != "" {
		t.Fatal(res[0].Err)
	}
	if err := oracle.Compare(res[0].Rows, want, oracle.AllowancesFor("duckdb")); err != nil {
		t.Errorf("duckdb: %v", err)
	}
}

// TestWriteDictionaryDecisions: per column chunk, after the first page,
// unique values and a sorted key with runs of 1 to 7 rows are written
// PLAIN with no dictionary page, values of few distinct values in any
// order keep their dictionary (SNAPPY and ZSTD); DuckDB and pqarrow read
// every file back with the values written.
func TestWriteDictionaryDecisions(t *testing.T) {
	mem := memory.DefaultAllocator
	const n = 50_000
	r := rand.New(rand.NewPCG(17, 1))
	uniq, key, few := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewInt32Builder(mem)
	keyStr, fewStr := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
	k, left := int64(0), 0
	for i := range n {
		uniq.Append(int64(i)*7919 + 13)
		if left == 0 {
			k, left = k+1+int64(r.IntN(3)), 1+r.IntN(7)
		}
		left--
		key.Append(k)
		keyStr.Append(fmt.Sprintf("order-%09d", k))
		v := r.IntN(300)
		few.Append(int32(v))
		if i%11 == 0 {
			fewStr.AppendNull()
		} else {
			fewStr.Append(fmt.Sprintf("city-%03d", v))
		}
	}
	cols := []arrow.Array{uniq.NewArray(), key.NewArray(), keyStr.NewArray(), few.NewArray(), fewStr.NewArray()}
	names := []string{"uniq", "key", "key_str", "few", "few_str"}
	wantDict := []bool{false, false, false, true, true}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
		defer c.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
	defer rec.Release()
	want := renderRec(t, rec)
	oracle.Need(t)
	for _, codec := range []arrowpq.Compression{arrowpq.Snappy, arrowpq.Zstd} {
		b := writeBytes(t, rec, &arrowpq.WriteOptions{Compression: codec, RowGroupRows: 20_000})
		for rg, g := range footerOf(t, b).Meta.RowGroups {
			for i, c := range g.Columns {
				if got := c.MetaData.DictionaryPageOffset != nil; got != wantDict[i] {
					t.Errorf("%s row group %d column %s: dictionary %v, want %v (%v)", codec, rg, names[i], got, wantDict[i], c.MetaData.EncodingStats)
				}
			}
		}
		pt, err := readPqarrow(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := oracle.Compare(renderTbl(t, pt), want, oracle.Allowances{}); err != nil {
			t.Errorf("%s: pqarrow: %v", codec, err)
		}
		pt.Release()
		p := filepath.Join(t.TempDir(), "dict.parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := oracle.DumpMany("duckdb", []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Err != "" {
			t.Fatal(res[0].Err)
		}
		if err := oracle.Compare(res[0].Rows, want, oracle.AllowancesFor("duckdb")); err != nil {
			t.Errorf("%s: duckdb: %v", codec, err)
		}
	}
}

// TestWriteAllNullDictionaryColumn: a dictionary column whose chunk holds
// only nulls has no dictionary page and PLAIN pages without values; pqarrow
// and DuckDB read it, and so does our reader (with an empty dictionary).
func TestWriteAllNullDictionaryColumn(t *testing.T) {
	mem := memory.DefaultAllocator
	ib := array.NewInt32Builder(mem)
	ib.AppendNulls(3)
	ind := ib.NewArray()
	sb := array.NewStringBuilder(mem)
	sb.Append("x")
	dv := sb.NewArray()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	rec := oneColumn("d", array.NewDictionaryArray(dt, ind, dv))
	defer rec.Release()
	b := writeBytes(t, rec, nil)
	f := footerOf(t, b)
	md := f.Meta.RowGroups[0].Columns[0].MetaData
	if md.DictionaryPageOffset != nil {
		t.Errorf("dictionary page for a chunk without values")
	}
	pt, err := readPqarrow(b)
	if err != nil {
		t.Fatal(err)
	}
	defer pt.Release()
	want := renderRec(t, rec)
	if err := oracle.Compare(renderTbl(t, pt), want, oracle.Allowances{}); err != nil {
		t.Errorf("pqarrow: %v", err)
	}
	// Our reader gives the dictionary column back with an empty dictionary.
	ours, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatalf("arrowpq: %v", err)
	}
	defer ours.Release()
	if err := oracle.Compare(renderTbl(t, ours), want, oracle.Allowances{}); err != nil {
		t.Errorf("arrowpq: %v", err)
	}
	p := t.TempDir() + "/d.parquet"
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	oracle.Need(t)
	res, err := oracle.DumpMany("duckdb", []string{p})
	if err != nil {
		t.Fatal(err)
	}
	if err := oracle.Compare(res[0].Rows, want, oracle.AllowancesFor("duckdb")); err != nil || res[0].Err != "" {
		t.Errorf("duckdb: %v %s", err, res[0].Err)
	}
}

// TestWriteNoChecksums: with PageChecksums Off no page header has a crc.
func TestWriteNoChecksums(t *testing.T) {
	rec := genRecord(t, memory.DefaultAllocator, 50, 0, 2)
	defer rec.Release()
	b := writeBytes(t, rec, &arrowpq.WriteOptions{PageChecksums: arrowpq.Off})
	f := footerOf(t, b)
	for _, cc := range f.Meta.RowGroups[0].Columns {
		pos := cc.MetaData.DataPageOffset
		if cc.MetaData.DictionaryPageOffset != nil {
			pos = *cc.MetaData.DictionaryPageOffset
		}
		h := format.NewPageHeader()
		if _, err := metadata.Unmarshal(b[pos:], h); err != nil {
			t.Fatal(err)
		}
		if h.Crc != nil {
			t.Fatalf("column %v: crc written", cc.MetaData.PathInSchema)
		}
	}
}
