package typemap

import (
	"encoding/base64"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// choices turns fuzz bytes into a deterministic stream of small decisions;
// past the end it keeps answering 0.
type choices struct {
	b []byte
	i int
}

func (c *choices) next(n int) int {
	if n <= 1 || c.i >= len(c.b) {
		if c.i < len(c.b) {
			c.i++
		}
		return 0
	}
	v := int(c.b[c.i]) % n
	c.i++
	return v
}

var fuzzNames = []string{"a", "list", "element", "array", "key_value", "key", "value", "map", "item", "metadata", "typed_value"}

// genSchema builds a random schema tree from data: groups and leaves with
// random repetitions (VECTOR included), physical types, LogicalType members
// (the empty union too), ConvertedTypes, decimal parameters, widths and
// names chosen so that the LIST/MAP compatibility rules, Variant shapes
// and their invalid variants are hit often. Child counts are sometimes
// wrong on purpose; metadata.NewSchema rejects those trees.
func genSchema(data []byte) []*format.SchemaElement {
	c := &choices{b: data}
	var elems []*format.SchemaElement
	var gen func(name string, depth int)
	gen = func(name string, depth int) {
		e := &format.SchemaElement{Name: name}
		reps := []format.FieldRepetitionType{req, opt, rep, format.FieldRepetitionType_VECTOR}
		r := reps[c.next(3+c.next(2)*c.next(2))] // VECTOR rarely
		e.RepetitionType = &r
		if c.next(4) == 0 {
			e.FieldID = ptr(int32(c.next(256) - 1))
		}
		ann := c.next(12)
		switch {
		case ann < 4:
			e.LogicalType = randomLogical(c)
		case ann < 7:
			ct := format.ConvertedType(c.next(24))
			e.ConvertedType = &ct
		case ann < 8:
			e.LogicalType = randomLogical(c)
			ct := format.ConvertedType(c.next(24))
			e.ConvertedType = &ct
		}
		if c.next(3) == 0 {
			e.Precision = ptr(int32(c.next(90) - 5))
			e.Scale = ptr(int32(c.next(20) - 2))
		}
		if depth < 6 && c.next(2) == 0 {
			n := c.next(4)
			claim := n
			if c.next(16) == 0 {
				claim = c.next(6)
			}
			e.NumChildren = ptr(int32(claim))
			elems = append(elems, e)
			for i := 0; i < n; i++ {
				child := fuzzNames[c.next(len(fuzzNames))]
				if c.next(5) == 0 {
					child = name + "_tuple"
				}
				gen(child, depth+1)
			}
			return
		}
		phys := format.Type(c.next(9)) // 8 is not a type
		e.Type = &phys
		if phys == format.Type_FIXED_LEN_BYTE_ARRAY || c.next(8) == 0 {
			widths := []int32{2, 12, 16, 1, 5, 32, 40, 0}
			e.TypeLength = ptr(widths[c.next(len(widths))])
		}
		elems = append(elems, e)
	}
	n := 1 + c.next(4)
	elems = append(elems, &format.SchemaElement{Name: "schema", NumChildren: ptr(int32(n))})
	for i := 0; i < n; i++ {
		gen(fuzzNames[c.next(len(fuzzNames))], 1)
	}
	return elems
}

func randomLogical(c *choices) *format.LogicalType {
	lt := &format.LogicalType{}
	unit := func() *format.TimeUnit {
		switch c.next(4) {
		case 0:
			return &format.TimeUnit{MILLIS: &format.MilliSeconds{}}
		case 1:
			return &format.TimeUnit{MICROS: &format.MicroSeconds{}}
		case 2:
			return &format.TimeUnit{NANOS: &format.NanoSeconds{}}
		}
		return &format.TimeUnit{} // an unknown unit
	}
	switch c.next(21) {
	case 0:
		lt.STRING = &format.StringType{}
	case 1:
		lt.MAP = &format.MapType{}
	case 2:
		lt.LIST = &format.ListType{}
	case 3:
		lt.ENUM = &format.EnumType{}
	case 4:
		lt.DECIMAL = &format.DecimalType{Precision: int32(c.next(90) - 5), Scale: int32(c.next(20) - 2)}
	case 5:
		lt.DATE = &format.DateType{}
	case 6:
		lt.TIME = &format.TimeType{IsAdjustedToUTC: c.next(2) == 0, Unit: unit()}
	case 7:
		lt.TIMESTAMP = &format.TimestampType{IsAdjustedToUTC: c.next(2) == 0, Unit: unit()}
	case 8:
		lt.INTEGER = &format.IntType{BitWidth: int8([]int{8, 16, 32, 64, 0, 7, -8}[c.next(7)]), IsSigned: c.next(2) == 0}
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
		lt.GEOMETRY = &format.GeometryType{Crs: ptr([]string{"srid:4326", "projjson:k", `{"a":1}`, ""}[c.next(4)])}
	case 16:
		alg := format.EdgeInterpolationAlgorithm(c.next(7))
		lt.GEOGRAPHY = &format.GeographyType{Algorithm: &alg}
	case 17:
		lt.VECTOR = &format.VectorType{}
	case 18:
		// Two members at once: not a valid union.
		lt.STRING, lt.LIST = &format.StringType{}, &format.ListType{}
	}
	// 19, 20: the empty union, as a newer writer's unknown member decodes.
	return lt
}

// checkManifest asserts the invariants of a successful mapping.
func checkManifest(t *testing.T, s *metadata.Schema, m *Manifest) {
	t.Helper()
	if m.Schema.NumFields() != len(s.Root.Children) || len(m.Fields) != len(s.Root.Children) {
		t.Fatalf("%d Arrow fields for %d top-level nodes", m.Schema.NumFields(), len(s.Root.Children))
	}
	for i, f := range m.Leaves {
		if f == nil {
			t.Fatalf("leaf %d (%s) not mapped", i, s.Columns[i].DottedPath)
		}
		if f.Kind != Leaf || f.Column != i {
			t.Fatalf("leaf %d maps to a %s field of column %d", i, f.Kind, f.Column)
		}
	}
	var walk func(f *Field)
	walk = func(f *Field) {
		switch f.Kind {
		case List:
			if len(f.Children) != 1 || f.Repeated == nil {
				t.Fatalf("list %s: %d children, repeated %v", f.Arrow.Name, len(f.Children), f.Repeated)
			}
		case Map:
			if len(f.Children) != 2 || f.Repeated == nil || f.Children[0].Arrow.Nullable {
				t.Fatalf("map %s malformed", f.Arrow.Name)
			}
		}
		if f.Node != nil && f.Node.Repetition != metadata.Optional && f.Arrow.Nullable && f.Arrow.Type.ID() != arrow.NULL {
			t.Fatalf("field %s is nullable but its node is %s", f.Arrow.Name, f.Node.Repetition)
		}
		for _, c := range f.Children {
			if c.Parent != f {
				t.Fatalf("field %s: child %s has the wrong parent", f.Arrow.Name, c.Arrow.Name)
			}
			walk(c)
		}
	}
	for _, f := range m.Fields {
		walk(f)
	}
}

// FuzzToArrow maps random schema trees, valid and invalid: never a panic;
// a successful mapping satisfies the manifest invariants and maps back to
// Parquet without panicking either.
func FuzzToArrow(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 1, 0, 2, 1, 0, 1, 2, 2, 1, 3})
	f.Add([]byte("LIST MAP rule 3 array_tuple"))
	f.Add([]byte{3, 1, 1, 2, 0, 0, 1, 0, 2, 2, 2, 1, 1, 0, 0, 1, 0, 7, 3, 2, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		elems := genSchema(data)
		s, err := metadata.NewSchema(elems)
		if err != nil {
			return
		}
		for _, opts := range []ReadOptions{{}, {SmallDecimals: true, Views: true, Int96Unit: Int96Millis, Dictionary: []string{"a", "a.list.element"}}} {
			m, err := ToArrow(s, nil, opts)
			if err != nil {
				continue
			}
			checkManifest(t, s, m)
			wm, err := FromArrow(m.Schema, WriteOptions{})
			if err != nil {
				continue
			}
			back, err := ToArrow(wm.Schema, []*format.KeyValue{wm.KeyValue}, ReadOptions{})
			if err != nil {
				t.Fatalf("our own written schema does not map back: %v", err)
			}
			// Arrow → Parquet → Arrow gives the same schema back.
			want, got := describeSchema(m.Schema), describeSchema(back.Schema)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("round trip of field %d:\n got  %s\n want %s", i, got[i], want[i])
				}
			}
		}
	})
}

// FuzzDecodeArrowSchema feeds hostile bytes as the ARROW:schema value:
// never a panic, and ToArrow never fails because of it.
func FuzzDecodeArrowSchema(f *testing.F) {
	v, err := EncodeArrowSchema(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.ListOf(arrow.BinaryTypes.String)}}, nil))
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(v)
	f.Add(raw)
	v, err = EncodeArrowSchema(everyTypeSchema())
	if err != nil {
		f.Fatal(err)
	}
	raw, _ = base64.StdEncoding.DecodeString(v)
	f.Add(raw)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		value := base64.StdEncoding.EncodeToString(data)
		_, _ = DecodeArrowSchema(value)
		s, err := metadata.NewSchema([]*format.SchemaElement{root(1), prim("a", opt, format.Type_INT32)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ToArrow(s, []*format.KeyValue{{Key: ArrowSchemaKey, Value: &value}}, ReadOptions{}); err != nil {
			t.Fatalf("ToArrow failed because of ARROW:schema: %v", err)
		}
	})
}

// TestDecodeArrowSchemaByteMutations changes every byte of a real
// ARROW:schema (all types of everyType) to a few values: the decoder must
// return a schema or an error, never panic or allocate without bound.
func TestDecodeArrowSchemaByteMutations(t *testing.T) {
	v, err := EncodeArrowSchema(everyTypeSchema())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(v)
	wm, err := FromArrow(everyTypeSchema(), WriteOptions{IgnoreArrowSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	var decoded, rejected int
	buf := make([]byte, len(raw))
	for i := range raw {
		for _, b := range []byte{0xff, raw[i] ^ 0x80} {
			copy(buf, raw)
			buf[i] = b
			value := base64.StdEncoding.EncodeToString(buf)
			if _, err := DecodeArrowSchema(value); err != nil {
				rejected++
				continue
			}
			decoded++
			// A decodable but altered ARROW:schema must not break the
			// mapping either.
			if _, err := ToArrow(wm.Schema, []*format.KeyValue{{Key: ArrowSchemaKey, Value: &value}}, ReadOptions{}); err != nil {
				t.Fatalf("byte %d = %#x: ToArrow: %v", i, b, err)
			}
		}
	}
	t.Logf("%d mutants decoded, %d rejected", decoded, rejected)
}
