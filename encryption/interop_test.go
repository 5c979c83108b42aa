package encryption_test

// Interoperability with arrow-go's implementation of modular encryption
// (parquet/file with parquet.FileEncryptionProperties and
// FileDecryptionProperties), both ways, for every combination of
// algorithm, footer mode, key layout and AAD prefix handling.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
)

const (
	footerKey = "0123456789012345"
	keyB      = "1234567890123450"
	keyList   = "123456789012345678901234" // AES-192
)

// samplePlain writes a small file with arrow-go: three row groups,
// required, nullable, dictionary-encoded string, double and list columns.
func samplePlain(t *testing.T, encProps *parquet.FileEncryptionProperties) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64},
		{Name: "e", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for i := range 300 {
		bld.Field(0).(*array.Int32Builder).Append(int32(i))
		if i%3 == 0 {
			bld.Field(1).AppendNull()
		} else {
			bld.Field(1).(*array.Int64Builder).Append(int64(i) * 1_000_003)
		}
		bld.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("s%d", i%7))
		bld.Field(3).(*array.Float64Builder).Append(float64(i) / 3)
		lb := bld.Field(4).(*array.ListBuilder)
		if i%5 == 4 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for j := range i % 4 {
				lb.ValueBuilder().(*array.Int32Builder).Append(int32(i + j))
			}
		}
	}
	rec := bld.NewRecordBatch()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(100), parquet.WithDictionaryDefault(true), parquet.WithPageIndexEnabled(true)}
	if encProps != nil {
		opts = append(opts, parquet.WithEncryptionProperties(encProps))
	}
	var buf bytes.Buffer
	if err := pqarrow.WriteTable(tbl, &buf, 1000, parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encryptFile rewrites a plaintext file with our encryptor: every page
// header and page of the encrypted columns, their column metadata and the
// footer. Page indexes are dropped.
func encryptFile(t *testing.T, plain []byte, opts encryption.EncryptionOptions) []byte {
	t.Helper()
	f, err := metadata.ReadFooter(bytes.NewReader(plain), int64(len(plain)))
	if err != nil {
		t.Fatal(err)
	}
	fe, err := encryption.NewFileEncryptor(opts)
	if err != nil {
		t.Fatal(err)
	}
	out := []byte(fe.Magic())
	for rg, g := range f.Meta.RowGroups {
		ord := int16(rg)
		g.Ordinal = &ord
		for col, cc := range g.Columns {
			path := f.Schema.Columns[col].DottedPath
			md := cc.MetaData
			off, length, err := f.ChunkRange(rg, col)
			if err != nil {
				t.Fatal(err)
			}
			chunk := plain[off : off+length]
			ce := fe.Chunk(rg, col, path)
			start := int64(len(out))
			dictSize := 0
			if ce == nil {
				out = append(out, chunk...)
				if md.DictionaryPageOffset != nil {
					dictSize = int(md.DataPageOffset - *md.DictionaryPageOffset)
				}
			} else {
				ordinal := 0
				for pos := 0; pos < len(chunk); {
					var h format.PageHeader
					n, err := metadata.Unmarshal(chunk[pos:], &h)
					if err != nil {
						t.Fatal(err)
					}
					body := chunk[pos+n : pos+n+int(h.CompressedPageSize)]
					pos += n + len(body)
					dict := h.Type == format.PageType_DICTIONARY_PAGE
					frame, err := ce.Page(nil, body, dict, ordinal)
					if err != nil {
						t.Fatal(err)
					}
					if len(frame) != ce.PageSize(len(body)) {
						t.Fatalf("PageSize %d, frame %d", ce.PageSize(len(body)), len(frame))
					}
					h.CompressedPageSize = int32(len(frame))
					h.Crc = nil
					hb, err := metadata.Marshal(nil, &h)
					if err != nil {
						t.Fatal(err)
					}
					pageStart := len(out)
					if out, err = ce.PageHeader(out, hb, dict, ordinal); err != nil {
						t.Fatal(err)
					}
					out = append(out, frame...)
					if dict {
						dictSize = len(out) - pageStart
					} else {
						ordinal++
					}
				}
			}
			md.DataPageOffset = start + int64(dictSize)
			md.DictionaryPageOffset = nil
			if dictSize > 0 {
				md.DictionaryPageOffset = &start
			}
			md.TotalCompressedSize = int64(len(out)) - start
			cc.FileOffset = start
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = nil, nil, nil, nil
			if err := fe.EncryptColumnChunk(cc, rg, col, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err = fe.AppendFooter(out, f.Meta)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type combo struct {
	ctr, plainFooter, columnKeys bool
	aad                          string // "", "stored", "supplied"
}

func (c combo) String() string {
	return fmt.Sprintf("ctr=%v/plainfooter=%v/columnkeys=%v/aad=%s", c.ctr, c.plainFooter, c.columnKeys, c.aad)
}

func combos() []combo {
	var cs []combo
	for _, ctr := range []bool{false, true} {
		for _, pf := range []bool{false, true} {
			for _, ck := range []bool{false, true} {
				for _, aad := range []string{"", "stored", "supplied"} {
					cs = append(cs, combo{ctr, pf, ck, aad})
				}
			}
		}
	}
	return cs
}

// arrowGoDecryption is the decryption properties arrow-go needs for a
// combination.
func arrowGoDecryption(c combo) *parquet.FileDecryptionProperties {
	opts := []parquet.FileDecryptionOption{parquet.WithFooterKey(footerKey)}
	if c.columnKeys {
		opts = append(opts, parquet.WithColumnKeys(parquet.ColumnPathToDecryptionPropsMap{
			"b":              parquet.NewColumnDecryptionProperties("b", parquet.WithDecryptKey(keyB)),
			"e.list.element": parquet.NewColumnDecryptionProperties("e.list.element", parquet.WithDecryptKey(keyList)),
		}))
	}
	if c.aad == "supplied" {
		opts = append(opts, parquet.WithDecryptAadPrefix("table.part0"))
	}
	return parquet.NewFileDecryptionProperties(opts...)
}

// ourDecryption is the same for our reader.
func ourDecryption(c combo) *encryption.DecryptionOptions {
	o := &encryption.DecryptionOptions{FooterKey: []byte(footerKey)}
	if c.columnKeys {
		o.ColumnKeys = map[string][]byte{"b": []byte(keyB), "e.list.element": []byte(keyList)}
	}
	if c.aad == "supplied" {
		o.AADPrefix = []byte("table.part0")
	}
	return o
}

// TestInteropWeWriteArrowGoReads encrypts arrow-go's plaintext file with
// our encryptor in every combination and reads it back with arrow-go's
// decryption: the values equal the plaintext file's.
func TestInteropWeWriteArrowGoReads(t *testing.T) {
	plain := samplePlain(t, nil)
	want := dumpArrowGo(t, plain, nil)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			opts := encryption.EncryptionOptions{FooterKey: []byte(footerKey), FooterKeyMetadata: []byte("kf"), PlaintextFooter: c.plainFooter}
			if c.ctr {
				opts.Algorithm = encryption.AESGCMCTRV1
			}
			if c.columnKeys {
				opts.ColumnKeys = map[string]encryption.ColumnKey{
					"b":              {Key: []byte(keyB), KeyMetadata: []byte("kb")},
					"e.list.element": {Key: []byte(keyList)},
					"d":              {}, // footer key
				}
			}
			if c.aad != "" {
				opts.AADPrefix = []byte("table.part0")
				opts.DisableAADPrefixStorage = c.aad == "supplied"
			}
			enc := encryptFile(t, plain, opts)
			got := dumpArrowGo(t, enc, arrowGoDecryption(c))
			compareDumps(t, got, want)

			// And our own reader, with the same keys.
			f, d, err := encryption.ReadFooter(bytes.NewReader(enc), int64(len(enc)), ourDecryption(c))
			if err != nil {
				t.Fatal(err)
			}
			if !d.FooterVerified() {
				t.Error("footer not verified")
			}
			twin, _, err := decryptFile(enc, f, d)
			if err != nil {
				t.Fatal(err)
			}
			compareDumps(t, dumpArrowGo(t, twin, nil), want)
		})
	}
}

// TestInteropArrowGoWritesWeRead reads arrow-go-encrypted files of every
// combination with our decryption: the plaintext twin equals the file
// arrow-go wrote without encryption.
func TestInteropArrowGoWritesWeRead(t *testing.T) {
	want := dumpArrowGo(t, samplePlain(t, nil), nil)
	for _, c := range combos() {
		t.Run(c.String(), func(t *testing.T) {
			var opts []parquet.EncryptOption
			if c.ctr {
				opts = append(opts, parquet.WithAlg(parquet.AesCtr))
			}
			if c.plainFooter {
				opts = append(opts, parquet.WithPlaintextFooter())
			}
			if c.columnKeys {
				opts = append(opts, parquet.WithEncryptedColumns(parquet.ColumnPathToEncryptionPropsMap{
					"b":              parquet.NewColumnEncryptionProperties("b", parquet.WithKey(keyB)),
					"e.list.element": parquet.NewColumnEncryptionProperties("e.list.element", parquet.WithKey(keyList)),
				}))
			}
			if c.aad != "" {
				opts = append(opts, parquet.WithAadPrefix("table.part0"))
				if c.aad == "supplied" {
					opts = append(opts, parquet.DisableAadPrefixStorage())
				}
			}
			enc := samplePlain(t, parquet.NewFileEncryptionProperties(footerKey, opts...))
			f, d, err := encryption.ReadFooter(bytes.NewReader(enc), int64(len(enc)), ourDecryption(c))
			if err != nil {
				t.Fatal(err)
			}
			if c.ctr && c.plainFooter {
				// arrow-go (a port of Arrow C++, which does the same) writes
				// AES_GCM_V1 as the algorithm of a plaintext footer while it
				// enciphers the pages with CTR. By the spec the pages are
				// GCM then, and they do not authenticate: a clean error
				// naming the page. arrow-go reads its own file wrong: the
				// encrypted columns come back empty without an error.
				_, _, err := decryptFile(enc, f, d)
				if !errors.Is(err, encryption.ErrAuthentication) || !strings.Contains(err.Error(), "data page 0") {
					t.Errorf("err = %v", err)
				}
				if got, err := dumpArrowGoErr(enc, arrowGoDecryption(c)); err == nil && strings.Join(got, "") == strings.Join(want, "") {
					t.Log("arrow-go reads its own CTR file with a plaintext footer now: revisit this case")
				}
				return
			}
			twin, st, err := decryptFile(enc, f, d)
			if err != nil {
				t.Fatal(err)
			}
			if st.pages == 0 {
				t.Error("no page decrypted")
			}
			compareDumps(t, dumpArrowGo(t, twin, nil), want)

			// A wrong column key fails on the column metadata, naming it.
			if c.columnKeys {
				o := ourDecryption(c)
				o.ColumnKeys["b"] = []byte(footerKey)
				_, _, err := encryption.ReadFooter(bytes.NewReader(enc), int64(len(enc)), o)
				if !errors.Is(err, encryption.ErrAuthentication) || !strings.Contains(err.Error(), "column b") {
					t.Errorf("wrong column key: %v", err)
				}
			}
		})
	}
}
