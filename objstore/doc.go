// Package objstore reads and writes objects on S3-compatible stores (AWS
// S3, MinIO, R2…), HTTP(S) servers and local files through byte ranges, for
// a Parquet reader that wants few, large, concurrent requests.
//
// The parts, from the bottom up:
//
//   - A [Fetcher] does one request: the bytes of one range of one object,
//     or its last n bytes and its size. Backends: [NewS3Fetcher] (aws-sdk-go-v2),
//     [NewHTTPFetcher] (GET with a Range header), [NewFileFetcher]
//     (os.File.ReadAt), [NewReaderAtFetcher] (any io.ReaderAt).
//   - A [Source] is one object opened for reading. It is an io.ReaderAt
//     (so that any reader that takes one works unchanged) and a
//     [RangeSource]: ReadRanges plans a list of wanted byte ranges into
//     requests — ranges closer than [Options.Gap] share a request, no
//     request is longer than [Options.MaxRequest] — and issues them
//     concurrently, at most [Options.Concurrency] at a time for the whole
//     Source. Opening reads the object's tail speculatively
//     ([Options.TailSize], 64 KiB by default) in the request that also
//     tells the size, so that a Parquet footer usually costs no other
//     request; [Options.HeadSize] bytes at the start can be fetched
//     beside it.
//   - A [Prefetch] fetches a sequence of range sets (the column chunks of
//     the row groups a reader will read, or the pages a filter keeps) in
//     order, at most [Options.Prefetch] sets ahead of the one being used,
//     so that the next row group arrives while the current one decodes and
//     memory stays bounded.
//   - [Create] returns an [Upload]: an io.Writer that streams an S3
//     multipart upload with one part in memory. The object appears only
//     when Commit succeeds; Abort, or any error, aborts the multipart
//     upload so that no object and no parts are left behind.
//
// Every request is retried with exponential backoff and jitter on
// throttling (429, 503 SlowDown), server errors (500, 502, 503, 504),
// connection errors, truncated bodies and its own timeout
// ([Options.RequestTimeout]); the caller's context cancels at once. A
// failure is an [*Error] naming the URL and the byte range.
//
// Credentials, region and endpoint for S3 come from what the AWS SDKs read
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3,
// ~/.aws/config and ~/.aws/credentials), through aws-sdk-go-v2's config
// package; a custom endpoint (MinIO, R2, a test proxy) switches to
// path-style addressing (http://host/bucket/key). See docs/object-storage.md.
//
// Like arrowpq, this package does I/O and starts goroutines; it knows
// nothing of Parquet (arrowpq imports it, not the other way round).
//
// Non-goals: listing and deleting objects beyond what a Parquet reader and
// writer need, GCS and Azure native APIs (both have S3-compatible
// endpoints), multi-range HTTP requests (S3 does not serve them).
package objstore
