package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/arrowpq/arrowpq/internal/miniotest"
)

// TestURLCommands converts the sample file to an S3 object on MinIO, then
// prints it with head from S3 and from an HTTP server: the same table as
// head of the local file.
func TestURLCommands(t *testing.T) {
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	sample := "../../testdata/sample.parquet"
	runOK := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("arrowpq %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	url := "s3://" + bucket + "/dir/sample.parquet"
	runOK("convert", sample, url)
	want := runOK("head", sample)
	if got := runOK("head", url); got != want {
		t.Errorf("head %s:\n%s\nwant (local):\n%s", url, got, want)
	}
	// Round trip: back from S3 to a local file, then compare rows.
	local := t.TempDir() + "/back.parquet"
	runOK("convert", url, local)
	if got := runOK("cat", "--format", "jsonl", local); got != runOK("cat", "--format", "jsonl", sample) {
		t.Error("S3 round trip changed the rows")
	}
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "sample.parquet", time.Time{}, bytes.NewReader(data))
	}))
	defer hs.Close()
	if got := runOK("head", hs.URL+"/sample.parquet"); got != want {
		t.Errorf("head over HTTP:\n%s\nwant:\n%s", got, want)
	}
	// serve s3://bucket/dir: list (sub-directories walked), get, put
	// refused.
	runOK("convert", sample, "s3://"+bucket+"/dir/sub/again.parquet")
	var log syncBuffer
	stop := make(chan os.Signal, 1)
	served := make(chan error, 1)
	go func() {
		served <- serveDir("s3://"+bucket+"/dir", &serveConfig{addr: "127.0.0.1:0", grace: time.Second}, &log, stop)
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
	list := runOK("flight", "list", addr)
	if !regexp.MustCompile(`(?m)^sample\.parquet\s+100\s`).MatchString(list) || !regexp.MustCompile(`(?m)^sub/again\.parquet\s+100\s`).MatchString(list) {
		t.Errorf("flight list of s3://%s/dir:\n%s", bucket, list)
	}
	if got := runOK("flight", "get", addr, "sub/again.parquet", "--columns", "id,city", "--format", "csv", "--limit", "3"); got != "id,city\n0,Lisbon\n1,Oslo\n2,Nairobi\n" {
		t.Errorf("flight get: %q", got)
	}
	var pout, perr bytes.Buffer
	if code := run([]string{"flight", "put", addr, sample, "new.parquet"}, &pout, &perr); code == 0 || !strings.Contains(perr.String(), "PermissionDenied") {
		t.Errorf("flight put to an S3 prefix: exit %d, %s", code, perr.String())
	}
	stop <- os.Interrupt
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}

	// Only Parquet goes to a URL.
	var out, errb bytes.Buffer
	if code := run([]string{"convert", "--to", "arrow", sample, "s3://" + bucket + "/x.arrow"}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), "only Parquet") {
		t.Errorf("convert to arrow on S3: exit %d, %s", code, errb.String())
	}
}
