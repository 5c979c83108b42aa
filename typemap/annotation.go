package typemap

import (
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// annKind is one annotation of a schema node, after LogicalType and the
// legacy ConvertedType have been reconciled.
type annKind uint8

const (
	annNone annKind = iota
	annString
	annEnum
	annUUID
	annInt
	annDecimal
	annFloat16
	annDate
	annTime
	annTimestamp
	annInterval
	annJSON
	annBSON
	annUnknown // the UNKNOWN (always null) annotation
	annVariant
	annGeometry
	annGeography
	annList
	annMap
	annMapKeyValue
	annUnrecognized // a LogicalType this code does not know
)

type timeUnit uint8

const (
	unitMillis timeUnit = iota + 1
	unitMicros
	unitNanos
)

// annotation is the reconciled annotation of a node. LogicalType wins over
// ConvertedType; a ConvertedType alone is read through the spec's
// backward-compatibility tables (TIME_* and TIMESTAMP_* mean UTC-adjusted).
type annotation struct {
	kind             annKind
	bitWidth         int8
	signed           bool
	precision, scale int32
	unit             timeUnit
	adjustedToUTC    bool
	crs              string
	hasCRS           bool
	algorithm        format.EdgeInterpolationAlgorithm
	hasAlgorithm     bool
}

func annotationOf(n *metadata.Node) annotation {
	el := n.Element
	if el.LogicalType != nil {
		if lt := n.LogicalType(); lt != nil {
			return fromLogical(lt, el)
		}
		// A LogicalType union with no member we know: a newer writer's
		// annotation. The legacy ConvertedType, if the writer set one, still
		// says what the values mean to old readers, so it is used; otherwise
		// the physical type stands.
		if _, ok := n.ConvertedType(); !ok {
			return annotation{kind: annUnrecognized}
		}
	}
	ct, ok := n.ConvertedType()
	if !ok {
		return annotation{}
	}
	var a annotation
	switch ct {
	case format.ConvertedType_UTF8:
		a.kind = annString
	case format.ConvertedType_MAP:
		a.kind = annMap
	case format.ConvertedType_MAP_KEY_VALUE:
		a.kind = annMapKeyValue
	case format.ConvertedType_LIST:
		a.kind = annList
	case format.ConvertedType_ENUM:
		a.kind = annEnum
	case format.ConvertedType_DECIMAL:
		a.kind = annDecimal
		if el.Precision != nil {
			a.precision = *el.Precision
		}
		if el.Scale != nil {
			a.scale = *el.Scale
		}
	case format.ConvertedType_DATE:
		a.kind = annDate
	case format.ConvertedType_TIME_MILLIS:
		a.kind, a.unit, a.adjustedToUTC = annTime, unitMillis, true
	case format.ConvertedType_TIME_MICROS:
		a.kind, a.unit, a.adjustedToUTC = annTime, unitMicros, true
	case format.ConvertedType_TIMESTAMP_MILLIS:
		a.kind, a.unit, a.adjustedToUTC = annTimestamp, unitMillis, true
	case format.ConvertedType_TIMESTAMP_MICROS:
		a.kind, a.unit, a.adjustedToUTC = annTimestamp, unitMicros, true
	case format.ConvertedType_UINT_8:
		a.kind, a.bitWidth = annInt, 8
	case format.ConvertedType_UINT_16:
		a.kind, a.bitWidth = annInt, 16
	case format.ConvertedType_UINT_32:
		a.kind, a.bitWidth = annInt, 32
	case format.ConvertedType_UINT_64:
		a.kind, a.bitWidth = annInt, 64
	case format.ConvertedType_INT_8:
		a.kind, a.bitWidth, a.signed = annInt, 8, true
	case format.ConvertedType_INT_16:
		a.kind, a.bitWidth, a.signed = annInt, 16, true
	case format.ConvertedType_INT_32:
		a.kind, a.bitWidth, a.signed = annInt, 32, true
	case format.ConvertedType_INT_64:
		a.kind, a.bitWidth, a.signed = annInt, 64, true
	case format.ConvertedType_JSON:
		a.kind = annJSON
	case format.ConvertedType_BSON:
		a.kind = annBSON
	case format.ConvertedType_INTERVAL:
		a.kind = annInterval
	default:
		a.kind = annUnrecognized
	}
	return a
}

func fromLogical(lt *format.LogicalType, el *format.SchemaElement) annotation {
	var a annotation
	switch {
	case lt.STRING != nil:
		a.kind = annString
	case lt.MAP != nil:
		a.kind = annMap
	case lt.LIST != nil:
		a.kind = annList
	case lt.ENUM != nil:
		a.kind = annEnum
	case lt.DECIMAL != nil:
		a.kind, a.precision, a.scale = annDecimal, lt.DECIMAL.Precision, lt.DECIMAL.Scale
	case lt.DATE != nil:
		a.kind = annDate
	case lt.TIME != nil:
		a.kind, a.adjustedToUTC = annTime, lt.TIME.IsAdjustedToUTC
		a.unit = unitOf(lt.TIME.Unit)
		if a.unit == 0 {
			a.kind = annUnrecognized
		}
	case lt.TIMESTAMP != nil:
		a.kind, a.adjustedToUTC = annTimestamp, lt.TIMESTAMP.IsAdjustedToUTC
		a.unit = unitOf(lt.TIMESTAMP.Unit)
		if a.unit == 0 {
			// The spec: unknown units are unsupported features, not errors.
			a.kind = annUnrecognized
		}
	case lt.INTEGER != nil:
		a.kind, a.bitWidth, a.signed = annInt, lt.INTEGER.BitWidth, lt.INTEGER.IsSigned
	case lt.UNKNOWN != nil:
		a.kind = annUnknown
	case lt.JSON != nil:
		a.kind = annJSON
	case lt.BSON != nil:
		a.kind = annBSON
	case lt.UUID != nil:
		a.kind = annUUID
	case lt.FLOAT16 != nil:
		a.kind = annFloat16
	case lt.VARIANT != nil:
		a.kind = annVariant
	case lt.GEOMETRY != nil:
		a.kind = annGeometry
		if lt.GEOMETRY.Crs != nil {
			a.crs, a.hasCRS = *lt.GEOMETRY.Crs, true
		}
	case lt.GEOGRAPHY != nil:
		a.kind = annGeography
		if lt.GEOGRAPHY.Crs != nil {
			a.crs, a.hasCRS = *lt.GEOGRAPHY.Crs, true
		}
		if lt.GEOGRAPHY.Algorithm != nil {
			a.algorithm, a.hasAlgorithm = *lt.GEOGRAPHY.Algorithm, true
		}
	default:
		// VECTOR and anything newer.
		a.kind = annUnrecognized
	}
	return a
}

func unitOf(u *format.TimeUnit) timeUnit {
	switch {
	case u == nil:
		return 0
	case u.MILLIS != nil:
		return unitMillis
	case u.MICROS != nil:
		return unitMicros
	case u.NANOS != nil:
		return unitNanos
	}
	return 0
}
