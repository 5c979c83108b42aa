package encryption_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/oracle"
)

// duckScript runs one query in DuckDB (the oracle's pinned @duckdb/node-api)
// on a file, with a footer key when one is given, and prints the rows as
// JSON. The oracle's dump.mjs takes no keys, hence this small script.
const duckScript = `
import { load } from %DEPS%;
const { DuckDBInstance } = await load.duckdb();
const con = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
const [file, key, sql] = process.argv.slice(2);
let src = "read_parquet('" + file.replaceAll("'", "''") + "')";
if (key) {
  await con.run("PRAGMA add_parquet_key('k', '" + key + "')");
  src = "read_parquet('" + file.replaceAll("'", "''") + "', encryption_config={footer_key: 'k'})";
}
const r = await con.runAndReadAll(sql.replaceAll('FILE', src));
console.log(JSON.stringify(r.getRowsJson()));
`

func duckQuery(t *testing.T, file, key, sql string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "q.mjs")
	deps := "'" + filepath.ToSlash(filepath.Join(oracle.Home(), "deps.mjs")) + "'"
	if err := os.WriteFile(script, []byte(strings.Replace(duckScript, "%DEPS%", deps, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", script, file, key, sql).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestDuckDBReadsOurFiles: DuckDB, given only the footer key, reads the
// uniformly encrypted files we write (encrypted footer, AES_GCM_V1) and
// finds the same rows as in the plaintext file. DuckDB (the oracle's
// version) reads only AES_GCM_V1, ignores a stored AAD prefix and fails
// ("Computed AES tag differs") on every repeated column of an encrypted
// file: it does so on the parquet-cpp and parquet-mr corpus files too
// (encrypt_columns_and_footer_aad, int64_field), so those cases and the
// list column e stay out.
func TestDuckDBReadsOurFiles(t *testing.T) {
	oracle.Need(t)
	if err := oracle.Install(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	plain := samplePlain(t, nil)
	plainPath := filepath.Join(dir, "plain.parquet")
	if err := os.WriteFile(plainPath, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	const sql = `SELECT count(*), sum(a), sum(b), count(b), string_agg(c, ',' ORDER BY a), sum(d), list(b ORDER BY a)[1:30] FROM FILE`
	want, err := duckQuery(t, plainPath, "", sql)
	if err != nil {
		t.Fatalf("duckdb on the plaintext file: %v: %s", err, want)
	}
	for _, alg := range []encryption.Algorithm{encryption.AESGCMV1} {
		for _, prefix := range []string{""} {
			name := alg.String() + "/prefix=" + prefix
			t.Run(name, func(t *testing.T) {
				enc := encryptFile(t, plain, encryption.EncryptionOptions{Algorithm: alg, FooterKey: []byte(footerKey), AADPrefix: []byte(prefix)})
				p := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "_").Replace(name)+".parquet")
				if err := os.WriteFile(p, enc, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := duckQuery(t, p, footerKey, sql)
				if err != nil {
					t.Fatalf("duckdb: %v: %s", err, got)
				}
				if got != want {
					t.Errorf("duckdb reads\n%s\nwant\n%s", got, want)
				}
			})
		}
	}
}
