package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// syncBuffer is a bytes.Buffer safe for the serving goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeAndFlight runs "arrowpq serve" on a temporary directory and
// talks to it with "arrowpq flight list|get|put", then stops it as a
// signal would.
func TestServeAndFlight(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile("../../testdata/sample.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sample.parquet"), sample, 0o644); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	stop := make(chan os.Signal, 1)
	served := make(chan error, 1)
	go func() {
		served <- serveDir(dir, &serveConfig{addr: "127.0.0.1:0", token: "tok", grace: time.Second}, &log, stop)
	}()
	addrRE := regexp.MustCompile(`on (grpc\+tcp://127\.0\.0\.1:\d+)\n`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; {
		if m := addrRE.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}

	cli := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		return out.String(), errOut.String(), code
	}
	out, errOut, code := cli("flight", "list", addr, "--token", "tok")
	if code != 0 || !strings.Contains(out, "sample.parquet") || !regexp.MustCompile(`sample\.parquet\s+100\s+\d+\s+2\s`).MatchString(out) {
		t.Fatalf("list: code %d, out %q, err %q", code, out, errOut)
	}
	_, errOut, code = cli("flight", "list", addr)
	if code != 1 || !strings.Contains(errOut, "Unauthenticated") {
		t.Fatalf("list without token: code %d, err %q", code, errOut)
	}
	out, errOut, code = cli("flight", "get", addr, "sample.parquet", "--columns", "id,city", "--format", "csv", "--limit", "3", "--token", "tok")
	if code != 0 || out != "id,city\n0,Lisbon\n1,Oslo\n2,Nairobi\n" {
		t.Fatalf("get: code %d, out %q, err %q", code, out, errOut)
	}
	_, errOut, code = cli("flight", "put", addr, filepath.Join(dir, "sample.parquet"), "copy.parquet", "--compression", "zstd", "--token", "tok")
	if code != 0 {
		t.Fatalf("put: code %d, err %q", code, errOut)
	}
	_, errOut, code = cli("flight", "put", addr, filepath.Join(dir, "sample.parquet"), "copy.parquet", "--token", "tok")
	if code != 1 || !strings.Contains(errOut, "AlreadyExists") {
		t.Fatalf("second put: code %d, err %q", code, errOut)
	}
	local := filepath.Join(t.TempDir(), "got.parquet")
	_, errOut, code = cli("flight", "get", addr, "copy.parquet", "-o", local, "--token", "tok")
	if code != 0 {
		t.Fatalf("get -o: code %d, err %q", code, errOut)
	}
	// The file that went up and came back equals the original, as arrow-go
	// reads both.
	if got, want := readPQ(t, local), readPQ(t, filepath.Join(dir, "sample.parquet")); !array.TableEqual(got, want) {
		t.Fatalf("round trip differs:\n%v\n%v", got, want)
	}
	_, errOut, code = cli("flight", "get", addr, "../etc/passwd", "--token", "tok")
	if code != 1 || !strings.Contains(errOut, "InvalidArgument") {
		t.Fatalf("get ../etc/passwd: code %d, err %q", code, errOut)
	}
	_, _, code = cli("flight", "fetch", addr)
	if code != 2 {
		t.Fatalf("unknown subcommand: code %d, want 2", code)
	}

	stop <- os.Interrupt
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(log.String(), "stopped") {
		t.Fatalf("log %q", log.String())
	}
}

func readPQ(t *testing.T, path string) arrow.Table {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// TestServeStopCancelsUploads stops the server while an upload is in
// flight and never finished by the client: after the grace period the
// upload is cancelled, serve returns, and no file or temporary file is
// left.
func TestServeStopCancelsUploads(t *testing.T) {
	dir := t.TempDir()
	var log syncBuffer
	stop := make(chan os.Signal, 1)
	served := make(chan error, 1)
	go func() {
		served <- serveDir(dir, &serveConfig{addr: "127.0.0.1:0", grace: 200 * time.Millisecond}, &log, stop)
	}()
	addrRE := regexp.MustCompile(`on grpc\+tcp://(127\.0\.0\.1:\d+)\n`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; {
		if m := addrRE.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address printed: %q", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c, err := pqflight.Dial(addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stream, err := c.DoPut(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r, err := arrowpq.OpenFile("../../testdata/sample.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(r.Schema()))
	w.SetFlightDescriptor(pqflight.PathDescriptor("pending.parquet"))
	r.Next()
	if err := w.Write(r.RecordBatch()); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if ents, _ := os.ReadDir(dir); len(ents) == 1 {
			break // the server is writing its temporary file
		}
		if time.Now().After(deadline) {
			t.Fatal("the upload did not start")
		}
	}
	start := time.Now()
	stop <- os.Interrupt
	select {
	case err := <-served:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("stopped after %v, before the grace period", d)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("cancelled upload left %v", ents)
	}
}
