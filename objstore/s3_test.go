package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/arrowpq/arrowpq/internal/faultproxy"
	"github.com/arrowpq/arrowpq/internal/miniotest"
	"github.com/arrowpq/arrowpq/objstore"
)

// randomBytes returns n bytes from a seeded generator.
func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// put writes data to s3://bucket/key through Create.
func put(t *testing.T, url string, data []byte, opts *objstore.Options) {
	t.Helper()
	up, err := objstore.Create(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := up.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := up.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestS3WriteRead(t *testing.T) {
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	for _, size := range []int{0, 1, 100, 70 << 10, 12<<20 + 7} {
		data := randomBytes(uint64(size), size)
		url := "s3://" + bucket + "/obj-" + string(rune('a'+size%26))
		put(t, url, data, nil)
		src, err := objstore.Open(ctx, url, &objstore.Options{MaxRequest: 1 << 20})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		if src.Size() != int64(size) {
			t.Fatalf("size %d: Size() = %d", size, src.Size())
		}
		got := make([]byte, size)
		if n, err := src.ReadAt(got, 0); n != size || (err != nil && err != io.EOF) {
			t.Fatalf("size %d: ReadAt = %d, %v", size, n, err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("size %d: bytes differ", size)
		}
		if size > 1000 {
			rs := []objstore.Range{{Off: 10, Len: 20}, {Off: int64(size) - 5, Len: 5}, {Off: 500, Len: 100}}
			bufs, err := src.ReadRanges(ctx, rs)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				if !bytes.Equal(bufs[i], data[r.Off:r.End()]) {
					t.Errorf("size %d: range %v differs", size, r)
				}
			}
		}
	}
	// A missing object is ErrNotFound, naming the URL.
	_, err := objstore.Open(ctx, "s3://"+bucket+"/missing", nil)
	if !errors.Is(err, objstore.ErrNotFound) {
		t.Errorf("missing object: %v, want ErrNotFound", err)
	}
}

// TestUploadKilledLeavesNothing kills a multipart upload mid-way (every
// part after the first is reset by the proxy) and checks that neither the
// object nor an incomplete multipart upload remains, listing both with
// the client.
func TestUploadKilledLeavesNothing(t *testing.T) {
	srv := miniotest.Start(t)
	proxy, err := faultproxy.New(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	miniotest.Env(t, proxy.URL)
	bucket := srv.Bucket(t)
	client := srv.Client(t)
	ctx := context.Background()
	opts := &objstore.Options{PartSize: 5 << 20, MaxAttempts: 3, RetryBase: 1}
	for _, tc := range []struct {
		name  string
		fault faultproxy.Fault
	}{{"reset", faultproxy.Reset}, {"slowdown", faultproxy.SlowDown}} {
		t.Run(tc.name, func(t *testing.T) {
			key := "killed-" + tc.name
			parts := 0
			proxy.SetFault(func(n int64, r *http.Request) faultproxy.Fault {
				if r.Method == http.MethodPut && r.URL.Query().Get("partNumber") != "" {
					parts++
					if parts > 1 {
						return tc.fault
					}
				}
				return faultproxy.None
			})
			defer proxy.SetFault(nil)
			up, err := objstore.Create(ctx, "s3://"+bucket+"/"+key, opts)
			if err != nil {
				t.Fatal(err)
			}
			_, werr := up.Write(randomBytes(1, 16<<20))
			cerr := up.Commit()
			if werr == nil || cerr == nil {
				t.Fatalf("write %v, commit %v: want errors", werr, cerr)
			}
			var oe *objstore.Error
			if !errors.As(werr, &oe) || oe.URL != "s3://"+bucket+"/"+key || oe.Attempts != 3 {
				t.Errorf("error %v: want an *objstore.Error naming the URL after 3 attempts", werr)
			}
			t.Logf("write error: %v", werr)
			assertNothingLeft(t, client, bucket, key)
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		// The caller's context ends after the first part: the upload
		// fails, and is still aborted (with a context of its own).
		key := "cancelled"
		cctx, cancel := context.WithCancel(ctx)
		parts := 0
		proxy.SetFault(func(n int64, r *http.Request) faultproxy.Fault {
			if r.Method == http.MethodPut && r.URL.Query().Get("partNumber") != "" {
				if parts++; parts == 1 {
					cancel()
				}
			}
			return faultproxy.None
		})
		defer proxy.SetFault(nil)
		up, err := objstore.Create(cctx, "s3://"+bucket+"/"+key, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, werr := up.Write(randomBytes(3, 16<<20))
		if !errors.Is(werr, context.Canceled) || up.Commit() == nil {
			t.Fatalf("write after cancel: %v; want context.Canceled and a failed Commit", werr)
		}
		assertNothingLeft(t, client, bucket, key)
	})
	t.Run("abort", func(t *testing.T) {
		key := "aborted"
		up, err := objstore.Create(ctx, "s3://"+bucket+"/"+key, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := up.Write(randomBytes(2, 11<<20)); err != nil {
			t.Fatal(err)
		}
		uploads, err := client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket})
		if err != nil {
			t.Fatal(err)
		}
		if len(uploads.Uploads) != 1 {
			t.Fatalf("%d multipart uploads in progress before Abort, want 1", len(uploads.Uploads))
		}
		if err := up.Abort(); err != nil {
			t.Fatal(err)
		}
		assertNothingLeft(t, client, bucket, key)
	})
}

func assertNothingLeft(t *testing.T, client *s3.Client, bucket, key string) {
	t.Helper()
	ctx := context.Background()
	objs, err := client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &key})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Contents) != 0 {
		t.Errorf("object %s exists after a failed upload", key)
	}
	uploads, err := client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &bucket, Prefix: &key})
	if err != nil {
		t.Fatal(err)
	}
	if len(uploads.Uploads) != 0 {
		t.Errorf("%d incomplete multipart uploads left for %s", len(uploads.Uploads), key)
	}
}

// TestFS checks objstore.FS over a bucket prefix with testing/fstest:
// listing by directory, opening, reading, seeking-free reads.
func TestFS(t *testing.T) {
	srv := miniotest.Start(t)
	miniotest.Env(t, srv.Endpoint)
	bucket := srv.Bucket(t)
	for _, key := range []string{"p/a.parquet", "p/b/c.parquet", "p/b/d/e.bin", "other/x"} {
		put(t, "s3://"+bucket+"/"+key, randomBytes(uint64(len(key)), 1000+len(key)), nil)
	}
	fsys, err := objstore.NewFS(context.Background(), "s3://"+bucket+"/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "a.parquet", "b/c.parquet", "b/d/e.bin"); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.Open("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
