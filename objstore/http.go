package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// HTTPFetcher is a [Fetcher] for an http(s) URL: GET with a Range header,
// answered by 206 Partial Content (http.ServeContent, S3 presigned URLs,
// most static file servers and CDNs do).
type HTTPFetcher struct {
	url    string
	client *http.Client
}

// NewHTTPFetcher returns a Fetcher for url; client nil means
// http.DefaultClient.
func NewHTTPFetcher(url string, client *http.Client) *HTTPFetcher {
	if client == nil {
		client = http.DefaultClient
	}
	return &HTTPFetcher{url: url, client: client}
}

func (f *HTTPFetcher) get(ctx context.Context, rangeHeader string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Range", rangeHeader)
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, err
	}
	switch resp.StatusCode {
	case http.StatusPartialContent, http.StatusOK:
		return resp, nil
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	err = &StatusError{Code: resp.StatusCode, Msg: strings.TrimSpace(string(msg))}
	if resp.StatusCode == http.StatusNotFound {
		err = fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return nil, err
}

// ReadRange implements [Fetcher].
func (f *HTTPFetcher) ReadRange(ctx context.Context, p []byte, off int64) error {
	resp, err := f.get(ctx, fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		// The whole object: only right when that is what was asked.
		if off != 0 || resp.ContentLength != int64(len(p)) {
			return ErrRangeUnsupported
		}
	} else if err := checkContentRange(resp.Header.Get("Content-Range"), off, int64(len(p))); err != nil {
		return err
	}
	return readBody(resp.Body, p)
}

// ReadTail implements [Fetcher] with a suffix range ("bytes=-n"), whose
// answer names the size in Content-Range.
func (f *HTTPFetcher) ReadTail(ctx context.Context, n int64) ([]byte, int64, error) {
	resp, err := f.get(ctx, fmt.Sprintf("bytes=-%d", n))
	var se *StatusError
	if errors.As(err, &se) && se.Code == http.StatusRequestedRangeNotSatisfiable {
		// An empty object has no suffix to serve.
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	var off, size int64
	if resp.StatusCode == http.StatusOK {
		if resp.ContentLength < 0 || resp.ContentLength > n {
			return nil, 0, ErrRangeUnsupported
		}
		size = resp.ContentLength
	} else {
		var length int64
		if off, length, size, err = parseContentRange(resp.Header.Get("Content-Range")); err != nil {
			return nil, 0, err
		}
		if off+length != size || length > n {
			return nil, 0, fmt.Errorf("suffix range answered with bytes %d-%d of %d", off, off+length-1, size)
		}
	}
	buf := make([]byte, size-off)
	if err := readBody(resp.Body, buf); err != nil {
		return nil, 0, err
	}
	return buf, size, nil
}

// readBody fills p from body and refuses a body of another length: short
// is a cut connection (retried), long is not the range asked for.
func readBody(body io.Reader, p []byte) error {
	if n, err := io.ReadFull(body, p); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("%w: got %d of %d bytes", errShortBody, n, len(p))
		}
		return err
	}
	var one [1]byte
	if n, _ := body.Read(one[:]); n > 0 {
		return fmt.Errorf("response body longer than the %d bytes asked for", len(p))
	}
	return nil
}

// parseContentRange parses "bytes FIRST-LAST/SIZE".
func parseContentRange(h string) (off, length, size int64, err error) {
	bad := func() (int64, int64, int64, error) {
		return 0, 0, 0, fmt.Errorf("malformed Content-Range %q", h)
	}
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return bad()
	}
	rng, total, ok := strings.Cut(rest, "/")
	if !ok {
		return bad()
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return bad()
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	size, err3 := strconv.ParseInt(total, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || last >= size {
		return bad()
	}
	return first, last - first + 1, size, nil
}

// checkContentRange refuses an answer for another range than the one
// asked for, so that it can never be read as that range's bytes.
func checkContentRange(h string, off, n int64) error {
	if h == "" {
		return nil // some servers leave it out; the length is checked
	}
	first, length, _, err := parseContentRange(h)
	if err != nil {
		return err
	}
	if first != off || length != n {
		return fmt.Errorf("asked for bytes %d-%d, got %q", off, off+n-1, h)
	}
	return nil
}
