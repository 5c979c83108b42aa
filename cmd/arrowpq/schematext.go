package main

// --schema: columns given as a Parquet schema in the text notation that
// 'arrowpq schema' prints (parquet-mr's MessageTypeParser notation), or
// taken from an existing Parquet or Arrow IPC file.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/typemap"
)

// loadSchema reads the value of --schema: inline Parquet schema text or
// Arrow schema JSON, a file holding either, or a Parquet or Arrow IPC
// file.
func loadSchema(arg string) (*arrow.Schema, error) {
	text := arg
	if !strings.Contains(arg, "{") {
		b, err := os.ReadFile(arg)
		if err != nil {
			return nil, err
		}
		switch formatOfMagic(b) {
		case fmtParquet:
			f, err := openFooter(arg)
			if err != nil {
				return nil, err
			}
			m, err := typemap.ToArrow(f.Schema, f.Meta.KeyValueMetadata, typemap.ReadOptions{})
			if err != nil {
				return nil, err
			}
			return m.Schema, nil
		case fmtArrow:
			fr, err := ipc.NewFileReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			defer fr.Close()
			return fr.Schema(), nil
		}
		text = string(b)
	}
	if strings.HasPrefix(strings.TrimSpace(text), "{") {
		return parseArrowSchemaJSON(text)
	}
	s, err := parseSchemaText(text)
	if err != nil {
		return nil, err
	}
	m, err := typemap.ToArrow(s, nil, typemap.ReadOptions{})
	if err != nil {
		return nil, err
	}
	return m.Schema, nil
}

// schemaLexer splits schema text into words, quoted names and the
// punctuation { } ( ) ; , =.
type schemaLexer struct {
	s   string
	pos int
}

func (l *schemaLexer) next() (string, error) {
	for l.pos < len(l.s) && unicode.IsSpace(rune(l.s[l.pos])) {
		l.pos++
	}
	if l.pos >= len(l.s) {
		return "", nil
	}
	c := l.s[l.pos]
	switch {
	case strings.IndexByte("{}();,=", c) >= 0:
		l.pos++
		return string(c), nil
	case c == '"':
		q, err := strconv.QuotedPrefix(l.s[l.pos:])
		if err != nil {
			return "", fmt.Errorf("offset %d: bad quoted name", l.pos)
		}
		l.pos += len(q)
		return q, nil
	}
	start := l.pos
	for l.pos < len(l.s) && !unicode.IsSpace(rune(l.s[l.pos])) && strings.IndexByte("{}();,=\"", l.s[l.pos]) < 0 {
		l.pos++
	}
	return l.s[start:l.pos], nil
}

func (l *schemaLexer) expect(want string) error {
	tok, err := l.next()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("offset %d: want %q, found %q", l.pos, want, tok)
	}
	return nil
}

func unquote(tok string) string {
	if strings.HasPrefix(tok, `"`) {
		if s, err := strconv.Unquote(tok); err == nil {
			return s
		}
	}
	return tok
}

// parseSchemaText parses "message NAME { FIELD... }" where FIELD is
// "REPETITION TYPE NAME [(ANNOTATION)] [= ID];" or a group "REPETITION
// group NAME [(ANNOTATION)] { FIELD... }".
func parseSchemaText(text string) (*metadata.Schema, error) {
	l := &schemaLexer{s: text}
	if err := l.expect("message"); err != nil {
		return nil, fmt.Errorf("schema text: %w", err)
	}
	name, err := l.next()
	if err != nil {
		return nil, err
	}
	root := &format.SchemaElement{Name: unquote(name)}
	elems := []*format.SchemaElement{root}
	if err := l.expect("{"); err != nil {
		return nil, fmt.Errorf("schema text: %w", err)
	}
	n, err := parseFields(l, &elems, 0)
	if err != nil {
		return nil, fmt.Errorf("schema text: %w", err)
	}
	nc := int32(n)
	root.NumChildren = &nc
	if tok, _ := l.next(); tok != "" {
		return nil, fmt.Errorf("schema text: offset %d: unexpected %q after the message", l.pos, tok)
	}
	return metadata.NewSchema(elems)
}

// parseFields parses fields up to the closing brace and returns how many.
func parseFields(l *schemaLexer, elems *[]*format.SchemaElement, depth int) (int, error) {
	if depth > 100 {
		return 0, errors.New("nested too deep")
	}
	count := 0
	for {
		tok, err := l.next()
		if err != nil {
			return 0, err
		}
		if tok == "}" {
			return count, nil
		}
		if tok == "" {
			return 0, errors.New("missing }")
		}
		rep, err := format.FieldRepetitionTypeFromString(strings.ToUpper(tok))
		if err != nil {
			return 0, fmt.Errorf("offset %d: want required, optional or repeated, found %q", l.pos, tok)
		}
		typ, err := l.next()
		if err != nil {
			return 0, err
		}
		if strings.EqualFold(typ, "fixed_len_byte_array") {
			// fixed_len_byte_array(N)
			if err := l.expect("("); err != nil {
				return 0, err
			}
			w, err := l.next()
			if err != nil {
				return 0, err
			}
			if err := l.expect(")"); err != nil {
				return 0, err
			}
			typ = "fixed_len_byte_array_" + w
		}
		name, err := l.next()
		if err != nil {
			return 0, err
		}
		el := &format.SchemaElement{Name: unquote(name), RepetitionType: &rep}
		*elems = append(*elems, el)
		count++
		group := strings.EqualFold(typ, "group")
		if !group {
			if err := setPhysical(el, typ); err != nil {
				return 0, fmt.Errorf("field %s: %w", el.Name, err)
			}
		}
		tok, err = l.next()
		if err != nil {
			return 0, err
		}
		// "(ANNOTATION)" and "= ID" may come in either order.
		for tok == "(" || tok == "=" {
			if tok == "(" {
				var ann []string
				for {
					t, err := l.next()
					if err != nil {
						return 0, err
					}
					if t == "" {
						return 0, errors.New("missing )")
					}
					if t == ")" {
						joined := strings.Join(ann, "")
						if strings.Count(joined, "(") == strings.Count(joined, ")") {
							break
						}
					}
					ann = append(ann, t)
				}
				if err := setAnnotation(el, strings.Join(ann, "")); err != nil {
					return 0, fmt.Errorf("field %s: %w", el.Name, err)
				}
			} else {
				idText, err := l.next()
				if err != nil {
					return 0, err
				}
				id, err := strconv.ParseInt(idText, 10, 32)
				if err != nil {
					return 0, fmt.Errorf("field %s: bad field id %q", el.Name, idText)
				}
				id32 := int32(id)
				el.FieldID = &id32
			}
			if tok, err = l.next(); err != nil {
				return 0, err
			}
		}
		if group {
			if tok != "{" {
				return 0, fmt.Errorf("group %s: want {, found %q", el.Name, tok)
			}
			n, err := parseFields(l, elems, depth+1)
			if err != nil {
				return 0, err
			}
			nc := int32(n)
			el.NumChildren = &nc
			continue
		}
		if tok != ";" {
			return 0, fmt.Errorf("field %s: want ;, found %q", el.Name, tok)
		}
	}
}

func setPhysical(el *format.SchemaElement, typ string) error {
	t := strings.ToLower(typ)
	var pt format.Type
	switch t {
	case "boolean":
		pt = format.Type_BOOLEAN
	case "int32":
		pt = format.Type_INT32
	case "int64":
		pt = format.Type_INT64
	case "int96":
		pt = format.Type_INT96
	case "float":
		pt = format.Type_FLOAT
	case "double":
		pt = format.Type_DOUBLE
	case "binary", "byte_array":
		pt = format.Type_BYTE_ARRAY
	default:
		if n, ok := strings.CutPrefix(t, "fixed_len_byte_array_"); ok {
			w, err := strconv.Atoi(n)
			if err != nil || w <= 0 {
				return fmt.Errorf("bad width in %q", typ)
			}
			pt = format.Type_FIXED_LEN_BYTE_ARRAY
			w32 := int32(w)
			el.TypeLength = &w32
			break
		}
		return fmt.Errorf("unknown type %q", typ)
	}
	el.Type = &pt
	return nil
}

// setAnnotation sets the logical type named ann: STRING, UTF8, ENUM,
// JSON, BSON, UUID, DATE, LIST, MAP, DECIMAL(p,s), TIME(unit,utc),
// TIMESTAMP(unit,utc), INTEGER(bits,signed).
func setAnnotation(el *format.SchemaElement, ann string) error {
	name, args, _ := strings.Cut(strings.ToUpper(ann), "(")
	args = strings.TrimSuffix(args, ")")
	parts := strings.Split(args, ",")
	lt := format.NewLogicalType()
	ct := func(c format.ConvertedType) { el.ConvertedType = &c }
	switch name {
	case "STRING", "UTF8":
		lt.STRING = format.NewStringType()
		ct(format.ConvertedType_UTF8)
	case "ENUM":
		lt.ENUM = format.NewEnumType()
	case "JSON":
		lt.JSON = format.NewJsonType()
	case "BSON":
		lt.BSON = format.NewBsonType()
	case "UUID":
		lt.UUID = format.NewUUIDType()
	case "DATE":
		lt.DATE = format.NewDateType()
		ct(format.ConvertedType_DATE)
	case "LIST":
		lt.LIST = format.NewListType()
		ct(format.ConvertedType_LIST)
	case "MAP":
		lt.MAP = format.NewMapType()
		ct(format.ConvertedType_MAP)
	case "DECIMAL":
		if len(parts) != 2 {
			return fmt.Errorf("want DECIMAL(precision,scale), found %q", ann)
		}
		p, err1 := strconv.Atoi(parts[0])
		s, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("bad %q", ann)
		}
		lt.DECIMAL = &format.DecimalType{Precision: int32(p), Scale: int32(s)}
		p32, s32 := int32(p), int32(s)
		el.Precision, el.Scale = &p32, &s32
		ct(format.ConvertedType_DECIMAL)
	case "TIME", "TIMESTAMP":
		if len(parts) != 2 {
			return fmt.Errorf("want %s(MILLIS|MICROS|NANOS,true|false), found %q", name, ann)
		}
		unit := format.NewTimeUnit()
		switch parts[0] {
		case "MILLIS":
			unit.MILLIS = format.NewMilliSeconds()
		case "MICROS":
			unit.MICROS = format.NewMicroSeconds()
		case "NANOS":
			unit.NANOS = format.NewNanoSeconds()
		default:
			return fmt.Errorf("unknown unit in %q", ann)
		}
		utc := parts[1] == "TRUE"
		if name == "TIME" {
			lt.TIME = &format.TimeType{IsAdjustedToUTC: utc, Unit: unit}
		} else {
			lt.TIMESTAMP = &format.TimestampType{IsAdjustedToUTC: utc, Unit: unit}
		}
	case "INTEGER", "INT":
		if len(parts) != 2 {
			return fmt.Errorf("want INTEGER(bits,signed), found %q", ann)
		}
		bits, err := strconv.Atoi(parts[0])
		if err != nil {
			return fmt.Errorf("bad %q", ann)
		}
		lt.INTEGER = &format.IntType{BitWidth: int8(bits), IsSigned: parts[1] == "TRUE"}
	default:
		// A legacy ConvertedType name (INT_64, TIMESTAMP_MICROS, ...), as
		// the text notation shows files that have no LogicalType.
		c, err := format.ConvertedTypeFromString(name)
		if err != nil || args != "" {
			return fmt.Errorf("unknown annotation %q", ann)
		}
		ct(c)
		return nil
	}
	el.LogicalType = lt
	return nil
}
