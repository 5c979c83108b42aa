package objstore

import (
	"context"
	"io"

	"github.com/arrowpq/arrowpq/internal/localfile"
)

// ReaderAtFetcher is a [Fetcher] over an io.ReaderAt of known size: a local
// file, or anything a caller already has, so that it can go through the
// same planner as remote objects.
type ReaderAtFetcher struct {
	r    io.ReaderAt
	size int64
}

// NewReaderAtFetcher returns a Fetcher reading r, of size bytes.
func NewReaderAtFetcher(r io.ReaderAt, size int64) *ReaderAtFetcher {
	return &ReaderAtFetcher{r: r, size: size}
}

// ReadRange implements [Fetcher].
func (f *ReaderAtFetcher) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n, err := f.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// ReadTail implements [Fetcher].
func (f *ReaderAtFetcher) ReadTail(ctx context.Context, n int64) ([]byte, int64, error) {
	n = min(n, f.size)
	buf := make([]byte, n)
	if err := f.ReadRange(ctx, buf, f.size-n); err != nil {
		return nil, 0, err
	}
	return buf, f.size, nil
}

// Close closes the io.ReaderAt when it is an io.Closer.
func (f *ReaderAtFetcher) Close() error {
	if c, ok := f.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// NewFileFetcher opens the local file path.
func NewFileFetcher(path string) (*ReaderAtFetcher, error) {
	fh, size, err := localfile.Open(path)
	if err != nil {
		return nil, err
	}
	return NewReaderAtFetcher(fh, size), nil
}
