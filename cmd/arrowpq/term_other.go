//go:build !linux

package main

import "os"

func terminalWidth(*os.File) int { return 0 }

// isTerminal falls back to the file mode where there is no ioctl to ask.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
