package arrowpq_test

// Encrypted files written by arrowpq.Writer, read back by arrow-go's own
// decryption (parquet/file with FileDecryptionProperties, through pqarrow)
// and compared with the table written: AES_GCM_V1 and AES_GCM_CTR_V1 ×
// encrypted and signed plaintext footer × uniform (footer key) and
// per-column keys (plaintext columns left), with several row groups, data
// pages, dictionaries, nulls, a list, page indexes and a bloom filter.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/oracle"
	"github.com/arrowpq/arrowpq/metadata"
)

const (
	wFooterKey = "0123456789012345"
	wKeyB      = "abcdefghijklmnop"
	wKeyList   = "ABCDEFGHIJKLMNOPQRSTUVWX" // AES-192
)

// encSample is the table the write tests encrypt: 3,000 rows.
func encSample(t *testing.T) arrow.Table {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "c", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64},
		{Name: "e", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	for i := range 3000 {
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
	return array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
}

type encCombo struct {
	alg         encryption.Algorithm
	plainFooter bool
	columnKeys  bool
}

func (c encCombo) String() string {
	return fmt.Sprintf("%v/plaintext-footer=%v/column-keys=%v", c.alg, c.plainFooter, c.columnKeys)
}

func (c encCombo) options() *encryption.EncryptionOptions {
	o := &encryption.EncryptionOptions{Algorithm: c.alg, FooterKey: []byte(wFooterKey), FooterKeyMetadata: []byte("kf"),
		PlaintextFooter: c.plainFooter, AADPrefix: []byte("table.part0")}
	if c.columnKeys {
		o.ColumnKeys = map[string]encryption.ColumnKey{
			"b":              {Key: []byte(wKeyB), KeyMetadata: []byte("kb")},
			"e.list.element": {Key: []byte(wKeyList), KeyMetadata: []byte("kl")},
			"d":              {}, // the footer key
		}
	}
	return o
}

func encCombos() []encCombo {
	var cs []encCombo
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1, encryption.AESGCMCTRV1} {
		for _, pf := range []bool{false, true} {
			for _, ck := range []bool{false, true} {
				cs = append(cs, encCombo{alg, pf, ck})
			}
		}
	}
	return cs
}

func writeEncrypted(t *testing.T, tbl arrow.Table, enc *encryption.EncryptionOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	opts := &arrowpq.WriteOptions{RowGroupRows: 1000, DataPageSize: 1024, Encryption: enc,
		Columns: map[string]arrowpq.ColumnOptions{"a": {BloomFilterNDV: 3000}}}
	if err := arrowpq.WriteTable(&buf, tbl, opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestWriteEncryptedArrowGoReads: every combination reads back with
// arrow-go's decryption equal to the table written.
func TestWriteEncryptedArrowGoReads(t *testing.T) {
	tbl := encSample(t)
	defer tbl.Release()
	want, err := oracle.RenderTable(tbl)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range encCombos() {
		t.Run(c.String(), func(t *testing.T) {
			data := writeEncrypted(t, tbl, c.options())
			wantMagic := "PARE"
			if c.plainFooter {
				wantMagic = "PAR1"
			}
			if string(data[:4]) != wantMagic || string(data[len(data)-4:]) != wantMagic {
				t.Fatalf("magic %q … %q, want %s", data[:4], data[len(data)-4:], wantMagic)
			}
			dopts := []parquet.FileDecryptionOption{parquet.WithFooterKey(wFooterKey)}
			if c.columnKeys {
				dopts = append(dopts, parquet.WithColumnKeys(parquet.ColumnPathToDecryptionPropsMap{
					"b":              parquet.NewColumnDecryptionProperties("b", parquet.WithDecryptKey(wKeyB)),
					"e.list.element": parquet.NewColumnDecryptionProperties("e.list.element", parquet.WithDecryptKey(wKeyList)),
				}))
			}
			rp := parquet.NewReaderProperties(memory.DefaultAllocator)
			rp.FileDecryptProps = parquet.NewFileDecryptionProperties(dopts...)
			pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(rp))
			if err != nil {
				t.Fatal(err)
			}
			if pf.NumRowGroups() != 3 {
				t.Errorf("%d row groups", pf.NumRowGroups())
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			out, err := oracle.RenderTable(got)
			if err != nil {
				t.Fatal(err)
			}
			if err := oracle.Compare(out, want, oracle.Allowances{}); err != nil {
				t.Fatalf("arrow-go reads other rows: %v", err)
			}

			// Our reader: the same rows, the bloom filter and page
			// indexes decrypt, and without keys the expected errors.
			dec := &encryption.DecryptionOptions{FooterKey: []byte(wFooterKey),
				ColumnKeys: map[string][]byte{"b": []byte(wKeyB), "e.list.element": []byte(wKeyList)}}
			r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{Decryption: dec})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			f := r.Metadata()
			wantEnc := 5 * 3 // every chunk of the 3 row groups
			if c.columnKeys {
				wantEnc = 3 * 3 // b, d, e.list.element
			}
			nEnc := 0
			for _, g := range f.Meta.RowGroups {
				for _, cc := range g.Columns {
					if cc.CryptoMetadata != nil {
						nEnc++
					}
				}
			}
			if nEnc != wantEnc {
				t.Fatalf("%d encrypted column chunks, want %d", nEnc, wantEnc)
			}
			for rg := range f.Meta.RowGroups {
				for col := range f.Schema.Columns {
					d, err := r.Decryptor().Chunk(rg, col)
					if err != nil {
						t.Fatal(err)
					}
					var id metadata.IndexDecryptor
					if d != nil {
						id = d
					}
					if oi, err := metadata.ReadEncryptedOffsetIndex(bytes.NewReader(data), f, rg, col, id); err != nil || oi == nil {
						t.Fatalf("row group %d column %d: offset index %v, %v", rg, col, oi, err)
					}
					if _, err := metadata.ReadEncryptedColumnIndex(bytes.NewReader(data), f, rg, col, id); err != nil {
						t.Fatalf("row group %d column %d: column index: %v", rg, col, err)
					}
				}
				bf, err := metadata.ReadEncryptedBloomFilter(bytes.NewReader(data), f, rg, 0, indexDec(r, rg, 0))
				if err != nil {
					t.Fatalf("row group %d: bloom filter: %v", rg, err)
				}
				for i := rg * 1000; i < rg*1000+1000; i++ {
					if !bf.MayContain(metadata.XXHash64Uint32(uint32(i))) {
						t.Fatalf("row group %d: bloom filter misses %d", rg, i)
					}
				}
			}
			tbl2, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{Decryption: dec})
			if err != nil {
				t.Fatal(err)
			}
			defer tbl2.Release()
			ours, _ := oracle.RenderTable(tbl2)
			if err := oracle.Compare(ours, want, oracle.Allowances{}); err != nil {
				t.Fatalf("arrowpq reads other rows: %v", err)
			}
			_, err = arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if !c.plainFooter && !errors.Is(err, encryption.ErrNoKey) {
				t.Fatalf("no keys, encrypted footer: %v", err)
			}
			if c.plainFooter && c.columnKeys {
				// The plaintext columns read without keys.
				plain, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(data), int64(len(data)), &arrowpq.ReadOptions{Columns: []string{"a", "c"}})
				if err != nil {
					t.Fatalf("plaintext columns without keys: %v", err)
				}
				plain.Release()
			}
		})
	}
}

func indexDec(r *arrowpq.Reader, rg, col int) metadata.IndexDecryptor {
	d, err := r.Decryptor().Chunk(rg, col)
	if err != nil || d == nil {
		return nil
	}
	return d
}

// TestWriteEncryptedBadOptions: keys that cannot work are refused when
// the Writer is made, naming what is wrong.
func TestWriteEncryptedBadOptions(t *testing.T) {
	tbl := encSample(t)
	defer tbl.Release()
	for _, c := range []struct {
		opts *encryption.EncryptionOptions
		want string
	}{
		{&encryption.EncryptionOptions{FooterKey: []byte("short")}, "footer key"},
		{&encryption.EncryptionOptions{FooterKey: []byte(wFooterKey), ColumnKeys: map[string]encryption.ColumnKey{"nope": {Key: []byte(wKeyB)}}}, `column "nope"`},
		{&encryption.EncryptionOptions{FooterKey: []byte(wFooterKey), ColumnKeys: map[string]encryption.ColumnKey{"b": {Key: []byte("x")}}}, "column b"},
	} {
		var buf bytes.Buffer
		_, err := arrowpq.NewWriter(&buf, tbl.Schema(), &arrowpq.WriteOptions{Encryption: c.opts})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.opts.ColumnKeys, err, c.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%d bytes written before the error", buf.Len())
		}
	}
}
