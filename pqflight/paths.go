package pqflight

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// tempMarker is part of the name of the temporary files DoPut writes; such
// names are never listed nor served.
const tempMarker = ".pqflight-"

// parquetExt is the suffix of the files ListFlights reports.
const parquetExt = ".parquet"

// cleanPath checks a client path and returns it in the form os.Root
// takes. Confinement itself is the job of os.Root (it refuses symbolic links
// that leave the root); this rejects what is malformed on its face, so that
// the client gets InvalidArgument rather than a file system error.
func cleanPath(p string) (string, error) {
	if p == "" {
		return "", status.Error(codes.InvalidArgument, "pqflight: empty path")
	}
	if strings.ContainsAny(p, "\\\x00") {
		return "", status.Errorf(codes.InvalidArgument, "pqflight: path %q: backslash or NUL not allowed", p)
	}
	if strings.HasPrefix(p, "/") || isVolume(p) {
		return "", status.Errorf(codes.InvalidArgument, "pqflight: path %q is absolute; paths are relative to the served root", p)
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "", status.Errorf(codes.InvalidArgument, "pqflight: path %q: \"..\" not allowed", p)
		}
	}
	c := path.Clean(p)
	if c == "." || !fs.ValidPath(c) {
		return "", status.Errorf(codes.InvalidArgument, "pqflight: path %q does not name a file under the root", p)
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
