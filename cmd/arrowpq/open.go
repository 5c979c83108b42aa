package main

// Every input the CLI reads is opened by openInput and every output file
// it writes is created by createOutput, so that other kinds of location
// (object storage URLs) plug in at these two functions.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/internal/localfile"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/objstore"
)

// input is one opened input. ra and size are set when the input can be
// read at any offset (files, and stdin copied to a temporary file when
// random access was asked for); rd reads it from the start.
type input struct {
	name  string // as the user wrote it ("-": stdin)
	path  string // a local file holding the input, or ""
	ra    io.ReaderAt
	size  int64
	rd    io.Reader
	close func() error
}

// openInput opens the input called name: a local path, or "-" for stdin.
// With seekable, stdin is first copied to a temporary file (Parquet and
// Arrow IPC files are read from their end, and a pipe cannot seek), which
// close removes; without, stdin is streamed.
func openInput(ctx context.Context, name string, seekable bool) (*input, error) {
	if name == "-" {
		in := &input{name: name, rd: stdin, close: func() error { return nil }}
		if seekable {
			if err := in.spool(stdin); err != nil {
				return nil, err
			}
		}
		return in, nil
	}
	if objstore.IsURL(name) {
		return openURLInput(ctx, name) // url.go
	}
	f, size, err := localfile.Open(name)
	if errors.Is(err, localfile.ErrIsDir) {
		return nil, fmt.Errorf("%s is a directory, not a file", name)
	}
	if err != nil {
		return nil, err
	}
	return &input{name: name, path: name, ra: f, size: size, rd: f, close: f.Close}, nil
}

// spool copies what is left of a streamed input (r: in.rd, or a buffered
// reader over it) to a temporary file, which in then reads at any offset
// and removes on close.
func (in *input) spool(r io.Reader) error {
	f, err := os.CreateTemp("", "arrowpq-stdin-*")
	if err != nil {
		return err
	}
	size, err := io.Copy(f, r)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("copy %s: %w", in.name, err)
	}
	prev := in.close
	in.path, in.ra, in.size, in.rd = f.Name(), f, size, f
	in.close = func() error {
		err := f.Close()
		os.Remove(f.Name())
		if perr := prev(); err == nil {
			err = perr
		}
		return err
	}
	return nil
}

// inputPath returns a local file path holding the input called name (for
// "-", a temporary copy of stdin); cleanup removes the copy.
func inputPath(name string) (path string, cleanup func(), err error) {
	in, err := openInput(context.Background(), name, true)
	if err != nil {
		return "", nil, err
	}
	if name != "-" {
		in.close()
		return name, func() {}, nil
	}
	return in.path, func() { in.close() }, nil
}

// openReader opens the Parquet input called name for reading rows.
func openReader(ctx context.Context, name string, opts *arrowpq.ReadOptions) (*arrowpq.Reader, func() error, error) {
	opts = withDecryption(opts) // cryptflags.go
	in, err := openInput(ctx, name, true)
	if err != nil {
		return nil, nil, err
	}
	if in.path != "" {
		// OpenFile names the file in every error it returns, also those of
		// later reads.
		r, err := arrowpq.OpenFile(in.path, opts)
		if err != nil {
			in.close()
			return nil, nil, err
		}
		return r, func() error { r.Close(); return in.close() }, nil
	}
	r, err := arrowpq.NewReader(in.ra, in.size, opts)
	if err != nil {
		in.close()
		var ae *arrowpq.Error
		if errors.As(err, &ae) && ae.Path == "" {
			ae.Path = name
		}
		return nil, nil, err
	}
	return r, func() error { r.Close(); return in.close() }, nil
}

// openFooter reads the footer of the Parquet input called name, with
// errors that name it.
func openFooter(name string) (*metadata.File, error) {
	p, err := openParquet(name)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.meta, nil
}

// openParquet opens the Parquet input called name and reads its footer.
func openParquet(name string) (*parquetFile, error) {
	in, err := openInput(context.Background(), name, true)
	if err != nil {
		return nil, err
	}
	f, dec, err := encryption.ReadFooter(in.ra, in.size, cliCrypt.decryption())
	if err != nil {
		in.close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &parquetFile{path: name, fh: in.ra, closer: in.close, meta: f, dec: dec}, nil
}

// createOutput opens path for writing a whole file at once, with the
// library's rules (arrowpq.OutputFile): an existing file is replaced only
// by a complete one, a symlink is written through, a FIFO or device is
// written straight, a directory is an error.
func createOutput(path string) (*arrowpq.OutputFile, error) {
	o, err := arrowpq.CreateOutputFile(path)
	var pe *fs.PathError
	if err != nil && !errors.As(err, &pe) {
		err = fmt.Errorf("%s %w", path, err) // "OUT is a directory"
	}
	return o, err
}

// fileArgs is expandInputs for a command that wants at least one FILE.
func fileArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, &usageError{"want at least one FILE"}
	}
	return expandInputs(args)
}

// expandInputs turns the FILE arguments into the list of inputs: a
// directory stands for the *.parquet files inside it (sorted, not
// recursive), and an argument with glob characters that names no file is
// expanded here (quoted on the command line, or from a shell that does
// not expand). "-" (stdin) stays as it is.
func expandInputs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		if a == "-" || objstore.IsURL(a) {
			out = append(out, a)
			continue
		}
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			matches, err := filepath.Glob(filepath.Join(globEscape(a), "*.parquet"))
			if err != nil {
				return nil, err
			}
			if len(matches) == 0 {
				return nil, fmt.Errorf("%s: directory has no *.parquet files", a)
			}
			sort.Strings(matches)
			out = append(out, matches...)
		case err == nil:
			out = append(out, a)
		case strings.ContainsAny(a, "*?["):
			matches, gerr := filepath.Glob(a)
			if gerr != nil {
				return nil, fmt.Errorf("%s: %w", a, gerr)
			}
			var files []string
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && !st.IsDir() {
					files = append(files, m)
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
			sort.Strings(files)
			out = append(out, files...)
		default:
			out = append(out, a) // opening it says what is wrong
		}
	}
	return out, nil
}

// globEscape quotes the glob characters of a literal path.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r == '*' || r == '?' || r == '[' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
