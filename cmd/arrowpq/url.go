package main

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/objstore"
	"github.com/arrowpq/arrowpq/pqflight"
)

// URLs are accepted wherever the commands take a Parquet file:
// s3://bucket/key (credentials, region and endpoint from AWS_* and
// ~/.aws, as the AWS CLI finds them; a custom endpoint such as MinIO's
// in AWS_ENDPOINT_URL_S3 uses path-style addressing), http(s)://… for
// reading, and file://…. See docs/object-storage.md.

// openURLInput opens an object by URL as an input: reads go through
// objstore's range source, which arrowpq.NewReader recognises and reads
// with coalesced, concurrent, prefetched requests.
func openURLInput(ctx context.Context, name string) (*input, error) {
	src, err := objstore.Open(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	return &input{name: name, ra: src, size: src.Size(), rd: io.NewSectionReader(src, 0, src.Size()), close: src.Close}, nil
}

// createParquet creates a Parquet file by path, or as an S3 object that
// appears only when the Writer's Close succeeds.
func createParquet(path string, schema *arrow.Schema, opts *arrowpq.WriteOptions) (*arrowpq.Writer, error) {
	if objstore.IsURL(path) {
		return arrowpq.CreateURL(context.Background(), path, schema, opts, nil)
	}
	return arrowpq.CreateFile(path, schema, opts)
}

// newFlightServer serves a directory, or read-only the objects under an
// s3://bucket/prefix.
func newFlightServer(dir string, opts *pqflight.Options) (*pqflight.Server, error) {
	if objstore.IsURL(dir) {
		fsys, err := objstore.NewFS(context.Background(), dir, nil)
		if err != nil {
			return nil, err
		}
		return pqflight.NewServerFS(fsys, opts)
	}
	return pqflight.NewServer(dir, opts)
}

// checkURLOutput refuses to write a format other than Parquet to a URL.
func checkURLOutput(path, format string) error {
	if objstore.IsURL(path) && format != fmtParquet {
		return &usageError{fmt.Sprintf("%s: only Parquet can be written to a URL (--to parquet)", path)}
	}
	return nil
}
