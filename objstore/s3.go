package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// NewS3Client builds an S3 client the way the AWS SDKs and CLI configure
// themselves — credentials, region, profile and endpoint from AWS_* and
// ~/.aws/{config,credentials} — with Options.Endpoint and Options.Region
// on top. A custom endpoint (from either place) turns on path-style
// addressing, which MinIO and most S3-compatible servers need. The SDK's
// own retries are off: [Source] and [Upload] retry, with one policy for
// every backend and a count the errors can report.
func NewS3Client(ctx context.Context, opts *Options) (*s3.Client, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if o.S3Client != nil {
		return o.S3Client, nil
	}
	load := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}
	if o.HTTPClient != nil {
		load = append(load, config.WithHTTPClient(o.HTTPClient))
	} else {
		// The SDK's buildable client, so that AWS_CA_BUNDLE still works,
		// with an idle connection kept for each concurrent request.
		load = append(load, config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.MaxIdleConnsPerHost = max(o.Concurrency, t.MaxIdleConnsPerHost)
			t.MaxIdleConns = max(t.MaxIdleConns, 2*o.Concurrency)
		})))
	}
	if o.Region != "" {
		load = append(load, config.WithRegion(o.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("objstore: AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		// S3-compatible servers take any region; AWS S3 redirects.
		cfg.Region = "us-east-1"
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		// BaseEndpoint is set here from AWS_ENDPOINT_URL(_S3) or the
		// profile's endpoint_url when one is configured.
		if so.BaseEndpoint != nil {
			so.UsePathStyle = true
		}
		// Ranged GETs carry no whole-object checksum to validate; the
		// SDK would log that for every request.
		so.DisableLogOutputChecksumValidationSkipped = true
	}), nil
}

// S3Fetcher is a [Fetcher] for one object of an S3-compatible store.
type S3Fetcher struct {
	client      *s3.Client
	bucket, key string
}

// NewS3Fetcher returns a Fetcher for s3://bucket/key through client.
func NewS3Fetcher(client *s3.Client, bucket, key string) *S3Fetcher {
	return &S3Fetcher{client: client, bucket: bucket, key: key}
}

func (f *S3Fetcher) get(ctx context.Context, rng string) (*s3.GetObjectOutput, error) {
	out, err := f.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &f.bucket, Key: &f.key, Range: &rng})
	return out, s3Error(err)
}

// s3Error marks a missing object or bucket with ErrNotFound.
func s3Error(err error) error {
	if err == nil {
		return nil
	}
	var nsk *types.NoSuchKey
	var nsb *types.NoSuchBucket
	var sc statusCoder
	if errors.As(err, &nsk) || errors.As(err, &nsb) || (errors.As(err, &sc) && sc.HTTPStatusCode() == http.StatusNotFound) {
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// ReadRange implements [Fetcher].
func (f *S3Fetcher) ReadRange(ctx context.Context, p []byte, off int64) error {
	out, err := f.get(ctx, fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	if err != nil {
		return err
	}
	defer out.Body.Close()
	if out.ContentRange != nil {
		if err := checkContentRange(*out.ContentRange, off, int64(len(p))); err != nil {
			return err
		}
	}
	return readBody(out.Body, p)
}

// ReadTail implements [Fetcher] with a suffix range, whose answer names
// the size.
func (f *S3Fetcher) ReadTail(ctx context.Context, n int64) ([]byte, int64, error) {
	out, err := f.get(ctx, fmt.Sprintf("bytes=-%d", n))
	var sc statusCoder
	if errors.As(err, &sc) && sc.HTTPStatusCode() == http.StatusRequestedRangeNotSatisfiable {
		// An empty object has no suffix: ask its size.
		h, herr := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &f.bucket, Key: &f.key})
		if herr != nil {
			return nil, 0, s3Error(herr)
		}
		return nil, aws.ToInt64(h.ContentLength), nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer out.Body.Close()
	var off, size int64
	if cr := aws.ToString(out.ContentRange); strings.HasSuffix(cr, "/0") && aws.ToInt64(out.ContentLength) == 0 {
		// MinIO answers a suffix range of an empty object with
		// "bytes 0--1/0" and no body.
		return nil, 0, nil
	} else if out.ContentRange != nil {
		var length int64
		if off, length, size, err = parseContentRange(*out.ContentRange); err != nil {
			return nil, 0, err
		}
		if off+length != size || length > n {
			return nil, 0, fmt.Errorf("suffix range answered with bytes %d-%d of %d", off, off+length-1, size)
		}
	} else {
		size = aws.ToInt64(out.ContentLength)
		if size > n {
			return nil, 0, ErrRangeUnsupported
		}
	}
	buf := make([]byte, size-off)
	if err := readBody(out.Body, buf); err != nil {
		return nil, 0, err
	}
	return buf, size, nil
}

// Upload is an object being written: an io.Writer whose data becomes the
// object only when Commit succeeds. Abort, or an error from Write or
// Commit, removes everything the upload stored. It is not safe for
// concurrent use.
type Upload interface {
	io.Writer
	// Commit completes the object. After an error nothing is stored.
	// Commit or Abort after Commit does nothing and returns nil.
	Commit() error
	// Abort drops the upload: no object, no parts. It is safe to call
	// after an error and more than once.
	Abort() error
}

// s3Upload is an Upload as an S3 multipart upload that holds one part in
// memory: the upload is created with the first full part, an object
// smaller than a part is stored by one PutObject on Commit.
type s3Upload struct {
	ctx         context.Context
	client      *s3.Client
	bucket, key string
	url         string
	opts        Options
	buf         []byte
	id          *string
	parts       []types.CompletedPart
	written     int64
	err         error
	done        bool
}

// NewS3Upload starts writing s3://bucket/key (url is for errors). Nothing
// is sent before the first PartSize bytes are written.
func NewS3Upload(ctx context.Context, client *s3.Client, bucket, key string, opts *Options) (Upload, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	if o.PartSize < 5<<20 {
		// S3's smallest part but the last; MinIO enforces it too.
		return nil, fmt.Errorf("objstore: PartSize %d is below S3's 5 MiB minimum", o.PartSize)
	}
	return &s3Upload{ctx: ctx, client: client, bucket: bucket, key: key, url: "s3://" + bucket + "/" + key, opts: o,
		buf: make([]byte, 0, o.PartSize)}, nil
}

func (u *s3Upload) Write(p []byte) (int, error) {
	if u.err != nil {
		return 0, u.err
	}
	if u.done {
		return 0, &Error{Op: "write", URL: u.url, Len: -1, Err: errors.New("upload is finished")}
	}
	n := 0
	for len(p) > 0 {
		k := copy(u.buf[len(u.buf):cap(u.buf)], p)
		u.buf = u.buf[:len(u.buf)+k]
		p, n = p[k:], n+k
		if len(u.buf) == cap(u.buf) {
			if err := u.flushPart(); err != nil {
				return n, u.fail(err)
			}
		}
	}
	return n, nil
}

// fail keeps the first error and aborts the upload.
func (u *s3Upload) fail(err error) error {
	if u.err == nil {
		u.err = err
		u.abort()
	}
	return u.err
}

func (u *s3Upload) call(op string, off, n int64, fn func(ctx context.Context) error) error {
	attempts, err := u.opts.retry(u.ctx, fn)
	if err != nil {
		return &Error{Op: op, URL: u.url, Off: off, Len: n, Attempts: attempts, Err: err}
	}
	return nil
}

func (u *s3Upload) flushPart() error {
	if u.id == nil {
		err := u.call("write", 0, -1, func(ctx context.Context) error {
			out, err := u.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: &u.bucket, Key: &u.key})
			if err == nil {
				u.id = out.UploadId
			}
			return s3Error(err)
		})
		if err != nil {
			return err
		}
	}
	num := int32(len(u.parts) + 1)
	err := u.call("write", u.written, int64(len(u.buf)), func(ctx context.Context) error {
		out, err := u.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &u.bucket, Key: &u.key, UploadId: u.id,
			PartNumber: &num, Body: bytes.NewReader(u.buf), ContentLength: aws.Int64(int64(len(u.buf)))})
		if err == nil {
			u.parts = append(u.parts, types.CompletedPart{PartNumber: &num, ETag: out.ETag,
				ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumCRC64NVME: out.ChecksumCRC64NVME,
				ChecksumSHA1: out.ChecksumSHA1, ChecksumSHA256: out.ChecksumSHA256})
		}
		return err
	})
	if err != nil {
		return err
	}
	u.written += int64(len(u.buf))
	u.buf = u.buf[:0]
	return nil
}

func (u *s3Upload) Commit() error {
	if u.done {
		return u.err
	}
	if u.err != nil {
		u.done = true
		return u.err
	}
	var err error
	if u.id == nil {
		err = u.call("commit", 0, int64(len(u.buf)), func(ctx context.Context) error {
			_, err := u.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &u.bucket, Key: &u.key,
				Body: bytes.NewReader(u.buf), ContentLength: aws.Int64(int64(len(u.buf)))})
			return s3Error(err)
		})
	} else {
		if len(u.buf) > 0 {
			err = u.flushPart()
		}
		if err == nil {
			err = u.call("commit", 0, -1, func(ctx context.Context) error {
				_, err := u.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &u.bucket, Key: &u.key,
					UploadId: u.id, MultipartUpload: &types.CompletedMultipartUpload{Parts: u.parts}})
				return err
			})
		}
	}
	if err != nil {
		u.fail(err)
	}
	u.done = true
	u.buf = nil
	return u.err
}

func (u *s3Upload) Abort() error {
	if u.done {
		return nil
	}
	u.done = true
	if u.err == nil {
		u.err = &Error{Op: "write", URL: u.url, Len: -1, Err: errors.New("upload aborted")}
		return u.abort()
	}
	return nil // fail aborted already
}

// abort drops the multipart upload, also when the caller's context is
// done: leaving parts behind costs storage until a lifecycle rule runs.
func (u *s3Upload) abort() error {
	u.buf = nil
	if u.id == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), time.Minute)
	defer cancel()
	o := u.opts
	attempts, err := o.retry(ctx, func(ctx context.Context) error {
		_, err := u.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &u.bucket, Key: &u.key, UploadId: u.id})
		var nsu *types.NoSuchUpload
		if errors.As(err, &nsu) {
			return nil
		}
		return err
	})
	u.id = nil
	if err != nil {
		return &Error{Op: "abort", URL: u.url, Len: -1, Attempts: attempts, Err: err}
	}
	return nil
}
