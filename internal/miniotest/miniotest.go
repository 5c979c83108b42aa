// Package miniotest starts a MinIO server for tests: a real S3-compatible
// store on 127.0.0.1 with a free port, a temporary directory and fixed
// root credentials. MinIO (AGPL-3.0) is run as a separate program, never
// imported; install it with
//
//	go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c
//
// When the binary is missing a test skips with one line, unless
// ARROWPQ_REQUIRE_MINIO=1 (set by .ci/run), which makes it a failure.
//
// It is imported by tests and benchmarks only.
package miniotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"go/build"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arrowpq/arrowpq/objstore"
)

// RequireEnv is the environment variable that turns a missing minio
// binary into a test failure when set to 1.
const RequireEnv = "ARROWPQ_REQUIRE_MINIO"

// Root credentials of every test server.
const (
	AccessKey = "arrowpq-test"
	SecretKey = "arrowpq-test-secret"
)

// Binary returns the path of the minio binary: on $PATH, else in
// $(go env GOPATH)/bin; "" when there is none.
func Binary() string {
	if p, err := exec.LookPath("minio"); err == nil {
		return p
	}
	for _, dir := range filepath.SplitList(build.Default.GOPATH) {
		p := filepath.Join(dir, "bin", "minio")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Server is a running MinIO server.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	cmd      *exec.Cmd
	buckets  atomic.Int64
}

// Start starts a server that t's cleanup stops (and whose data is
// removed with t's temporary directory). It skips t when the binary is
// missing, unless RequireEnv is set.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("minio is not installed and %s=1 requires it", RequireEnv)
		}
		t.Skip("skipped: minio not installed (go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c)")
	}
	port, console := freePort(t), freePort(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "server", "--quiet", "--address", "127.0.0.1:"+port, "--console-address", "127.0.0.1:"+console, dir)
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+AccessKey, "MINIO_ROOT_PASSWORD="+SecretKey,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	setParentDeath(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start minio: %v", err)
	}
	s := &Server{Endpoint: "http://127.0.0.1:" + port, cmd: cmd}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/minio/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("minio did not become ready in 60 s: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// Env points the AWS configuration of this test at endpoint (the server,
// or a proxy in front of it) through the variables the AWS SDKs read, and
// away from the user's ~/.aws files. Like t.Setenv, it rules out
// t.Parallel.
func Env(t testing.TB, endpoint string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", SecretKey)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", endpoint)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// Client returns an S3 client for the server itself (not a proxy),
// configured through [Env].
func (s *Server) Client(t testing.TB) *s3.Client {
	t.Helper()
	c, err := objstore.NewS3Client(context.Background(), &objstore.Options{Endpoint: s.Endpoint})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Bucket creates a new bucket with a name unique to this server and
// returns the name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	var rnd [4]byte
	rand.Read(rnd[:])
	name := fmt.Sprintf("test-%d-%s", s.buckets.Add(1), hex.EncodeToString(rnd[:]))
	client := s.Client(t)
	// Ready on /minio/health/ready can still answer 503 "server not
	// initialized" for a moment.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &name})
		if err == nil {
			return name
		}
		if time.Now().After(deadline) || !strings.Contains(err.Error(), "StatusCode: 503") {
			t.Fatalf("create bucket %s: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
