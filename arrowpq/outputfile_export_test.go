package arrowpq

import "os"

// SetSyncFile replaces the sync that OutputFile.Commit runs before the
// rename, until the returned function restores it.
func SetSyncFile(sync func(*os.File) error) (restore func()) {
	prev := syncFile
	syncFile = sync
	return func() { syncFile = prev }
}
