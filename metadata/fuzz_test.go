package metadata

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzFooter from the footers of the corpus")

// Allocation bound for parsing a footer of n bytes: parseAllocPerByte*n +
// parseAllocSlack. Every count in a footer is checked against the bytes
// left, so allocation is linear in the input; the factor covers the
// pointer-per-element layout of the generated structs.
const (
	parseAllocPerByte = 64
	parseAllocSlack   = 1 << 20
)

// seedSources are the directories whose Parquet footers seed FuzzFooter.
var seedSources = []string{
	corpusDir,
	"../../shared/testdata/arrow-testing/data/parquet",
}

// corpusFooters returns the footer bytes of every file under the seed
// sources whose trailer is well formed, keyed by a seed file name.
func corpusFooters(t testing.TB) map[string][]byte {
	testshared.Need(t, seedSources...)
	t.Helper()
	out := make(map[string][]byte)
	seen := make(map[[32]byte]bool)
	for _, root := range seedSources {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if len(data) < 12 {
				return nil
			}
			tail := string(data[len(data)-4:])
			if tail != Magic && tail != MagicEncrypted {
				return nil
			}
			n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
			if n > len(data)-8 {
				return nil
			}
			footer := data[len(data)-8-n : len(data)-8]
			sum := sha256.Sum256(footer)
			if seen[sum] {
				return nil
			}
			seen[sum] = true
			rel, _ := filepath.Rel(filepath.Dir(root), p)
			name := strings.NewReplacer("/", "_", "\\", "_").Replace(rel)
			out[name] = footer
			return nil
		})
		if err != nil {
			t.Fatalf("seed source %s: %v", root, err)
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d footers found under %v", len(out), seedSources)
	}
	return out
}

func seedFile(b []byte) string {
	return "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
}

// TestFuzzFooterSeeds checks that testdata/fuzz/FuzzFooter holds the footer
// of every corpus file (go test -run FuzzFooterSeeds -update-seeds
// rewrites it).
func TestFuzzFooterSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzFooter")
	footers := corpusFooters(t)
	if *updateSeeds {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range footers {
			if err := os.WriteFile(filepath.Join(dir, "corpus-"+name), []byte(seedFile(b)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, b := range footers {
		got, err := os.ReadFile(filepath.Join(dir, "corpus-"+name))
		if err != nil {
			t.Errorf("missing seed for %s (run with -update-seeds): %v", name, err)
			continue
		}
		if string(got) != seedFile(b) {
			t.Errorf("seed for %s is stale (run with -update-seeds)", name)
		}
	}
}

// allocated returns the bytes allocated by fn. It is only meaningful
// without other goroutines allocating, as under go test -fuzz -parallel=1.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// wrapFooter makes a minimal Parquet file around a serialized footer.
func wrapFooter(footer []byte) []byte {
	file := make([]byte, 0, len(footer)+12)
	file = append(file, Magic...)
	file = append(file, footer...)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(footer)))
	return append(file, Magic...)
}

// maxFuzzChunks bounds the column chunks visited per input so that one
// wide footer does not slow the fuzzer down.
const maxFuzzChunks = 2000

// checkFooter parses b as a serialized FileMetaData, as a footer inside a
// file, and as a whole file, and walks whatever parsed. It fails on
// excessive allocation; a panic fails by itself.
func checkFooter(t *testing.T, b []byte) {
	var ferr error = ErrCorrupt
	n := allocated(func() {
		md, err := ParseFileMetaData(b)
		if err == nil {
			_, ferr = NewFile(md, int64(len(b)+12))
		}
	})
	if limit := uint64(parseAllocPerByte*len(b) + parseAllocSlack); n > limit {
		t.Fatalf("parsing a %d-byte footer allocated %d bytes, over the limit of %d", len(b), n, limit)
	}

	file := wrapFooter(b)
	r := bytes.NewReader(file)
	f, err := ReadFooter(r, int64(len(file)))
	if ferr == nil && err != nil {
		t.Fatalf("ParseFileMetaData and NewFile accept the footer, ReadFooter fails: %v", err)
	}
	if err == nil {
		walkFile(t, r, f)
	}
	// The input as a whole file: hostile trailers and lengths.
	if f, err := ReadFooter(bytes.NewReader(b), int64(len(b))); err == nil {
		walkFile(t, bytes.NewReader(b), f)
	}
}

// walkFile exercises the statistics and page-index readers on every
// column chunk of f.
func walkFile(t *testing.T, r *bytes.Reader, f *File) {
	visited := 0
	for rg := range f.Meta.RowGroups {
		for c, col := range f.Schema.Columns {
			if visited++; visited > maxFuzzChunks {
				return
			}
			SortOrder(col)
			st, err := ColumnStats(f, rg, c)
			if err == nil {
				_ = st.Min.String()
				_ = st.Max.String()
			}
			if md, err := f.ColumnChunk(rg, c); err == nil && md.Statistics != nil {
				_, _ = DecodeValue(col, md.Statistics.MinValue)
			}
			_, _, _ = f.ChunkRange(rg, c)
			_, _ = ReadColumnIndex(r, f, rg, c)
			_, _ = ReadOffsetIndex(r, f, rg, c)
			_, _ = ReadBloomFilter(r, f, rg, c)
		}
	}
}

// FuzzFooter feeds hostile footers to the footer, schema, statistics and
// page-index code. Seeds: the footer of every corpus file.
func FuzzFooter(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0x15, 0x02, 0x19, 0x1c, 0x18, 0x01, 'r', 0x00, 0x16, 0x00, 0x19, 0x0c, 0x00})
	f.Fuzz(checkFooter)
}

// schemaFromBytes builds a list of schema elements from fuzz input: each
// element takes six bytes (flags, type, repetition, children, annotation,
// length).
func schemaFromBytes(b []byte) []*format.SchemaElement {
	var elems []*format.SchemaElement
	for i := 0; len(b) >= 6 && i < 512; i++ {
		flags, typ, rep, kids, ann, length := b[0], b[1], b[2], b[3], b[4], b[5]
		b = b[6:]
		el := &format.SchemaElement{Name: "f" + strconv.Itoa(i)}
		if flags&1 != 0 {
			el.Type = ptr(format.Type(typ % 9))
		}
		if flags&2 != 0 {
			el.RepetitionType = ptr(format.FieldRepetitionType(rep % 5))
		}
		if flags&4 != 0 {
			el.NumChildren = ptr(int32(int8(kids)))
		}
		if flags&8 != 0 {
			el.TypeLength = ptr(int32(int8(length)))
		}
		if flags&16 != 0 {
			el.ConvertedType = ptr(format.ConvertedType(ann % 23))
		}
		if flags&32 != 0 {
			el.LogicalType = fuzzLogicalType(ann, length)
		}
		if flags&64 != 0 {
			el.Scale, el.Precision = ptr(int32(length%20)), ptr(int32(ann%40))
		}
		elems = append(elems, el)
	}
	return elems
}

func fuzzLogicalType(ann, arg byte) *format.LogicalType {
	unit := &format.TimeUnit{}
	switch arg % 4 {
	case 0:
		unit.MILLIS = &format.MilliSeconds{}
	case 1:
		unit.MICROS = &format.MicroSeconds{}
	case 2:
		unit.NANOS = &format.NanoSeconds{}
	}
	lt := &format.LogicalType{}
	switch ann % 20 {
	case 0:
		lt.STRING = &format.StringType{}
	case 1:
		lt.MAP = &format.MapType{}
	case 2:
		lt.LIST = &format.ListType{}
	case 3:
		lt.ENUM = &format.EnumType{}
	case 4:
		lt.DECIMAL = &format.DecimalType{Scale: int32(int8(arg)) / 4, Precision: int32(arg % 40)}
	case 5:
		lt.DATE = &format.DateType{}
	case 6:
		lt.TIME = &format.TimeType{Unit: unit}
	case 7:
		lt.TIMESTAMP = &format.TimestampType{Unit: unit, IsAdjustedToUTC: arg&1 != 0}
	case 8:
		lt.INTEGER = &format.IntType{BitWidth: int8(arg), IsSigned: arg&1 != 0}
	case 9:
		lt.UNKNOWN = &format.NullType{}
	case 10:
		lt.JSON = &format.JsonType{}
	case 11:
		lt.BSON = &format.BsonType{}
	case 12:
		lt.UUID = &format.UUIDType{}
	case 13:
		lt.FLOAT16 = &format.Float16Type{}
	case 14:
		lt.VARIANT = &format.VariantType{}
	case 15:
		lt.GEOMETRY = &format.GeometryType{}
	case 16:
		lt.GEOGRAPHY = &format.GeographyType{}
	case 17:
		lt.VECTOR = &format.VectorType{}
	case 18:
		lt.STRING, lt.DATE = &format.StringType{}, &format.DateType{}
	}
	return lt
}

// FuzzSchema builds schema trees from random element lists and checks the
// invariants of every tree NewSchema accepts; the statistics helpers run on
// each column.
func FuzzSchema(f *testing.F) {
	f.Add([]byte{4, 0, 0, 1, 0, 0, 3, 1, 1, 0, 0, 0})
	f.Add([]byte{4, 0, 0, 2, 0, 0, 6, 0, 1, 1, 0, 0, 0x23, 6, 1, 0, 0, 0, 0x1b, 7, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		elems := schemaFromBytes(b)
		s, err := NewSchema(elems)
		if err != nil {
			return
		}
		checkSchemaInvariants(t, elems, s)
		for _, c := range s.Columns {
			SortOrder(c)
			for _, v := range [][]byte{b, b[:min(len(b), 2)], b[:min(len(b), 4)], b[:min(len(b), 12)]} {
				if val, err := DecodeValue(c, v); err == nil {
					_ = val.String()
				}
				for _, o := range []*format.ColumnOrder{nil, typeOrder, ieeeOrder, int96Order, unknownOrder} {
					st, err := DecodeStats(c, o, &format.Statistics{Min: v, Max: v, MinValue: v, MaxValue: v})
					if err == nil && (st.HasMin || st.HasMax) {
						_ = st.Min.String() + st.Max.String()
					}
				}
			}
		}
	})
}

// checkSchemaInvariants recomputes what NewSchema derives, from the tree's
// parent links alone.
func checkSchemaInvariants(t *testing.T, elems []*format.SchemaElement, s *Schema) {
	if len(s.Nodes) != len(elems) || s.Root != s.Nodes[0] {
		t.Fatalf("%d nodes for %d elements", len(s.Nodes), len(elems))
	}
	leaves := 0
	for i, n := range s.Nodes {
		if n.Element != elems[i] || n.Index != i {
			t.Fatalf("node %d does not match its element", i)
		}
		if i > 0 && (n.Parent == nil || !slices.Contains(n.Parent.Children, n)) {
			t.Fatalf("node %d is not a child of its parent", i)
		}
		var def, rep int16
		for p := n; p.Parent != nil; p = p.Parent {
			switch p.Repetition {
			case Optional:
				def++
			case Repeated:
				def++
				rep++
			}
		}
		if n.DefLevel != def || n.RepLevel != rep {
			t.Fatalf("node %d: levels %d/%d, recomputed %d/%d", i, n.DefLevel, n.RepLevel, def, rep)
		}
		if n.IsLeaf() {
			c := s.Columns[n.Column]
			if c.Node != n || c.Index != leaves || c.MaxDef != def || c.MaxRep != rep || len(n.Children) != 0 {
				t.Fatalf("column %d does not match leaf node %d", n.Column, i)
			}
			if got := strings.Join(n.Path(), "."); got != c.DottedPath {
				t.Fatalf("column %d: path %q, dotted path %q", c.Index, got, c.DottedPath)
			}
			leaves++
		} else if nc := elems[i].NumChildren; (nc != nil && *nc > 0 && int(*nc) != len(n.Children)) ||
			((nc == nil || *nc <= 0) && len(n.Children) != 0) {
			// A count of 0 or less with a physical type makes an empty
			// root; only a positive count must match.
			t.Fatalf("node %d: %d children, num_children %v", i, len(n.Children), nc)
		}
	}
	if leaves != len(s.Columns) {
		t.Fatalf("%d leaves, %d columns", leaves, len(s.Columns))
	}
}

// TestParseAllocWorstCase builds footers that maximize allocation per
// input byte: long lists of the smallest possible elements.
func TestParseAllocWorstCase(t *testing.T) {
	const n = 50_000
	many := func(build func(i int) *format.FileMetaData) []byte {
		b, err := Marshal(nil, build(n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cases := map[string][]byte{
		"schema elements": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: "", NumChildren: ptr(int32(n))}}}
			for range n {
				md.Schema = append(md.Schema, &format.SchemaElement{Type: ptr(format.Type_INT32), RepetitionType: ptr(Optional)})
			}
			return md
		}),
		"schema elements with logical types": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: "", NumChildren: ptr(int32(n))}}}
			for range n {
				md.Schema = append(md.Schema, &format.SchemaElement{Type: ptr(format.Type_INT32), RepetitionType: ptr(Optional),
					LogicalType: &format.LogicalType{DATE: &format.DateType{}}})
			}
			return md
		}),
		// Fails in NewSchema (no repetition), so only the Thrift structs
		// count: the densest input for the generated reader.
		"schema elements with empty logical types": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: "", NumChildren: ptr(int32(n))}}}
			for range n {
				md.Schema = append(md.Schema, &format.SchemaElement{LogicalType: &format.LogicalType{UNKNOWN: &format.NullType{}}})
			}
			return md
		}),
		"column orders": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: ""}}}
			for range n {
				md.ColumnOrders = append(md.ColumnOrders, typeOrder)
			}
			return md
		}),
		"key values": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: ""}}}
			for range n {
				md.KeyValueMetadata = append(md.KeyValueMetadata, &format.KeyValue{})
			}
			return md
		}),
		"row groups": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: ""}}}
			for range n {
				md.RowGroups = append(md.RowGroups, &format.RowGroup{Columns: []*format.ColumnChunk{}})
			}
			return md
		}),
		"column chunks": many(func(n int) *format.FileMetaData {
			md := &format.FileMetaData{Schema: []*format.SchemaElement{{Name: ""}}, RowGroups: []*format.RowGroup{{}}}
			for range n {
				md.RowGroups[0].Columns = append(md.RowGroups[0].Columns, &format.ColumnChunk{})
			}
			return md
		}),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			var err error
			got := allocated(func() {
				var md *format.FileMetaData
				if md, err = ParseFileMetaData(b); err == nil {
					_, _ = NewFile(md, int64(len(b)))
				}
			})
			if err != nil {
				t.Fatalf("ParseFileMetaData: %v", err)
			}
			compact := allocated(func() { _, _ = parseFileMetaDataCompact(b) })
			t.Logf("%d bytes: %d allocated (%.1f per input byte), compact reader %d (%.1f)",
				len(b), got, float64(got)/float64(len(b)), compact, float64(compact)/float64(len(b)))
			limit := uint64(parseAllocPerByte*len(b) + parseAllocSlack)
			if got > limit {
				t.Errorf("allocated %d bytes for %d input bytes, over the limit of %d", got, len(b), limit)
			}
			if compact > limit {
				t.Errorf("compact reader allocated %d bytes for %d input bytes, over the limit of %d", compact, len(b), limit)
			}
		})
	}
}
