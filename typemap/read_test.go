package typemap

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// TestFieldTree checks the Parquet nodes behind each Arrow field: the
// read path builds validity from Node and offsets from Repeated.
func TestFieldTree(t *testing.T) {
	elems := []*el{root(4),
		// 0: standard 3-level list of nullable ints
		group("l", opt, 1, withLogical(ltList)), group("list", rep, 1), prim("element", opt, i32),
		// 1: map with optional key (read; key non-null in Arrow)
		group("m", req, 1, withLogical(ltMap)), group("key_value", rep, 2), prim("key", opt, ba, withLogical(ltString)), prim("value", req, i64),
		// 2: unannotated repeated primitive
		prim("r", rep, i32),
		// 3: rule 1 two-level list
		group("two", opt, 1, withLogical(ltList)), prim("element", rep, format.Type_DOUBLE),
	}
	m, err := mapSchema(t, elems, nil, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Fields[0].Node.Parent // the root
	node := func(path string) *metadata.Node {
		for _, n := range s.Children {
			if found := findNode(n, strings.Split(path, ".")); found != nil {
				return found
			}
		}
		t.Fatalf("no node %s", path)
		return nil
	}
	l := m.Fields[0]
	if l.Kind != List || l.Node != node("l") || l.Repeated != node("l.list") || l.Children[0].Node != node("l.list.element") || l.Children[0].Column != 0 {
		t.Errorf("list: %+v", l)
	}
	mp := m.Fields[1]
	key, val := mp.Children[0], mp.Children[1]
	if mp.Kind != Map || mp.Node != node("m") || mp.Repeated != node("m.key_value") ||
		key.Node != node("m.key_value.key") || key.Arrow.Nullable || val.Node != node("m.key_value.value") || val.Column != 2 {
		t.Errorf("map: %+v", mp)
	}
	r := m.Fields[2]
	if r.Kind != List || r.Node != nil || r.Repeated != node("r") || r.Children[0].Node != nil || r.Children[0].Column != 3 {
		t.Errorf("unannotated repeated: %+v", r)
	}
	two := m.Fields[3]
	if two.Node != node("two") || two.Repeated != node("two.element") || two.Children[0].Node != nil || m.Leaves[4] != two.Children[0] {
		t.Errorf("two-level list: %+v", two)
	}
	for i, f := range m.Leaves {
		if f.Column != i {
			t.Errorf("Leaves[%d].Column = %d", i, f.Column)
		}
	}
	if c := m.Leaves[3].Conv; c.Kind != Identity || c.Physical != i32 || !arrow.TypeEqual(c.Arrow, arrow.PrimitiveTypes.Int32) {
		t.Errorf("leaf r conversion %+v", c)
	}
}

func findNode(n *metadata.Node, path []string) *metadata.Node {
	if n.Name != path[0] {
		return nil
	}
	if len(path) == 1 {
		return n
	}
	for _, c := range n.Children {
		if f := findNode(c, path[1:]); f != nil {
			return f
		}
	}
	return nil
}

// TestInvalidShapes: shapes no rule accepts are errors that wrap
// ErrCorrupt and name the field path.
func TestInvalidShapes(t *testing.T) {
	tests := []struct {
		name  string
		elems []*el
		want  string
	}{
		{"LIST with two children", []*el{root(1), group("s", opt, 1), group("l", opt, 2, withLogical(ltList)), prim("a", rep, i32), prim("b", rep, i32)},
			"field s.l: LIST group has 2 children"},
		{"LIST child not repeated", []*el{root(1), group("l", opt, 1, withLogical(ltList)), prim("a", opt, i32)},
			`field l: the child "a" of a LIST group is OPTIONAL, not repeated`},
		{"MAP with three fields", []*el{root(1), group("m", opt, 1, withLogical(ltMap)), group("kv", rep, 3), prim("k", req, i32), prim("v", req, i32), prim("w", req, i32)},
			`field m: MAP key/value group "kv" has 3 fields`},
		{"MAP child not repeated", []*el{root(1), group("m", opt, 1, withLogical(ltMap)), group("kv", req, 2), prim("k", req, i32), prim("v", req, i32)},
			`field m: the child "kv" of a MAP group is REQUIRED, not repeated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mapSchema(t, tt.elems, nil, ReadOptions{})
			if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q wrapping ErrCorrupt", err, tt.want)
			}
		})
	}
	vec := format.FieldRepetitionType_VECTOR
	_, err := mapSchema(t, []*el{root(1), prim("v", vec, i32)}, nil, ReadOptions{})
	if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "field v: VECTOR") {
		t.Errorf("VECTOR repetition: %v", err)
	}
}

// TestArrowSchemaIgnored: a mismatching, corrupt or switched-off
// ARROW:schema never fails the mapping.
func TestArrowSchemaIgnored(t *testing.T) {
	elems := []*el{root(1), prim("d", opt, i32, withLogical(&format.LogicalType{DATE: &format.DateType{}}))}
	good, err := EncodeArrowSchema(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date64, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	two, _ := EncodeArrowSchema(arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date64}, {Name: "e", Type: arrow.Null}}, nil))
	tests := []struct {
		name    string
		value   string
		opts    ReadOptions
		want    string
		errWant string
	}{
		{"used", good, ReadOptions{}, "d: date64", ""},
		{"switched off", good, ReadOptions{IgnoreArrowSchema: true}, "d: date32", ""},
		{"field count differs", two, ReadOptions{}, "d: date32", "ARROW:schema has 2 fields, the Parquet schema 1"},
		{"not base64", "!!!", ReadOptions{}, "d: date32", "not base64"},
		{"truncated", good[:12], ReadOptions{}, "d: date32", "exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := mapSchema(t, elems, []*format.KeyValue{{Key: ArrowSchemaKey, Value: &tt.value}}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := describeField(m.Schema.Field(0)); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			if tt.errWant == "" && m.OriginErr != nil || tt.errWant != "" && (m.OriginErr == nil || !strings.Contains(m.OriginErr.Error(), tt.errWant)) {
				t.Errorf("OriginErr %v, want %q", m.OriginErr, tt.errWant)
			}
		})
	}
}

func TestReadOptionsValidated(t *testing.T) {
	if _, err := mapSchema(t, []*el{root(1), prim("a", opt, i96)}, nil, ReadOptions{Int96Unit: 9}); err == nil {
		t.Error("Int96Unit 9 accepted")
	}
}

// An Int96Unit chosen by the reader wins over the unit of ARROW:schema
// (so that Spark dates beyond 2262 stay readable); the zone still comes
// from ARROW:schema.
func TestInt96UnitOverridesArrowSchema(t *testing.T) {
	v, err := EncodeArrowSchema(arrow.NewSchema([]arrow.Field{{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mapSchema(t, []*el{root(1), prim("t", opt, i96)}, []*format.KeyValue{{Key: ArrowSchemaKey, Value: &v}}, ReadOptions{Int96Unit: Int96Micros})
	if err != nil {
		t.Fatal(err)
	}
	if got := describeField(m.Schema.Field(0)); got != "t: timestamp[us, tz=UTC]" {
		t.Errorf("got %s", got)
	}
	if c := m.Leaves[0].Conv; c.Kind != Int96 || c.Unit != arrow.Microsecond {
		t.Errorf("conversion %+v", c)
	}
}
