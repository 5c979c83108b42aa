package metadata

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/arrowpq/arrowpq/metadata/format"
)

// WriteText writes the schema in the text notation of the Parquet
// documentation (the one parquet-mr's MessageTypeParser reads):
//
//	message schema {
//	  required group a (LIST) {
//	    repeated group list {
//	      optional int32 element;
//	    }
//	  }
//	}
//
// A field id follows the name as "= id". Annotations come from the
// LogicalType when there is one, otherwise from the ConvertedType.
func (s *Schema) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("message ")
	b.WriteString(quoteName(s.Root.Name))
	b.WriteString(" {\n")
	for _, c := range s.Root.Children {
		writeNodeText(&b, c, 1)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Text returns the schema in the notation of [Schema.WriteText].
func (s *Schema) Text() string {
	var b strings.Builder
	_ = s.WriteText(&b)
	return b.String()
}

func writeNodeText(b *strings.Builder, n *Node, depth int) {
	indent := strings.Repeat("  ", depth)
	b.WriteString(indent)
	b.WriteString(strings.ToLower(n.Repetition.String()))
	b.WriteByte(' ')
	if n.IsLeaf() {
		b.WriteString(physicalText(n.Element))
	} else {
		b.WriteString("group")
	}
	b.WriteByte(' ')
	b.WriteString(quoteName(n.Name))
	if id, ok := n.FieldID(); ok {
		b.WriteString(" = ")
		b.WriteString(strconv.Itoa(int(id)))
	}
	if a := AnnotationText(n); a != "" {
		b.WriteString(" (")
		b.WriteString(a)
		b.WriteByte(')')
	}
	if n.IsLeaf() {
		b.WriteString(";\n")
		return
	}
	b.WriteString(" {\n")
	for _, c := range n.Children {
		writeNodeText(b, c, depth+1)
	}
	b.WriteString(indent)
	b.WriteString("}\n")
}

func physicalText(el *format.SchemaElement) string {
	t := el.GetType()
	if t == format.Type_FIXED_LEN_BYTE_ARRAY {
		return fmt.Sprintf("fixed_len_byte_array(%d)", el.GetTypeLength())
	}
	if t == format.Type_BYTE_ARRAY {
		return "binary"
	}
	return strings.ToLower(t.String())
}

// quoteName leaves ordinary names alone and quotes the rest, so that the
// output stays one token per name even for names with spaces.
func quoteName(name string) string {
	for _, r := range name {
		if r == ' ' || r == '{' || r == '}' || r == ';' || r == '(' || r == ')' || r < 0x20 {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

// AnnotationText renders a node's annotation as the text notation writes
// it, e.g. "STRING", "DECIMAL(9,2)", "TIMESTAMP(MICROS,true)",
// "INTEGER(8,false)", or a legacy ConvertedType name such as "UTF8" or
// "MAP_KEY_VALUE" when the node has no LogicalType. It returns "" when the
// node has no annotation this package knows.
func AnnotationText(n *Node) string {
	if lt := n.LogicalType(); lt != nil {
		return logicalText(lt)
	}
	ct, ok := n.ConvertedType()
	if !ok {
		return ""
	}
	if ct == format.ConvertedType_DECIMAL {
		return fmt.Sprintf("DECIMAL(%d,%d)", n.Element.GetPrecision(), n.Element.GetScale())
	}
	if s := ct.String(); s != "<UNSET>" {
		return s
	}
	return fmt.Sprintf("CONVERTED_TYPE_%d", int32(ct))
}

func logicalText(lt *format.LogicalType) string {
	switch {
	case lt.IsSetSTRING():
		return "STRING"
	case lt.IsSetMAP():
		return "MAP"
	case lt.IsSetLIST():
		return "LIST"
	case lt.IsSetENUM():
		return "ENUM"
	case lt.IsSetDECIMAL():
		return fmt.Sprintf("DECIMAL(%d,%d)", lt.DECIMAL.Precision, lt.DECIMAL.Scale)
	case lt.IsSetDATE():
		return "DATE"
	case lt.IsSetTIME():
		return fmt.Sprintf("TIME(%s,%t)", unitText(lt.TIME.Unit), lt.TIME.IsAdjustedToUTC)
	case lt.IsSetTIMESTAMP():
		return fmt.Sprintf("TIMESTAMP(%s,%t)", unitText(lt.TIMESTAMP.Unit), lt.TIMESTAMP.IsAdjustedToUTC)
	case lt.IsSetINTEGER():
		return fmt.Sprintf("INTEGER(%d,%t)", lt.INTEGER.BitWidth, lt.INTEGER.IsSigned)
	case lt.IsSetUNKNOWN():
		return "UNKNOWN"
	case lt.IsSetJSON():
		return "JSON"
	case lt.IsSetBSON():
		return "BSON"
	case lt.IsSetUUID():
		return "UUID"
	case lt.IsSetFLOAT16():
		return "FLOAT16"
	case lt.IsSetVARIANT():
		if v := lt.VARIANT.SpecificationVersion; v != nil {
			return fmt.Sprintf("VARIANT(%d)", *v)
		}
		return "VARIANT"
	case lt.IsSetGEOMETRY():
		if crs := lt.GEOMETRY.Crs; crs != nil {
			return fmt.Sprintf("GEOMETRY(%s)", *crs)
		}
		return "GEOMETRY"
	case lt.IsSetGEOGRAPHY():
		var args []string
		if crs := lt.GEOGRAPHY.Crs; crs != nil {
			args = append(args, *crs)
		}
		if alg := lt.GEOGRAPHY.Algorithm; alg != nil {
			args = append(args, strings.ToLower(alg.String()))
		}
		if len(args) == 0 {
			return "GEOGRAPHY"
		}
		return "GEOGRAPHY(" + strings.Join(args, ",") + ")"
	case lt.IsSetVECTOR():
		return "VECTOR"
	}
	return ""
}

func unitText(u *format.TimeUnit) string {
	switch {
	case u == nil:
		return "?"
	case u.IsSetMILLIS():
		return "MILLIS"
	case u.IsSetMICROS():
		return "MICROS"
	case u.IsSetNANOS():
		return "NANOS"
	}
	return "?"
}
