package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"
)

// Fetcher does single requests against one object. Implementations must
// be safe for concurrent use. [Source] adds planning, concurrency limits,
// retries and error locations on top, so a Fetcher does none of that.
type Fetcher interface {
	// ReadRange fills p with the bytes at off in one request. A body
	// shorter than len(p) is an error (io.ErrUnexpectedEOF), so that it
	// is retried rather than read as data.
	ReadRange(ctx context.Context, p []byte, off int64) error
	// ReadTail returns the last n bytes of the object (all of it when it
	// is shorter) and the object's size, in one request where the
	// backend allows it.
	ReadTail(ctx context.Context, n int64) (tail []byte, size int64, err error)
}

// Range is the byte range [Off, Off+Len) of an object.
type Range struct{ Off, Len int64 }

// End is the offset just past r.
func (r Range) End() int64 { return r.Off + r.Len }

// RangeSource is an object that a reader can ask for many ranges at once.
// It is an io.ReaderAt too, for readers that ask one range at a time.
// [Source] implements it.
type RangeSource interface {
	io.ReaderAt
	Size() int64
	// ReadRanges returns the bytes of each range, in the order given.
	// The slices are the caller's; they may share backing arrays.
	ReadRanges(ctx context.Context, ranges []Range) ([][]byte, error)
}

// Source is one object opened for reading: an io.ReaderAt and a
// [RangeSource] that coalesces, splits and parallelises requests as its
// [Options] say, and keeps the object's tail from the opening request. It
// is safe for concurrent use.
type Source struct {
	url     string
	f       Fetcher
	opts    Options
	size    int64
	tail    []byte
	tailOff int64
	head    []byte // the first HeadSize bytes, when that read succeeded
	sem     chan struct{}

	requests, bytes atomic.Int64
}

// NewSource opens the object at url (used in errors) through f: one
// request reads the last [Options.TailSize] bytes and the size.
func NewSource(ctx context.Context, url string, f Fetcher, opts *Options) (*Source, error) {
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	s := &Source{url: url, f: f, opts: o, sem: make(chan struct{}, o.Concurrency)}
	var head []byte
	headDone := make(chan struct{})
	if o.HeadSize > 0 {
		// Beside the tail, so that both cost one round trip. A failure
		// (an object shorter than HeadSize, say) only means the bytes
		// are read again when asked for.
		go func() {
			defer close(headDone)
			buf := make([]byte, o.HeadSize)
			if err := f.ReadRange(ctx, buf, 0); err == nil {
				head = buf
			}
			s.requests.Add(1)
		}()
	} else {
		close(headDone)
	}
	var tail []byte
	var size int64
	attempts, err := s.opts.retry(ctx, func(ctx context.Context) error {
		var err error
		tail, size, err = f.ReadTail(ctx, o.TailSize)
		return err
	})
	s.requests.Add(int64(attempts))
	<-headDone
	if err != nil {
		return nil, &Error{Op: "open", URL: url, Off: 0, Len: -1, Attempts: attempts, Err: err}
	}
	if int64(len(head)) <= size {
		s.head = head
		s.bytes.Add(int64(len(head)))
	}
	if int64(len(tail)) > size || int64(len(tail)) > o.TailSize {
		return nil, &Error{Op: "open", URL: url, Len: -1, Attempts: attempts,
			Err: fmt.Errorf("tail read returned %d bytes of an object of %d: %w", len(tail), size, io.ErrUnexpectedEOF)}
	}
	s.bytes.Add(int64(len(tail)))
	s.size, s.tail, s.tailOff = size, tail, size-int64(len(tail))
	return s, nil
}

// URL returns the URL the Source was opened with.
func (s *Source) URL() string { return s.url }

// Size returns the size of the object in bytes.
func (s *Source) Size() int64 { return s.size }

// Options returns the Source's options, defaults filled in.
func (s *Source) Options() Options { return s.opts }

// Requests returns the number of requests made so far (attempts
// included), and Bytes the bytes received.
func (s *Source) Requests() int64 { return s.requests.Load() }

// Bytes returns the number of bytes received so far.
func (s *Source) Bytes() int64 { return s.bytes.Load() }

// Close closes the Fetcher when it is an io.Closer.
func (s *Source) Close() error {
	if c, ok := s.f.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// ReadAt reads len(p) bytes at off, from the kept tail when it holds them,
// else in requests of at most MaxRequest bytes made concurrently. It uses
// context.Background; use ReadRanges to pass a context.
func (s *Source) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &Error{Op: "read", URL: s.url, Off: off, Len: int64(len(p)), Err: errors.New("negative offset")}
	}
	if off >= s.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := min(int64(len(p)), s.size-off)
	if err := s.readInto(context.Background(), p[:n], off); err != nil {
		return 0, err
	}
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// ReadRanges returns the bytes of each range. Ranges closer than Gap are
// read by one request (the bytes between are read and dropped), requests
// longer than MaxRequest are split, and all of them run concurrently, at
// most Concurrency at a time for the Source. A range past the end of the
// object is an error. The first failure cancels the other requests.
func (s *Source) ReadRanges(ctx context.Context, ranges []Range) ([][]byte, error) {
	for _, r := range ranges {
		if r.Off < 0 || r.Len < 0 || r.Off > s.size || r.Len > s.size-r.Off {
			return nil, &Error{Op: "read", URL: s.url, Off: r.Off, Len: r.Len,
				Err: fmt.Errorf("range past the end of the object of %d bytes: %w", s.size, io.ErrUnexpectedEOF)}
		}
	}
	out := make([][]byte, len(ranges))
	groups := Coalesce(ranges, s.opts.Gap)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for gi, g := range groups {
		buf := make([]byte, g.Len)
		for _, k := range g.Members {
			r := ranges[k]
			out[k] = buf[r.Off-g.Off : r.End()-g.Off : r.End()-g.Off]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[gi] = s.readInto(ctx, buf, g.Off); errs[gi] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	// The failure at the lowest offset is the one to report; the others
	// may be cancellations it caused.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Group is one request-worthy span of [Coalesce]: the ranges Members
// (indexes into the input) lie in [Off, Off+Len).
type Group struct {
	Range
	Members []int
}

// Coalesce groups ranges whose distance is at most gap, in offset order.
// Overlapping ranges share a group. It does not split: [Source] splits a
// group into requests of at most MaxRequest bytes, so that the number of
// requests for a contiguous span is ⌈span / MaxRequest⌉ whatever its
// ranges.
func Coalesce(ranges []Range, gap int64) []Group {
	idx := make([]int, len(ranges))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ranges[idx[a]].Off < ranges[idx[b]].Off })
	var groups []Group
	for _, k := range idx {
		r := ranges[k]
		if n := len(groups); n > 0 && r.Off-groups[n-1].End() <= gap {
			g := &groups[n-1]
			g.Len = max(g.End(), r.End()) - g.Off
			g.Members = append(g.Members, k)
			continue
		}
		groups = append(groups, Group{Range: r, Members: []int{k}})
	}
	return groups
}

// Split cuts a span of n bytes into the fewest pieces of at most max
// bytes, of nearly equal length, and returns their lengths.
func Split(n, maxLen int64) []int64 {
	if n <= 0 {
		return nil
	}
	k := (n + maxLen - 1) / maxLen
	step := (n + k - 1) / k
	pieces := make([]int64, 0, k)
	for n > 0 {
		m := min(step, n)
		pieces = append(pieces, m)
		n -= m
	}
	return pieces
}

// readInto fills dst from off: the part in the kept tail is copied, the
// rest fetched in pieces of at most MaxRequest bytes, concurrently.
func (s *Source) readInto(ctx context.Context, dst []byte, off int64) error {
	end := off + int64(len(dst))
	if end <= int64(len(s.head)) {
		copy(dst, s.head[off:end])
		return nil
	}
	if end > s.tailOff {
		from := max(off, s.tailOff)
		copy(dst[from-off:], s.tail[from-s.tailOff:end-s.tailOff])
		dst = dst[:from-off]
	}
	pieces := Split(int64(len(dst)), s.opts.MaxRequest)
	if len(pieces) == 1 {
		return s.fetch(ctx, dst, off)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(pieces))
	var wg sync.WaitGroup
	var pos int64
	for i, n := range pieces {
		p, at := dst[pos:pos+n:pos+n], off+pos
		pos += n
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = s.fetch(ctx, p, at); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// fetch is one request with retries, under the Source's concurrency
// limit.
func (s *Source) fetch(ctx context.Context, p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return &Error{Op: "read", URL: s.url, Off: off, Len: int64(len(p)), Err: ctx.Err()}
	}
	defer func() { <-s.sem }()
	attempts, err := s.opts.retry(ctx, func(ctx context.Context) error { return s.f.ReadRange(ctx, p, off) })
	s.requests.Add(int64(attempts))
	if err != nil {
		return &Error{Op: "read", URL: s.url, Off: off, Len: int64(len(p)), Attempts: attempts, Err: err}
	}
	s.bytes.Add(int64(len(p)))
	return nil
}
