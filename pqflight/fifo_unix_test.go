//go:build unix

package pqflight_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"

	"github.com/arrowpq/arrowpq/pqflight"
)

// TestFIFO checks that a named pipe under the root is refused at once
// rather than opened, which would block the handler until a writer came.
func TestFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.parquet"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ts := startServer(t, root, nil)
	_, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"pipe.parquet"}`)})
	wantCode(t, err, codes.InvalidArgument)
	infos, err := pqflight.List(context.Background(), ts.client, "")
	must(t, err)
	if len(infos) != 0 {
		t.Fatalf("listed %v", infos)
	}
}
