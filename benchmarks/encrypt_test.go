package benchmarks

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
)

const benchFooterKey = "0123456789012345"

// encryptedFile writes (once, into the temp dir) the dataset as
// pqarrowFile does, uniformly encrypted (encrypted footer, every column
// with the footer key) with algorithm alg ("gcm" or "ctr") by arrow-go's
// writer; alg "none" is pqarrowFile's file.
func encryptedFile(b testing.TB, name string, codec compress.Compression, alg string) string {
	if alg == "none" {
		return pqarrowFile(b, name, codec)
	}
	d, _ := DatasetByName(name)
	dir := filepath.Join(os.TempDir(), "arrowpq-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d-%s-%s.parquet.encrypted", name, d.ScaledRows(), codec, alg))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	rec := datasetRecord(b, name)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	var eopts []parquet.EncryptOption
	if alg == "ctr" {
		eopts = append(eopts, parquet.WithAlg(parquet.AesCtr))
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithMaxRowGroupLength(rowGroupRows),
		parquet.WithEncryptionProperties(parquet.NewFileEncryptionProperties(benchFooterKey, eopts...)))
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// readArrowpqEncrypted streams path with arrowpq, one column at a time
// (Parallelism 1), decrypting with the footer key when alg is not "none".
func readArrowpqEncrypted(b testing.TB, path, alg string) int64 {
	opts := &arrowpq.ReadOptions{BatchSize: batchRows, Parallelism: 1}
	if alg != "none" {
		opts.Decryption = &encryption.DecryptionOptions{FooterKey: []byte(benchFooterKey)}
	}
	r, err := arrowpq.OpenFile(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return rows
}

// BenchmarkReadEncrypted reads lineitem (Snappy, as BenchmarkRead writes
// it) unencrypted and uniformly encrypted with AES_GCM_V1 and
// AES_GCM_CTR_V1 by arrow-go, with arrowpq on one core. b.SetBytes is the
// decoded Arrow size, as in BenchmarkRead; the targets are the
// ratios enc=gcm / enc=none ≥ 0.85 and enc=ctr / enc=none ≥ 0.9; on a
// loaded machine compare cpu-MB/s, alternating the runs.
func BenchmarkReadEncrypted(b *testing.B) {
	for _, alg := range []string{"none", "gcm", "ctr"} {
		b.Run("data=lineitem/codec=SNAPPY/enc="+alg, func(b *testing.B) {
			fact := readInputs(b, "lineitem")
			path := encryptedFile(b, "lineitem", compress.Codecs.Snappy, alg)
			b.SetBytes(fact.bytes)
			b.ReportAllocs()
			var rows int64
			cpu0 := processCPU()
			for b.Loop() {
				rows = readArrowpqEncrypted(b, path, alg)
			}
			reportCPU(b, fact.bytes, cpu0)
			if rows != fact.rows {
				b.Fatalf("read %d rows, want %d", rows, fact.rows)
			}
			b.ReportMetric(float64(fact.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// TestEncryptedLineitemReads: the encrypted benchmark files read to the
// same rows as arrow-go's plaintext file, decoded by pqarrow (checked on
// a small scale so that it runs with the tests).
func TestEncryptedLineitemReads(t *testing.T) {
	if os.Getenv("ARROWPQ_BENCH_SCALE") == "" {
		t.Setenv("ARROWPQ_BENCH_SCALE", "0.005")
	}
	fact := readInputs(t, "lineitem")
	for _, alg := range []string{"gcm", "ctr"} {
		if n := readArrowpqEncrypted(t, encryptedFile(t, "lineitem", compress.Codecs.Snappy, alg), alg); n != fact.rows {
			t.Errorf("%s: %d rows, want %d", alg, n, fact.rows)
		}
	}
}
