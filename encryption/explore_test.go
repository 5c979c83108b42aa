package encryption_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
)

func keysFor(aes256 bool) map[string][]byte {
	if aes256 {
		m := map[string][]byte{"kf": []byte("01234567890123456789012345678901")}
		for i := 1; i <= 8; i++ {
			m["kc"+string(rune('0'+i))] = []byte("1234567890123456789012345678901" + string(rune('0'+i+1)))
		}
		return m
	}
	return map[string][]byte{"kf": []byte("0123456789012345"), "kc1": []byte("1234567890123450"), "kc2": []byte("1234567890123451")}
}

func TestExplore(t *testing.T) {
	files, _ := filepath.Glob("../../shared/testdata/parquet-testing/data/*.encrypted")
	a, _ := filepath.Glob("../../shared/testdata/parquet-testing/data/aes256/*.encrypted")
	files = append(files, a...)
	for _, p := range files {
		b, _ := os.ReadFile(p)
		keys := keysFor(strings.Contains(p, "aes256"))
		ret := func(md []byte) ([]byte, error) {
			if k, ok := keys[string(md)]; ok {
				return k, nil
			}
			return nil, encryption.ErrNoKey
		}
		f, d, err := encryption.ReadFooter(bytesReader(b), int64(len(b)), &encryption.DecryptionOptions{KeyRetriever: ret, AADPrefix: aadFor(p)})
		if err != nil {
			t.Logf("%s: err=%v", filepath.Base(p), err)
			continue
		}
		enc, locked := d.EncryptedColumns()
		t.Logf("%s: rows %d alg %v verified %v enc %v locked %v", filepath.Base(p), f.NumRows(), d.Algorithm(), d.FooterVerified(), enc, locked)
		for i := range f.Schema.Columns {
			_, err := f.ColumnChunk(0, i)
			if err != nil {
				t.Logf("  %v", err)
			}
		}
	}
}

func aadFor(p string) []byte {
	if strings.Contains(p, "disable_aad") {
		return []byte("tester")
	}
	return nil
}

func TestExploreKMS(t *testing.T) {
	dir := "../../shared/testdata/parquet-testing/data/"
	b, _ := os.ReadFile(dir + "external_key_material_java.parquet.encrypted")
	j, _ := os.ReadFile(dir + encryption.ExternalKeyMaterialName("external_key_material_java.parquet.encrypted"))
	ext, err := encryption.ParseExternalKeyMaterial(j)
	if err != nil {
		t.Fatal(err)
	}
	kms := &encryption.InMemoryKMS{MasterKeys: keysFor(false)}
	f, d, err := encryption.ReadFooter(bytesReader(b), int64(len(b)), &encryption.DecryptionOptions{KeyRetriever: encryption.NewKMSKeyRetriever(kms, ext)})
	if err != nil {
		t.Fatal(err)
	}
	enc, locked := d.EncryptedColumns()
	t.Logf("rows %d enc %v locked %v schema %v", f.NumRows(), enc, locked, f.Schema.Columns[0].DottedPath)
}
