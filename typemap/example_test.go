package typemap_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

func p[T any](v T) *T { return &v }

// ToArrow maps a Parquet schema; here the legacy two-level list of
// old_list_structure.parquet (rule 3 of the LIST compatibility rules).
func ExampleToArrow() {
	req, rep := format.FieldRepetitionType_REQUIRED, format.FieldRepetitionType_REPEATED
	list := format.ConvertedType_LIST
	s, err := metadata.NewSchema([]*format.SchemaElement{
		{Name: "schema", NumChildren: p(int32(1))},
		{Name: "a", RepetitionType: &req, NumChildren: p(int32(1)), ConvertedType: &list},
		{Name: "array", RepetitionType: &rep, NumChildren: p(int32(1)), ConvertedType: &list},
		{Name: "array", RepetitionType: &rep, Type: p(format.Type_INT32)},
	})
	if err != nil {
		panic(err)
	}
	m, err := typemap.ToArrow(s, nil, typemap.ReadOptions{})
	if err != nil {
		panic(err)
	}
	leaf := m.Leaves[0]
	fmt.Println(m.Schema.Field(0).Type)
	fmt.Println(leaf.Conv, "from column", leaf.Column)
	// Output:
	// list<array: list<array: int32>>
	// identity from column 0
}

// FromArrow maps an Arrow schema to Parquet schema elements and the
// ARROW:schema footer entry.
func ExampleFromArrow() {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.LargeString)},
	}, nil)
	wm, err := typemap.FromArrow(s, typemap.WriteOptions{})
	if err != nil {
		panic(err)
	}
	for _, c := range wm.Schema.Columns {
		fmt.Println(c.DottedPath, c.Physical, wm.Leaves[c.Index].Conv)
	}
	fmt.Println(wm.KeyValue.Key)
	// Output:
	// ts INT64 scale ×1000 (overflow checked)
	// tags.list.element BYTE_ARRAY identity
	// ARROW:schema
}
