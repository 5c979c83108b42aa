package metadata_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Shared test data lives beside the repository, never inside it.
const (
	parquetTesting = "../../shared/testdata/parquet-testing"
	arrowTesting   = "../../shared/testdata/arrow-testing"
)

func readFooterFile(t *testing.T, path string) *metadata.File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		t.Fatal(err)
	}
	f, err := metadata.ReadFooter(fh, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// leafFact is one leaf column as computed by hand from the printed schema
// with the rules of the spec: every optional or repeated node on the path
// adds one to the maximum definition level, every repeated node one to the
// maximum repetition level.
type leafFact struct {
	path     string
	def, rep int16
	physical format.Type
}

const (
	tBool  = format.Type_BOOLEAN
	tI32   = format.Type_INT32
	tI64   = format.Type_INT64
	tI96   = format.Type_INT96
	tF32   = format.Type_FLOAT
	tF64   = format.Type_DOUBLE
	tBytes = format.Type_BYTE_ARRAY
)

// TestSchemaLevelsByHand checks leaf paths, levels and physical types of
// real files against values worked out by hand (the comments show the
// arithmetic along each path).
func TestSchemaLevelsByHand(t *testing.T) {
	testshared.Need(t, parquetTesting)
	cases := []struct {
		file   string
		rows   int64
		groups int
		leaves []leafFact
	}{
		{"data/nested_maps.snappy.parquet", 6, 1, []leafFact{
			{"a.key_value.key", 2, 1, tBytes},                  // a opt +1, key_value rep +1/+1, key req
			{"a.key_value.value.key_value.key", 4, 2, tI32},    // + value opt +1, key_value rep +1/+1
			{"a.key_value.value.key_value.value", 4, 2, tBool}, // same path, required leaf
			{"b", 0, 0, tI32},
			{"c", 0, 0, tF64},
		}},
		{"data/old_list_structure.parquet", 1, 1, []leafFact{
			{"a.array.array", 2, 2, tI32}, // a req, array rep +1/+1, array rep +1/+1
		}},
		{"data/alltypes_plain.parquet", 8, 1, []leafFact{
			{"id", 1, 0, tI32}, {"bool_col", 1, 0, tBool}, {"tinyint_col", 1, 0, tI32},
			{"smallint_col", 1, 0, tI32}, {"int_col", 1, 0, tI32}, {"bigint_col", 1, 0, tI64},
			{"float_col", 1, 0, tF32}, {"double_col", 1, 0, tF64}, {"date_string_col", 1, 0, tBytes},
			{"string_col", 1, 0, tBytes}, {"timestamp_col", 1, 0, tI96},
		}},
		{"data/nested_lists.snappy.parquet", 3, 1, []leafFact{
			// three times (opt LIST group +1, rep list +1/+1), then opt element +1
			{"a.list.element.list.element.list.element", 7, 3, tBytes},
			{"b", 0, 0, tI32},
		}},
		{"data/list_columns.parquet", 3, 1, []leafFact{
			{"int64_list.list.item", 3, 1, tI64}, // opt +1, rep +1/+1, opt +1
			{"utf8_list.list.item", 3, 1, tBytes},
		}},
		{"data/null_list.parquet", 1, 1, []leafFact{
			{"emptylist.list.item", 3, 1, tI32},
		}},
		{"data/repeated_no_annotation.parquet", 6, 1, []leafFact{
			{"id", 0, 0, tI32},
			{"phoneNumbers.phone.number", 2, 1, tI64}, // opt +1, rep +1/+1, req
			{"phoneNumbers.phone.kind", 3, 1, tBytes}, // ... opt +1
		}},
		{"data/repeated_primitive_no_list.parquet", 4, 1, []leafFact{
			{"Int32_list", 1, 1, tI32}, // a bare repeated leaf: +1/+1
			{"String_list", 1, 1, tBytes},
			{"group_of_lists.Int32_list_in_group", 1, 1, tI32}, // req group adds nothing
			{"group_of_lists.String_list_in_group", 1, 1, tBytes},
		}},
		{"data/nonnullable.impala.parquet", 1, 1, []leafFact{
			{"ID", 0, 0, tI64},
			{"Int_Array.list.element", 1, 1, tI32},                    // req, rep +1/+1, req
			{"int_array_array.list.element.list.element", 2, 2, tI32}, // two repeated nodes
			{"Int_Map.map.key", 1, 1, tBytes},
			{"Int_Map.map.value", 1, 1, tI32},
			{"int_map_array.list.element.map.key", 2, 2, tBytes},
			{"int_map_array.list.element.map.value", 2, 2, tI32},
			{"nested_Struct.a", 0, 0, tI32},
			{"nested_Struct.B.list.element", 1, 1, tI32},
			{"nested_Struct.c.D.list.element.list.element.e", 2, 2, tI32},
			{"nested_Struct.c.D.list.element.list.element.f", 2, 2, tBytes},
			{"nested_Struct.G.map.key", 1, 1, tBytes},
			{"nested_Struct.G.map.value.h.i.list.element", 2, 2, tF64},
		}},
		{"data/map_no_value.parquet", 3, 1, []leafFact{
			{"my_map.key_value.key", 1, 1, tI32},   // req MAP, rep +1/+1, req
			{"my_map.key_value.value", 2, 1, tI32}, // ... opt +1
			{"my_map_no_v.key_value.key", 1, 1, tI32},
			{"my_list.list.element", 1, 1, tI32},
		}},
		{"data/incorrect_map_schema.parquet", 1, 1, []leafFact{
			{"my_map.key_value.key", 3, 1, tBytes}, // opt +1, rep +1/+1, optional key +1
			{"my_map.key_value.value", 3, 1, tBytes},
		}},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			f := readFooterFile(t, filepath.Join(parquetTesting, tc.file))
			if got := f.NumRows(); got != tc.rows {
				t.Errorf("rows = %d, want %d", got, tc.rows)
			}
			if got := len(f.Meta.RowGroups); got != tc.groups {
				t.Errorf("row groups = %d, want %d", got, tc.groups)
			}
			if len(f.Schema.Columns) != len(tc.leaves) {
				t.Fatalf("%d leaves, want %d", len(f.Schema.Columns), len(tc.leaves))
			}
			for i, want := range tc.leaves {
				c := f.Schema.Columns[i]
				if c.DottedPath != want.path || c.MaxDef != want.def || c.MaxRep != want.rep || c.Physical != want.physical {
					t.Errorf("leaf %d = %s def %d rep %d %v, want %s def %d rep %d %v",
						i, c.DottedPath, c.MaxDef, c.MaxRep, c.Physical, want.path, want.def, want.rep, want.physical)
				}
				if c.Index != i || c.Node.Column != i {
					t.Errorf("leaf %d has index %d / node column %d", i, c.Index, c.Node.Column)
				}
				if got := f.Schema.ColumnByPath(want.path); got != c {
					t.Errorf("ColumnByPath(%q) = %v, want leaf %d", want.path, got, i)
				}
				if got := f.Schema.ColumnByNames(strings.Split(want.path, ".")); got != c {
					t.Errorf("ColumnByNames(%q) did not find leaf %d", want.path, i)
				}
				if got := f.Schema.Column(i); got != c {
					t.Errorf("Column(%d) = %v", i, got)
				}
				// The chunk metadata of every row group names the same path.
				for rg := range f.Meta.RowGroups {
					md, err := f.ColumnChunk(rg, i)
					if err != nil {
						t.Fatal(err)
					}
					if got := strings.Join(md.PathInSchema, "."); got != want.path {
						t.Errorf("row group %d chunk %d path_in_schema %q, want %q", rg, i, got, want.path)
					}
				}
			}
			if f.Schema.ColumnByPath("no.such.column") != nil || f.Schema.Column(len(tc.leaves)) != nil || f.Schema.Column(-1) != nil {
				t.Error("lookup of a missing column found something")
			}
		})
	}
}

// TestSchemaFieldIDs uses the protobuf-written file whose schema carries
// field ids (parquet-mr writes them from the .proto field numbers).
func TestSchemaFieldIDs(t *testing.T) {
	testshared.Need(t, arrowTesting)
	f := readFooterFile(t, filepath.Join(arrowTesting, "data/parquet/generated_simple_numerics/blogs.parquet"))
	want := map[string]int32{"reply": 1, "reply_id": 1, "next_id": 2, "blog_id": 2}
	for _, n := range f.Schema.Nodes[1:] {
		id, ok := n.FieldID()
		if !ok || id != want[n.Name] {
			t.Errorf("%s: field id %d (%v), want %d", n.Name, id, ok, want[n.Name])
		}
	}
	if got := f.Schema.Columns[1].DottedPath; got != "reply.next_id" {
		t.Errorf("leaf 1 = %s", got)
	}
	if c := f.Schema.Columns[1]; c.MaxDef != 2 || c.MaxRep != 0 {
		t.Errorf("reply.next_id levels %d/%d, want 2/0 (two optional nodes)", c.MaxDef, c.MaxRep)
	}
}

func elem(name string, rep format.FieldRepetitionType, typ *format.Type, children int32) *format.SchemaElement {
	el := &format.SchemaElement{Name: name}
	if rep != none {
		el.RepetitionType = &rep
	}
	if typ != nil {
		el.Type = typ
	}
	if children != none {
		el.NumChildren = &children
	}
	return el
}

func typ(t format.Type) *format.Type { return &t }

// none marks an unset repetition or child count in elem.
const none = -1 << 20

func TestSchemaValidation(t *testing.T) {
	root := func(n int32) *format.SchemaElement { return elem("schema", none, nil, n) }
	flba := elem("f", metadata.Required, typ(format.Type_FIXED_LEN_BYTE_ARRAY), none)
	badType := elem("x", metadata.Required, typ(format.Type(42)), none)
	badRep := elem("x", format.FieldRepetitionType(9), typ(format.Type_INT32), none)
	cases := []struct {
		name  string
		elems []*format.SchemaElement
		want  string
	}{
		{"empty", nil, "no root"},
		{"repeated root", []*format.SchemaElement{elem("schema", metadata.Repeated, nil, 0)}, "root \"schema\" is repeated"},
		{"primitive root", []*format.SchemaElement{elem("schema", none, typ(format.Type_INT32), none)}, "primitive"},
		{"children overrun", []*format.SchemaElement{root(3), elem("a", metadata.Required, typ(format.Type_INT32), none)}, "claims 3 children but only 1"},
		{"missing children", []*format.SchemaElement{root(2), elem("g", metadata.Optional, nil, 1), elem("a", metadata.Required, typ(format.Type_INT32), none)}, "missing 1 of its children"},
		{"negative children", []*format.SchemaElement{root(1), elem("g", metadata.Optional, nil, -2)}, "-2 children"},
		{"trailing elements", []*format.SchemaElement{root(1), elem("a", metadata.Required, typ(format.Type_INT32), none), elem("b", metadata.Required, typ(format.Type_INT32), none)}, "outside the tree"},
		{"leaf without type", []*format.SchemaElement{root(1), elem("a", metadata.Required, nil, none)}, "no physical type"},
		{"flba without length", []*format.SchemaElement{root(1), flba}, "type_length"},
		{"unknown physical type", []*format.SchemaElement{root(1), badType}, "unknown physical type 42"},
		{"unknown repetition", []*format.SchemaElement{root(1), badRep}, "unknown repetition type 9"},
		{"no repetition", []*format.SchemaElement{root(1), elem("a", none, typ(format.Type_INT32), none)}, "no repetition type"},
		{"nil element", []*format.SchemaElement{root(1), nil}, "missing"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := metadata.NewSchema(tc.elems)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, metadata.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want ErrCorrupt containing %q", err, tc.want)
			}
		})
	}

	t.Run("too deep", func(t *testing.T) {
		elems := []*format.SchemaElement{root(1)}
		for i := 0; i < metadata.MaxSchemaDepth+5; i++ {
			elems = append(elems, elem("g", metadata.Optional, nil, 1))
		}
		elems = append(elems, elem("leaf", metadata.Optional, typ(format.Type_INT32), none))
		_, err := metadata.NewSchema(elems)
		if !errors.Is(err, metadata.ErrLimit) {
			t.Fatalf("error %v, want ErrLimit", err)
		}
	})

	t.Run("valid shapes", func(t *testing.T) {
		// An empty schema, an empty group, and a leaf that says num_children = 0.
		s, err := metadata.NewSchema([]*format.SchemaElement{root(0)})
		if err != nil || len(s.Columns) != 0 {
			t.Fatalf("empty schema: %v, %d columns", err, len(s.Columns))
		}
		s, err = metadata.NewSchema([]*format.SchemaElement{
			root(2), elem("g", metadata.Optional, nil, 0), elem("a", metadata.Repeated, typ(format.Type_INT64), 0),
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Columns) != 1 || s.Columns[0].DottedPath != "a" || s.Columns[0].MaxDef != 1 || s.Columns[0].MaxRep != 1 {
			t.Fatalf("columns %+v", s.Columns)
		}
		if g := s.Nodes[1]; g.IsLeaf() || len(g.Children) != 0 {
			t.Errorf("empty group parsed as %+v", g)
		}
	})
}

func TestSchemaText(t *testing.T) {
	testshared.Need(t, parquetTesting, arrowTesting)
	f := readFooterFile(t, filepath.Join(parquetTesting, "data/old_list_structure.parquet"))
	want := `message my_record {
  required group a (LIST) {
    repeated group array (LIST) {
      repeated int32 array;
    }
  }
}
`
	if got := f.Schema.Text(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	f = readFooterFile(t, filepath.Join(arrowTesting, "data/parquet/generated_simple_numerics/blogs.parquet"))
	if got := f.Schema.Text(); !strings.Contains(got, "  optional group reply = 1 {\n    required int32 reply_id = 1;\n") {
		t.Errorf("field ids missing:\n%s", got)
	}
}
