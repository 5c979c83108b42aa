package encryption_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata"
)

const corpus = "../../shared/testdata/parquet-testing/data"

// Keys of the encrypted parquet-testing files, spelled as CATALOG.md says:
// the README's digit lists are the ASCII strings of those digits.
var (
	cppKeys = map[string]string{"kf": "0123456789012345", "kc1": "1234567890123450", "kc2": "1234567890123451"}
	aesKeys = func() map[string]string {
		m := map[string]string{"kf": "01234567890123456789012345678901"}
		for i := 1; i <= 8; i++ {
			m["kc"+string(rune('0'+i))] = "1234567890123456789012345678901" + string(rune('0'+i+1))
		}
		return m
	}()
)

// retriever answers key ids as the files store them ("kf", "kc1", …).
func retriever(keys map[string]string) encryption.KeyRetriever {
	return func(md []byte) ([]byte, error) {
		if k, ok := keys[string(md)]; ok {
			return []byte(k), nil
		}
		return nil, encryption.ErrNoKey
	}
}

type corpusFile struct {
	name        string
	alg         encryption.Algorithm
	plainFooter bool
	aad         string // prefix the reader must supply
	encrypted   []string
	rows        int64
	blooms      int
}

var cppCols = []string{"float_field", "double_field"}
var aesCols = []string{"boolean_field", "int32_field", "int64_field.list.element", "int96_field", "float_field", "double_field", "ba_field", "flba_field"}

var corpusFiles = []corpusFile{
	{name: "uniform_encryption.parquet.encrypted", rows: 50, encrypted: []string{"boolean_field", "int32_field", "int64_field", "int96_field", "float_field", "double_field", "ba_field", "flba_field"}},
	{name: "encrypt_columns_and_footer.parquet.encrypted", rows: 50, encrypted: cppCols},
	{name: "encrypt_columns_and_footer_aad.parquet.encrypted", rows: 50, encrypted: cppCols},
	{name: "encrypt_columns_and_footer_ctr.parquet.encrypted", rows: 50, encrypted: cppCols, alg: encryption.AESGCMCTRV1},
	{name: "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", rows: 50, encrypted: cppCols, aad: "tester"},
	{name: "encrypt_columns_plaintext_footer.parquet.encrypted", rows: 50, encrypted: cppCols, plainFooter: true},
	{name: "encrypt_columns_and_footer_bloom_filter.parquet.encrypted", rows: 2000, encrypted: []string{"double_field", "float_field"}, blooms: 2},
	{name: "aes256/uniform_encryption.parquet.encrypted", rows: 50, encrypted: aesCols},
	{name: "aes256/encrypt_columns_and_footer.parquet.encrypted", rows: 50, encrypted: aesCols},
	{name: "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted", rows: 50, encrypted: aesCols, alg: encryption.AESGCMCTRV1},
	{name: "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", rows: 50, encrypted: aesCols, aad: "tester"},
	{name: "aes256/encrypt_columns_plaintext_footer.parquet.encrypted", rows: 50, encrypted: aesCols, plainFooter: true},
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, s := range a {
		m[s] = true
	}
	for _, s := range b {
		if !m[s] {
			return false
		}
	}
	return true
}

// TestCorpusEveryEncryptedFileListed fails on an encrypted file of the
// corpus that has no expectation here.
func TestCorpusEveryEncryptedFileListed(t *testing.T) {
	testshared.Need(t, corpus)
	files, _ := filepath.Glob(filepath.Join(corpus, "*.encrypted"))
	more, _ := filepath.Glob(filepath.Join(corpus, "*", "*.encrypted"))
	known := map[string]bool{"external_key_material_java.parquet.encrypted": true}
	for _, c := range corpusFiles {
		known[c.name] = true
	}
	for _, p := range append(files, more...) {
		rel, _ := filepath.Rel(corpus, p)
		if !known[filepath.ToSlash(rel)] {
			t.Errorf("%s: encrypted file without an expectation", rel)
		}
	}
}

// TestCorpusDecrypt reads every encrypted parquet-testing file with the
// README keys: footer (encrypted or signature-verified), column metadata,
// every page header and page, column and offset indexes and bloom filters
// decrypt (GCM modules authenticate, so their plaintext is what the writer
// encrypted). The plaintext twin decryptFile builds is then read by
// arrow-go's parquet/file and compared value by value with arrow-go's own
// decryption of the original, where arrow-go can decrypt it (the
// parquet-cpp files; it fails on every parquet-mr-written encrypted column,
// CATALOG.md): there the aes256 files are compared with the cpp file of
// the same data.
func TestCorpusDecrypt(t *testing.T) {
	testshared.Need(t, corpus)
	cppDump := map[string][]string{}
	for _, c := range corpusFiles {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus, c.name))
			if err != nil {
				t.Fatal(err)
			}
			aes256 := strings.HasPrefix(c.name, "aes256/")
			keys := cppKeys
			if aes256 {
				keys = aesKeys
			}
			opts := &encryption.DecryptionOptions{KeyRetriever: retriever(keys)}
			if c.aad != "" {
				opts.AADPrefix = []byte(c.aad)
			}
			f, d, err := encryption.ReadFooter(bytesReader(data), int64(len(data)), opts)
			if err != nil {
				t.Fatal(err)
			}
			if d.Algorithm() != c.alg || d.EncryptedFooter() == c.plainFooter || !d.FooterVerified() {
				t.Errorf("algorithm %v encrypted footer %v verified %v", d.Algorithm(), d.EncryptedFooter(), d.FooterVerified())
			}
			if f.NumRows() != c.rows {
				t.Errorf("%d rows, want %d", f.NumRows(), c.rows)
			}
			enc, locked := d.EncryptedColumns()
			if !sameSet(enc, c.encrypted) || len(locked) != 0 {
				t.Errorf("encrypted columns %v (locked %v), want %v", enc, locked, c.encrypted)
			}
			plain, st, err := decryptFile(data, f, d)
			if err != nil {
				t.Fatal(err)
			}
			if st.pages == 0 || st.pages != st.headers || st.indexes == 0 || st.locations == 0 || st.blooms != c.blooms {
				t.Errorf("decrypted %+v", st)
			}
			if c.blooms > 0 {
				checkBlooms(t, plain, st.bloom)
			}
			got := dumpArrowGo(t, plain, nil)
			switch {
			case !aes256 && c.blooms == 0:
				props := parquet.NewFileDecryptionProperties(parquet.WithKeyRetriever(stringRetriever(keys)), parquet.WithDecryptAadPrefix(c.aad))
				if c.aad == "" {
					props = parquet.NewFileDecryptionProperties(parquet.WithKeyRetriever(stringRetriever(keys)))
				}
				want := dumpArrowGo(t, data, props)
				compareDumps(t, got, want)
				cppDump[c.name] = want
			case aes256:
				// Same generator as the cpp files except int64_field, a
				// 3-level LIST here (CATALOG.md).
				want := cppDump["uniform_encryption.parquet.encrypted"]
				if want == nil {
					t.Skip("needs the cpp file's dump")
				}
				for i := range got {
					if strings.HasPrefix(got[i], "int64_field") {
						continue
					}
					if got[i] != want[i] {
						t.Errorf("column %d:\n got %.300s\nwant %.300s", i, got[i], want[i])
					}
				}
			}
		})
	}
}

type stringRetriever map[string]string

func (s stringRetriever) GetKey(md []byte) string { return s[string(md)] }

func compareDumps(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d columns, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("column %d:\n got %.300s\nwant %.300s", i, got[i], want[i])
		}
	}
}

// TestCorpusWithoutKeys: the expected clean errors without keys.
func TestCorpusWithoutKeys(t *testing.T) {
	testshared.Need(t, corpus)
	for _, c := range corpusFiles {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus, c.name))
			if err != nil {
				t.Fatal(err)
			}
			f, d, err := encryption.ReadFooter(bytesReader(data), int64(len(data)), nil)
			if !c.plainFooter {
				want := encryption.ErrNoKey
				if c.aad != "" {
					want = encryption.ErrNoAADPrefix
				}
				if !errors.Is(err, want) || !errors.Is(err, metadata.ErrEncrypted) {
					t.Fatalf("err = %v, want %v", err, want)
				}
				// metadata alone answers ErrEncrypted too.
				if _, err := metadata.ReadFooter(bytesReader(data), int64(len(data))); !errors.Is(err, metadata.ErrEncrypted) {
					t.Errorf("metadata.ReadFooter: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.FooterVerified() {
				t.Error("footer verified without a key")
			}
			enc, locked := d.EncryptedColumns()
			if !sameSet(locked, c.encrypted) || !sameSet(enc, c.encrypted) {
				t.Errorf("locked %v, want %v", locked, c.encrypted)
			}
			for col, sc := range f.Schema.Columns {
				_, err := f.ColumnChunk(0, col)
				isEnc := sameSet([]string{sc.DottedPath}, []string{sc.DottedPath}) && contains(c.encrypted, sc.DottedPath)
				switch {
				case isEnc && (!errors.Is(err, metadata.ErrEncrypted) || !strings.Contains(err.Error(), sc.DottedPath)):
					t.Errorf("%s: err = %v, want ErrEncrypted naming the column", sc.DottedPath, err)
				case !isEnc && err != nil:
					t.Errorf("%s: %v", sc.DottedPath, err)
				}
				_, err = d.Chunk(0, col)
				if isEnc != (err != nil) || isEnc && !errors.Is(err, encryption.ErrNoKey) {
					t.Errorf("%s: Chunk: %v", sc.DottedPath, err)
				}
			}
			// The same through metadata alone (no encryption package).
			mf, err := metadata.ReadFooter(bytesReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			for col, sc := range mf.Schema.Columns {
				if _, err := mf.ColumnChunk(0, col); contains(c.encrypted, sc.DottedPath) != errors.Is(err, metadata.ErrEncrypted) {
					t.Errorf("metadata: %s: %v", sc.DottedPath, err)
				}
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestCorpusExternalKeyMaterial reads the parquet-java file whose keys are
// double-wrapped in external key material through the in-memory test KMS,
// with the master keys of Arrow C++'s TestOnlyInServerWrapKms (the README
// says the two are compatible).
func TestCorpusExternalKeyMaterial(t *testing.T) {
	testshared.Need(t, corpus)
	name := "external_key_material_java.parquet.encrypted"
	data, err := os.ReadFile(filepath.Join(corpus, name))
	if err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile(filepath.Join(corpus, encryption.ExternalKeyMaterialName(name)))
	if err != nil {
		t.Fatal(err)
	}
	ext, err := encryption.ParseExternalKeyMaterial(j)
	if err != nil {
		t.Fatal(err)
	}
	master := map[string][]byte{}
	for id, k := range cppKeys {
		master[id] = []byte(k)
	}
	kms := &encryption.InMemoryKMS{MasterKeys: master}
	f, d, err := encryption.ReadFooter(bytesReader(data), int64(len(data)), &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(kms, ext)})
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 100 {
		t.Errorf("%d rows", f.NumRows())
	}
	plain, st, err := decryptFile(data, f, d)
	if err != nil {
		t.Fatal(err)
	}
	if st.pages != 2 || st.indexes != 4 {
		t.Errorf("decrypted %+v", st)
	}
	// parquet-java's writer of this file stores i and a letter + i
	// (letters a..j cycling) for i in [0, 100).
	got := dumpArrowGo(t, plain, nil)
	var ints, strs []string
	for i := range 100 {
		ints = append(ints, strconv.Itoa(i))
		strs = append(strs, string(rune('a'+i%10))+strconv.Itoa(i))
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "values=["+strings.Join(ints, " ")+"]") ||
		!strings.HasSuffix(got[1], "values=["+strings.Join(strs, " ")+"]") {
		t.Errorf("values:\n%s", strings.Join(got, "\n"))
	}

	// Without the key material, or with a KMS that lacks the master key:
	// clean errors.
	_, _, err = encryption.ReadFooter(bytesReader(data), int64(len(data)), &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(kms, nil)})
	if !errors.Is(err, encryption.ErrNoKey) {
		t.Errorf("without key material: %v", err)
	}
	_, _, err = encryption.ReadFooter(bytesReader(data), int64(len(data)), &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(&encryption.InMemoryKMS{}, ext)})
	if !errors.Is(err, encryption.ErrNoKey) {
		t.Errorf("without master keys: %v", err)
	}
	wrong := &encryption.InMemoryKMS{MasterKeys: map[string][]byte{"kf": []byte("0123456789012346")}}
	_, _, err = encryption.ReadFooter(bytesReader(data), int64(len(data)), &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(wrong, ext)})
	if !errors.Is(err, encryption.ErrAuthentication) {
		t.Errorf("wrong master key: %v", err)
	}
}

// checkBlooms: every value of the encrypted double_field and float_field
// (read by arrow-go from the plaintext twin) is in the bloom filter that
// parquet-mr wrote and we decrypted, and values that are not in the column
// are mostly rejected, which a wrongly decrypted (random) bitset could not
// do.
func checkBlooms(t *testing.T, twin []byte, blooms map[string]*metadata.BloomFilter) {
	t.Helper()
	r, err := file.NewParquetReader(bytes.NewReader(twin))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	g := r.RowGroup(0)
	n := g.NumRows()
	for col := range g.NumColumns() {
		cr, err := g.Column(col)
		if err != nil {
			t.Fatal(err)
		}
		path := cr.Descriptor().Path()
		bf := blooms[path]
		var present, absent []uint64
		switch c := cr.(type) {
		case *file.Float64ColumnChunkReader:
			v := make([]float64, n)
			def := make([]int16, n)
			_, k, _ := c.ReadBatch(n, v, def, nil)
			for _, x := range v[:k] {
				present = append(present, metadata.XXHash64Uint64(math.Float64bits(x)))
				absent = append(absent, metadata.XXHash64Uint64(math.Float64bits(x+0.123456)))
			}
		case *file.Float32ColumnChunkReader:
			v := make([]float32, n)
			def := make([]int16, n)
			_, k, _ := c.ReadBatch(n, v, def, nil)
			for _, x := range v[:k] {
				present = append(present, metadata.XXHash64Uint32(math.Float32bits(x)))
				absent = append(absent, metadata.XXHash64Uint32(math.Float32bits(x+0.123456)))
			}
		default:
			continue
		}
		if bf == nil {
			t.Errorf("%s: no bloom filter", path)
			continue
		}
		rejected := 0
		for i, h := range present {
			if !bf.MayContain(h) {
				t.Fatalf("%s: value %d is not in the bloom filter", path, i)
			}
			if !bf.MayContain(absent[i]) {
				rejected++
			}
		}
		if len(present) == 0 || rejected < len(absent)*9/10 {
			t.Errorf("%s: %d values, %d of the absent ones rejected", path, len(present), rejected)
		}
		t.Logf("%s: %d values in the bloom filter, %d/%d absent values rejected", path, len(present), rejected, len(absent))
	}
}

// TestFileDecryptorConcurrent: one FileDecryptor serves goroutines that
// decrypt chunks at the same time (run with -race).
func TestFileDecryptorConcurrent(t *testing.T) {
	testshared.Need(t, corpus)
	data, err := os.ReadFile(filepath.Join(corpus, "uniform_encryption.parquet.encrypted"))
	if err != nil {
		t.Fatal(err)
	}
	f, d, err := encryption.ReadFooter(bytesReader(data), int64(len(data)), &encryption.DecryptionOptions{KeyRetriever: retriever(cppKeys)})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8*len(f.Schema.Columns))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for col := range f.Schema.Columns {
				cd, err := d.Chunk(0, col)
				if err != nil {
					errs <- err
					continue
				}
				off, length, _ := f.ChunkRange(0, col)
				if _, _, _, err := cd.FirstPageHeader(data[off : off+length]); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
