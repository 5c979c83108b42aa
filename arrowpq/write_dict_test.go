package arrowpq_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// dictCase is a dictionary column: its index type and a builder of
// dictionary values (distinct, in an order the batch number shuffles).
type dictCase struct {
	name  string
	index arrow.DataType
	value arrow.DataType
	// values appends the dictionary's k distinct values; a null at
	// position nullAt (if >= 0) is referenced only by null slots.
	values func(b array.Builder, k int)
	k      int
}

func dictCases() []dictCase {
	return []dictCase{
		{"str", arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.StringBuilder).Append(fmt.Sprintf("w%03d-%s", i*7%k, []string{"", "a", "zz", "ü"}[i%4]))
			}
		}, 60},
		// Values that share their first 8 bytes: min and max need the
		// full comparison.
		{"str_prefix", arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.StringBuilder).Append(fmt.Sprintf("common-prefix-%03d", (i*37)%k))
			}
		}, 150},
		{"bin_large_dict", arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.Binary, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.BinaryBuilder).Append(binary.BigEndian.AppendUint32([]byte{byte(i % 3)}, uint32(i*2654435761)))
			}
		}, 900},
		{"i32", arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Int32, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.Int32Builder).Append(int32(i*i) - 500)
			}
		}, 40},
		{"i8_cast", arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int8, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.Int8Builder).Append(int8(i*37 - 128))
			}
		}, 7},
		{"i64", arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.Int64Builder).Append(int64(i) * -1_000_000_007)
			}
		}, 30},
		{"f64_nan", arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, func(b array.Builder, k int) {
			fb := b.(*array.Float64Builder)
			fb.Append(math.NaN())
			fb.Append(math.Copysign(0, -1))
			fb.Append(0)
			for i := 3; i < k; i++ {
				fb.Append(float64(i) / 3)
			}
		}, 12},
		{"f32", arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Float32, func(b array.Builder, k int) {
			fb := b.(*array.Float32Builder)
			fb.Append(float32(math.NaN()))
			for i := 1; i < k; i++ {
				fb.Append(float32(i) * -1.5)
			}
		}, 9},
		{"f16_nan", arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Float16, func(b array.Builder, k int) {
			fb := b.(*array.Float16Builder)
			fb.Append(float16.New(float32(math.NaN())))
			for i := 1; i < k; i++ {
				fb.Append(float16.New(float32(i) - 4))
			}
		}, 10},
		{"dec", arrow.PrimitiveTypes.Int16, &arrow.Decimal128Type{Precision: 20, Scale: 3}, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i-k/2) * 1_000_000_000_003))
			}
		}, 25},
		{"fsb", arrow.PrimitiveTypes.Int32, &arrow.FixedSizeBinaryType{ByteWidth: 3}, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.FixedSizeBinaryBuilder).Append([]byte{byte(i), byte(255 - i), 7})
			}
		}, 20},
		{"date", arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Date32, func(b array.Builder, k int) {
			for i := range k {
				b.(*array.Date32Builder).Append(arrow.Date32(18000 + i*31))
			}
		}, 15},
	}
}

// dictBatch builds batch number batch of case dc: a dictionary array of n
// slots (every 9th null) over the k values in a batch-dependent order, with
// one extra dictionary value no slot uses and, for batch 1, a null
// dictionary value referenced by null slots only. It returns the array and
// the same values as a plain array.
func dictBatch(t testing.TB, mem memory.Allocator, dc dictCase, batch, n int, r *rand.Rand) (dict, plain arrow.Array) {
	t.Helper()
	vb := array.NewBuilder(mem, dc.value)
	defer vb.Release()
	dc.values(vb, dc.k+1) // value k is never referenced
	vals := vb.NewArray()
	defer vals.Release()
	// Shuffle the dictionary per batch: each batch has its own.
	perm := r.Perm(dc.k + 1)
	pb := array.NewInt64Builder(mem)
	if batch == 2 {
		// The dictionary of batch 2 is a slice whose first value is not
		// at offset 0 of its buffers (arrow-go's ValueBytes of a binary
		// slice starts at its first value, ValueOffsets does not).
		pb.Append(int64(perm[0]))
	}
	for _, p := range perm {
		pb.Append(int64(p))
	}
	if batch == 1 {
		pb.AppendNull()
	}
	pidx := pb.NewArray()
	pb.Release()
	defer pidx.Release()
	dv, err := compute.TakeArray(context.Background(), vals, pidx)
	if err != nil {
		t.Fatal(err)
	}
	if batch == 2 {
		sl := array.NewSlice(dv, 1, int64(dv.Len()))
		dv.Release()
		dv = sl
	}
	defer dv.Release()
	unused := -1
	for i, p := range perm {
		if p == dc.k {
			unused = i
		}
	}
	ib := array.NewBuilder(mem, dc.index)
	defer ib.Release()
	for i := range n {
		if i%9 == 4 {
			if batch == 1 && i%2 == 0 {
				// A valid index to the null dictionary value under a null
				// slot: the slot is null, the index is not looked at.
				appendIndex(ib, dc.k+1)
				continue
			}
			ib.AppendNull()
			continue
		}
		// Skewed, so that some values are frequent; never the unused one.
		j := min(r.IntN(dc.k), r.IntN(dc.k))
		if j >= unused {
			j++
		}
		appendIndex(ib, j)
	}
	ia := ib.NewArray()
	defer ia.Release()
	if batch == 1 {
		// Null the slots that point at the null dictionary value.
		d := ia.Data()
		bm := d.Buffers()[0].Bytes()
		for i := range n {
			if i%9 == 4 {
				bm[i/8] &^= 1 << (i % 8)
			}
		}
		nd := array.NewData(d.DataType(), d.Len(), d.Buffers(), nil, array.UnknownNullCount, d.Offset())
		defer nd.Release()
		ia = array.MakeFromData(nd)
		defer ia.Release()
	}
	dt := &arrow.DictionaryType{IndexType: dc.index, ValueType: dc.value}
	dict = array.NewDictionaryArray(dt, ia, dv)
	plain, err = compute.TakeArray(context.Background(), dv, ia)
	if err != nil {
		t.Fatal(err)
	}
	return dict, plain
}

func appendIndex(b array.Builder, j int) {
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(j))
	case *array.Uint8Builder:
		b.Append(uint8(j))
	case *array.Int16Builder:
		b.Append(int16(j))
	case *array.Uint16Builder:
		b.Append(uint16(j))
	case *array.Int32Builder:
		b.Append(int32(j))
	case *array.Int64Builder:
		b.Append(int64(j))
	}
}

// TestWriteArrowDictionary writes Arrow dictionary arrays, whose
// dictionaries change from batch to batch, through their dictionaries
// (the memo path), and the same values as plain arrays through the
// per-value path. The files must be byte for byte the same but for the
// ARROW:schema entry: same pages, dictionaries, statistics (NaN counts
// weighted by occurrences), page indexes and size statistics. pqarrow and
// our reader read the dictionary file back to the source values, and each
// Parquet dictionary holds only the values its row group uses.
func TestWriteArrowDictionary(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	const n = 2000
	for _, opts := range []struct {
		name string
		o    arrowpq.WriteOptions
	}{
		{"pages", arrowpq.WriteOptions{MaxRowsPerPage: 300, RowGroupRows: 2500, Columns: map[string]arrowpq.ColumnOptions{"c": {BloomFilterNDV: 200}}}},
		{"fallback", arrowpq.WriteOptions{MaxRowsPerPage: 300, RowGroupRows: 5000, DictionaryPageSize: 120}},
		{"v2_zstd", arrowpq.WriteOptions{DataPageV2: true, Compression: arrowpq.Zstd, RowGroupRows: 3000}},
	} {
		for _, dc := range dictCases() {
			t.Run(opts.name+"/"+dc.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(len(dc.name)), 11))
				var dicts, plains []arrow.RecordBatch
				for batch := range 3 {
					d, p := dictBatch(t, mem, dc, batch, n, r)
					dicts = append(dicts, oneColumn("c", d))
					plains = append(plains, oneColumn("c", p))
					d.Release()
					p.Release()
				}
				defer func() {
					for i := range dicts {
						dicts[i].Release()
						plains[i].Release()
					}
				}()
				o := opts.o
				o.Allocator = mem
				bd, memoPieces := writeBatches(t, dicts, &o)
				bp, _ := writeBatches(t, plains, &o)
				if memoPieces == 0 && opts.name != "fallback" {
					t.Error("the dictionary arrays did not take the memo path")
				}
				fd, fp := footerOf(t, bd), footerOf(t, bp)
				checkPageIndexes(t, dc.name, bd)
				if opts.name == "fallback" {
					// The memo path knows how much a piece grows the
					// dictionary, the per-value path assumes every value is
					// new: they fall back at different rows. The chunk
					// statistics must still agree.
					for rg, g := range fd.Meta.RowGroups {
						a, b := g.Columns[0].MetaData, fp.Meta.RowGroups[rg].Columns[0].MetaData
						if !a.Statistics.Equals(b.Statistics) || !a.SizeStatistics.Equals(b.SizeStatistics) || a.NumValues != b.NumValues {
							t.Errorf("row group %d: statistics %v, %v; plain array: %v, %v", rg, a.Statistics, a.SizeStatistics, b.Statistics, b.SizeStatistics)
						}
					}
				} else {
					// Same bytes up to the footer; same footer without
					// ARROW:schema.
					bodyD := bd[:len(bd)-8-int(binary.LittleEndian.Uint32(bd[len(bd)-8:]))]
					bodyP := bp[:len(bp)-8-int(binary.LittleEndian.Uint32(bp[len(bp)-8:]))]
					if !bytes.Equal(bodyD, bodyP) {
						t.Errorf("column chunks differ from the plain array's (%d and %d bytes)", len(bodyD), len(bodyP))
					}
					if a, b := footerWithoutArrowSchema(t, fd), footerWithoutArrowSchema(t, fp); !bytes.Equal(a, b) {
						t.Errorf("footers differ from the plain array's")
					}
				}
				// Each row group's dictionary holds the values its rows use.
				checkDictionaryPages(t, bd, fd, dicts)
				// Independent readers give the source values.
				want := renderBatches(t, dicts)
				tbl := readOurs(t, bd)
				if err := oracle.Compare(renderTbl(t, tbl), want, oracle.Allowances{}); err != nil {
					t.Errorf("our reader: %v", err)
				}
				tbl.Release()
				got, err := renderPqarrow(bd, nil)
				if err != nil {
					t.Fatalf("pqarrow: %v", err)
				}
				if err := oracle.Compare(got, want, oracle.Allowances{}); err != nil {
					t.Errorf("pqarrow: %v", err)
				}
			})
		}
	}
}

func writeBatches(t testing.TB, recs []arrow.RecordBatch, o *arrowpq.WriteOptions) ([]byte, int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := arrowpq.NewWriter(&buf, recs[0].Schema(), o)
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		pieces += arrowpq.MemoPieces(w)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), pieces
}

func renderBatches(t testing.TB, recs []arrow.RecordBatch) []byte {
	var out []byte
	for _, rec := range recs {
		out = append(out, renderRec(t, rec)...)
	}
	return out
}

func footerWithoutArrowSchema(t testing.TB, f *metadata.File) []byte {
	t.Helper()
	md := *f.Meta
	md.KeyValueMetadata = nil
	for _, kv := range f.Meta.KeyValueMetadata {
		if kv.Key != "ARROW:schema" {
			md.KeyValueMetadata = append(md.KeyValueMetadata, kv)
		}
	}
	b, err := metadata.Marshal(nil, &md)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkDictionaryPages checks that the dictionary page of every row group
// has as many values as the distinct values its rows use (rendered, so
// that -0 and 0 differ and every NaN is one).
func checkDictionaryPages(t testing.TB, b []byte, f *metadata.File, recs []arrow.RecordBatch) {
	t.Helper()
	var rows []string // rendered row, "" for a null value
	for _, rec := range recs {
		for _, line := range bytes.Split(bytes.TrimSuffix(renderRec(t, rec), []byte("\n")), []byte("\n")) {
			if string(line) == `{"c":null}` {
				line = nil
			}
			rows = append(rows, string(line))
		}
	}
	start := 0
	for rg, g := range f.Meta.RowGroups {
		md := g.Columns[0].MetaData
		end := start + int(g.NumRows)
		distinct := map[string]bool{}
		for _, v := range rows[start:end] {
			if v != "" {
				distinct[v] = true
			}
		}
		start = end
		if md.DictionaryPageOffset == nil {
			continue
		}
		h := format.NewPageHeader()
		if _, err := metadata.Unmarshal(b[*md.DictionaryPageOffset:], h); err != nil {
			t.Fatal(err)
		}
		got := int(h.DictionaryPageHeader.NumValues)
		// A dictionary that fell back holds a prefix of the values.
		fellBack := false
		for _, e := range md.Encodings {
			if e == format.Encoding_PLAIN {
				for _, es := range md.EncodingStats {
					if es.PageType != format.PageType_DICTIONARY_PAGE && es.Encoding == format.Encoding_PLAIN {
						fellBack = true
					}
				}
			}
		}
		if got > len(distinct) || !fellBack && got != len(distinct) {
			t.Errorf("row group %d: dictionary of %d values, the rows use %d", rg, got, len(distinct))
		}
	}
}
