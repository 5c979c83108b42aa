//go:build unix

package arrowpq_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// targetRecord is a batch of a few row groups' worth of rows (RowGroupRows
// 500), so that CreateFile has written data before it fails.
func targetRecord(t *testing.T) arrow.RecordBatch {
	t.Helper()
	rec := genRecord(t, memory.DefaultAllocator, 2000, 0, 11)
	t.Cleanup(rec.Release)
	return rec
}

var targetOpts = &arrowpq.WriteOptions{RowGroupRows: 500}

// dirEntries lists the names in dir.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkUnchanged fails unless path holds old, with the given mode, and dir
// holds only want.
func checkUnchanged(t *testing.T, path string, old []byte, mode os.FileMode, dir string, want ...string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, old) {
		t.Errorf("target holds %d bytes (%v), want the %d it had", len(got), err, len(old))
	}
	if st, err := os.Stat(path); err != nil || st.Mode() != mode {
		t.Errorf("target mode %v (%v), want %v", st.Mode(), err, mode)
	}
	if names := dirEntries(t, dir); strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("directory holds %q, want %q", names, want)
	}
}

// TestCreateFileKeepsTarget: an existing file is left byte for byte, and
// no temporary file remains, when the write is aborted after row groups
// were written and when a Write fails (the caller then calls Close or
// Abort). While the write runs, the data is in a file named
// .NAME.arrowpq-tmp-*, as CreateFile documents.
func TestCreateFileKeepsTarget(t *testing.T) {
	rec := targetRecord(t)
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, nil)
	b := array.NewInt8Builder(memory.DefaultAllocator)
	b.Append(1)
	x := b.NewArray()
	defer x.Release()
	bad := array.NewRecordBatch(other, []arrow.Array{x}, 1)
	defer bad.Release()
	for _, c := range []struct {
		name string
		end  func(w *arrowpq.Writer) error
	}{
		{"Abort", func(w *arrowpq.Writer) error { return w.Abort() }},
		{"write error then Close", func(w *arrowpq.Writer) error {
			if err := w.Write(bad); err == nil {
				t.Fatal("Write of a batch of another schema succeeded")
			}
			if err := w.Close(); err == nil {
				t.Fatal("Close after a failed Write succeeded")
			}
			return nil
		}},
		{"write error then Abort", func(w *arrowpq.Writer) error {
			if err := w.Write(bad); err == nil {
				t.Fatal("Write of a batch of another schema succeeded")
			}
			return w.Abort()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.parquet")
			old := bytes.Repeat([]byte("the previous contents "), 1000)
			if err := os.WriteFile(path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := arrowpq.CreateFile(path, rec.Schema(), targetOpts)
			if err != nil {
				t.Fatal(err)
			}
			names := dirEntries(t, dir)
			if len(names) != 2 || !strings.HasPrefix(names[0], ".out.parquet.arrowpq-tmp-") {
				t.Fatalf("while writing the directory holds %q, want the target and .out.parquet.arrowpq-tmp-*", names)
			}
			// Write until row groups reach the temporary file (the
			// Writer buffers 1 MiB).
			for i := 0; ; i++ {
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
				if st, _ := os.Stat(filepath.Join(dir, names[0])); st.Size() > 0 {
					break
				}
				if i == 1000 {
					t.Fatal("no row group reached the temporary file")
				}
			}
			if err := c.end(w); err != nil {
				t.Fatal(err)
			}
			checkUnchanged(t, path, old, 0o600, dir, "out.parquet")
		})
	}
}

// TestCreateFileReplaces: a successful Close replaces an existing file
// with the new one and keeps its permission bits.
func TestCreateFileReplaces(t *testing.T) {
	rec := targetRecord(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := arrowpq.CreateFile(path, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := writeBytes(t, rec, targetOpts)
	checkUnchanged(t, path, want, 0o600, dir, "out.parquet")
}

// TestCreateFileFIFO: a named pipe is written straight through; a
// goroutine reading it gets the whole file, the same bytes as NewWriter
// writes, and the pipe is still a pipe afterwards.
func TestCreateFileFIFO(t *testing.T) {
	rec := targetRecord(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "pipe.parquet")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		done <- result{data, err}
	}()
	w, err := arrowpq.CreateFile(path, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	if want := writeBytes(t, rec, targetOpts); !bytes.Equal(res.data, want) {
		t.Fatalf("read %d bytes from the pipe, want the %d NewWriter writes", len(res.data), len(want))
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("after Close the target is %v (%v), want the named pipe", st.Mode(), err)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %q", names)
	}
}

// TestCreateFileDevNull: a character device is written straight through,
// not replaced by a temporary file (which a rename over /dev/null would
// attempt).
func TestCreateFileDevNull(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s: %v %v", os.DevNull, st, err)
	}
	rec := targetRecord(t)
	w, err := arrowpq.CreateFile(os.DevNull, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is now %v (%v)", os.DevNull, st.Mode(), err)
	}
	// Abort on a device only stops the output.
	w, err = arrowpq.CreateFile(os.DevNull, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
}

// TestCreateFileSymlink: a link is written through to its target (the
// link stays a link, the file it names gets the data); an aborted write
// through a link leaves the linked file as it was; a link to nothing is
// refused at CreateFile.
func TestCreateFileSymlink(t *testing.T) {
	rec := targetRecord(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "data", "real.parquet")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	old := []byte("the previous contents")
	if err := os.WriteFile(real, old, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.parquet")
	if err := os.Symlink(filepath.Join("data", "real.parquet"), link); err != nil {
		t.Fatal(err)
	}

	w, err := arrowpq.CreateFile(link, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	checkUnchanged(t, real, old, 0o640, filepath.Dir(real), "real.parquet")

	w, err = arrowpq.CreateFile(link, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is now %v (%v)", st.Mode(), err)
	}
	checkUnchanged(t, real, writeBytes(t, rec, targetOpts), 0o640, filepath.Dir(real), "real.parquet")
	if names := dirEntries(t, dir); strings.Join(names, ",") != "data,link.parquet" {
		t.Fatalf("directory holds %q", names)
	}

	dangling := filepath.Join(dir, "dangling.parquet")
	if err := os.Symlink("missing.parquet", dangling); err != nil {
		t.Fatal(err)
	}
	_, err = arrowpq.CreateFile(dangling, rec.Schema(), targetOpts)
	var e *arrowpq.Error
	if !errors.As(err, &e) || e.Path != dangling || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("CreateFile on a dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "missing.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the link's target was created: %v", err)
	}
}

// TestCreateFileDirectory: a directory fails at CreateFile, with nothing
// created in it or beside it.
func TestCreateFileDirectory(t *testing.T) {
	rec := targetRecord(t)
	dir := t.TempDir()
	sub := filepath.Join(dir, "out.parquet")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := arrowpq.CreateFile(sub, rec.Schema(), targetOpts)
	var e *arrowpq.Error
	if w != nil || !errors.As(err, &e) || e.Path != sub || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("CreateFile on a directory: %v, %v", w, err)
	}
	if names := dirEntries(t, dir); strings.Join(names, ",") != "out.parquet" {
		t.Fatalf("directory holds %q", names)
	}
	if names := dirEntries(t, sub); len(names) != 0 {
		t.Fatalf("the target directory holds %q", names)
	}
}

// TestCreateFileDescriptorPath: /proc/self/fd/N (what /dev/stdout is when
// the shell redirects it to a file) is written through the descriptor: the
// file the descriptor holds gets the bytes, appended after what it had,
// and is not replaced by a rename.
func TestCreateFileDescriptorPath(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	rec := targetRecord(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.parquet")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := os.Stat(path)
	fdPath := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	w, err := arrowpq.CreateFile(fdPath, rec.Schema(), targetOpts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Fatal("the file behind the descriptor was replaced")
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, writeBytes(t, rec, targetOpts)) {
		t.Fatalf("the file holds %d bytes (%v), want the %d NewWriter writes", len(got), err, len(writeBytes(t, rec, targetOpts)))
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %q", names)
	}
}
