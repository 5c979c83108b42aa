package pqflight_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/arrowpq/arrowpq/pqflight"
)

// bigRecord has rows strings of 200 bytes: 64Ki rows make a batch of
// about 13 MB, over gRPC's default 4 MiB message limit.
func bigRecord(rows int) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	sb := b.Field(0).(*array.StringBuilder)
	pad := strings.Repeat("x", 190)
	for i := 0; i < rows; i++ {
		sb.Append(pad + strings.Repeat(string(rune('a'+i%26)), 10))
	}
	return b.NewRecordBatch()
}

// TestLargeBatches moves batches larger than gRPC's default message limit
// both ways, with a plain flight client that keeps the default limit.
func TestLargeBatches(t *testing.T) {
	root := t.TempDir()
	rec := bigRecord(1 << 16)
	defer rec.Release()
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer tbl.Release()
	var buf bytes.Buffer
	must(t, pqarrow.WriteTable(tbl, &buf, 1<<16, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()))
	must(t, os.WriteFile(filepath.Join(root, "big.parquet"), buf.Bytes(), 0o644))
	ts := startServer(t, root, nil)
	// A flight client with gRPC's default 4 MiB receive limit.
	plain, err := flight.NewClientWithMiddleware(ts.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	must(t, err)
	defer plain.Close()
	got, err := pqflight.Download(context.Background(), plain, "big.parquet", nil)
	must(t, err)
	checkTablesEqual(t, got, tbl)
	got.Release()

	_, err = upload(context.Background(), plain, "up.parquet", rec)
	must(t, err)
	back := pqarrowRead(t, filepath.Join(root, "up.parquet"), nil, nil)
	checkTablesEqual(t, back, tbl)
	back.Release()
}
