package pqflight

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// tempMarker is part of the name of the temporary files DoPut writes; such
// names are never listed nor served.
const tempMarker = ".pqflight-"

// parquetExt is the suffix of the files ListFlights reports.
const parquetExt = ".parquet"

// maxPathBytes and maxNameBytes bound a client path and each of its
// elements (the usual PATH_MAX and NAME_MAX): a longer one cannot name a
// file, and the file system would answer with an error quoting it.
const (
	maxPathBytes = 1024
	maxNameBytes = 255
)

// cleanPath checks a client path and returns it in the form os.Root
// takes. Confinement itself is the job of os.Root (it refuses symbolic links
// that leave the root); this rejects what is malformed on its face, so that
// the client gets InvalidArgument rather than a file system error. The
// messages do not quote a rejected path: it may be megabytes long or hold
// terminal escapes, and it ends up in logs.
func cleanPath(p string) (string, error) {
	bad := func(why string) error {
		return status.Error(codes.InvalidArgument, "pqflight: invalid path: "+why)
	}
	if p == "" {
		return "", bad("empty")
	}
	if len(p) > maxPathBytes {
		return "", bad(fmt.Sprintf("%d bytes, longer than %d", len(p), maxPathBytes))
	}
	if !utf8.ValidString(p) {
		return "", bad("not UTF-8")
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return "", bad("backslash or control character")
	}
	if strings.HasPrefix(p, "/") || isVolume(p) {
		return "", bad("absolute; paths are relative to the served root")
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "", bad(`".." not allowed`)
		}
		if len(elem) > maxNameBytes {
			return "", bad(fmt.Sprintf("a name of %d bytes, longer than %d", len(elem), maxNameBytes))
		}
	}
	c := path.Clean(p)
	if c == "." || !fs.ValidPath(c) {
		return "", bad("does not name a file under the root")
	}
	if strings.Contains(path.Base(c), tempMarker) {
		return "", status.Errorf(codes.NotFound, "pqflight: %s: no such file", c)
	}
	return c, nil
}

// errPathEscapesText is the message of the unexported error os.Root returns
// for a path that leaves the root through a symbolic link.
const errPathEscapesText = "path escapes from parent"

// fsStatus turns a file system error on name into a gRPC status error.
func fsStatus(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return status.Errorf(codes.NotFound, "pqflight: %s: no such file", name)
	case errors.Is(err, fs.ErrExist):
		return status.Errorf(codes.AlreadyExists, "pqflight: %s already exists", name)
	case strings.Contains(err.Error(), errPathEscapesText):
		return status.Errorf(codes.PermissionDenied, "pqflight: %s leaves the served root", name)
	case errors.Is(err, syscall.ENAMETOOLONG):
		return status.Error(codes.InvalidArgument, "pqflight: invalid path: too long")
	case errors.Is(err, fs.ErrPermission):
		return status.Errorf(codes.PermissionDenied, "pqflight: %s: permission denied", name)
	}
	return status.Errorf(codes.Internal, "pqflight: %v", err)
}

// isVolume reports whether p starts with a Windows drive ("C:" or "C:/"),
// which filepath would treat as absolute on Windows.
func isVolume(p string) bool {
	if len(p) < 2 || p[1] != ':' {
		return false
	}
	c := p[0] | 0x20
	return 'a' <= c && c <= 'z' && (len(p) == 2 || p[2] == '/')
}
