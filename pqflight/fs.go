package pqflight

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fileHandle is an open file the server reads: an *os.File under the root,
// or a file of NewServerFS's fs.FS.
type fileHandle interface {
	io.ReaderAt
	io.Closer
}

// NewServerFS returns a read-only Server of the Parquet files of fsys,
// such as an [objstore.FS] of an s3://bucket/prefix: ListFlights walks it,
// DoGet and GetFlightInfo read its files, which must implement
// io.ReaderAt (an objstore.File also gives the reader its ranged,
// prefetching reads); DoPut is refused with PermissionDenied. opts may be
// nil; its ReadOnly is forced on.
//
// [objstore.FS]: https://pkg.go.dev/github.com/arrowpq/arrowpq/objstore#FS
func NewServerFS(fsys fs.FS, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.ReadOnly = true
	s, err := newServer(func() (*os.Root, error) { return nil, nil }, &o)
	if err != nil {
		return nil, err
	}
	s.fsys = fsys
	return s, nil
}

// openFSFile opens name in s.fsys.
func (s *Server) openFSFile(name string) (fileHandle, int64, error) {
	f, err := s.fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, status.Errorf(codes.NotFound, "pqflight: %s: %v", name, err)
		}
		return nil, 0, status.Errorf(codes.Unavailable, "pqflight: %s: %v", name, err)
	}
	st, err := f.Stat()
	h, ok := f.(fileHandle)
	if err != nil || !ok || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, status.Errorf(codes.InvalidArgument, "pqflight: %s is not a regular file that can be read at an offset", name)
	}
	return h, st.Size(), nil
}
