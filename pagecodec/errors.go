package pagecodec

import (
	"errors"
	"fmt"
	"io"
)

// Sentinel errors. Every error returned by this package wraps exactly one of
// them (truncated input wraps both [ErrCorrupt] and [io.ErrUnexpectedEOF]),
// so callers test with [errors.Is].
var (
	// ErrCorrupt reports bytes that do not follow the format.
	ErrCorrupt = errors.New("corrupt input")
	// ErrUnsupported reports a valid feature this package does not
	// implement, such as the LZO codec.
	ErrUnsupported = errors.New("unsupported")
	// ErrLimit reports a size above a configured or structural limit.
	ErrLimit = errors.New("limit exceeded")
	// ErrChecksum reports a page whose CRC-32 does not match its header.
	ErrChecksum = errors.New("page checksum mismatch")
)

// PageError locates an error in a column chunk: Page is the ordinal of the
// page within the chunk (0 for the first page, a dictionary page included)
// and Offset the absolute file offset of its header. Callers above add the
// row group and the column path.
type PageError struct {
	Page   int
	Offset int64
	Err    error
}

// Error renders the location and the wrapped error.
func (e *PageError) Error() string {
	return fmt.Sprintf("page %d at offset %d: %v", e.Page, e.Offset, e.Err)
}

// Unwrap returns the wrapped error.
func (e *PageError) Unwrap() error { return e.Err }

func errCorrupt(format string, args ...any) error {
	return fmt.Errorf("pagecodec: "+format+": %w", append(args, ErrCorrupt)...)
}

func errUnsupported(format string, args ...any) error {
	return fmt.Errorf("pagecodec: "+format+": %w", append(args, ErrUnsupported)...)
}

func errLimit(format string, args ...any) error {
	return fmt.Errorf("pagecodec: "+format+": %w", append(args, ErrLimit)...)
}

// errTruncated wraps both ErrCorrupt and io.ErrUnexpectedEOF: a page that
// ends inside a value is corrupt, and it is a truncation.
func errTruncated(format string, args ...any) error {
	return fmt.Errorf("pagecodec: "+format+": %w (%w)", append(args, ErrCorrupt, io.ErrUnexpectedEOF)...)
}
