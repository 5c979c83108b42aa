package levels

// Differential test against another engine: arrow-go's parquet packages
// (used only in tests) read the definition and repetition levels and values
// of real files from parquet-testing, and pqarrow assembles the same columns
// into Arrow arrays. Our Assembler, fed arrow-go's levels in random pieces,
// must give the validity bitmaps and list offsets of pqarrow's arrays, and
// the leaf values spread into place must equal pqarrow's.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/arrowpq/arrowpq/internal/testshared"
)

const parquetTesting = "../../shared/testdata/parquet-testing/data/"

// oracleLeaf is one leaf column seen through pqarrow: per path node the
// Arrow array holding its validity (optional) or offsets (repeated).
type oracleLeaf struct {
	nodes []schema.Node
	arrs  []arrow.Array
	leaf  arrow.Array
}

func isAnnotated(n schema.Node, list bool) bool {
	if list {
		return n.ConvertedType() == schema.ConvertedTypes.List || (n.LogicalType() != nil && n.LogicalType().Equals(schema.ListLogicalType{}))
	}
	return n.ConvertedType() == schema.ConvertedTypes.Map || n.ConvertedType() == schema.ConvertedTypes.MapKeyValue ||
		(n.LogicalType() != nil && n.LogicalType().Equals(schema.MapLogicalType{}))
}

// walkOracle pairs schema nodes with pqarrow's arrays by the LIST/MAP
// backward-compatibility rules of LogicalTypes.md (enough of them for the
// files below).
func walkOracle(t *testing.T, n schema.Node, arr arrow.Array, nodes []schema.Node, arrs []arrow.Array, out *[]oracleLeaf) {
	add := func(node schema.Node, a arrow.Array) {
		nodes = append(nodes[:len(nodes):len(nodes)], node)
		arrs = append(arrs[:len(arrs):len(arrs)], a)
	}
	emit := func(leaf arrow.Array) {
		*out = append(*out, oracleLeaf{nodes: nodes, arrs: arrs, leaf: leaf})
	}
	g, isGroup := n.(*schema.GroupNode)
	if !isGroup {
		if n.RepetitionType() == parquet.Repetitions.Repeated {
			l := arr.(array.ListLike)
			add(n, l)
			emit(l.ListValues())
			return
		}
		add(n, arr)
		emit(arr)
		return
	}
	switch {
	case n.RepetitionType() == parquet.Repetitions.Repeated: // an unannotated repeated group
		l := arr.(array.ListLike)
		add(n, l)
		walkStruct(t, g, l.ListValues(), nodes, arrs, out)
	case (isAnnotated(n, true) || isAnnotated(n, false)) && g.NumFields() == 1 && g.Field(0).RepetitionType() == parquet.Repetitions.Repeated:
		l := arr.(array.ListLike)
		add(n, l)
		r := g.Field(0)
		add(r, l)
		rg, rIsGroup := r.(*schema.GroupNode)
		switch {
		case !rIsGroup:
			emit(l.ListValues())
		case rg.NumFields() == 1 && l.ListValues().DataType().ID() != arrow.STRUCT:
			// A MAP without values reads as a list of keys.
			walkOracle(t, rg.Field(0), l.ListValues(), nodes, arrs, out)
		case isAnnotated(n, false) || rg.NumFields() != 1 || r.Name() == "array" || strings.HasSuffix(r.Name(), "_tuple"):
			walkStruct(t, rg, l.ListValues(), nodes, arrs, out)
		default:
			walkOracle(t, rg.Field(0), l.ListValues(), nodes, arrs, out)
		}
	default:
		s := arr.(*array.Struct)
		add(n, s)
		walkStruct(t, g, s, nodes, arrs, out)
	}
}

func walkStruct(t *testing.T, g *schema.GroupNode, arr arrow.Array, nodes []schema.Node, arrs []arrow.Array, out *[]oracleLeaf) {
	s := arr.(*array.Struct)
	for i := 0; i < g.NumFields(); i++ {
		walkOracle(t, g.Field(i), s.Field(i), nodes, arrs, out)
	}
}

// readLevels reads a column chunk's levels and dense values with arrow-go.
func readLevels(t *testing.T, cr file.ColumnChunkReader, maxDef, maxRep int16) (def, rep []int16, values []any) {
	const batch = 1000
	d := make([]int16, batch)
	r := make([]int16, batch)
	for cr.HasNext() {
		var n int64
		var err error
		switch c := cr.(type) {
		case *file.Int32ColumnChunkReader:
			v := make([]int32, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.Int64ColumnChunkReader:
			v := make([]int64, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.Float64ColumnChunkReader:
			v := make([]float64, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.BooleanColumnChunkReader:
			v := make([]bool, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.ByteArrayColumnChunkReader:
			v := make([]parquet.ByteArray, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, string(x))
			}
		case *file.Float32ColumnChunkReader:
			v := make([]float32, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.Int96ColumnChunkReader:
			v := make([]parquet.Int96, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, x)
			}
		case *file.FixedLenByteArrayColumnChunkReader:
			v := make([]parquet.FixedLenByteArray, batch)
			var k int
			n, k, err = c.ReadBatch(batch, v, d, r)
			for _, x := range v[:k] {
				values = append(values, string(x))
			}
		default:
			t.Fatalf("unexpected reader %T", cr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if maxDef > 0 {
			def = append(def, d[:n]...)
		}
		if maxRep > 0 {
			rep = append(rep, r[:n]...)
		}
	}
	return def, rep, values
}

// arrowValue returns the value at slot i of a pqarrow leaf, in the Go type
// readLevels gives, or ok = false for types this test does not compare.
func arrowValue(a arrow.Array, i int) (v any, ok bool) {
	switch a := a.(type) {
	case *array.Int32:
		return a.Value(i), true
	case *array.Int64:
		return a.Value(i), true
	case *array.Float64:
		return a.Value(i), true
	case *array.Float32:
		return a.Value(i), true
	case *array.Boolean:
		return a.Value(i), true
	case *array.String:
		return a.Value(i), true
	case *array.Binary:
		return string(a.Value(i)), true
	}
	return nil, false
}

func TestOracleParquetTesting(t *testing.T) {
	testshared.Need(t, parquetTesting)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 31))
	files := []string{
		"list_columns.parquet", "null_list.parquet", "nested_lists.snappy.parquet",
		"nested_maps.snappy.parquet", "nullable.impala.parquet", "nonnullable.impala.parquet",
		"map_no_value.parquet", "repeated_primitive_no_list.parquet", "repeated_no_annotation.parquet",
		"nulls.snappy.parquet", "alltypes_plain.parquet", "int32_with_null_pages.parquet",
		"nested_structs.rust.parquet", "datapage_v2.snappy.parquet",
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(parquetTesting + name)
			if err != nil {
				t.Fatal(err) // the shared test data must be present
			}
			defer f.Close()
			pf, err := file.NewParquetReader(f)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			sc := pf.MetaData().Schema
			for rg := 0; rg < pf.NumRowGroups(); rg++ {
				all := make([]int, sc.NumColumns())
				for i := range all {
					all[i] = i
				}
				tbl, err := fr.ReadRowGroups(context.Background(), all, []int{rg})
				if err != nil {
					t.Fatal(err)
				}
				var leaves []oracleLeaf
				root := sc.Root()
				for i := 0; i < root.NumFields(); i++ {
					col := tbl.Column(i).Data()
					if len(col.Chunks()) != 1 {
						t.Fatalf("%d chunks", len(col.Chunks()))
					}
					walkOracle(t, root.Field(i), col.Chunk(0), nil, nil, &leaves)
				}
				if len(leaves) != sc.NumColumns() {
					t.Fatalf("%d leaves paired, %d columns", len(leaves), sc.NumColumns())
				}
				for c, ol := range leaves {
					t.Run(fmt.Sprintf("rg=%d/col=%s", rg, sc.Column(c).Path()), func(t *testing.T) {
						checkOracleColumn(t, rng, pf.RowGroup(rg), c, ol, tbl.NumRows())
					})
				}
				tbl.Release()
			}
		})
	}
}

func checkOracleColumn(t *testing.T, rng *rand.Rand, rgr *file.RowGroupReader, c int, ol oracleLeaf, numRows int64) {
	reps := make([]Repetition, len(ol.nodes))
	for i, n := range ol.nodes {
		switch n.RepetitionType() {
		case parquet.Repetitions.Optional:
			reps[i] = Optional
		case parquet.Repetitions.Repeated:
			reps[i] = Repeated
		}
	}
	p := mustPath(reps)
	cr, err := rgr.Column(c)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Descriptor().MaxDefinitionLevel() != p.MaxDef || cr.Descriptor().MaxRepetitionLevel() != p.MaxRep {
		t.Fatalf("path %v: max def/rep %d/%d, file says %d/%d", reps, p.MaxDef, p.MaxRep,
			cr.Descriptor().MaxDefinitionLevel(), cr.Descriptor().MaxRepetitionLevel())
	}
	def, rep, values := readLevels(t, cr, p.MaxDef, p.MaxRep)
	if p.MaxDef == 0 {
		return // flat required: no levels to assemble
	}
	checkOracleShred(t, rng, p, ol, def, rep, values, int(numRows))
	a, _ := NewAssembler(p, nil)
	for cut := 0; cut < len(def); {
		k := min(len(def)-cut, 1+rng.IntN(20))
		var r []int16
		if rep != nil {
			r = rep[cut : cut+k]
		}
		if err := a.Append(def[cut:cut+k], r); err != nil {
			t.Fatal(err)
		}
		cut += k
	}
	a.Finish()
	if int64(a.NumRows()) != numRows || a.NumValues() != len(values) {
		t.Fatalf("rows %d values %d, want %d %d", a.NumRows(), a.NumValues(), numRows, len(values))
	}
	for i, n := range p.Nodes {
		arr := ol.arrs[i]
		switch n.Repetition {
		case Optional:
			bm, nulls := a.Validity(i)
			if a.Len(i) != arr.Len() || nulls != arr.NullN() {
				t.Fatalf("node %d: %d slots %d nulls, pqarrow %d %d", i, a.Len(i), nulls, arr.Len(), arr.NullN())
			}
			for j := 0; j < arr.Len(); j++ {
				if (bm[j/8]>>(j%8)&1 == 1) != arr.IsValid(j) {
					t.Fatalf("node %d slot %d: valid %v, pqarrow %v", i, j, !arr.IsValid(j), arr.IsValid(j))
				}
			}
		case Repeated:
			l := arr.(array.ListLike)
			off := a.Offsets32(i)
			if a.Len(i) != l.Len() {
				t.Fatalf("node %d: %d lists, pqarrow %d", i, a.Len(i), l.Len())
			}
			for j := 0; j < l.Len(); j++ {
				s, e := l.ValueOffsets(j)
				if int64(off[j+1]-off[j]) != e-s {
					t.Fatalf("node %d list %d: length %d, pqarrow %d", i, j, off[j+1]-off[j], e-s)
				}
			}
		}
	}
	if a.NumLeafSlots() != ol.leaf.Len() {
		t.Fatalf("%d leaf slots, pqarrow %d", a.NumLeafSlots(), ol.leaf.Len())
	}
	// Spread arrow-go's dense values into the leaf slots and compare.
	slots := make([]any, a.NumLeafSlots())
	leafBits, _ := a.LeafValues()
	if k := Spread(slots, values, leafBits, 0); k != len(values) {
		t.Fatalf("spread %d of %d values", k, len(values))
	}
	for j, v := range slots {
		if v == nil {
			continue
		}
		w, ok := arrowValue(ol.leaf, j)
		if !ok {
			return
		}
		if !ol.leaf.IsValid(j) || v != w {
			t.Fatalf("leaf slot %d: %v, pqarrow %v (valid %v)", j, v, w, ol.leaf.IsValid(j))
		}
	}
}

// oracleNodeData describes pqarrow's arrays for the Shredder.
func oracleNodeData(p *Path, ol oracleLeaf) []NodeData {
	data := make([]NodeData, len(p.Nodes))
	for i, n := range p.Nodes {
		arr := ol.arrs[i]
		nd := &data[i]
		nd.Len = arr.Len()
		if n.Repetition == Repeated {
			l := arr.(array.ListLike)
			nd.Offsets64 = make([]int64, l.Len()+1)
			for j := 0; j < l.Len(); j++ {
				s, e := l.ValueOffsets(j)
				nd.Offsets64[j], nd.Offsets64[j+1] = s, e
			}
			nd.ElemLen = l.ListValues().Len()
			continue
		}
		if arr.NullN() > 0 {
			nd.Validity = arr.NullBitmapBytes()
			nd.Offset = arr.Data().Offset()
		}
	}
	return data
}

// checkOracleShred shreds pqarrow's arrays, whole and in random row ranges,
// and compares with the levels and values arrow-go read from the file.
func checkOracleShred(t *testing.T, rng *rand.Rand, p *Path, ol oracleLeaf, def, rep []int16, values []any, numRows int) {
	data := oracleNodeData(p, ol)
	s := NewShredder(p)
	// Level index of each record start, to cut the file's levels by rows.
	starts := []int{}
	for i := range def {
		if p.MaxRep == 0 || rep[i] == 0 {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(def))
	valueAt := make([]int, len(def)+1) // dense values before level i
	for i, d := range def {
		valueAt[i+1] = valueAt[i]
		if d == p.MaxDef {
			valueAt[i+1]++
		}
	}
	for row := 0; row < numRows; {
		n := numRows - row
		if rng.IntN(2) == 0 {
			n = min(n, 1+rng.IntN(5))
		}
		if err := s.Shred(data, row, n); err != nil {
			t.Fatal(err)
		}
		lo, hi := starts[row], starts[row+n]
		if !slices.Equal(s.Def(), def[lo:hi]) || (p.MaxRep > 0 && !slices.Equal(s.Rep(), rep[lo:hi])) {
			t.Fatalf("rows %d+%d: def %v rep %v, file %v %v", row, n, s.Def(), s.Rep(), def[lo:hi], rep[lo:hi])
		}
		want := values[valueAt[lo]:valueAt[hi]]
		if len(s.ValueIndices()) != len(want) {
			t.Fatalf("rows %d+%d: %d values, file %d", row, n, len(s.ValueIndices()), len(want))
		}
		for k, ix := range s.ValueIndices() {
			if w, ok := arrowValue(ol.leaf, int(ix)); ok && w != want[k] {
				t.Fatalf("rows %d+%d: value %d = %v, file %v", row, n, k, w, want[k])
			}
		}
		row += n
	}
}
