package typemap

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// WriteOptions tunes [FromArrow]. The zero value means defaults.
type WriteOptions struct {
	// IgnoreArrowSchema leaves out the ARROW:schema footer entry. Readers
	// then see only the Parquet mapping: Duration reads as Int64, Date64 as
	// Date32, LargeString as String, and so on (see docs/type-mapping.md).
	IgnoreArrowSchema bool
	// Int96Timestamps stores every Timestamp as INT96 (Julian day and
	// nanoseconds of the day), as Impala and old Spark expect, instead of
	// INT64 TIMESTAMP.
	Int96Timestamps bool
	// RootName names the schema root; "schema" when empty.
	RootName string
	// ArrowSchema, if not nil, is the schema stored in ARROW:schema
	// instead of the one mapped: a writer that maps the plain layout of
	// its schema (list views as lists, run-end encoded arrays as their
	// values) keeps the layouts it was given for readers to restore.
	ArrowSchema *arrow.Schema
}

// WriteManifest is the result of [FromArrow].
type WriteManifest struct {
	// Elements is the flattened Parquet schema, root first, ready for
	// FileMetaData.schema.
	Elements []*format.SchemaElement
	// Schema is the schema tree built from Elements.
	Schema *metadata.Schema
	// Fields holds one entry per top-level Arrow field; Leaves is indexed
	// by Parquet leaf column index. Field.Conv describes the write
	// direction: Arrow storage values to physical values.
	Fields []*Field
	Leaves []*Field
	// KeyValue is the ARROW:schema entry for the footer, nil when
	// WriteOptions.IgnoreArrowSchema is set.
	KeyValue *format.KeyValue
}

// FromArrow maps the Arrow schema s to a Parquet schema. An Arrow type that
// Parquet cannot store gives an error wrapping [ErrUnsupported] that names
// the field and the type.
func FromArrow(s *arrow.Schema, opts WriteOptions) (*WriteManifest, error) {
	if s == nil {
		return nil, fmt.Errorf("typemap: no Arrow schema: %w", ErrUnsupported)
	}
	w := &writer{opts: opts}
	rootName := opts.RootName
	if rootName == "" {
		rootName = "schema"
	}
	rootEl := &format.SchemaElement{Name: rootName, NumChildren: ptrTo(int32(s.NumFields()))}
	w.elems = append(w.elems, rootEl)
	for _, af := range s.Fields() {
		if _, err := w.field(af, af.Name, nil); err != nil {
			return nil, err
		}
	}
	schema, err := metadata.NewSchema(w.elems)
	if err != nil {
		return nil, fmt.Errorf("typemap: the Parquet schema built from Arrow is invalid: %w", err)
	}
	m := &WriteManifest{Elements: w.elems, Schema: schema, Leaves: make([]*Field, len(schema.Columns))}
	// Link the Fields to the nodes now that they exist.
	for _, f := range w.all {
		if f.nodeIndex >= 0 {
			f.Field.Node = schema.Nodes[f.nodeIndex]
		}
		if f.repeatedIndex >= 0 {
			f.Field.Repeated = schema.Nodes[f.repeatedIndex]
		}
		if f.Field.Kind == Leaf {
			f.Field.Column = schema.Nodes[f.nodeIndex].Column
			m.Leaves[f.Field.Column] = f.Field
		}
	}
	m.Fields = w.top
	if !opts.IgnoreArrowSchema {
		stored := s
		if opts.ArrowSchema != nil {
			stored = opts.ArrowSchema
		}
		v, err := EncodeArrowSchema(stored)
		if err != nil {
			return nil, err
		}
		m.KeyValue = &format.KeyValue{Key: ArrowSchemaKey, Value: &v}
	}
	return m, nil
}

type wfield struct {
	Field         *Field
	nodeIndex     int
	repeatedIndex int
}

type writer struct {
	opts  WriteOptions
	elems []*format.SchemaElement
	all   []*wfield
	top   []*Field
}

func ptrTo[T any](v T) *T { return &v }

func (w *writer) unsupported(path string, dt arrow.DataType, why string) error {
	if why != "" {
		why = ": " + why
	}
	return fmt.Errorf("typemap: field %s: Arrow type %s cannot be stored in Parquet%s: %w", path, dt, why, ErrUnsupported)
}

// field appends the elements of af (with repetition from its nullability)
// and returns its Field.
func (w *writer) field(af arrow.Field, path string, parent *Field) (*Field, error) {
	repetition := format.FieldRepetitionType_REQUIRED
	if af.Nullable {
		repetition = format.FieldRepetitionType_OPTIONAL
	}
	return w.node(af, af.Name, repetition, path, parent)
}

// node appends the elements of af under the given name and repetition.
func (w *writer) node(af arrow.Field, name string, repetition format.FieldRepetitionType, path string, parent *Field) (*Field, error) {
	f := &Field{Arrow: af, Parent: parent, Column: -1}
	wf := &wfield{Field: f, nodeIndex: len(w.elems), repeatedIndex: -1}
	w.all = append(w.all, wf)
	if parent == nil {
		w.top = append(w.top, f)
	}
	el := &format.SchemaElement{Name: name, RepetitionType: ptrTo(repetition)}
	if id, ok, err := fieldID(af); err != nil {
		return nil, fmt.Errorf("typemap: field %s: %w", path, err)
	} else if ok {
		el.FieldID = ptrTo(id)
	}
	w.elems = append(w.elems, el)

	dt := af.Type
	if dict, ok := dt.(*arrow.DictionaryType); ok {
		dt = dict.ValueType
		if _, nested := dt.(arrow.NestedType); nested {
			return nil, w.unsupported(path, af.Type, "dictionary values must be primitive")
		}
	}
	if ext, ok := dt.(arrow.ExtensionType); ok {
		switch ext.ExtensionName() {
		case extensions.NewUUIDType().ExtensionName():
			if fsb, ok := ext.StorageType().(*arrow.FixedSizeBinaryType); ok && fsb.ByteWidth == 16 {
				el.Type, el.TypeLength = ptrTo(format.Type_FIXED_LEN_BYTE_ARRAY), ptrTo(int32(16))
				el.LogicalType = &format.LogicalType{UUID: &format.UUIDType{}}
				w.leaf(f, identity(format.Type_FIXED_LEN_BYTE_ARRAY, 16, fsb))
				return f, nil
			}
		case "arrow.json":
			switch st := ext.StorageType(); st.ID() {
			case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
				el.Type = ptrTo(format.Type_BYTE_ARRAY)
				el.LogicalType = &format.LogicalType{JSON: &format.JsonType{}}
				el.ConvertedType = ptrTo(format.ConvertedType_JSON)
				w.leaf(f, identity(format.Type_BYTE_ARRAY, 0, st))
				return f, nil
			}
		case extensions.VariantExtensionName:
			if st, ok := ext.StorageType().(*arrow.StructType); ok {
				el.LogicalType = &format.LogicalType{VARIANT: &format.VariantType{SpecificationVersion: ptrTo(int8(1))}}
				return f, w.structChildren(f, el, st, path)
			}
		}
		dt = ext.StorageType()
	}
	if name, _ := af.Metadata.GetValue(ExtensionNameKey); name == GeoArrowWKB {
		if err := geoLogicalType(el, af.Metadata); err != nil {
			return nil, fmt.Errorf("typemap: field %s: %w", path, err)
		}
	}

	switch t := dt.(type) {
	case *arrow.StructType:
		if t.NumFields() == 0 {
			return nil, w.unsupported(path, af.Type, "a Parquet group needs at least one field")
		}
		return f, w.structChildren(f, el, t, path)
	case *arrow.MapType:
		f.Kind = Map
		el.NumChildren = ptrTo(int32(1))
		el.LogicalType = &format.LogicalType{MAP: &format.MapType{}}
		el.ConvertedType = ptrTo(format.ConvertedType_MAP)
		wf.repeatedIndex = len(w.elems)
		w.elems = append(w.elems, &format.SchemaElement{Name: "key_value", RepetitionType: ptrTo(format.FieldRepetitionType_REPEATED), NumChildren: ptrTo(int32(2))})
		kf := t.KeyField()
		key, err := w.node(kf, "key", format.FieldRepetitionType_REQUIRED, path+".key", f)
		if err != nil {
			return nil, err
		}
		vf := t.ItemField()
		vrep := format.FieldRepetitionType_REQUIRED
		if vf.Nullable {
			vrep = format.FieldRepetitionType_OPTIONAL
		}
		val, err := w.node(vf, "value", vrep, path+".value", f)
		if err != nil {
			return nil, err
		}
		f.Children = []*Field{key, val}
		return f, nil
	case arrow.ListLikeType:
		f.Kind = List
		el.NumChildren = ptrTo(int32(1))
		el.LogicalType = &format.LogicalType{LIST: &format.ListType{}}
		el.ConvertedType = ptrTo(format.ConvertedType_LIST)
		wf.repeatedIndex = len(w.elems)
		w.elems = append(w.elems, &format.SchemaElement{Name: "list", RepetitionType: ptrTo(format.FieldRepetitionType_REPEATED), NumChildren: ptrTo(int32(1))})
		ef := t.ElemField()
		erep := format.FieldRepetitionType_REQUIRED
		if ef.Nullable {
			erep = format.FieldRepetitionType_OPTIONAL
		}
		elem, err := w.node(ef, "element", erep, path+".list.element", f)
		if err != nil {
			return nil, err
		}
		f.Children = []*Field{elem}
		return f, nil
	}
	conv, err := w.primitive(el, dt, af.Type, path)
	if err != nil {
		return nil, err
	}
	if dt.ID() == arrow.NULL {
		// Every value of a Null array is null, whatever the field says.
		el.RepetitionType = ptrTo(format.FieldRepetitionType_OPTIONAL)
	}
	w.leaf(f, conv)
	return f, nil
}

func (w *writer) leaf(f *Field, conv Conversion) {
	f.Kind = Leaf
	f.Conv = conv
}

func (w *writer) structChildren(f *Field, el *format.SchemaElement, st *arrow.StructType, path string) error {
	f.Kind = Struct
	el.NumChildren = ptrTo(int32(st.NumFields()))
	for _, c := range st.Fields() {
		cf, err := w.field(c, path+"."+c.Name, f)
		if err != nil {
			return err
		}
		f.Children = append(f.Children, cf)
	}
	return nil
}

// primitive fills the physical type and annotations of el for the leaf
// storage type dt (full is the field's type, for messages).
func (w *writer) primitive(el *format.SchemaElement, dt, full arrow.DataType, path string) (Conversion, error) {
	set := func(phys format.Type) { el.Type = ptrTo(phys) }
	intAnn := func(bits int8, signed bool, ct format.ConvertedType) {
		el.LogicalType = &format.LogicalType{INTEGER: &format.IntType{BitWidth: bits, IsSigned: signed}}
		el.ConvertedType = ptrTo(ct)
	}
	switch t := dt.(type) {
	case *arrow.NullType:
		set(format.Type_INT32)
		el.LogicalType = &format.LogicalType{UNKNOWN: &format.NullType{}}
		return Conversion{Kind: Null, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.BooleanType:
		set(format.Type_BOOLEAN)
		return identity(format.Type_BOOLEAN, 0, dt), nil
	case *arrow.Int8Type:
		set(format.Type_INT32)
		intAnn(8, true, format.ConvertedType_INT_8)
		return Conversion{Kind: IntCast, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Int16Type:
		set(format.Type_INT32)
		intAnn(16, true, format.ConvertedType_INT_16)
		return Conversion{Kind: IntCast, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Int32Type:
		set(format.Type_INT32)
		intAnn(32, true, format.ConvertedType_INT_32)
		return identity(format.Type_INT32, 0, dt), nil
	case *arrow.Int64Type:
		set(format.Type_INT64)
		intAnn(64, true, format.ConvertedType_INT_64)
		return identity(format.Type_INT64, 0, dt), nil
	case *arrow.Uint8Type:
		set(format.Type_INT32)
		intAnn(8, false, format.ConvertedType_UINT_8)
		return Conversion{Kind: IntCast, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Uint16Type:
		set(format.Type_INT32)
		intAnn(16, false, format.ConvertedType_UINT_16)
		return Conversion{Kind: IntCast, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Uint32Type:
		set(format.Type_INT32)
		intAnn(32, false, format.ConvertedType_UINT_32)
		return Conversion{Kind: IntCast, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Uint64Type:
		set(format.Type_INT64)
		intAnn(64, false, format.ConvertedType_UINT_64)
		return Conversion{Kind: IntCast, Physical: format.Type_INT64, Arrow: dt, Mul: 1, Div: 1}, nil
	case *arrow.Float16Type:
		set(format.Type_FIXED_LEN_BYTE_ARRAY)
		el.TypeLength = ptrTo(int32(2))
		el.LogicalType = &format.LogicalType{FLOAT16: &format.Float16Type{}}
		return identity(format.Type_FIXED_LEN_BYTE_ARRAY, 2, dt), nil
	case *arrow.Float32Type:
		set(format.Type_FLOAT)
		return identity(format.Type_FLOAT, 0, dt), nil
	case *arrow.Float64Type:
		set(format.Type_DOUBLE)
		return identity(format.Type_DOUBLE, 0, dt), nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		set(format.Type_BYTE_ARRAY)
		el.LogicalType = &format.LogicalType{STRING: &format.StringType{}}
		el.ConvertedType = ptrTo(format.ConvertedType_UTF8)
		return identity(format.Type_BYTE_ARRAY, 0, dt), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.BinaryViewType:
		set(format.Type_BYTE_ARRAY)
		return identity(format.Type_BYTE_ARRAY, 0, dt), nil
	case *arrow.FixedSizeBinaryType:
		if t.ByteWidth <= 0 {
			return Conversion{}, w.unsupported(path, full, "zero byte width")
		}
		set(format.Type_FIXED_LEN_BYTE_ARRAY)
		el.TypeLength = ptrTo(int32(t.ByteWidth))
		return identity(format.Type_FIXED_LEN_BYTE_ARRAY, int32(t.ByteWidth), dt), nil
	case arrow.DecimalType:
		p, s := t.GetPrecision(), t.GetScale()
		if p < 1 || s < 0 || s > p {
			return Conversion{}, w.unsupported(path, full, "Parquet DECIMAL needs 1 ≤ precision and 0 ≤ scale ≤ precision")
		}
		phys, width := decimalPhysical(p)
		set(phys)
		if phys == format.Type_FIXED_LEN_BYTE_ARRAY {
			el.TypeLength = ptrTo(width)
		}
		el.LogicalType = &format.LogicalType{DECIMAL: &format.DecimalType{Precision: p, Scale: s}}
		el.ConvertedType = ptrTo(format.ConvertedType_DECIMAL)
		el.Precision, el.Scale = ptrTo(p), ptrTo(s)
		return decimalConv(phys, width, dt), nil
	case *arrow.Date32Type:
		set(format.Type_INT32)
		el.LogicalType = &format.LogicalType{DATE: &format.DateType{}}
		el.ConvertedType = ptrTo(format.ConvertedType_DATE)
		return identity(format.Type_INT32, 0, dt), nil
	case *arrow.Date64Type:
		set(format.Type_INT32)
		el.LogicalType = &format.LogicalType{DATE: &format.DateType{}}
		el.ConvertedType = ptrTo(format.ConvertedType_DATE)
		return Conversion{Kind: Scale, Physical: format.Type_INT32, Arrow: dt, Mul: 1, Div: 86400000}, nil
	case *arrow.Time32Type:
		set(format.Type_INT32)
		el.LogicalType = &format.LogicalType{TIME: &format.TimeType{Unit: &format.TimeUnit{MILLIS: &format.MilliSeconds{}}}}
		el.ConvertedType = ptrTo(format.ConvertedType_TIME_MILLIS)
		if t.Unit == arrow.Second {
			return Conversion{Kind: Scale, Physical: format.Type_INT32, Arrow: dt, Mul: 1000, Div: 1}, nil
		}
		return identity(format.Type_INT32, 0, dt), nil
	case *arrow.Time64Type:
		set(format.Type_INT64)
		if t.Unit == arrow.Nanosecond {
			el.LogicalType = &format.LogicalType{TIME: &format.TimeType{Unit: &format.TimeUnit{NANOS: &format.NanoSeconds{}}}}
		} else {
			el.LogicalType = &format.LogicalType{TIME: &format.TimeType{Unit: &format.TimeUnit{MICROS: &format.MicroSeconds{}}}}
			el.ConvertedType = ptrTo(format.ConvertedType_TIME_MICROS)
		}
		return identity(format.Type_INT64, 0, dt), nil
	case *arrow.TimestampType:
		if w.opts.Int96Timestamps {
			set(format.Type_INT96)
			return Conversion{Kind: Int96, Physical: format.Type_INT96, Arrow: dt, Unit: t.Unit, Mul: 1, Div: 1}, nil
		}
		set(format.Type_INT64)
		ts := &format.TimestampType{IsAdjustedToUTC: t.TimeZone != "", Unit: &format.TimeUnit{}}
		conv := identity(format.Type_INT64, 0, dt)
		switch t.Unit {
		case arrow.Second:
			// Parquet has no seconds; ARROW:schema brings the unit back.
			ts.Unit.MILLIS = &format.MilliSeconds{}
			el.ConvertedType = ptrTo(format.ConvertedType_TIMESTAMP_MILLIS)
			conv = Conversion{Kind: Scale, Physical: format.Type_INT64, Arrow: dt, Mul: 1000, Div: 1}
		case arrow.Millisecond:
			ts.Unit.MILLIS = &format.MilliSeconds{}
			el.ConvertedType = ptrTo(format.ConvertedType_TIMESTAMP_MILLIS)
		case arrow.Microsecond:
			ts.Unit.MICROS = &format.MicroSeconds{}
			el.ConvertedType = ptrTo(format.ConvertedType_TIMESTAMP_MICROS)
		default:
			ts.Unit.NANOS = &format.NanoSeconds{}
		}
		el.LogicalType = &format.LogicalType{TIMESTAMP: ts}
		return conv, nil
	case *arrow.DurationType:
		set(format.Type_INT64)
		return identity(format.Type_INT64, 0, dt), nil
	case *arrow.MonthDayNanoIntervalType, *arrow.MonthIntervalType, *arrow.DayTimeIntervalType:
		set(format.Type_FIXED_LEN_BYTE_ARRAY)
		el.TypeLength = ptrTo(int32(12))
		el.ConvertedType = ptrTo(format.ConvertedType_INTERVAL)
		return Conversion{Kind: Interval, Physical: format.Type_FIXED_LEN_BYTE_ARRAY, TypeLength: 12, Arrow: dt, Mul: 1, Div: 1}, nil
	}
	return Conversion{}, w.unsupported(path, full, "")
}

// decimalPhysical picks the smallest physical type for a decimal of
// precision p: INT32 up to 9 digits, INT64 up to 18, else the narrowest
// FIXED_LEN_BYTE_ARRAY whose n bytes hold floor(log10(2^(8n-1)-1)) ≥ p
// digits.
func decimalPhysical(p int32) (format.Type, int32) {
	switch {
	case p <= maxDecimal32Precision:
		return format.Type_INT32, 0
	case p <= maxDecimal64Precision:
		return format.Type_INT64, 0
	}
	for n := int32(1); ; n++ {
		if maxDigits(n) >= p {
			return format.Type_FIXED_LEN_BYTE_ARRAY, n
		}
	}
}

// maxDigits is floor(log10(2^(8n-1) - 1)): the number of decimal digits
// that n bytes of two's complement always hold.
func maxDigits(n int32) int32 {
	// Compare powers of ten against 2^(8n-1) in decimal digits of a
	// big number kept as base-10^9 limbs: simple, exact, and only run on
	// schema construction.
	limbs := []uint64{1}
	for i := int32(0); i < 8*n-1; i++ {
		carry := uint64(0)
		for j := range limbs {
			v := limbs[j]*2 + carry
			limbs[j], carry = v%1e9, v/1e9
		}
		if carry > 0 {
			limbs = append(limbs, carry)
		}
	}
	// 2^(8n-1) - 1 has as many digits as 2^(8n-1) unless 2^(8n-1) is a
	// power of ten, which it never is for n ≥ 1.
	digits := int32(len(strconv.FormatUint(limbs[len(limbs)-1], 10))) + int32(9*(len(limbs)-1))
	return digits - 1
}

// fieldID reads the PARQUET:field_id metadata of af. -1 (pqarrow's
// placeholder) means none.
func fieldID(af arrow.Field) (int32, bool, error) {
	v, ok := af.Metadata.GetValue(FieldIDKey)
	if !ok {
		return 0, false, nil
	}
	id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, false, fmt.Errorf("%s %q is not a 32-bit integer: %w", FieldIDKey, v, ErrUnsupported)
	}
	if id == -1 {
		return 0, false, nil
	}
	return int32(id), true, nil
}

// geoLogicalType sets the GEOMETRY or GEOGRAPHY annotation of a Binary
// field tagged geoarrow.wkb from its GeoArrow metadata: edges other than
// planar make it GEOGRAPHY.
func geoLogicalType(el *format.SchemaElement, md arrow.Metadata) error {
	var meta struct {
		CRS     json.RawMessage `json:"crs"`
		CRSType string          `json:"crs_type"`
		Edges   string          `json:"edges"`
	}
	if v, ok := md.GetValue(ExtensionMetadataKey); ok && strings.TrimSpace(v) != "" {
		if err := json.Unmarshal([]byte(v), &meta); err != nil {
			return fmt.Errorf("geoarrow.wkb metadata is not JSON: %v: %w", err, ErrUnsupported)
		}
	}
	var crs *string
	if len(meta.CRS) > 0 && string(meta.CRS) != "null" {
		var s string
		if json.Unmarshal(meta.CRS, &s) == nil {
			if meta.CRSType == "srid" {
				s = "srid:" + s
			}
		} else {
			s = string(meta.CRS) // a PROJJSON object, kept inline
		}
		crs = &s
	}
	if meta.Edges == "" || meta.Edges == "planar" {
		el.LogicalType = &format.LogicalType{GEOMETRY: &format.GeometryType{Crs: crs}}
		return nil
	}
	alg, err := format.EdgeInterpolationAlgorithmFromString(strings.ToUpper(meta.Edges))
	if err != nil {
		return fmt.Errorf("geoarrow.wkb edges %q: %w", meta.Edges, ErrUnsupported)
	}
	el.LogicalType = &format.LogicalType{GEOGRAPHY: &format.GeographyType{Crs: crs, Algorithm: &alg}}
	return nil
}
