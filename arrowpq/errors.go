package arrowpq

import (
	"strconv"
	"strings"
)

// Error is the error type of this package: it says where in the file a
// failure happened. Lower packages report what went wrong; Error adds, once,
// which row group, column and page it was. Fields that do not apply are -1
// (numbers) or empty.
type Error struct {
	Op       string // "open", "read" or "write"
	Path     string // the file, when the reader or writer knows it
	RowGroup int
	Column   string // dotted path of the leaf column
	Page     int    // ordinal of the page within its column chunk
	Offset   int64  // byte offset in the file
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("arrowpq: ")
	b.WriteString(e.Op)
	if e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Path)
	}
	sep := " "
	if e.Path != "" {
		sep = ": "
	}
	if e.RowGroup >= 0 {
		b.WriteString(sep)
		b.WriteString("row group ")
		b.WriteString(strconv.Itoa(e.RowGroup))
		sep = ", "
	}
	if e.Column != "" {
		b.WriteString(sep)
		b.WriteString("column ")
		b.WriteString(e.Column)
		sep = ", "
	}
	if e.Page >= 0 {
		b.WriteString(sep)
		b.WriteString("page ")
		b.WriteString(strconv.Itoa(e.Page))
		sep = ", "
	}
	if e.Offset >= 0 {
		if sep == ", " {
			b.WriteString(" at offset ")
		} else {
			b.WriteString(sep)
			b.WriteString("at offset ")
		}
		b.WriteString(strconv.FormatInt(e.Offset, 10))
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error, so that errors.Is finds the
// sentinels of the lower packages (metadata.ErrCorrupt, pagecodec.ErrChecksum, ...).
func (e *Error) Unwrap() error { return e.Err }

func newError(op string, err error) *Error {
	return &Error{Op: op, RowGroup: -1, Page: -1, Offset: -1, Err: err}
}
