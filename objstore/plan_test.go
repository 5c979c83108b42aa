package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCoalesce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranges []Range
		gap    int64
		want   []Group
	}{
		{"empty", nil, 10, nil},
		{"one", []Range{{5, 10}}, 0, []Group{{Range{5, 10}, []int{0}}}},
		// 15..20 is a gap of 5: read with gap 5, not with gap 4.
		{"gap-at-limit", []Range{{0, 15}, {20, 5}}, 5, []Group{{Range{0, 25}, []int{0, 1}}}},
		{"gap-over-limit", []Range{{0, 15}, {20, 5}}, 4, []Group{{Range{0, 15}, []int{0}}, {Range{20, 5}, []int{1}}}},
		// Unsorted input; members keep input indexes.
		{"unsorted", []Range{{100, 10}, {0, 10}, {12, 3}}, 2, []Group{{Range{0, 15}, []int{1, 2}}, {Range{100, 10}, []int{0}}}},
		// Overlap and containment share a group whose end is the largest.
		{"overlap", []Range{{0, 50}, {10, 5}, {40, 20}}, 0, []Group{{Range{0, 60}, []int{0, 1, 2}}}},
		{"adjacent-gap-0", []Range{{0, 10}, {10, 10}}, 0, []Group{{Range{0, 20}, []int{0, 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Coalesce(tc.ranges, tc.gap); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Coalesce = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		n, max int64
		want   []int64
	}{
		{0, 8, nil},
		{8, 8, []int64{8}},
		{9, 8, []int64{5, 4}}, // ⌈9/8⌉ = 2 pieces, nearly equal
		{24, 8, []int64{8, 8, 8}},
		{25, 8, []int64{7, 7, 7, 4}},
	} {
		if got := Split(tc.n, tc.max); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%d, %d) = %v, want %v", tc.n, tc.max, got, tc.want)
		}
	}
}

// countingFetcher serves data and records each request and the most
// requests in flight at once; delay makes requests overlap.
type countingFetcher struct {
	data     []byte
	delay    time.Duration
	mu       sync.Mutex
	reqs     []Range
	inFlight atomic.Int64
	maxIn    atomic.Int64
	fail     func(off int64, n int) error
}

func (f *countingFetcher) ReadRange(ctx context.Context, p []byte, off int64) error {
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxIn.Load()
		if n <= m || f.maxIn.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, Range{off, int64(len(p))})
	f.mu.Unlock()
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if f.fail != nil {
		if err := f.fail(off, len(p)); err != nil {
			return err
		}
	}
	copy(p, f.data[off:])
	return nil
}

func (f *countingFetcher) ReadTail(ctx context.Context, n int64) ([]byte, int64, error) {
	n = min(n, int64(len(f.data)))
	return bytes.Clone(f.data[int64(len(f.data))-n:]), int64(len(f.data)), nil
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// TestReadRangesPlan checks the requests ReadRanges makes for a known
// layout: ranges within Gap share one, long spans are cut at MaxRequest,
// bytes in the kept tail are not fetched again.
func TestReadRangesPlan(t *testing.T) {
	data := pattern(10000)
	f := &countingFetcher{data: data}
	src, err := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 1000, Gap: 100, MaxRequest: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if src.Requests() != 1 || src.Size() != 10000 {
		t.Fatalf("open: %d requests, size %d", src.Requests(), src.Size())
	}
	ranges := []Range{
		{0, 500}, {550, 500}, // gap 50: one span 0-1050, 2 pieces of 525
		{2000, 10},   // alone
		{8500, 1000}, // 8500-9000 fetched, 9000-9500 from the tail
		{9600, 50},   // all in the tail
	}
	bufs, err := src.ReadRanges(context.Background(), ranges)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range ranges {
		if !bytes.Equal(bufs[i], data[r.Off:r.End()]) {
			t.Errorf("range %v: wrong bytes", r)
		}
	}
	got := map[Range]bool{}
	for _, r := range f.reqs {
		got[r] = true
	}
	want := map[Range]bool{{0, 525}: true, {525, 525}: true, {2000, 10}: true, {8500, 500}: true}
	if !reflect.DeepEqual(got, want) || len(f.reqs) != 4 {
		t.Errorf("requests %v, want %v", f.reqs, want)
	}
	// Past the end: an error, before any request.
	f.reqs = nil
	if _, err := src.ReadRanges(context.Background(), []Range{{9990, 11}}); !errors.Is(err, io.ErrUnexpectedEOF) || len(f.reqs) != 0 {
		t.Errorf("range past the end: %v after %d requests", err, len(f.reqs))
	}
	// ReadAt: in the tail, none; across the end, io.EOF with the bytes.
	p := make([]byte, 20)
	if n, err := src.ReadAt(p, 9990); n != 10 || err != io.EOF || !bytes.Equal(p[:10], data[9990:]) || len(f.reqs) != 0 {
		t.Errorf("ReadAt at 9990: %d, %v, %d requests", n, err, len(f.reqs))
	}
}

// TestConcurrencyLimit: a read cut into 40 pieces never has more than
// Concurrency requests in flight.
func TestConcurrencyLimit(t *testing.T) {
	f := &countingFetcher{data: pattern(40000), delay: 5 * time.Millisecond}
	src, err := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 8, MaxRequest: 1000, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 40000-8)
	if _, err := src.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if m := f.maxIn.Load(); m != 3 {
		t.Errorf("at most %d requests in flight, want 3", m)
	}
	if !bytes.Equal(buf, f.data[:40000-8]) {
		t.Error("wrong bytes")
	}
}

// TestPrefetchBounded: with ahead=1, set i+1 is not requested before set
// i is taken (while set i-1 is in use only set i is in flight), and each
// set is fetched once.
func TestPrefetchBounded(t *testing.T) {
	data := pattern(100000)
	f := &countingFetcher{data: data}
	src, err := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	var sets [][]Range
	for i := range 6 {
		sets = append(sets, []Range{{int64(i) * 10000, 100}, {int64(i)*10000 + 5000, 100}})
	}
	pf := NewPrefetch(context.Background(), src, sets, 1)
	defer pf.Close()
	requested := func() map[int64]bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		m := map[int64]bool{}
		for _, r := range f.reqs {
			m[r.Off/10000] = true
		}
		return m
	}
	for i := range sets {
		time.Sleep(10 * time.Millisecond) // let started fetches run
		req := requested()
		if req[int64(i)+1] {
			t.Fatalf("set %d requested before set %d was taken", i+1, i)
		}
		if i > 0 && !req[int64(i)] {
			t.Fatalf("set %d not prefetched while set %d was in use", i, i-1)
		}
		bufs, err := pf.Next()
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range sets[i] {
			if !bytes.Equal(bufs[k], data[r.Off:r.End()]) {
				t.Fatalf("set %d range %d: wrong bytes", i, k)
			}
		}
	}
	if _, err := pf.Next(); err != io.EOF {
		t.Errorf("after the last set: %v, want io.EOF", err)
	}
	if len(f.reqs) != len(sets) { // Gap 1 MiB: each set is one request
		t.Errorf("%d requests for %d sets", len(f.reqs), len(sets))
	}
}

// TestRetry: transient failures are retried with the count reported;
// permanent ones are not; a cancelled context stops at once.
func TestRetry(t *testing.T) {
	data := pattern(5000)
	for _, tc := range []struct {
		name     string
		err      error
		failures int
		wantErr  bool
		attempts int
	}{
		{"503-twice", &StatusError{Code: 503}, 2, false, 3},
		{"reset-once", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), 1, false, 2},
		{"short-body-forever", errShortBody, 100, true, 4},
		{"403-not-retried", &StatusError{Code: 403}, 100, true, 1},
		{"not-found", ErrNotFound, 100, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int64
			f := &countingFetcher{data: data, fail: func(off int64, n int) error {
				if calls.Add(1) <= int64(tc.failures) {
					return tc.err
				}
				return nil
			}}
			src, err := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 8, MaxAttempts: 4, RetryBase: time.Microsecond})
			if err != nil {
				t.Fatal(err)
			}
			p := make([]byte, 100)
			_, err = src.ReadAt(p, 1000)
			var oe *Error
			if tc.wantErr {
				if !errors.As(err, &oe) || oe.Attempts != tc.attempts || oe.Off != 1000 || oe.Len != 100 || !errors.Is(err, tc.err) {
					t.Fatalf("error %v (%+v): want an *Error at 1000+100 after %d attempts wrapping %v", err, oe, tc.attempts, tc.err)
				}
				return
			}
			if err != nil || !bytes.Equal(p, data[1000:1100]) || calls.Load() != int64(tc.attempts) {
				t.Fatalf("err %v, %d calls, want data after %d", err, calls.Load(), tc.attempts)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		f := &countingFetcher{data: data, delay: time.Second}
		src, _ := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 8})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := src.ReadRanges(ctx, []Range{{0, 100}})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
			t.Fatalf("%v after %v: want the context's error at once", err, time.Since(start))
		}
	})
}

// TestHTTPFetcherRangeChecks: a server that ignores Range, or answers
// another range than asked, is an error, never data.
func TestHTTPFetcherRangeChecks(t *testing.T) {
	data := pattern(3000)
	mode := "ok"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "ignore-range":
			w.Write(data)
		case "wrong-range":
			w.Header().Set("Content-Range", "bytes 0-99/3000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data[:100])
		default:
			http.ServeContent(w, r, "x", time.Time{}, bytes.NewReader(data))
		}
	}))
	defer srv.Close()
	f := NewHTTPFetcher(srv.URL, nil)
	ctx := context.Background()
	p := make([]byte, 100)
	if err := f.ReadRange(ctx, p, 500); err != nil || !bytes.Equal(p, data[500:600]) {
		t.Fatalf("ok: %v", err)
	}
	tail, size, err := f.ReadTail(ctx, 64)
	if err != nil || size != 3000 || !bytes.Equal(tail, data[3000-64:]) {
		t.Fatalf("tail: %v, size %d", err, size)
	}
	mode = "ignore-range"
	if err := f.ReadRange(ctx, p, 500); !errors.Is(err, ErrRangeUnsupported) {
		t.Errorf("server ignoring Range: %v", err)
	}
	if _, _, err := f.ReadTail(ctx, 64); !errors.Is(err, ErrRangeUnsupported) {
		t.Errorf("tail from a server ignoring Range: %v", err)
	}
	mode = "wrong-range"
	if err := f.ReadRange(ctx, p, 500); err == nil {
		t.Error("answer for another range accepted")
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Location
		err  bool
	}{
		{"s3://bucket/a/b.parquet", Location{Scheme: "s3", Bucket: "bucket", Key: "a/b.parquet", URL: "s3://bucket/a/b.parquet"}, false},
		{"S3://bucket/k", Location{Scheme: "s3", Bucket: "bucket", Key: "k", URL: "S3://bucket/k"}, false},
		{"s3://bucket", Location{Scheme: "s3", Bucket: "bucket", URL: "s3://bucket"}, false},
		{"s3:///key", Location{}, true},
		{"s3://bucket/k?x=1", Location{}, true},
		{"https://host/p/f.parquet?sig=1", Location{Scheme: "https", URL: "https://host/p/f.parquet?sig=1"}, false},
		{"http:///nohost", Location{}, true},
		{"file:///tmp/x.parquet", Location{Scheme: "file", Path: "/tmp/x.parquet", URL: "file:///tmp/x.parquet"}, false},
		{"file://elsewhere/x", Location{}, true},
		{"data/x.parquet", Location{Scheme: "file", Path: "data/x.parquet", URL: "data/x.parquet"}, false},
		{"", Location{}, true},
	} {
		got, err := ParseURL(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-99/100", "bytes 0--1/0", "bytes */100", "bytes 5-4/10", "bytes 9223372036854775806-9223372036854775807/9223372036854775807", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		off, n, size, err := parseContentRange(s)
		if err == nil && (off < 0 || n <= 0 || off+n > size) {
			t.Fatalf("%q: accepted off %d len %d size %d", s, off, n, size)
		}
	})
}

// TestHeadSize: the head is read at open beside the tail and serves reads
// inside it without a request; a head longer than the object is dropped.
func TestHeadSize(t *testing.T) {
	data := pattern(5000)
	f := &countingFetcher{data: data}
	src, err := NewSource(context.Background(), "mem://x", f, &Options{TailSize: 100, HeadSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if src.Requests() != 2 || len(f.reqs) != 1 || f.reqs[0] != (Range{0, 4}) {
		t.Fatalf("open: %d requests (%v), want the tail and bytes 0-3", src.Requests(), f.reqs)
	}
	p := make([]byte, 4)
	if _, err := src.ReadAt(p, 0); err != nil || !bytes.Equal(p, data[:4]) || len(f.reqs) != 1 {
		t.Fatalf("ReadAt(0, 4): %v, %d fetches", err, len(f.reqs))
	}
	p = make([]byte, 5)
	if _, err := src.ReadAt(p, 0); err != nil || !bytes.Equal(p, data[:5]) || len(f.reqs) != 2 {
		t.Fatalf("ReadAt(0, 5): %v, %d fetches", err, len(f.reqs))
	}
	small := &countingFetcher{data: data[:3], fail: func(off int64, n int) error {
		if n > 3 {
			return io.ErrUnexpectedEOF
		}
		return nil
	}}
	src, err = NewSource(context.Background(), "mem://y", small, &Options{HeadSize: 4})
	if err != nil || src.Size() != 3 {
		t.Fatalf("3-byte object: %v", err)
	}
}

func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"s3://b/k", "s3://b", "https://h/p?q", "file:///x", "file://h/x", "x.parquet", "s3://", "http://[::1]:80/a", "S3://B/K%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		loc, err := ParseURL(s)
		if err != nil {
			return
		}
		switch loc.Scheme {
		case "s3":
			if loc.Bucket == "" {
				t.Fatalf("%q: s3 without a bucket", s)
			}
		case "file":
			if loc.Path == "" {
				t.Fatalf("%q: file without a path", s)
			}
		case "http", "https":
		default:
			t.Fatalf("%q: scheme %q", s, loc.Scheme)
		}
		if loc.URL != s {
			t.Fatalf("%q: URL %q", s, loc.URL)
		}
	})
}
