package localfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := Open(path)
	if err != nil || size != 5 {
		t.Fatalf("Open(file) = %d, %v; want 5, nil", size, err)
	}
	f.Close()

	_, _, err = Open(dir)
	var pe *os.PathError
	if !errors.Is(err, ErrIsDir) || !errors.As(err, &pe) || pe.Path != dir {
		t.Errorf("Open(dir) = %v; want an *os.PathError for %s wrapping ErrIsDir", err, dir)
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v; want fs.ErrNotExist", err)
	}
}
