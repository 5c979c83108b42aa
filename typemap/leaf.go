package typemap

import (
	"encoding/json"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Field metadata keys written on Arrow fields.
const (
	// FieldIDKey holds the Parquet field_id of a field, in decimal, as Arrow
	// C++, arrow-rs and pyarrow spell it.
	FieldIDKey = "PARQUET:field_id"
	// ExtensionNameKey and ExtensionMetadataKey carry an extension type
	// that is not registered with arrow-go, as Arrow IPC does. GEOMETRY and
	// GEOGRAPHY columns read as Binary with these set to the GeoArrow
	// "geoarrow.wkb" type and its JSON metadata (crs, edges).
	ExtensionNameKey     = "ARROW:extension:name"
	ExtensionMetadataKey = "ARROW:extension:metadata"
	// GeoArrowWKB is the GeoArrow extension name for WKB geometries.
	GeoArrowWKB = "geoarrow.wkb"
)

// Decimal precision limits of the Arrow decimal types.
const (
	maxDecimal32Precision  = 9
	maxDecimal64Precision  = 18
	maxDecimal128Precision = 38
	maxDecimal256Precision = 76
)

// leafMapping is the Arrow view of one primitive node.
type leafMapping struct {
	typ  arrow.DataType // final type (extension included)
	conv Conversion
	meta map[string]string // extra field metadata (GeoArrow)
}

// mapLeaf maps the primitive node n, ignoring its repetition. It never
// fails: an annotation that does not fit the physical type, or that this code
// does not know, leaves the physical type's own mapping.
func (b *reader) mapLeaf(n *metadata.Node) leafMapping {
	col := b.schema.Columns[n.Column]
	phys, width := col.Physical, col.TypeLength
	a := annotationOf(n)
	plain := func() leafMapping { return b.physicalLeaf(phys, width) }

	if a.kind == annUnknown {
		return leafMapping{typ: arrow.Null, conv: Conversion{Kind: Null, Physical: phys, TypeLength: width, Arrow: arrow.Null, Mul: 1, Div: 1}}
	}
	switch phys {
	case format.Type_INT32, format.Type_INT64:
		switch a.kind {
		case annInt:
			dt := intType(a.bitWidth, a.signed)
			if dt == nil {
				return plain()
			}
			return leafMapping{typ: dt, conv: intConv(phys, dt)}
		case annDecimal:
			if m, ok := b.decimalLeaf(a, phys, width); ok {
				return m
			}
		case annDate:
			if phys == format.Type_INT32 {
				return leafMapping{typ: arrow.FixedWidthTypes.Date32, conv: identity(phys, 0, arrow.FixedWidthTypes.Date32)}
			}
		case annTime:
			if phys == format.Type_INT32 && a.unit == unitMillis {
				return leafMapping{typ: arrow.FixedWidthTypes.Time32ms, conv: identity(phys, 0, arrow.FixedWidthTypes.Time32ms)}
			}
			if phys == format.Type_INT64 && (a.unit == unitMicros || a.unit == unitNanos) {
				dt := arrow.DataType(arrow.FixedWidthTypes.Time64us)
				if a.unit == unitNanos {
					dt = arrow.FixedWidthTypes.Time64ns
				}
				return leafMapping{typ: dt, conv: identity(phys, 0, dt)}
			}
		case annTimestamp:
			if phys == format.Type_INT64 {
				dt := &arrow.TimestampType{Unit: arrowUnit(a.unit)}
				if a.adjustedToUTC {
					dt.TimeZone = "UTC"
				}
				return leafMapping{typ: dt, conv: identity(phys, 0, dt)}
			}
		}
	case format.Type_BYTE_ARRAY:
		switch a.kind {
		case annString, annEnum:
			return leafMapping{typ: arrow.BinaryTypes.String, conv: identity(phys, 0, arrow.BinaryTypes.String)}
		case annJSON:
			ext, err := extensions.NewJSONType(arrow.BinaryTypes.String)
			if err == nil {
				return leafMapping{typ: ext, conv: identity(phys, 0, arrow.BinaryTypes.String)}
			}
		case annDecimal:
			if m, ok := b.decimalLeaf(a, phys, width); ok {
				return m
			}
		case annGeometry, annGeography:
			m := plain()
			m.meta = map[string]string{
				ExtensionNameKey:     GeoArrowWKB,
				ExtensionMetadataKey: b.geoArrowMetadata(a),
			}
			return m
		}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		switch a.kind {
		case annDecimal:
			if m, ok := b.decimalLeaf(a, phys, width); ok {
				return m
			}
		case annUUID:
			if width == 16 {
				st := &arrow.FixedSizeBinaryType{ByteWidth: 16}
				return leafMapping{typ: extensions.NewUUIDType(), conv: identity(phys, width, st)}
			}
		case annFloat16:
			if width == 2 {
				return leafMapping{typ: arrow.FixedWidthTypes.Float16, conv: identity(phys, width, arrow.FixedWidthTypes.Float16)}
			}
		case annInterval:
			if width == 12 {
				dt := arrow.FixedWidthTypes.MonthDayNanoInterval
				return leafMapping{typ: dt, conv: Conversion{Kind: Interval, Physical: phys, TypeLength: width, Arrow: dt, Mul: 1, Div: 1}}
			}
		}
	}
	return plain()
}

// physicalLeaf maps a physical type without annotation.
func (b *reader) physicalLeaf(phys format.Type, width int32) leafMapping {
	var dt arrow.DataType
	switch phys {
	case format.Type_BOOLEAN:
		dt = arrow.FixedWidthTypes.Boolean
	case format.Type_INT32:
		dt = arrow.PrimitiveTypes.Int32
	case format.Type_INT64:
		dt = arrow.PrimitiveTypes.Int64
	case format.Type_INT96:
		ts := &arrow.TimestampType{Unit: b.opts.Int96Unit.arrowUnit()}
		return leafMapping{typ: ts, conv: Conversion{Kind: Int96, Physical: phys, Arrow: ts, Unit: ts.Unit, Mul: 1, Div: 1}}
	case format.Type_FLOAT:
		dt = arrow.PrimitiveTypes.Float32
	case format.Type_DOUBLE:
		dt = arrow.PrimitiveTypes.Float64
	case format.Type_BYTE_ARRAY:
		dt = arrow.BinaryTypes.Binary
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		dt = &arrow.FixedSizeBinaryType{ByteWidth: int(width)}
	default:
		// metadata.NewSchema rejects unknown physical types; keep a total
		// function anyway.
		dt = arrow.BinaryTypes.Binary
	}
	return leafMapping{typ: dt, conv: identity(phys, width, dt)}
}

func (b *reader) decimalLeaf(a annotation, phys format.Type, width int32) (leafMapping, bool) {
	p, s := a.precision, a.scale
	if p < 1 || p > maxDecimal256Precision || s < 0 || s > p {
		return leafMapping{}, false
	}
	dt := decimalType(p, s, b.opts.SmallDecimals)
	return leafMapping{typ: dt, conv: decimalConv(phys, width, dt)}, true
}

func decimalType(p, s int32, small bool) arrow.DecimalType {
	switch {
	case small && p <= maxDecimal32Precision:
		return &arrow.Decimal32Type{Precision: p, Scale: s}
	case small && p <= maxDecimal64Precision:
		return &arrow.Decimal64Type{Precision: p, Scale: s}
	case p <= maxDecimal128Precision:
		return &arrow.Decimal128Type{Precision: p, Scale: s}
	default:
		return &arrow.Decimal256Type{Precision: p, Scale: s}
	}
}

func decimalConv(phys format.Type, width int32, dt arrow.DataType) Conversion {
	return Conversion{Kind: Decimal, Physical: phys, TypeLength: width, Arrow: dt,
		ByteWidth: dt.(arrow.FixedWidthDataType).BitWidth() / 8, Mul: 1, Div: 1}
}

func intType(bitWidth int8, signed bool) arrow.DataType {
	switch {
	case bitWidth == 8 && signed:
		return arrow.PrimitiveTypes.Int8
	case bitWidth == 8:
		return arrow.PrimitiveTypes.Uint8
	case bitWidth == 16 && signed:
		return arrow.PrimitiveTypes.Int16
	case bitWidth == 16:
		return arrow.PrimitiveTypes.Uint16
	case bitWidth == 32 && signed:
		return arrow.PrimitiveTypes.Int32
	case bitWidth == 32:
		return arrow.PrimitiveTypes.Uint32
	case bitWidth == 64 && signed:
		return arrow.PrimitiveTypes.Int64
	case bitWidth == 64:
		return arrow.PrimitiveTypes.Uint64
	}
	return nil
}

// intConv is Identity when dt is the physical type itself, IntCast
// otherwise.
func intConv(phys format.Type, dt arrow.DataType) Conversion {
	if (phys == format.Type_INT32 && dt.ID() == arrow.INT32) || (phys == format.Type_INT64 && dt.ID() == arrow.INT64) {
		return identity(phys, 0, dt)
	}
	return Conversion{Kind: IntCast, Physical: phys, Arrow: dt, Mul: 1, Div: 1}
}

func arrowUnit(u timeUnit) arrow.TimeUnit {
	switch u {
	case unitMillis:
		return arrow.Millisecond
	case unitMicros:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// geoArrowMetadata renders the GeoArrow extension metadata of a GEOMETRY or
// GEOGRAPHY annotation. The Parquet crs is kept as it is written, except
// that a "projjson:KEY" reference is resolved through the footer's key/value
// metadata when KEY is there, and a crs that is a JSON object (PROJJSON) is
// embedded as one.
func (b *reader) geoArrowMetadata(a annotation) string {
	m := map[string]any{}
	if a.hasCRS && a.crs != "" {
		crs := a.crs
		crsType := ""
		switch {
		case strings.HasPrefix(crs, "projjson:"):
			if v, ok := b.keyValue(strings.TrimPrefix(crs, "projjson:")); ok {
				crs, crsType = v, "projjson"
			}
		case strings.HasPrefix(crs, "srid:"):
			crs, crsType = strings.TrimPrefix(crs, "srid:"), "srid"
		}
		if t := strings.TrimSpace(crs); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			m["crs"] = json.RawMessage(t)
			crsType = "projjson"
		} else {
			m["crs"] = crs
		}
		if crsType != "" {
			m["crs_type"] = crsType
		}
	}
	if a.kind == annGeography {
		alg := "spherical"
		if a.hasAlgorithm {
			alg = strings.ToLower(a.algorithm.String())
		}
		m["edges"] = alg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(out)
}
