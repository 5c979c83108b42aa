package column

import "fmt"

// BatchFullError reports that the byte array data of the values read since
// the caller last reset its [Values] outgrew
// [ReaderOptions.MaxByteArrayData] (the 32-bit offsets of an Arrow String
// array): fewer rows may fit. It reads as its cause, which wraps
// [pagecodec.ErrLimit], so that a caller that cannot shrink its batch
// reports the decoder's own error.
type BatchFullError struct{ Cause error }

func (e *BatchFullError) Error() string { return e.Cause.Error() }

// Unwrap returns the cause.
func (e *BatchFullError) Unwrap() error { return e.Cause }

// short reports a page that ran out of values before its levels did.
func short(got, want int) error {
	return fmt.Errorf("the page holds %d values where its levels need %d: %w", got, want, errCorrupt)
}
