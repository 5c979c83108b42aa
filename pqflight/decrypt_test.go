package pqflight_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/pqflight"
)

// TestServeEncrypted: a server given the keys streams an encrypted file
// as arrowpq reads it with the same keys; without them DoGet fails with
// a status, not an empty stream.
func TestServeEncrypted(t *testing.T) {
	src := "../../shared/testdata/parquet-testing/data/encrypt_columns_and_footer_ctr.parquet.encrypted"
	testshared.Need(t, src)
	dir := t.TempDir()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "enc.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	keys := &encryption.DecryptionOptions{FooterKey: []byte("0123456789012345"),
		ColumnKeys: map[string][]byte{"double_field": []byte("1234567890123450"), "float_field": []byte("1234567890123451")}}
	ticket := &flight.Ticket{Ticket: []byte(`{"path":"enc.parquet","columns":["int32_field","float_field","double_field","ba_field"]}`)}

	ts := startServer(t, dir, &pqflight.Options{Decryption: keys})
	got, err := doGet(t, ts.client, ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	want, err := arrowpq.ReadTable(context.Background(), bytes.NewReader(data), int64(len(data)),
		&arrowpq.ReadOptions{Decryption: keys, Columns: []string{"int32_field", "float_field", "double_field", "ba_field"}})
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if got.NumRows() != 50 {
		t.Fatalf("%d rows", got.NumRows())
	}
	checkTablesEqual(t, got, want)

	plain := startServer(t, dir, nil)
	_, err = doGet(t, plain.client, ticket)
	wantCode(t, err, codes.FailedPrecondition)
}
