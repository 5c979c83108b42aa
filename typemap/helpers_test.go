package typemap

import (
	"encoding/base64"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// describeField renders f with every detail a schema comparison needs:
// names, nullability, extension storage, field metadata. pqarrow's
// placeholder field id -1 is dropped (it puts one on every field).
func describeField(f arrow.Field) string {
	var b strings.Builder
	writeField(&b, f)
	return b.String()
}

func writeField(b *strings.Builder, f arrow.Field) {
	b.WriteString(f.Name)
	b.WriteString(": ")
	writeType(b, f.Type)
	if !f.Nullable {
		b.WriteString(" not null")
	}
	var kv []string
	for i, k := range f.Metadata.Keys() {
		v := f.Metadata.Values()[i]
		if k == FieldIDKey && v == "-1" {
			continue
		}
		kv = append(kv, fmt.Sprintf("%s=%s", k, v))
	}
	if len(kv) > 0 {
		sort.Strings(kv)
		fmt.Fprintf(b, " {%s}", strings.Join(kv, ", "))
	}
}

func writeType(b *strings.Builder, dt arrow.DataType) {
	switch t := dt.(type) {
	case arrow.ExtensionType:
		fmt.Fprintf(b, "ext<%s>(", t.ExtensionName())
		writeType(b, t.StorageType())
		b.WriteString(")")
	case *arrow.StructType:
		b.WriteString("struct<")
		for i, c := range t.Fields() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeField(b, c)
		}
		b.WriteString(">")
	case *arrow.MapType:
		b.WriteString("map<")
		writeField(b, t.KeyField())
		b.WriteString(", ")
		writeField(b, t.ItemField())
		if t.KeysSorted {
			b.WriteString(", sorted")
		}
		b.WriteString(">")
	case *arrow.FixedSizeListType:
		fmt.Fprintf(b, "fixed_size_list[%d]<", t.Len())
		writeField(b, t.ElemField())
		b.WriteString(">")
	case arrow.ListLikeType:
		b.WriteString(t.Name() + "<")
		writeField(b, t.ElemField())
		b.WriteString(">")
	case *arrow.DictionaryType:
		fmt.Fprintf(b, "dictionary<%s, ", t.IndexType)
		writeType(b, t.ValueType)
		if t.Ordered {
			b.WriteString(", ordered")
		}
		b.WriteString(">")
	default:
		b.WriteString(dt.String())
	}
}

func describeSchema(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = describeField(f)
	}
	return out
}

// pqarrowSchema reads the schema of the file at path with arrow-go's
// pqarrow, turning its panics into errors (it panics on
// unknown-logical-type.parquet).
func pqarrowSchema(path string) (s *arrow.Schema, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if e := recover(); e != nil {
			s, err = nil, fmt.Errorf("pqarrow panicked: %v", e)
		}
	}()
	r, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return pqarrow.FromParquet(r.MetaData().Schema, nil, r.MetaData().KeyValueMetadata())
}

func readFooterFile(t testing.TB, path string) (*metadata.File, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return metadata.ReadFooter(f, st.Size())
}

// Schema element builders for hand-written schemas.

func ptr[T any](v T) *T { return &v }

type el = format.SchemaElement

func group(name string, rep format.FieldRepetitionType, n int, opts ...func(*el)) *el {
	e := &el{Name: name, RepetitionType: ptr(rep), NumChildren: ptr(int32(n))}
	for _, o := range opts {
		o(e)
	}
	return e
}

func prim(name string, rep format.FieldRepetitionType, t format.Type, opts ...func(*el)) *el {
	e := &el{Name: name, RepetitionType: ptr(rep), Type: ptr(t)}
	for _, o := range opts {
		o(e)
	}
	return e
}

func root(n int) *el { return &el{Name: "schema", NumChildren: ptr(int32(n))} }

func withLogical(lt *format.LogicalType) func(*el) { return func(e *el) { e.LogicalType = lt } }
func withConverted(ct format.ConvertedType) func(*el) {
	return func(e *el) { e.ConvertedType = ptr(ct) }
}
func withLength(n int32) func(*el) { return func(e *el) { e.TypeLength = ptr(n) } }
func withDecimal(p, s int32) func(*el) {
	return func(e *el) { e.Precision, e.Scale = ptr(p), ptr(s) }
}
func withFieldID(id int32) func(*el) { return func(e *el) { e.FieldID = ptr(id) } }

var (
	req = format.FieldRepetitionType_REQUIRED
	opt = format.FieldRepetitionType_OPTIONAL
	rep = format.FieldRepetitionType_REPEATED
)

var (
	ltList   = &format.LogicalType{LIST: &format.ListType{}}
	ltMap    = &format.LogicalType{MAP: &format.MapType{}}
	ltString = &format.LogicalType{STRING: &format.StringType{}}
)

// mapSchema maps the schema elements to Arrow with opts and kv.
func mapSchema(t testing.TB, elems []*el, kv []*format.KeyValue, opts ReadOptions) (*Manifest, error) {
	t.Helper()
	s, err := metadata.NewSchema(elems)
	if err != nil {
		t.Fatalf("NewSchema: %v", err)
	}
	return ToArrow(s, kv, opts)
}

func mustBase64(t testing.TB, v string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
func base64Raw(b []byte) string { return base64.RawStdEncoding.EncodeToString(b) }
