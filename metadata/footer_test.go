package metadata_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

func ptr[T any](v T) *T { return &v }

// sampleMeta is a small FileMetaData with one optional INT32 column "x" in
// one row group whose chunk sits at bytes [4, 104).
func sampleMeta() *format.FileMetaData {
	return &format.FileMetaData{
		Version: 1,
		Schema: []*format.SchemaElement{
			{Name: "schema", NumChildren: ptr[int32](1)},
			{Name: "x", Type: ptr(format.Type_INT32), RepetitionType: ptr(format.FieldRepetitionType_OPTIONAL), FieldID: ptr[int32](7)},
		},
		NumRows: 3,
		RowGroups: []*format.RowGroup{{
			NumRows:       3,
			TotalByteSize: 100,
			Columns: []*format.ColumnChunk{{
				FileOffset: 4,
				MetaData: &format.ColumnMetaData{
					Type: format.Type_INT32, Encodings: []format.Encoding{format.Encoding_PLAIN, format.Encoding_RLE},
					PathInSchema: []string{"x"}, Codec: format.CompressionCodec_SNAPPY, NumValues: 3,
					TotalUncompressedSize: 120, TotalCompressedSize: 100, DataPageOffset: 4,
					Statistics: &format.Statistics{NullCount: ptr[int64](1), MinValue: []byte{1, 0, 0, 0}, MaxValue: []byte{9, 0, 0, 0}},
				},
			}},
		}},
		KeyValueMetadata: []*format.KeyValue{{Key: "k", Value: ptr("v")}, {Key: "novalue"}},
		CreatedBy:        ptr("arrowpq test"),
		ColumnOrders:     []*format.ColumnOrder{{TYPE_ORDER: &format.TypeDefinedOrder{}}},
	}
}

// sampleFile lays out "PAR1", 100 bytes of chunk, and the footer of md.
func sampleFile(t *testing.T, md *format.FileMetaData) []byte {
	t.Helper()
	b := append([]byte(metadata.Magic), make([]byte, 100)...)
	b, err := metadata.AppendFooter(b, md)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFooterRoundTrip(t *testing.T) {
	md := sampleMeta()
	b := sampleFile(t, md)
	// The trailer is the footer length in little endian and the magic.
	if got := string(b[len(b)-4:]); got != "PAR1" {
		t.Fatalf("trailer magic %q", got)
	}
	footerLen := binary.LittleEndian.Uint32(b[len(b)-8:])
	if int(footerLen) != len(b)-104-8 {
		t.Fatalf("footer length %d, want %d", footerLen, len(b)-104-8)
	}
	f, err := metadata.ReadFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Meta, md) {
		t.Errorf("round trip differs:\n got %v\nwant %v", f.Meta, md)
	}
	if f.FooterOffset != 104 || f.FooterLength != int64(footerLen) || f.Size != int64(len(b)) {
		t.Errorf("footer at %d+%d of %d", f.FooterOffset, f.FooterLength, f.Size)
	}
	if v, ok := f.KeyValue("k"); !ok || v != "v" {
		t.Errorf("KeyValue(k) = %q, %v", v, ok)
	}
	if v, ok := f.KeyValue("novalue"); !ok || v != "" {
		t.Errorf("KeyValue(novalue) = %q, %v", v, ok)
	}
	if _, ok := f.KeyValue("absent"); ok {
		t.Error("KeyValue(absent) found")
	}
	if f.CreatedBy() != "arrowpq test" || f.NumRows() != 3 {
		t.Errorf("created_by %q rows %d", f.CreatedBy(), f.NumRows())
	}
	off, n, err := f.ChunkRange(0, 0)
	if err != nil || off != 4 || n != 100 {
		t.Errorf("ChunkRange = %d, %d, %v; want 4, 100", off, n, err)
	}

	// Known bytes: the compact encoding of FileMetaData starts with field 1
	// (version, i32) as a short-form header 0x15 and the zigzag varint 2.
	if b[104] != 0x15 || b[105] != 0x02 {
		t.Errorf("footer starts % x, want 15 02", b[104:106])
	}
}

func TestFooterErrors(t *testing.T) {
	good := sampleFile(t, sampleMeta())
	withTrailer := func(footerLen uint32, magic string) []byte {
		b := append([]byte(nil), good[:len(good)-8]...)
		b = binary.LittleEndian.AppendUint32(b, footerLen)
		return append(b, magic...)
	}
	corruptFooter := append([]byte(nil), good...)
	corruptFooter[104] = 0xff // a field header of an invalid type
	chunkPastFooter := sampleMeta()
	chunkPastFooter.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
	missingChunk := sampleMeta()
	missingChunk.RowGroups[0].Columns = nil

	cases := []struct {
		name     string
		data     []byte
		sentinel error
		want     string
	}{
		{"empty", nil, metadata.ErrNotParquet, "too small"},
		{"tiny", []byte("PAR1PAR1"), metadata.ErrNotParquet, "too small"},
		{"bad trailing magic", withTrailer(10, "PAR2"), metadata.ErrNotParquet, `ends in "PAR2"`},
		{"bad leading magic", append([]byte("XXXX"), good[4:]...), metadata.ErrNotParquet, `starts with "XXXX"`},
		{"encrypted", withTrailer(10, "PARE"), metadata.ErrEncrypted, "encrypted"},
		{"footer longer than file", withTrailer(1<<30, "PAR1"), metadata.ErrCorrupt, "exceeds the"},
		{"footer overlaps magic", withTrailer(uint32(len(good)-8-3), "PAR1"), metadata.ErrCorrupt, "exceeds the"},
		{"corrupt thrift", corruptFooter, metadata.ErrCorrupt, "footer at offset 104"},
		{"truncated footer", withTrailer(uint32(len(good)-104-8-5), "PAR1"), metadata.ErrCorrupt, "thrift decode"},
		{"row group without its columns", sampleFile(t, missingChunk), metadata.ErrCorrupt, "0 column chunks"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := metadata.ReadFooter(bytes.NewReader(tc.data), int64(len(tc.data)))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %v containing %q", err, tc.sentinel, tc.want)
			}
		})
	}

	t.Run("limit", func(t *testing.T) {
		_, err := metadata.ReadFooterOptions(bytes.NewReader(good), int64(len(good)), metadata.FooterOptions{MaxFooterSize: 10})
		if !errors.Is(err, metadata.ErrLimit) {
			t.Errorf("error %v, want ErrLimit", err)
		}
	})
	t.Run("short reader", func(t *testing.T) {
		// A size larger than what the reader holds is a truncated file.
		_, err := metadata.ReadFooter(bytes.NewReader(good[:50]), int64(len(good)))
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("error %v, want EOF", err)
		}
	})
	t.Run("chunk outside file", func(t *testing.T) {
		b := sampleFile(t, chunkPastFooter)
		f, err := metadata.ReadFooter(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.ChunkRange(0, 0); !errors.Is(err, metadata.ErrCorrupt) || !strings.Contains(err.Error(), "row group 0, column x") {
			t.Errorf("ChunkRange error %v", err)
		}
		if _, err := f.ColumnChunk(1, 0); err == nil {
			t.Error("row group 1 of 1 found")
		}
	})
}

// TestColumnChunkEncrypted: a chunk whose column metadata is still
// encrypted answers ErrEncrypted naming the column, also when a plaintext
// footer carries a stripped plaintext copy of its metadata for legacy
// readers (Encryption.md §5.5); once package encryption has decrypted it
// (EncryptedColumnMetadata dropped), the metadata is returned.
func TestColumnChunkEncrypted(t *testing.T) {
	md := sampleMeta()
	cc := md.RowGroups[0].Columns[0]
	cc.CryptoMetadata = &format.ColumnCryptoMetaData{ENCRYPTION_WITH_FOOTER_KEY: &format.EncryptionWithFooterKey{}}
	cc.EncryptedColumnMetadata = []byte("ciphertext")
	b := sampleFile(t, md)
	f, err := metadata.ReadFooter(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ColumnChunk(0, 0); !errors.Is(err, metadata.ErrEncrypted) || !strings.Contains(err.Error(), "row group 0, column x is encrypted") {
		t.Errorf("stripped copy: %v", err)
	}
	f.Meta.RowGroups[0].Columns[0].EncryptedColumnMetadata = nil
	if _, err := f.ColumnChunk(0, 0); err != nil {
		t.Errorf("decrypted: %v", err)
	}
	f.Meta.RowGroups[0].Columns[0].MetaData = nil
	if _, err := f.ColumnChunk(0, 0); !errors.Is(err, metadata.ErrEncrypted) {
		t.Errorf("encrypted footer without metadata: %v", err)
	}
}

// TestUnknownLogicalType builds a schema element whose LogicalType union
// carries a member id this code does not know, as a newer writer would.
func TestUnknownLogicalType(t *testing.T) {
	// Compact encoding of a SchemaElement: type=INT32 (field 1, i32 zigzag 1),
	// name "x" (field 4), logicalType (field 10, struct) holding field 40
	// (an empty struct), then stops.
	el := []byte{
		0x15, 0x02, // field 1 i32: 1 (INT32)
		0x15, 0x02, // field 2 i32 (type_length): 1
		0x15, 0x00, // field 3 i32 (repetition): REQUIRED
		0x18, 0x01, 'x', // field 4 binary: "x"
		0x6c,       // field 10 (delta 6) struct
		0x0c, 0x50, // long-form header: type struct, field id 40 (zigzag 80)
		0x00, // end of the unknown member
		0x00, // end of LogicalType
		0x00, // end of SchemaElement
	}
	var se format.SchemaElement
	if _, err := metadata.Unmarshal(el, &se); err != nil {
		t.Fatal(err)
	}
	if se.LogicalType == nil || se.LogicalType.CountSetFieldsLogicalType() != 0 {
		t.Fatalf("logical type %v", se.LogicalType)
	}
	s, err := metadata.NewSchema([]*format.SchemaElement{{Name: "schema", NumChildren: ptr[int32](1)}, &se})
	if err != nil {
		t.Fatal(err)
	}
	if lt := s.Columns[0].Node.LogicalType(); lt != nil {
		t.Errorf("unknown logical type reported as %v", lt)
	}
}
