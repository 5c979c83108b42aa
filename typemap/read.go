package typemap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Int96Unit selects the Arrow time unit INT96 timestamps are read as. The
// zero value is nanoseconds, as Arrow C++ and arrow-rs read them; coarser
// units reach further: nanoseconds only cover 1677-09-21 to 2262-04-11,
// while Spark writes dates outside that range (int96_from_spark.parquet).
type Int96Unit uint8

// Int96Unit values.
const (
	Int96Nanos Int96Unit = iota
	Int96Micros
	Int96Millis
	Int96Seconds
)

func (u Int96Unit) arrowUnit() arrow.TimeUnit {
	switch u {
	case Int96Micros:
		return arrow.Microsecond
	case Int96Millis:
		return arrow.Millisecond
	case Int96Seconds:
		return arrow.Second
	}
	return arrow.Nanosecond
}

// ReadOptions tunes [ToArrow]. The zero value means defaults.
type ReadOptions struct {
	// Int96Unit is the unit of the Timestamp that INT96 columns read as;
	// nanoseconds by default, or the unit ARROW:schema gives. A unit other
	// than nanoseconds set here wins over ARROW:schema.
	Int96Unit Int96Unit
	// SmallDecimals reads DECIMAL of precision ≤ 9 as Decimal32 and ≤ 18 as
	// Decimal64 instead of Decimal128, also where ARROW:schema names
	// Decimal128 or Decimal256 (the request wins: the values are the same).
	SmallDecimals bool
	// Views reads every String and Binary leaf (LargeString and
	// LargeBinary too) as StringView / BinaryView: the request wins over
	// the string type ARROW:schema names, since both are the same values
	// in another layout.
	Views bool
	// IgnoreArrowSchema disregards the ARROW:schema footer entry: the Arrow
	// schema is what the Parquet schema alone says.
	IgnoreArrowSchema bool
	// Dictionary lists the dotted paths (metadata.Column.DottedPath) of the
	// leaf columns to read as Dictionary<int32, T>: binary-like T (Binary,
	// String, their Large and View forms, FixedSizeBinary), integers,
	// floating point, decimals, dates, times, timestamps and durations
	// (every physical type but BOOLEAN: arrow-go has no dictionary of
	// bool); other columns in the list read as usual.
	Dictionary []string
	// RunEndEncoded lists the dotted paths of leaf columns to read as
	// RunEndEncoded<int32, T> (T the leaf's type; a dictionary request
	// wins). ARROW:schema restores run-end encoded types without it.
	RunEndEncoded []string
	// ListViews reads LIST columns as ListView, also where ARROW:schema
	// names List (LargeList as LargeListView; a FixedSizeList stays).
	ListViews bool
}

// Kind is the shape of a [Field].
type Kind uint8

// Field kinds.
const (
	// Leaf is a primitive column.
	Leaf Kind = iota
	// Struct is a group read as an Arrow struct (also the storage of a
	// Variant extension).
	Struct
	// List is any Arrow list flavour: List, LargeList, FixedSizeList,
	// ListView, LargeListView (see Field.Arrow.Type). Parquet has one list
	// shape; the flavour comes from ARROW:schema. For FixedSizeList every
	// non-null list must hold exactly the fixed number of entries, which
	// the read path checks.
	List
	// Map is an Arrow map.
	Map
)

var kindNames = [...]string{Leaf: "leaf", Struct: "struct", List: "list", Map: "map"}

// String returns the lower-case name of k.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Field links one Arrow field to the Parquet nodes that carry it. A tree of
// Fields mirrors the Arrow type; the read path walks it to turn definition
// and repetition levels into validity bitmaps and offsets, and the write path
// to turn them back.
type Field struct {
	// Arrow is the final Arrow field: extension and dictionary types
	// included, field metadata (PARQUET:field_id, restored ARROW:schema
	// metadata) attached.
	Arrow arrow.Field
	Kind  Kind
	// Node is the Parquet node whose definition level says whether this
	// Arrow value is present. When Node is nil or Node.Repetition is not
	// metadata.Optional the array has no nulls (except a Null-typed leaf,
	// which is all nulls and always nullable). A map key is the one field
	// whose Arrow field is non-nullable while its Node may be Optional
	// (incorrect_map_schema.parquet): a null key there is an error at read
	// time.
	Node *metadata.Node
	// Repeated is, for List and Map, the repeated node whose occurrences are
	// the list entries (map entries).
	Repeated *metadata.Node
	// Children are the members of a Struct, the single element of a List,
	// or the key and value of a Map (whose entries struct is never null).
	Children []*Field
	// Parent is nil for a top-level field.
	Parent *Field
	// Column is the leaf column index of a Leaf, -1 otherwise.
	Column int
	// Conv is how the physical values of a Leaf become the Arrow storage
	// values (reading) or the reverse (writing).
	Conv Conversion
}

// Manifest is the result of [ToArrow]: the Arrow schema and, for every
// Arrow field, the Parquet nodes behind it. It is immutable and may be shared
// between goroutines.
type Manifest struct {
	Schema *arrow.Schema
	// Fields holds one entry per top-level Arrow field.
	Fields []*Field
	// Leaves is indexed by Parquet leaf column index; every leaf is mapped.
	Leaves []*Field
	// Origin is the decoded ARROW:schema, nil when absent, ignored or not
	// usable; OriginErr says why it was not used when it was present.
	Origin    *arrow.Schema
	OriginErr error
}

// ArrowSchemaKey is the footer key/value entry under which Arrow writers
// store the base64 Arrow IPC schema message.
const ArrowSchemaKey = "ARROW:schema"

// ToArrow maps the Parquet schema s to Arrow. kv is the footer's key/value
// metadata (FileMetaData.key_value_metadata); its ARROW:schema entry, when
// present, restores Arrow types that Parquet cannot express as long as the
// stored data can produce them, and is otherwise ignored without error.
// Errors wrap [ErrCorrupt] and name the field path.
func ToArrow(s *metadata.Schema, kv []*format.KeyValue, opts ReadOptions) (*Manifest, error) {
	if s == nil || s.Root == nil {
		return nil, fmt.Errorf("typemap: no schema: %w", ErrCorrupt)
	}
	if opts.Int96Unit > Int96Seconds {
		return nil, fmt.Errorf("typemap: ReadOptions.Int96Unit %d is not a unit", opts.Int96Unit)
	}
	b := &reader{schema: s, opts: opts, kv: kv, leaves: make([]*Field, len(s.Columns))}
	if len(opts.Dictionary) > 0 {
		b.dict = make(map[string]bool, len(opts.Dictionary))
		for _, p := range opts.Dictionary {
			b.dict[p] = true
		}
	}
	if len(opts.RunEndEncoded) > 0 {
		b.ree = make(map[string]bool, len(opts.RunEndEncoded))
		for _, p := range opts.RunEndEncoded {
			b.ree[p] = true
		}
	}
	m := &Manifest{Leaves: b.leaves}
	if !opts.IgnoreArrowSchema {
		if v, ok := b.keyValue(ArrowSchemaKey); ok {
			origin, err := DecodeArrowSchema(v)
			switch {
			case err != nil:
				m.OriginErr = err
			case origin.NumFields() != len(s.Root.Children):
				m.OriginErr = fmt.Errorf("typemap: ARROW:schema has %d fields, the Parquet schema %d", origin.NumFields(), len(s.Root.Children))
			default:
				m.Origin = origin
			}
		}
	}
	fields := make([]arrow.Field, len(s.Root.Children))
	m.Fields = make([]*Field, len(s.Root.Children))
	for i, child := range s.Root.Children {
		var origin *arrow.Field
		if m.Origin != nil {
			o := m.Origin.Field(i)
			origin = &o
		}
		f, err := b.field(child, origin)
		if err != nil {
			return nil, err
		}
		m.Fields[i] = f
		fields[i] = f.Arrow
	}
	var md *arrow.Metadata
	if m.Origin != nil && m.Origin.Metadata().Len() > 0 {
		mdv := m.Origin.Metadata()
		md = &mdv
	}
	m.Schema = arrow.NewSchema(fields, md)
	return m, nil
}

type reader struct {
	schema *metadata.Schema
	opts   ReadOptions
	kv     []*format.KeyValue
	dict   map[string]bool
	ree    map[string]bool
	leaves []*Field
}

func (b *reader) keyValue(key string) (string, bool) {
	for _, e := range b.kv {
		if e != nil && e.Key == key {
			if e.Value == nil {
				return "", true
			}
			return *e.Value, true
		}
	}
	return "", false
}

func (b *reader) errorf(n *metadata.Node, msg string, args ...any) error {
	return fmt.Errorf("typemap: field %s: %s: %w", strings.Join(n.Path(), "."), fmt.Sprintf(msg, args...), ErrCorrupt)
}

// field maps n with its repetition. A repeated node outside a LIST or MAP
// is a required list of required elements (the spec's rule for unannotated
// repeated fields).
func (b *reader) field(n *metadata.Node, origin *arrow.Field) (*Field, error) {
	if n.Repetition == metadata.Vector {
		return nil, fmt.Errorf("typemap: field %s: VECTOR repetition: %w", strings.Join(n.Path(), "."), ErrUnsupported)
	}
	if n.Repetition != metadata.Repeated {
		f, err := b.value(n, origin)
		if err != nil {
			return nil, err
		}
		f.Node = n
		// Every value of a Null array is null, whatever the repetition.
		f.Arrow.Nullable = n.Repetition == metadata.Optional || f.Arrow.Type.ID() == arrow.NULL
		return f, nil
	}
	list := &Field{Kind: List, Repeated: n, Column: -1}
	elem, err := b.value(n, listElem(origin))
	if err != nil {
		return nil, err
	}
	b.finishList(list, n.Name, n, elem, origin)
	return list, nil
}

// value maps the type of n, ignoring its repetition; the caller sets Node
// and nullability.
func (b *reader) value(n *metadata.Node, origin *arrow.Field) (*Field, error) {
	if n.IsLeaf() {
		return b.leaf(n, origin), nil
	}
	switch annotationOf(n).kind {
	case annList:
		return b.list(n, origin)
	case annMap, annMapKeyValue:
		return b.mapGroup(n, origin)
	case annVariant:
		f, err := b.group(n, nil)
		if err != nil {
			return nil, err
		}
		// A group that does not have the Variant shape stays a struct, as
		// any unknown annotation leaves the underlying type.
		if vt, err := extensions.NewVariantType(f.Arrow.Type); err == nil {
			f.Arrow.Type = vt
		}
		return f, nil
	}
	return b.group(n, origin)
}

func (b *reader) group(n *metadata.Node, origin *arrow.Field) (*Field, error) {
	so := storageOf(origin)
	var childOrigins []arrow.Field
	if st, ok := so.(*arrow.StructType); ok && st.NumFields() == len(n.Children) {
		childOrigins = st.Fields()
	}
	f := &Field{Kind: Struct, Column: -1, Children: make([]*Field, len(n.Children))}
	fields := make([]arrow.Field, len(n.Children))
	for i, c := range n.Children {
		var co *arrow.Field
		if childOrigins != nil {
			co = &childOrigins[i]
		}
		cf, err := b.field(c, co)
		if err != nil {
			return nil, err
		}
		cf.Parent = f
		f.Children[i] = cf
		fields[i] = cf.Arrow
	}
	f.Arrow = b.arrowField(n, arrow.StructOf(fields...), origin)
	return f, nil
}

// list maps a LIST-annotated group with the backward-compatibility rules
// of LogicalTypes.md ("Lists", "Backward-compatibility rules").
func (b *reader) list(g *metadata.Node, origin *arrow.Field) (*Field, error) {
	if len(g.Children) != 1 {
		return nil, b.errorf(g, "LIST group has %d children, want exactly one repeated field", len(g.Children))
	}
	r := g.Children[0]
	if r.Repetition != metadata.Repeated {
		return nil, b.errorf(g, "the child %q of a LIST group is %s, not repeated", r.Name, r.Repetition)
	}
	list := &Field{Kind: List, Repeated: r, Column: -1}
	eo := listElem(origin)
	var (
		elem *Field
		err  error
	)
	switch {
	case r.IsLeaf(), // rule 1: a repeated primitive is the element
		len(r.Children) != 1,                           // rule 2: a group of several fields is the element
		r.Children[0].Repetition == metadata.Repeated,  // rule 3: its one field is repeated
		r.Name == "array" || r.Name == g.Name+"_tuple": // rule 4: a one-field tuple
		elem, err = b.value(r, eo)
		if err != nil {
			return nil, err
		}
	default: // rule 5 and the standard 3-level form
		elem, err = b.field(r.Children[0], eo)
		if err != nil {
			return nil, err
		}
	}
	b.finishList(list, g.Name, g, elem, origin)
	return list, nil
}

// finishList completes list with element elem. elem.Node is nil when the
// element is the repeated node itself (never null).
func (b *reader) finishList(list *Field, name string, n *metadata.Node, elem *Field, origin *arrow.Field) {
	if elem.Node == nil || elem.Node == list.Repeated {
		elem.Node = nil
		elem.Arrow.Nullable = elem.Arrow.Type.ID() == arrow.NULL
	}
	if eo := listElem(origin); eo != nil && eo.Name != "" {
		// Only the name: Parquet fixes element names, Arrow writers keep
		// their own ("item"), and a round trip should give them back.
		elem.Arrow.Name = eo.Name
	}
	elem.Parent = list
	list.Children = []*Field{elem}
	var dt arrow.DataType
	switch o := storageOf(origin).(type) {
	case *arrow.LargeListType:
		dt = arrow.LargeListOfField(elem.Arrow)
		if b.opts.ListViews {
			dt = arrow.LargeListViewOfField(elem.Arrow)
		}
	case *arrow.FixedSizeListType:
		if o.Len() > 0 {
			dt = arrow.FixedSizeListOfField(o.Len(), elem.Arrow)
		} else {
			dt = arrow.ListOfField(elem.Arrow)
		}
	case *arrow.ListViewType:
		dt = arrow.ListViewOfField(elem.Arrow)
	case *arrow.LargeListViewType:
		dt = arrow.LargeListViewOfField(elem.Arrow)
	default:
		dt = arrow.ListOfField(elem.Arrow)
		if b.opts.ListViews {
			dt = arrow.ListViewOfField(elem.Arrow)
		}
	}
	list.Arrow = b.arrowField(n, dt, origin)
}

// mapGroup maps a MAP (or stray MAP_KEY_VALUE) group. Names are not
// enforced: key and value are the first and second field of the repeated
// group. A key_value group with only a key reads as a list of keys, as Arrow
// has no set type.
func (b *reader) mapGroup(g *metadata.Node, origin *arrow.Field) (*Field, error) {
	if len(g.Children) != 1 {
		return nil, b.errorf(g, "MAP group has %d children, want exactly one repeated group", len(g.Children))
	}
	kv := g.Children[0]
	if kv.Repetition != metadata.Repeated {
		return nil, b.errorf(g, "the child %q of a MAP group is %s, not repeated", kv.Name, kv.Repetition)
	}
	so := storageOf(origin)
	if kv.IsLeaf() || len(kv.Children) == 1 {
		list := &Field{Kind: List, Repeated: kv, Column: -1}
		var elem *Field
		var err error
		if kv.IsLeaf() {
			elem, err = b.value(kv, listElem(origin))
		} else {
			elem, err = b.field(kv.Children[0], listElem(origin))
		}
		if err != nil {
			return nil, err
		}
		b.finishList(list, g.Name, g, elem, origin)
		return list, nil
	}
	if len(kv.Children) != 2 {
		return nil, b.errorf(g, "MAP key/value group %q has %d fields, want a key and at most one value", kv.Name, len(kv.Children))
	}
	var ko, vo *arrow.Field
	om, _ := so.(*arrow.MapType)
	if om != nil {
		k, v := om.KeyField(), om.ItemField()
		ko, vo = &k, &v
	}
	key, err := b.field(kv.Children[0], ko)
	if err != nil {
		return nil, err
	}
	val, err := b.field(kv.Children[1], vo)
	if err != nil {
		return nil, err
	}
	// Arrow map keys are never null. An optional key is read all the same
	// (some writers mark keys optional although none is null); a null key
	// fails at read time.
	key.Arrow.Nullable = false
	m := &Field{Kind: Map, Repeated: kv, Column: -1, Children: []*Field{key, val}}
	key.Parent, val.Parent = m, m
	mt := arrow.MapOfFields(key.Arrow, val.Arrow)
	if om != nil {
		mt.KeysSorted = om.KeysSorted
	}
	m.Arrow = b.arrowField(g, mt, origin)
	return m, nil
}

func (b *reader) leaf(n *metadata.Node, origin *arrow.Field) *Field {
	lm := b.mapLeaf(n)
	so := storageOf(origin)
	ree, _ := so.(*arrow.RunEndEncodedType)
	if ree != nil {
		// Written as the logical values: adopt the value type.
		so = ree.Encoded()
	}
	if so != nil {
		lm = b.adoptLeaf(n, lm, so)
	}
	lm = b.requested(lm)
	col := b.schema.Columns[n.Column]
	if b.dict[col.DottedPath] && dictionaryValueOK(lm.typ) {
		lm.typ = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: lm.typ}
	} else if runEndValueOK(lm.typ) {
		// Run-end encoding is a layout over the leaf's values, which the
		// reader builds after decoding them: the conversion stays the
		// value type's.
		if ree != nil && arrow.TypeEqual(ree.Encoded(), lm.typ) {
			lm.typ = arrow.RunEndEncodedOf(ree.RunEnds(), lm.typ)
		} else if b.ree[col.DottedPath] {
			lm.typ = arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, lm.typ)
		}
	}
	f := &Field{Kind: Leaf, Column: n.Column, Conv: lm.conv}
	f.Arrow = b.arrowField(n, lm.typ, origin)
	for k, v := range lm.meta {
		f.Arrow.Metadata = withMeta(f.Arrow.Metadata, k, v)
	}
	b.leaves[n.Column] = f
	return f
}

// arrowField builds the Arrow field of node n with type dt: the origin's
// extension type when dt is its storage, the origin's field metadata, and
// the field id.
func (b *reader) arrowField(n *metadata.Node, dt arrow.DataType, origin *arrow.Field) arrow.Field {
	f := arrow.Field{Name: n.Name, Type: dt, Nullable: n.Repetition == metadata.Optional}
	if origin != nil {
		if ext, ok := origin.Type.(arrow.ExtensionType); ok && !arrow.TypeEqual(ext, dt) && arrow.TypeEqual(ext.StorageType(), dt) {
			f.Type = ext
		}
		keys, vals := origin.Metadata.Keys(), origin.Metadata.Values()
		for i, k := range keys {
			if k != FieldIDKey {
				f.Metadata = withMeta(f.Metadata, k, vals[i])
			}
		}
	}
	if id, ok := n.FieldID(); ok {
		f.Metadata = withMeta(f.Metadata, FieldIDKey, strconv.FormatInt(int64(id), 10))
	}
	return f
}

// withMeta returns md with key set to value, replacing an existing entry.
func withMeta(md arrow.Metadata, key, value string) arrow.Metadata {
	keys, vals := md.Keys(), md.Values()
	nk := make([]string, 0, len(keys)+1)
	nv := make([]string, 0, len(keys)+1)
	for i, k := range keys {
		if k != key {
			nk, nv = append(nk, k), append(nv, vals[i])
		}
	}
	return arrow.NewMetadata(append(nk, key), append(nv, value))
}

// storageOf is the type of origin with an extension type unwrapped.
func storageOf(origin *arrow.Field) arrow.DataType {
	if origin == nil {
		return nil
	}
	dt := origin.Type
	for {
		ext, ok := dt.(arrow.ExtensionType)
		if !ok {
			return dt
		}
		dt = ext.StorageType()
	}
}

// listElem is the element field of a list-like origin, or nil.
func listElem(origin *arrow.Field) *arrow.Field {
	if ll, ok := storageOf(origin).(arrow.ListLikeType); ok {
		if _, isMap := ll.(*arrow.MapType); isMap {
			return nil
		}
		f := ll.ElemField()
		return &f
	}
	return nil
}

// requested applies the layouts a reader asked for (Views, SmallDecimals)
// to a leaf's mapping, after ARROW:schema has had its say: they change how
// values are laid out in Arrow, never the values.
func (b *reader) requested(lm leafMapping) leafMapping {
	phys, width := lm.conv.Physical, lm.conv.TypeLength
	switch t := lm.typ.(type) {
	case *arrow.StringType, *arrow.LargeStringType:
		if b.opts.Views && lm.conv.Kind == Identity {
			lm.typ = arrow.BinaryTypes.StringView
			lm.conv = identity(phys, width, lm.typ)
		}
	case *arrow.BinaryType, *arrow.LargeBinaryType:
		if b.opts.Views && lm.conv.Kind == Identity {
			lm.typ = arrow.BinaryTypes.BinaryView
			lm.conv = identity(phys, width, lm.typ)
		}
	case *arrow.Decimal128Type, *arrow.Decimal256Type:
		dt := t.(arrow.DecimalType)
		if b.opts.SmallDecimals && lm.conv.Kind == Decimal && dt.GetPrecision() <= maxDecimal64Precision {
			small := decimalType(dt.GetPrecision(), dt.GetScale(), true)
			lm.typ, lm.conv = small, decimalConv(phys, width, small)
		}
	}
	return lm
}

// runEndValueOK reports whether a leaf of Arrow type dt can be read as
// run-end encoded values (arrow-go's run_end_encode kernel takes them).
func runEndValueOK(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP,
		arrow.BINARY, arrow.STRING, arrow.LARGE_BINARY, arrow.LARGE_STRING, arrow.FIXED_SIZE_BINARY:
		return true
	}
	return false
}

// dictionaryValueOK reports whether a leaf of Arrow type dt can be read as
// a dictionary: its values are one Parquet physical value each, and arrow-go
// builds dictionaries of the type (the reader falls back to building one
// when a chunk's pages leave the dictionary).
func dictionaryValueOK(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BINARY, arrow.STRING, arrow.LARGE_BINARY, arrow.LARGE_STRING,
		arrow.BINARY_VIEW, arrow.STRING_VIEW, arrow.FIXED_SIZE_BINARY,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION:
		return true
	}
	return false
}
