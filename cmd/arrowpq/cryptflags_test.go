package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/internal/oracle"
)

// The keys of the parquet-testing encrypted files (CATALOG.md).
var cppKeyFlags = []string{"--footer-key", "0123456789012345", "--column-key", "double_field:1234567890123450", "--column-key", "float_field:hex:31323334353637383930313233343531"}

// TestCryptFlagsCat: cat reads encrypted files with the key flags (the
// float_field key given as hex), and names the flags when a key is missing.
func TestCryptFlagsCat(t *testing.T) {
	needSharedDir(t, corpusDir)
	f := filepath.Join(corpusDir, "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted")
	args := append([]string{"cat", "--format", "jsonl", "--columns", "int32_field,float_field,double_field", "-n", "3", "--aad-prefix", "tester"}, cppKeyFlags...)
	out, errOut, code := runCLI(append(args, f)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The parquet-cpp encryption test data: row i holds i, i*1.1 and
	// i*1.1111111 (arrow/cpp/src/parquet/encryption/test_encryption_util).
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	for i, l := range lines {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		if float32(row["float_field"].(float64)) != float32(i)*float32(1.1) || row["double_field"].(float64) != float64(i)*1.1111111 {
			t.Errorf("row %d: %s", i, l)
		}
	}

	// Without the AAD prefix, without keys: errors that name the flag.
	_, errOut, code = runCLI(append(append([]string{"cat"}, cppKeyFlags...), f)...)
	if code != 1 || !strings.Contains(errOut, "--aad-prefix") {
		t.Errorf("no prefix: exit %d: %s", code, errOut)
	}
	_, errOut, code = runCLI("cat", filepath.Join(corpusDir, "encrypt_columns_plaintext_footer.parquet.encrypted"))
	if code != 1 || !strings.Contains(errOut, "column float_field") || !strings.Contains(errOut, "--column-key") {
		t.Errorf("no keys: exit %d: %s", code, errOut)
	}
	// A projection without the encrypted columns reads without keys.
	if _, errOut, code = runCLI("cat", "--columns", "int32_field", filepath.Join(corpusDir, "encrypt_columns_plaintext_footer.parquet.encrypted")); code != 0 {
		t.Errorf("plaintext columns: exit %d: %s", code, errOut)
	}
	// Keys that are not AES keys are usage errors.
	if _, errOut, code = runCLI("cat", "--footer-key", "short", f); code != 2 || !strings.Contains(errOut, "16, 24 or 32") {
		t.Errorf("short key: exit %d: %s", code, errOut)
	}
	if _, errOut, code = runCLI("cat", "--column-key", "0123456789012345", f); code != 2 || !strings.Contains(errOut, "PATH:KEY") {
		t.Errorf("column key without path: exit %d: %s", code, errOut)
	}
}

// TestCryptFlagsMeta: meta shows what is encrypted without keys.
func TestCryptFlagsMeta(t *testing.T) {
	needSharedDir(t, corpusDir)
	out, errOut, code := runCLI("meta", filepath.Join(corpusDir, "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted"))
	if code != 0 || !strings.Contains(out, `AES_GCM_V1, encrypted footer, footer key metadata "kf", AAD prefix not stored`) {
		t.Errorf("encrypted footer: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI("meta", filepath.Join(corpusDir, "encrypt_columns_plaintext_footer.parquet.encrypted"))
	if code != 0 || !strings.Contains(out, "plaintext (signed) footer") || !strings.Contains(out, `double_field: column key (key metadata "kc1")`) ||
		!strings.Contains(out, "rows        50") {
		t.Errorf("plaintext footer: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI("meta", "--json", "--footer-key", "0123456789012345", filepath.Join(corpusDir, "uniform_encryption.parquet.encrypted"))
	var m struct {
		NumRows    int64 `json:"num_rows"`
		Encryption struct {
			Footer  string                       `json:"footer"`
			Columns []struct{ Path, Key string } `json:"encrypted_columns"`
		} `json:"encryption"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m.NumRows != 50 || m.Encryption.Footer != "encrypted" || len(m.Encryption.Columns) != 8 || m.Encryption.Columns[0].Key != "footer" {
		t.Errorf("with the footer key: exit %d: %+v\n%s%s", code, m, out, errOut)
	}
}

// TestCryptFlagsCheck: check decrypts pages, page indexes and bloom
// filters (whose values it verifies) of the parquet-mr bloom filter file.
func TestCryptFlagsCheck(t *testing.T) {
	needSharedDir(t, corpusDir)
	for _, name := range []string{"encrypt_columns_and_footer_bloom_filter.parquet.encrypted", "encrypt_columns_and_footer_ctr.parquet.encrypted"} {
		out, errOut, code := runCLI(append(append([]string{"check"}, cppKeyFlags...), filepath.Join(corpusDir, name))...)
		if code != 0 || !strings.Contains(out, ": ok (") {
			t.Errorf("%s: exit %d:\n%s%s", name, code, out, errOut)
		}
	}
	out, _, code := runCLI(append(append([]string{"bloom"}, cppKeyFlags...), filepath.Join(corpusDir, "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"), "double_field", "7.5")...)
	if code != 0 || !strings.Contains(out, "may contain") {
		t.Errorf("bloom 7.5: exit %d: %s", code, out)
	}
	out, _, code = runCLI(append(append([]string{"bloom"}, cppKeyFlags...), filepath.Join(corpusDir, "encrypt_columns_and_footer_bloom_filter.parquet.encrypted"), "double_field", "7.25")...)
	if code != 0 || !strings.Contains(out, "does not contain") && !strings.Contains(out, "definitely not") {
		t.Logf("bloom 7.25: exit %d: %s", code, out)
	}
}

// TestConvertEncrypted: convert writes encrypted files with the
// --encrypt-* flags (GCM and CTR, encrypted and plaintext footer, a column
// key) that arrow-go's decryption reads to the rows of the same conversion
// without encryption.
func TestConvertEncrypted(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	var b strings.Builder
	b.WriteString("id,name,score\n")
	for i := range 500 {
		fmt.Fprintf(&b, "%d,n%d,%d.5\n", i, i%13, i*3)
	}
	if err := os.WriteFile(csvPath, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	plainPath := filepath.Join(dir, "plain.parquet")
	if _, errOut, code := runCLI("convert", "--quiet", csvPath, plainPath); code != 0 {
		t.Fatalf("plain convert: %s", errOut)
	}
	want := pqarrowRender(t, plainPath, nil)
	for _, alg := range []string{"gcm", "ctr"} {
		for _, plainFooter := range []bool{false, true} {
			name := fmt.Sprintf("%s-%v", alg, plainFooter)
			out := filepath.Join(dir, name+".parquet")
			args := []string{"convert", "--quiet", "--encrypt-footer-key", "0123456789012345", "--encrypt-footer-key-id", "kf",
				"--encrypt-column-key", "score:hex:31323334353637383930313233343530:kc1", "--encrypt-algorithm", alg,
				fmt.Sprintf("--encrypt-plaintext-footer=%v", plainFooter), csvPath, out}
			if _, errOut, code := runCLI(args...); code != 0 {
				t.Fatalf("%s: %s", name, errOut)
			}
			props := parquet.NewFileDecryptionProperties(parquet.WithFooterKey("0123456789012345"),
				parquet.WithColumnKeys(parquet.ColumnPathToDecryptionPropsMap{
					"score": parquet.NewColumnDecryptionProperties("score", parquet.WithDecryptKey("1234567890123450")),
				}))
			if got := pqarrowRender(t, out, props); got != want {
				t.Errorf("%s: arrow-go reads\n%.300s\nwant\n%.300s", name, got, want)
			}
			meta, _, _ := runCLI("meta", out)
			if !strings.Contains(meta, `score: column key (key metadata "kc1")`) && plainFooter {
				t.Errorf("%s: meta:\n%s", name, meta)
			}
		}
	}
	if _, errOut, code := runCLI("convert", "--encrypt-plaintext-footer", csvPath, filepath.Join(dir, "x.parquet")); code != 2 || !strings.Contains(errOut, "--encrypt-footer-key") {
		t.Errorf("--encrypt-plaintext-footer alone: exit %d: %s", code, errOut)
	}
}

// pqarrowRender reads a file with arrow-go's pqarrow (decrypting with
// props when not nil) and renders it canonically.
func pqarrowRender(t *testing.T, path string, props *parquet.FileDecryptionProperties) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rp := parquet.NewReaderProperties(memory.DefaultAllocator)
	rp.FileDecryptProps = props
	pf, err := file.NewParquetReader(bytes.NewReader(data), file.WithReadProps(rp))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	out, err := oracle.RenderTable(tbl)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
