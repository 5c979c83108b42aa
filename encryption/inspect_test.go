package encryption_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

func TestParseKey(t *testing.T) {
	tests := []struct {
		in   string
		want []byte
		err  bool
	}{
		{"0123456789012345", []byte("0123456789012345"), false},
		{"hex:000102030405060708090a0b0c0d0e0f", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, false},
		{"hex:0g", nil, true},
		{"tester", []byte("tester"), false},
	}
	for _, tc := range tests {
		got, err := encryption.ParseKey(tc.in)
		if (err != nil) != tc.err || !bytes.Equal(got, tc.want) || tc.err && !errors.Is(err, encryption.ErrKey) {
			t.Errorf("%q: %x, %v", tc.in, got, err)
		}
	}
}

// TestInspect: what the corpus files say about their encryption without
// keys (CATALOG.md and the upstream README).
func TestInspect(t *testing.T) {
	testshared.Need(t, corpus)
	tests := []struct {
		name      string
		encFooter bool
		alg       encryption.Algorithm
		prefix    string
		supply    bool
		columns   []string
	}{
		{"uniform_encryption.parquet.encrypted", true, encryption.AESGCMV1, "", false, nil},
		{"encrypt_columns_and_footer_aad.parquet.encrypted", true, encryption.AESGCMV1, "tester", false, nil},
		{"encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted", true, encryption.AESGCMV1, "", true, nil},
		{"encrypt_columns_and_footer_ctr.parquet.encrypted", true, encryption.AESGCMCTRV1, "", false, nil},
		{"encrypt_columns_plaintext_footer.parquet.encrypted", false, encryption.AESGCMV1, "", false, []string{"double_field:kc1", "float_field:kc2"}},
		{"aes256/encrypt_columns_plaintext_footer.parquet.encrypted", false, encryption.AESGCMV1, "", false, []string{"double_field:kc1", "float_field:kc2", "boolean_field:kc3", "int32_field:kc4", "ba_field:kc5", "flba_field:kc6", "int64_field.list.element:kc7", "int96_field:kc8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			info, err := encryption.Inspect(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, c := range info.Columns {
				cols = append(cols, c.Path+":"+string(c.KeyMetadata))
			}
			if info.EncryptedFooter != tc.encFooter || info.Algorithm != tc.alg || string(info.AADPrefix) != tc.prefix ||
				info.SupplyAADPrefix != tc.supply || string(info.FooterKeyMetadata) != "kf" || !sameSet(cols, tc.columns) {
				t.Errorf("%+v, columns %v", info, cols)
			}
		})
	}
	plain := samplePlain(t, nil)
	if info, err := encryption.Inspect(bytes.NewReader(plain), int64(len(plain))); info != nil || err != nil {
		t.Errorf("plaintext file: %+v, %v", info, err)
	}
}
