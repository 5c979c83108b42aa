package objstore

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// Location is a parsed object URL.
type Location struct {
	// Scheme is "s3", "http", "https" or "file" (also for a plain path).
	Scheme string
	// Bucket and Key are set for s3.
	Bucket, Key string
	// Path is the local path for file.
	Path string
	// URL is the URL as given (a plain path stays a path).
	URL string
}

// IsURL reports whether s is a URL this package handles rather than a
// local path: it starts with s3://, http://, https:// or file://.
func IsURL(s string) bool {
	for _, p := range []string{"s3://", "http://", "https://", "file://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// ParseURL parses s3://bucket/key, http(s)://host/path, file:///path or a
// plain local path.
func ParseURL(s string) (Location, error) {
	if !IsURL(s) {
		if s == "" {
			return Location{}, fmt.Errorf("objstore: empty path")
		}
		return Location{Scheme: "file", Path: s, URL: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, fmt.Errorf("objstore: %w", err)
	}
	loc := Location{Scheme: strings.ToLower(u.Scheme), URL: s}
	switch loc.Scheme {
	case "s3":
		loc.Bucket = u.Host
		loc.Key = strings.TrimPrefix(u.Path, "/")
		if loc.Bucket == "" {
			return Location{}, fmt.Errorf("objstore: %q names no bucket (want s3://bucket/key)", s)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			// A '?' or '#' in a key is more likely a mistake than meant.
			return Location{}, fmt.Errorf("objstore: %q has a query or fragment; S3 keys are taken literally after the bucket", s)
		}
	case "http", "https":
		if u.Host == "" {
			return Location{}, fmt.Errorf("objstore: %q names no host", s)
		}
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("objstore: %q: file URLs name no host other than localhost", s)
		}
		loc.Path = u.Path
		if loc.Path == "" {
			return Location{}, fmt.Errorf("objstore: %q names no path", s)
		}
	}
	return loc, nil
}

// Open opens the object at s (a URL or a local path) for reading: one
// request reads its tail and size.
func Open(ctx context.Context, s string, opts *Options) (*Source, error) {
	loc, err := ParseURL(s)
	if err != nil {
		return nil, err
	}
	o, err := opts.normalized()
	if err != nil {
		return nil, err
	}
	var f Fetcher
	switch loc.Scheme {
	case "s3":
		if loc.Key == "" {
			return nil, &Error{Op: "open", URL: s, Len: -1, Err: fmt.Errorf("names a bucket, not an object")}
		}
		client, err := NewS3Client(ctx, &o)
		if err != nil {
			return nil, err
		}
		f = NewS3Fetcher(client, loc.Bucket, loc.Key)
	case "http", "https":
		client := o.HTTPClient
		if client == nil {
			client = defaultHTTPClient(o.Concurrency)
		}
		f = NewHTTPFetcher(s, client)
	default:
		ff, err := NewFileFetcher(loc.Path)
		if err != nil {
			return nil, &Error{Op: "open", URL: s, Len: -1, Err: err}
		}
		f = ff
	}
	src, err := NewSource(ctx, s, f, &o)
	if err != nil {
		if c, ok := f.(interface{ Close() error }); ok {
			c.Close()
		}
		return nil, err
	}
	return src, nil
}

// Create starts writing the object at s, an s3:// URL, as an [Upload].
// Other schemes are ErrUnsupported: local files have their own atomic
// writer (arrowpq.CreateOutputFile), and plain HTTP has no upload
// protocol to speak of.
func Create(ctx context.Context, s string, opts *Options) (Upload, error) {
	loc, err := ParseURL(s)
	if err != nil {
		return nil, err
	}
	if loc.Scheme != "s3" {
		return nil, &Error{Op: "write", URL: s, Len: -1, Err: fmt.Errorf("%s: %w", loc.Scheme, ErrUnsupported)}
	}
	if loc.Key == "" || strings.HasSuffix(loc.Key, "/") {
		return nil, &Error{Op: "write", URL: s, Len: -1, Err: fmt.Errorf("names no object key")}
	}
	client, err := NewS3Client(ctx, opts)
	if err != nil {
		return nil, err
	}
	return NewS3Upload(ctx, client, loc.Bucket, loc.Key, opts)
}
