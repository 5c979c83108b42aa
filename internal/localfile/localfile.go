// Package localfile opens local files for reading at any offset: the one
// place that turns a path into an open regular file and its size, for
// arrowpq.OpenFile, objstore's file fetcher and the CLI's inputs.
package localfile

import (
	"errors"
	"os"
)

// ErrIsDir is the error inside the *os.PathError Open returns for a
// directory: opening one succeeds on most systems, and only the first read
// fails, far from the path that caused it.
var ErrIsDir = errors.New("is a directory")

// Open opens path for reading and returns the file and its size. A
// directory is an *os.PathError wrapping [ErrIsDir], with nothing left
// open.
func Open(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, &os.PathError{Op: "open", Path: path, Err: ErrIsDir}
	}
	return f, st.Size(), nil
}
