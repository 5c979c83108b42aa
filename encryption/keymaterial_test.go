package encryption_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// decryptor is the column layer's interface (package column, issue 20),
// repeated here: ChunkDecryptor must satisfy it without importing column.
type decryptor interface {
	PageHeader(src []byte, dictionary bool, pageOrdinal int) (header []byte, n int, err error)
	Page(src []byte, dictionary bool, pageOrdinal int) ([]byte, error)
}

var _ decryptor = (*encryption.ChunkDecryptor)(nil)

// TestKeyMaterialWriteRead wraps data keys as the key tools do, single and
// double, and checks that (1) the key metadata has exactly the fields of
// the key material parquet-java wrote into the corpus's external key
// material file (plus internalStorage), and (2) the KMS retriever unwraps
// the same keys.
func TestKeyMaterialWriteRead(t *testing.T) {
	kms := &encryption.InMemoryKMS{MasterKeys: map[string][]byte{"kf": []byte(footerKey), "kc1": []byte(keyB)}}
	retrieve := encryption.NewKMSKeyRetriever(kms, nil)
	for _, single := range []bool{false, true} {
		for _, footer := range []bool{false, true} {
			dek := []byte("0123456789abcdef")
			id := map[bool]string{true: "kf", false: "kc1"}[footer]
			km, err := encryption.NewKeyMaterial(kms, dek, id, encryption.WrapOptions{SingleWrapping: single, FooterKey: footer})
			if err != nil {
				t.Fatal(err)
			}
			md := km.InternalKeyMetadata()
			got, err := retrieve(md)
			if err != nil || !bytes.Equal(got, dek) {
				t.Fatalf("single=%v footer=%v: %q %v", single, footer, got, err)
			}
			if single || !testshared.Has(t, corpus) {
				continue
			}
			// Field names against parquet-java's own output.
			j, err := os.ReadFile(filepath.Join(corpus, encryption.ExternalKeyMaterialName("external_key_material_java.parquet.encrypted")))
			if err != nil {
				t.Fatal(err)
			}
			ext, _ := encryption.ParseExternalKeyMaterial(j)
			ref := map[bool]string{true: "footerKey", false: "columnKey0"}[footer]
			want := fieldNames(t, []byte(ext[ref]))
			want = append(want, "internalStorage")
			sort.Strings(want)
			if got := fieldNames(t, md); !equalStrings(got, want) {
				t.Errorf("footer=%v: fields %v, parquet-java writes %v", footer, got, want)
			}
		}
	}
	// A wrong master key fails authentication; a missing one is ErrNoKey.
	km, _ := encryption.NewKeyMaterial(kms, []byte("0123456789abcdef"), "kc1", encryption.WrapOptions{})
	bad := encryption.NewKMSKeyRetriever(&encryption.InMemoryKMS{MasterKeys: map[string][]byte{"kc1": []byte(footerKey)}}, nil)
	if _, err := bad(km.InternalKeyMetadata()); !errors.Is(err, encryption.ErrAuthentication) {
		t.Errorf("wrong master key: %v", err)
	}
	none := encryption.NewKMSKeyRetriever(&encryption.InMemoryKMS{}, nil)
	if _, err := none(km.InternalKeyMetadata()); !errors.Is(err, encryption.ErrNoKey) {
		t.Errorf("missing master key: %v", err)
	}
	for _, bad := range []string{``, `{}`, `{"keyMaterialType":"PKMT2","internalStorage":true}`, `{"keyMaterialType":"PKMT1"}`,
		`{"keyMaterialType":"PKMT1","internalStorage":false}`, `{"keyMaterialType":"PKMT1","internalStorage":true,"masterKeyID":"kf"}`,
		`{"keyMaterialType":"PKMT1","internalStorage":true,"masterKeyID":"kf","wrappedDEK":"x","doubleWrapping":true}`} {
		if _, err := retrieve([]byte(bad)); !errors.Is(err, encryption.ErrKeyMaterial) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

func fieldNames(t *testing.T, b []byte) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
