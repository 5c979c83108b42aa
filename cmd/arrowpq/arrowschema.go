package main

// --schema as Arrow schema JSON: the schema part of the Arrow integration
// testing JSON format (arrow/format's "JSON test data format"):
//
//	{"fields": [{"name": "a", "nullable": true,
//	             "type": {"name": "int", "isSigned": true, "bitWidth": 64},
//	             "children": []}, ...]}

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

type jsonSchema struct {
	Fields []jsonField `json:"fields"`
}

type jsonField struct {
	Name     string      `json:"name"`
	Nullable *bool       `json:"nullable"`
	Type     jsonType    `json:"type"`
	Children []jsonField `json:"children"`
}

type jsonType struct {
	Name       string `json:"name"`
	IsSigned   bool   `json:"isSigned"`
	BitWidth   int    `json:"bitWidth"`
	Precision  any    `json:"precision"` // "DOUBLE" for floats, a number for decimals
	Scale      int32  `json:"scale"`
	Unit       string `json:"unit"`
	Timezone   string `json:"timezone"`
	ByteWidth  int    `json:"byteWidth"`
	ListSize   int32  `json:"listSize"`
	KeysSorted bool   `json:"keysSorted"`
}

// parseArrowSchemaJSON reads an Arrow schema in the integration JSON form.
func parseArrowSchemaJSON(text string) (*arrow.Schema, error) {
	var js jsonSchema
	if err := json.Unmarshal([]byte(text), &js); err != nil {
		return nil, fmt.Errorf("arrow schema JSON: %w", err)
	}
	if len(js.Fields) == 0 {
		return nil, fmt.Errorf("arrow schema JSON: no fields")
	}
	fields := make([]arrow.Field, len(js.Fields))
	for i, f := range js.Fields {
		af, err := arrowField(f, 0)
		if err != nil {
			return nil, fmt.Errorf("arrow schema JSON: %w", err)
		}
		fields[i] = af
	}
	return arrow.NewSchema(fields, nil), nil
}

func arrowField(f jsonField, depth int) (arrow.Field, error) {
	if depth > 64 {
		return arrow.Field{}, fmt.Errorf("field %s: nested too deep", f.Name)
	}
	t, err := arrowType(f, depth)
	if err != nil {
		return arrow.Field{}, fmt.Errorf("field %s: %w", f.Name, err)
	}
	nullable := f.Nullable == nil || *f.Nullable
	return arrow.Field{Name: f.Name, Type: t, Nullable: nullable}, nil
}

func timeUnit(s string) (arrow.TimeUnit, error) {
	switch s {
	case "SECOND":
		return arrow.Second, nil
	case "MILLISECOND":
		return arrow.Millisecond, nil
	case "MICROSECOND":
		return arrow.Microsecond, nil
	case "NANOSECOND":
		return arrow.Nanosecond, nil
	}
	return 0, fmt.Errorf("unknown unit %q (want SECOND, MILLISECOND, MICROSECOND or NANOSECOND)", s)
}

func arrowType(f jsonField, depth int) (arrow.DataType, error) {
	t := f.Type
	child := func(n int) ([]arrow.Field, error) {
		if n >= 0 && len(f.Children) != n {
			return nil, fmt.Errorf("%s wants %d children, has %d", t.Name, n, len(f.Children))
		}
		out := make([]arrow.Field, len(f.Children))
		for i, c := range f.Children {
			cf, err := arrowField(c, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = cf
		}
		return out, nil
	}
	switch t.Name {
	case "null":
		return arrow.Null, nil
	case "bool":
		return arrow.FixedWidthTypes.Boolean, nil
	case "int":
		switch {
		case t.BitWidth == 8 && t.IsSigned:
			return arrow.PrimitiveTypes.Int8, nil
		case t.BitWidth == 16 && t.IsSigned:
			return arrow.PrimitiveTypes.Int16, nil
		case t.BitWidth == 32 && t.IsSigned:
			return arrow.PrimitiveTypes.Int32, nil
		case t.BitWidth == 64 && t.IsSigned:
			return arrow.PrimitiveTypes.Int64, nil
		case t.BitWidth == 8:
			return arrow.PrimitiveTypes.Uint8, nil
		case t.BitWidth == 16:
			return arrow.PrimitiveTypes.Uint16, nil
		case t.BitWidth == 32:
			return arrow.PrimitiveTypes.Uint32, nil
		case t.BitWidth == 64:
			return arrow.PrimitiveTypes.Uint64, nil
		}
		return nil, fmt.Errorf("int bitWidth %d", t.BitWidth)
	case "floatingpoint":
		switch t.Precision {
		case "HALF":
			return arrow.FixedWidthTypes.Float16, nil
		case "SINGLE":
			return arrow.PrimitiveTypes.Float32, nil
		case "DOUBLE":
			return arrow.PrimitiveTypes.Float64, nil
		}
		return nil, fmt.Errorf("floatingpoint precision %v", t.Precision)
	case "utf8":
		return arrow.BinaryTypes.String, nil
	case "largeutf8":
		return arrow.BinaryTypes.LargeString, nil
	case "binary":
		return arrow.BinaryTypes.Binary, nil
	case "largebinary":
		return arrow.BinaryTypes.LargeBinary, nil
	case "fixedsizebinary":
		if t.ByteWidth <= 0 {
			return nil, fmt.Errorf("fixedsizebinary byteWidth %d", t.ByteWidth)
		}
		return &arrow.FixedSizeBinaryType{ByteWidth: t.ByteWidth}, nil
	case "decimal":
		p, ok := t.Precision.(float64)
		if !ok || p < 1 || p > 76 {
			return nil, fmt.Errorf("decimal precision %v", t.Precision)
		}
		if t.BitWidth == 256 || p > 38 {
			return &arrow.Decimal256Type{Precision: int32(p), Scale: t.Scale}, nil
		}
		return &arrow.Decimal128Type{Precision: int32(p), Scale: t.Scale}, nil
	case "date":
		if t.Unit == "MILLISECOND" {
			return arrow.FixedWidthTypes.Date64, nil
		}
		return arrow.FixedWidthTypes.Date32, nil
	case "time":
		u, err := timeUnit(t.Unit)
		if err != nil {
			return nil, err
		}
		if u == arrow.Second || u == arrow.Millisecond {
			return &arrow.Time32Type{Unit: u}, nil
		}
		return &arrow.Time64Type{Unit: u}, nil
	case "timestamp":
		u, err := timeUnit(t.Unit)
		if err != nil {
			return nil, err
		}
		return &arrow.TimestampType{Unit: u, TimeZone: t.Timezone}, nil
	case "duration":
		u, err := timeUnit(t.Unit)
		if err != nil {
			return nil, err
		}
		return &arrow.DurationType{Unit: u}, nil
	case "list", "largelist", "fixedsizelist":
		c, err := child(1)
		if err != nil {
			return nil, err
		}
		switch t.Name {
		case "largelist":
			return arrow.LargeListOfField(c[0]), nil
		case "fixedsizelist":
			if t.ListSize <= 0 {
				return nil, fmt.Errorf("fixedsizelist listSize %d", t.ListSize)
			}
			return arrow.FixedSizeListOfField(t.ListSize, c[0]), nil
		}
		return arrow.ListOfField(c[0]), nil
	case "struct":
		c, err := child(-1)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, f := range c {
			if seen[f.Name] {
				// arrow.StructOf panics on it.
				return nil, fmt.Errorf("struct has two fields called %q", f.Name)
			}
			seen[f.Name] = true
		}
		return arrow.StructOf(c...), nil
	case "map":
		c, err := child(1)
		if err != nil {
			return nil, err
		}
		st, ok := c[0].Type.(*arrow.StructType)
		if !ok || st.NumFields() != 2 {
			return nil, fmt.Errorf("map wants one struct child with key and value")
		}
		m := arrow.MapOfWithMetadata(st.Field(0).Type, st.Field(0).Metadata, st.Field(1).Type, st.Field(1).Metadata)
		m.KeysSorted = t.KeysSorted
		m.SetItemNullable(st.Field(1).Nullable)
		return m, nil
	}
	return nil, fmt.Errorf("unknown type %q", t.Name)
}
