package arrowpq_test

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	pqmeta "github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/metadata"
)

// TestWriteBloomFilter writes bloom filters for int64, float64, string
// (nested in a list too) and dictionary columns and reads them back with
// arrow-go's bloom filter reader, which hashes the values its own way: every
// written value must be found, and at least 99% of 10,000 absent ones not.
func TestWriteBloomFilter(t *testing.T) {
	mem := memory.DefaultAllocator
	const n = 5000
	ib := array.NewInt64Builder(mem)
	fb := array.NewFloat64Builder(mem)
	sb := array.NewStringBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	for i := range n {
		ib.Append(int64(i) * 3)
		fb.Append(float64(i) / 4)
		if i%10 == 0 {
			sb.AppendNull()
		} else {
			sb.Append("s" + strconv.Itoa(i))
		}
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).Append("l" + strconv.Itoa(i))
	}
	arrs := []arrow.Array{ib.NewArray(), fb.NewArray(), sb.NewArray(), lb.NewArray()}
	s := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	rec := array.NewRecordBatch(s, arrs, n)
	defer rec.Release()
	opts := &arrowpq.WriteOptions{Columns: map[string]arrowpq.ColumnOptions{
		"i": {BloomFilterNDV: n, BloomFilterFPP: 0.01},
		"f": {BloomFilterNDV: n, BloomFilterFPP: 0.01},
		"s": {BloomFilterNDV: n, BloomFilterFPP: 0.01},
		"l": {BloomFilterNDV: n, BloomFilterFPP: 0.01},
	}, RowGroupRows: 3000}
	b := writeBytes(t, rec, opts)

	// Our metadata package parses header and bitset.
	f := footerOf(t, b)
	for rg := range f.Meta.RowGroups {
		for col := range 4 {
			bf, err := metadata.ReadBloomFilter(bytes.NewReader(b), f, rg, col)
			if err != nil {
				t.Fatalf("rg %d col %d: %v", rg, col, err)
			}
			if len(bf.Bitset) != 8192 { // 5000 values at 1%: 5993 bytes -> 8192
				t.Errorf("rg %d col %d: bitset of %d bytes", rg, col, len(bf.Bitset))
			}
		}
	}

	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bfr := pf.GetBloomFilterReader()
	for rg := range pf.NumRowGroups() {
		rgr, err := bfr.RowGroup(rg)
		if err != nil {
			t.Fatal(err)
		}
		first, rows := rg*3000, min(3000, n-rg*3000)
		filters := make([]pqmeta.BloomFilter, 4)
		for col := range 4 {
			if filters[col], err = rgr.GetColumnBloomFilter(col); err != nil || filters[col] == nil {
				t.Fatalf("rg %d col %d: %v", rg, col, err)
			}
		}
		h := filters[0].Hasher()
		check := func(col int, present bool, hash uint64, what string) bool {
			got := filters[col].CheckHash(hash)
			if present && !got {
				t.Errorf("rg %d col %d: %s written but not found", rg, col, what)
			}
			return got
		}
		for i := first; i < first+rows; i++ {
			check(0, true, pqmeta.GetHash(h, int64(i)*3), "int")
			check(1, true, pqmeta.GetHash(h, float64(i)/4), "float")
			if i%10 != 0 {
				check(2, true, pqmeta.GetHash(h, parquet.ByteArray("s"+strconv.Itoa(i))), "string")
			}
			check(3, true, pqmeta.GetHash(h, parquet.ByteArray("l"+strconv.Itoa(i))), "list element")
		}
		fp := [4]int{}
		for k := range 10_000 {
			i := n + 1 + k
			for col, hash := range []uint64{
				pqmeta.GetHash(h, int64(i)*3+1),
				pqmeta.GetHash(h, float64(i)/4+0.1),
				pqmeta.GetHash(h, parquet.ByteArray("s"+strconv.Itoa(i))),
				pqmeta.GetHash(h, parquet.ByteArray("l"+strconv.Itoa(i))),
			} {
				if check(col, false, hash, "") {
					fp[col]++
				}
			}
		}
		for col, c := range fp {
			if c > 100 {
				t.Errorf("rg %d col %d: %d false positives in 10000", rg, col, c)
			}
		}
		t.Logf("rg %d: false positives per 10000: %v", rg, fp)
	}

	// A column without a bloom filter says so.
	b2 := writeBytes(t, rec, nil)
	f2 := footerOf(t, b2)
	if _, err := metadata.ReadBloomFilter(bytes.NewReader(b2), f2, 0, 0); !errors.Is(err, metadata.ErrNoBloomFilter) {
		t.Errorf("no bloom filter: %v", err)
	}
}

// TestBloomFilterBytes: the spec's sizing (m = -8·ndv / ln(1 - fpp^(1/8))
// bits) rounded up to a power of two: 1,000 values at 1% need 1,210 bytes
// (2,048); 2^20 at 1% 1,269,155 (2 MiB); the bounds hold.
func TestBloomFilterBytes(t *testing.T) {
	for _, c := range []struct {
		ndv  int64
		fpp  float64
		want int
	}{
		{0, 0.01, 0}, {-5, 0.01, 0}, {1, 0.01, 32}, {1000, 0.01, 2048}, {1000, 0, 2048},
		{1 << 20, 0.01, 2 << 20}, {1 << 40, 0.01, arrowpq.MaxBloomFilterBytes},
		{1000, 1, arrowpq.MaxBloomFilterBytes}, {1000, -1, arrowpq.MaxBloomFilterBytes},
	} {
		if got := arrowpq.BloomFilterBytes(c.ndv, c.fpp); got != c.want {
			t.Errorf("BloomFilterBytes(%d, %v) = %d, want %d", c.ndv, c.fpp, got, c.want)
		}
	}
}
