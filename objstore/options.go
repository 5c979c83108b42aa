package objstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Options tune how objects are read and written. The zero value means the
// defaults given with each field; a nil *Options is the zero value.
type Options struct {
	// TailSize is how many bytes at the end of the object the first
	// request reads, with the size: enough for most Parquet footers, so
	// that opening a file costs one request. Default 64 KiB.
	TailSize int64
	// HeadSize is how many bytes at the start of the object are read at
	// open, in a request made at the same time as the tail's, and kept
	// (0: none). arrowpq.OpenURL asks for the 4 bytes of the Parquet
	// magic, so that opening a file costs one round trip, not two.
	HeadSize int64
	// Gap is the largest hole between two wanted ranges that is read
	// rather than skipped, so that neighbouring column chunks or pages
	// share a request. Default 1 MiB.
	Gap int64
	// MaxRequest is the longest single request; longer reads are split
	// into pieces fetched concurrently. Default 8 MiB.
	MaxRequest int64
	// Concurrency is the most requests of one Source in flight at once.
	// Default 16.
	Concurrency int
	// Prefetch is how many range sets (row groups) a [Prefetch] fetches
	// ahead of the one being used. Default 2; memory held is at most
	// Prefetch+1 sets.
	Prefetch int
	// MaxAttempts is the most attempts of one request (1 = no retry).
	// Default 5.
	MaxAttempts int
	// RetryBase is the first backoff; it doubles per attempt up to
	// RetryMax, with full jitter on the upper half. Defaults 100 ms, 5 s.
	RetryBase, RetryMax time.Duration
	// RequestTimeout bounds one attempt of one request, body included; a
	// timed-out attempt is retried. Default 2 minutes.
	RequestTimeout time.Duration
	// PartSize is the size of a multipart upload's parts, the memory an
	// Upload holds. S3 wants at least 5 MiB (but for the last part).
	// Default 8 MiB.
	PartSize int64

	// Endpoint overrides the S3 endpoint found in AWS_ENDPOINT_URL_S3,
	// AWS_ENDPOINT_URL or ~/.aws/config (such as http://127.0.0.1:9000
	// for MinIO). A custom endpoint uses path-style addressing.
	Endpoint string
	// Region overrides AWS_REGION and ~/.aws/config; default us-east-1
	// when neither names one.
	Region string
	// S3Client, when set, is used as is instead of one built from the
	// environment (Endpoint and Region are then ignored).
	S3Client *s3.Client
	// HTTPClient is used for http(s) URLs and by the S3 client; default
	// a client with Go's default transport and more idle connections per
	// host (one per concurrent request).
	HTTPClient *http.Client
}

func (o *Options) normalized() (Options, error) {
	var n Options
	if o != nil {
		n = *o
	}
	if n.TailSize < 0 || n.HeadSize < 0 || n.Gap < 0 || n.MaxRequest < 0 || n.Concurrency < 0 || n.Prefetch < 0 ||
		n.MaxAttempts < 0 || n.RetryBase < 0 || n.RetryMax < 0 || n.RequestTimeout < 0 || n.PartSize < 0 {
		return n, fmt.Errorf("objstore: negative option in %+v", n)
	}
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&n.TailSize, 64<<10)
	n.TailSize = max(n.TailSize, 8) // the Parquet trailer
	def(&n.Gap, 1<<20)
	def(&n.MaxRequest, 8<<20)
	def(&n.PartSize, 8<<20)
	if n.Concurrency == 0 {
		n.Concurrency = 16
	}
	if n.Prefetch == 0 {
		n.Prefetch = 2
	}
	if n.MaxAttempts == 0 {
		n.MaxAttempts = 5
	}
	if n.RetryBase == 0 {
		n.RetryBase = 100 * time.Millisecond
	}
	if n.RetryMax == 0 {
		n.RetryMax = 5 * time.Second
	}
	if n.RequestTimeout == 0 {
		n.RequestTimeout = 2 * time.Minute
	}
	return n, nil
}

func defaultHTTPClient(conc int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(conc, t.MaxIdleConnsPerHost)
	t.MaxIdleConns = max(t.MaxIdleConns, 2*conc)
	return &http.Client{Transport: t}
}

// retry runs fn until it succeeds, fails for good, or the attempts run
// out, each attempt under its own RequestTimeout. It returns the number of
// attempts made.
func (o *Options) retry(ctx context.Context, fn func(ctx context.Context) error) (int, error) {
	backoff := o.RetryBase
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, o.RequestTimeout)
		err := fn(actx)
		cancel()
		if err == nil {
			return attempt, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			// The caller gave up: say so rather than show what the
			// cancellation did to the request.
			return attempt, cerr
		}
		if attempt >= o.MaxAttempts || !retryable(err) {
			return attempt, err
		}
		// Half fixed, half random: spreads concurrent retries (throttled
		// pieces of one read) without waiting near zero.
		d := backoff/2 + rand.N(backoff/2+1)
		backoff = min(2*backoff, o.RetryMax)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return attempt, ctx.Err()
		}
	}
}
