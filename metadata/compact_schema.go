package metadata

// Schema readers of the compact FileMetaData reader: SchemaElement and the
// LogicalType union with its members. See compact_structs.go.

import (
	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/metadata/format"
)

func (r *compactReader) schemaElement(x *format.SchemaElement) error {
	var last int16
	var name bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			x.Type = r.types.ptr(format.Type(v))
		case id == 2 && t == thrift.I32:
			x.TypeLength, err = r.optI32()
		case id == 3 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			x.RepetitionType = r.reps.ptr(format.FieldRepetitionType(v))
		case id == 4 && t == thrift.STRING:
			x.Name, err = r.str()
			name = true
		case id == 5 && t == thrift.I32:
			x.NumChildren, err = r.optI32()
		case id == 6 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			x.ConvertedType = r.convs.ptr(format.ConvertedType(v))
		case id == 7 && t == thrift.I32:
			x.Scale, err = r.optI32()
		case id == 8 && t == thrift.I32:
			x.Precision, err = r.optI32()
		case id == 9 && t == thrift.I32:
			x.FieldID, err = r.optI32()
		case id == 10 && t == thrift.STRUCT:
			x.LogicalType = &format.LogicalType{}
			err = r.logicalType(x.LogicalType)
		case id == 11 && t == thrift.I32:
			x.VectorLength, err = r.optI32()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !name {
		return missing("SchemaElement.name")
	}
	return nil
}

func (r *compactReader) logicalType(x *format.LogicalType) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		if t != thrift.STRUCT {
			if err := r.skipField(t); err != nil {
				return err
			}
			continue
		}
		switch id {
		case 1:
			x.STRING = &format.StringType{}
			err = r.emptyStruct()
		case 2:
			x.MAP = &format.MapType{}
			err = r.emptyStruct()
		case 3:
			x.LIST = &format.ListType{}
			err = r.emptyStruct()
		case 4:
			x.ENUM = &format.EnumType{}
			err = r.emptyStruct()
		case 5:
			x.DECIMAL = &format.DecimalType{}
			err = r.decimalType(x.DECIMAL)
		case 6:
			x.DATE = &format.DateType{}
			err = r.emptyStruct()
		case 7:
			x.TIME = &format.TimeType{}
			err = r.timeLike(&x.TIME.IsAdjustedToUTC, &x.TIME.Unit, "TimeType")
		case 8:
			x.TIMESTAMP = &format.TimestampType{}
			err = r.timeLike(&x.TIMESTAMP.IsAdjustedToUTC, &x.TIMESTAMP.Unit, "TimestampType")
		case 10:
			x.INTEGER = &format.IntType{}
			err = r.intType(x.INTEGER)
		case 11:
			x.UNKNOWN = &format.NullType{}
			err = r.emptyStruct()
		case 12:
			x.JSON = &format.JsonType{}
			err = r.emptyStruct()
		case 13:
			x.BSON = &format.BsonType{}
			err = r.emptyStruct()
		case 14:
			x.UUID = &format.UUIDType{}
			err = r.emptyStruct()
		case 15:
			x.FLOAT16 = &format.Float16Type{}
			err = r.emptyStruct()
		case 16:
			x.VARIANT = &format.VariantType{}
			err = r.variantType(x.VARIANT)
		case 17:
			x.GEOMETRY = &format.GeometryType{}
			err = r.geometryType(x.GEOMETRY)
		case 18:
			x.GEOGRAPHY = &format.GeographyType{}
			err = r.geographyType(x.GEOGRAPHY)
		case 19:
			x.VECTOR = &format.VectorType{}
			err = r.emptyStruct()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) decimalType(x *format.DecimalType) error {
	var last int16
	var scale, precision bool
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.I32:
			x.Scale, err = r.i32()
			scale = true
		case id == 2 && t == thrift.I32:
			x.Precision, err = r.i32()
			precision = true
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !scale {
		return missing("DecimalType.scale")
	}
	if !precision {
		return missing("DecimalType.precision")
	}
	return nil
}

// timeLike reads a TimeType or TimestampType, which share their fields.
func (r *compactReader) timeLike(utc *bool, unit **format.TimeUnit, name string) error {
	var last int16
	var hasUTC, hasUnit bool
	for {
		t, id, bv, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.BOOL:
			*utc, hasUTC = bv, true
		case id == 2 && t == thrift.STRUCT:
			*unit = &format.TimeUnit{}
			err = r.timeUnit(*unit)
			hasUnit = true
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !hasUTC {
		return missing(name + ".isAdjustedToUTC")
	}
	if !hasUnit {
		return missing(name + ".unit")
	}
	return nil
}

func (r *compactReader) timeUnit(x *format.TimeUnit) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRUCT:
			x.MILLIS = &format.MilliSeconds{}
			err = r.emptyStruct()
		case id == 2 && t == thrift.STRUCT:
			x.MICROS = &format.MicroSeconds{}
			err = r.emptyStruct()
		case id == 3 && t == thrift.STRUCT:
			x.NANOS = &format.NanoSeconds{}
			err = r.emptyStruct()
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) intType(x *format.IntType) error {
	var last int16
	var width, signed bool
	for {
		t, id, bv, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			break
		}
		switch {
		case id == 1 && t == thrift.BYTE:
			var c byte
			c, err = r.byte1()
			x.BitWidth, width = int8(c), true
		case id == 2 && t == thrift.BOOL:
			x.IsSigned, signed = bv, true
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
	if !width {
		return missing("IntType.bitWidth")
	}
	if !signed {
		return missing("IntType.isSigned")
	}
	return nil
}

func (r *compactReader) variantType(x *format.VariantType) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		if id == 1 && t == thrift.BYTE {
			var c byte
			c, err = r.byte1()
			v := int8(c)
			x.SpecificationVersion = &v
		} else {
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) geometryType(x *format.GeometryType) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		if id == 1 && t == thrift.STRING {
			x.Crs, err = r.optStr()
		} else {
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}

func (r *compactReader) geographyType(x *format.GeographyType) error {
	var last int16
	for {
		t, id, _, err := r.field(&last)
		if err != nil {
			return err
		}
		if t == thrift.STOP {
			return nil
		}
		switch {
		case id == 1 && t == thrift.STRING:
			x.Crs, err = r.optStr()
		case id == 2 && t == thrift.I32:
			var v int32
			v, err = r.i32()
			a := format.EdgeInterpolationAlgorithm(v)
			x.Algorithm = &a
		default:
			err = r.skipField(t)
		}
		if err != nil {
			return err
		}
	}
}
