package typemap

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// pqarrowWritable is the part of everyType that arrow-go's pqarrow can
// write (it has no Duration, interval, view or Decimal32/64 support).
func pqarrowWritable() *arrow.Schema {
	skip := map[string]bool{"dur_s": true, "dur_ns": true, "iv_mdn": true, "iv_m": true, "iv_dt": true,
		"vstr": true, "vbin": true, "vlist": true, "d32": true, "d64": true, "geo": true}
	var fields []arrow.Field
	for _, e := range everyType {
		if !skip[e.f.Name] {
			fields = append(fields, e.f)
		}
	}
	return arrow.NewSchema(fields, nil)
}

// TestReadPqarrowFile writes an empty file with pqarrow and maps its footer:
// our reading of pqarrow's ARROW:schema (with its trailing end-of-stream
// marker) and Parquet schema gives back the Arrow schema pqarrow was given.
func TestReadPqarrowFile(t *testing.T) {
	s := pqarrowWritable()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithVersion(parquet.V2_LATEST))
	w, err := pqarrow.NewFileWriter(s, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := metadata.ReadFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ToArrow(f.Schema, f.Meta.KeyValueMetadata, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin == nil {
		t.Fatalf("ARROW:schema written by pqarrow not decoded: %v", m.OriginErr)
	}
	want, got := describeSchema(s), describeSchema(m.Schema)
	for i := range want {
		// pqarrow stores list elements renamed to "element" in its
		// ARROW:schema, so those names cannot come back.
		w := want[i]
		if e := everyTypeByName(s.Field(i).Name); e != nil && e.pqarrowStored != "" {
			w = e.pqarrowStored
		}
		if got[i] != w {
			t.Errorf("field %d:\n got  %s\n want %s", i, got[i], w)
		}
	}
}

// pqarrowStored gives the fields whose ARROW:schema pqarrow normalizes
// (list element names).
var pqarrowStoredNames = map[string]string{
	"list":   "list: list<element: int32>",
	"llist":  "llist: large_list<element: utf8 not null>",
	"fslist": "fslist: fixed_size_list[3]<element: float32>",
	"struct": "struct: struct<a: int32 not null {PARQUET:field_id=12, note=kept}, b: list<element: struct<c: large_utf8>>>",
	"map":    "map: map<key: utf8 not null, value: int64>", // keys_sorted is dropped
}

type everyTypeEntry struct{ pqarrowStored string }

func everyTypeByName(name string) *everyTypeEntry {
	if v, ok := pqarrowStoredNames[name]; ok {
		return &everyTypeEntry{pqarrowStored: v}
	}
	return nil
}

// TestPqarrowReadsOurSchema builds a footer-only file from FromArrow's
// elements and ARROW:schema entry and lets pqarrow map it: pqarrow must
// decode our ARROW:schema and arrive at the original types it supports.
func TestPqarrowReadsOurSchema(t *testing.T) {
	s := pqarrowWritable()
	wm, err := FromArrow(s, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fmd := &format.FileMetaData{Version: 2, Schema: wm.Elements, RowGroups: []*format.RowGroup{},
		KeyValueMetadata: []*format.KeyValue{wm.KeyValue}, CreatedBy: ptrTo("arrowpq typemap test")}
	data, err := metadata.AppendFooter([]byte(metadata.Magic), fmd)
	if err != nil {
		t.Fatal(err)
	}
	r, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := pqarrow.FromParquet(r.MetaData().Schema, nil, r.MetaData().KeyValueMetadata())
	if err != nil {
		t.Fatal(err)
	}
	// Where pqarrow's own reading is weaker than ours, its result is
	// listed; everything else must equal the schema written.
	pqarrowWeaker := map[string]string{
		"ts_s":    "ts_s: timestamp[ms]", // pqarrow does not restore seconds
		"ts_s_tz": "ts_s_tz: timestamp[ms, tz=UTC]",
		"t32s":    "t32s: time32[ms]",
		"date64":  "date64: date32",
		"list":    "list: list<element: int32>", // element names are not restored
		"llist":   "llist: large_list<element: utf8 not null>",
		"fslist":  "fslist: fixed_size_list[3]<element: float32>",
		"struct":  "struct: struct<a: int32 not null {PARQUET:field_id=12, note=kept}, b: list<element: struct<c: large_utf8>>>",
		"map":     "map: map<key: utf8 not null, value: int64>", // keys_sorted is not restored
		"json":    "json: binary",                               // JSON reads as binary
	}
	want := describeSchema(s)
	have := describeSchema(got)
	for i := range want {
		w := want[i]
		if v, ok := pqarrowWeaker[s.Field(i).Name]; ok {
			w = v
		}
		if have[i] != w {
			t.Errorf("field %d:\n pqarrow %s\n want    %s", i, have[i], w)
		}
	}
}

func TestArrowSchemaEncodingMatchesPyarrow(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	v, err := EncodeArrowSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	raw := mustBase64(t, v)
	// Encapsulated message: continuation marker, length, flatbuffer padded
	// to 8 bytes, and nothing after it (no end-of-stream marker).
	if len(raw) < 8 || !bytes.Equal(raw[:4], []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("no continuation marker: % x", raw[:8])
	}
	n := int(raw[4]) | int(raw[5])<<8 | int(raw[6])<<16 | int(raw[7])<<24
	if n%8 != 0 || 8+n != len(raw) {
		t.Errorf("metadata length %d, total %d bytes: want 8+length with length a multiple of 8", n, len(raw))
	}
	back, err := DecodeArrowSchema(v)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s) {
		t.Errorf("decoded %s, want %s", back, s)
	}
	// Writers before Arrow 0.15 have no continuation marker.
	legacy := append([]byte(nil), raw[4:]...)
	back, err = DecodeArrowSchema(base64Std(legacy))
	if err != nil || !back.Equal(s) {
		t.Errorf("legacy framing: %v, %v", back, err)
	}
	// Unpadded base64, as some writers produce.
	back, err = DecodeArrowSchema(base64Raw(raw))
	if err != nil || !back.Equal(s) {
		t.Errorf("unpadded base64: %v, %v", back, err)
	}
}
