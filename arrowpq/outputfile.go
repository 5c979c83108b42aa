package arrowpq

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// OutputFile is a file written by name that replaces an existing file only
// when it is complete: the data goes to a temporary file in the target's
// directory, named ".NAME.arrowpq-tmp-RANDOM" for a target NAME, which
// [OutputFile.Commit] syncs to stable storage and renames over the target.
// Until then the target is untouched: after [OutputFile.Abort], an error,
// or a crash it stays byte for byte as it was (a crash can leave only a
// temporary file, recognisable by its name). A replaced file keeps its
// permission bits; a new one gets 0644.
//
// Durability: the sync before the rename means that after an operating
// system crash or a power loss the target is the old file or the complete
// new one, never a partial one. The directory is not synced after the
// rename, so a power loss just after Commit can still leave the old file
// in place. [WriteOptions.NoSync] (CreateFile) skips the sync, for
// scratch output; [OutputFile.SyncTime] says what it cost.
//
// A symbolic link is written through: the temporary file and the rename
// are at the file the link resolves to, and the link stays a link. A link
// to nothing is refused.
//
// A target that is not a regular file — a named pipe, a character device
// such as /dev/null — is opened and written straight through, since it
// cannot be renamed over; so is a path naming an open descriptor
// (/dev/stdout, /dev/fd/N, /proc/self/fd/N) that holds a regular file,
// appended to as the shell opened it. Abort then stops the output where it
// is. A directory or a socket is an error from CreateOutputFile, before
// anything is written.
//
// [CreateFile] writes Parquet through an OutputFile; the command-line tool
// uses one for its other output formats.
type OutputFile struct {
	f        *os.File
	tmpPath  string // "" when writing straight through
	renameTo string
	done     bool
	// noSync skips the sync in Commit (WriteOptions.NoSync); syncTime is
	// how long that sync took.
	noSync   bool
	syncTime time.Duration
}

// syncFile syncs the temporary file before the rename and its directory
// after it; a variable so that the tests can count the syncs.
var syncFile = (*os.File).Sync

// syncDir makes a rename in dir durable: until the directory itself is
// synced, a power loss can bring back the old directory entry. Windows
// cannot sync a directory, and some Unix file systems refuse (EINVAL);
// there the rename is as durable as the system makes it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = syncFile(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// CreateOutputFile opens path for writing with the rules of [OutputFile].
func CreateOutputFile(path string) (*OutputFile, error) {
	target, mode, direct, err := createTarget(path)
	if err != nil {
		return nil, err
	}
	if direct {
		// O_WRONLY without O_TRUNC or O_CREATE: the target exists. Opening
		// a named pipe waits for a reader. A regular file behind a
		// descriptor path is appended to, as the shell set it up (">"
		// truncated it already, ">>" appends).
		flag := os.O_WRONLY
		if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
			flag |= os.O_APPEND
		}
		f, err := os.OpenFile(target, flag, 0)
		if err != nil {
			return nil, err
		}
		return &OutputFile{f: f}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+tempMarker+"*")
	if err == nil {
		err = f.Chmod(mode) // CreateTemp makes it private
	}
	if err != nil {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
		return nil, err
	}
	return &OutputFile{f: f, tmpPath: f.Name(), renameTo: target}, nil
}

// Write writes p to the file (the temporary file until Commit).
func (o *OutputFile) Write(p []byte) (int, error) { return o.f.Write(p) }

// Commit completes the file: it syncs the temporary file to stable storage,
// renames it over the target and syncs the directory so that the rename is
// durable too (both syncs skipped when CreateFile was given
// [WriteOptions.NoSync]), or closes a target written straight through. On
// an error before the rename the temporary file is removed and the target
// is as it was; if only the directory sync fails, the new file is in place
// and complete, and the error says so. Commit or Abort
// after Commit does nothing and returns nil.
func (o *OutputFile) Commit() error {
	if o.done {
		return nil
	}
	o.done = true
	if o.tmpPath == "" {
		// A pipe or device: nothing to sync (fsync fails on a pipe) or
		// rename.
		return o.f.Close()
	}
	// Flush to stable storage before the rename, so that a crash cannot
	// leave a renamed file whose contents never reached disk.
	var err error
	if !o.noSync {
		t0 := time.Now()
		err = syncFile(o.f)
		o.syncTime = time.Since(t0)
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmpPath, o.renameTo)
	}
	if err != nil {
		os.Remove(o.tmpPath)
		return err
	}
	if !o.noSync {
		t0 := time.Now()
		err = syncDir(filepath.Dir(o.renameTo))
		o.syncTime += time.Since(t0)
		if err != nil {
			return fmt.Errorf("arrowpq: %s is complete, but syncing its directory failed, so a power loss may undo the rename: %w", o.renameTo, err)
		}
	}
	return nil
}

// SyncTime returns how long Commit's syncs (the temporary file before the
// rename, the directory after it) took: the part of Commit that [WriteOptions.NoSync] saves. It is
// zero before Commit, without a sync (NoSync), and for a target written
// straight through, which is never synced.
func (o *OutputFile) SyncTime() time.Duration { return o.syncTime }

// Abort closes the file without completing it: the temporary file is
// removed and the target left as it was; what was written to a target
// written straight through stays there. Abort after Commit or Abort does
// nothing and returns nil.
func (o *OutputFile) Abort() error {
	if o.done {
		return nil
	}
	o.done = true
	o.f.Close()
	if o.tmpPath == "" {
		return nil
	}
	if err := os.Remove(o.tmpPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isDescriptorPath reports whether path names an open file descriptor
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, /proc/PID/fd/N)
// rather than a file by name.
func isDescriptorPath(path string) bool {
	p := filepath.Clean(path)
	switch {
	case p == "/dev/stdout", p == "/dev/stderr", strings.HasPrefix(p, "/dev/fd/"):
		return true
	case strings.HasPrefix(p, "/proc/"):
		parts := strings.Split(p, "/") // "", "proc", "self" or PID, "fd", N
		return len(parts) == 5 && parts[3] == "fd"
	}
	return false
}

// tempMarker is in the name of CreateFile's temporary files, between the
// target's name and a random suffix.
const tempMarker = ".arrowpq-tmp-"

// createTarget decides how CreateFile writes path: to a temporary file
// renamed to target (a regular file, new or existing, with symbolic links
// resolved), or directly (direct: an existing file that is not regular).
// mode is the permission of the temporary file.
func createTarget(path string) (target string, mode os.FileMode, direct bool, err error) {
	st, err := os.Stat(path) // follows links
	if errors.Is(err, fs.ErrNotExist) {
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return "", 0, false, errors.New("is a symbolic link to a file that does not exist")
		}
		return path, 0o644, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return "", 0, false, errors.New("is a directory")
	case m&(fs.ModeNamedPipe|fs.ModeCharDevice|fs.ModeDevice) != 0:
		return path, 0, true, nil
	case m.IsRegular() && isDescriptorPath(path):
		// /dev/stdout redirected to a file: the file the shell opened.
		// A rename would replace the file at the name the link resolves
		// to, not the one the descriptor holds (deleted, or appended to).
		return path, 0, true, nil
	case !m.IsRegular():
		return "", 0, false, fmt.Errorf("is not a regular file, named pipe or device (%v)", m.Type())
	}
	target, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", 0, false, err
	}
	return target, st.Mode().Perm(), false, nil
}
