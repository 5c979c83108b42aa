package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

// Error is a failed operation on an object: it names the URL and, for a
// read, the byte range.
type Error struct {
	Op  string // "open", "read", "write", "commit", "abort"
	URL string
	// Off and Len are the byte range of a read; Len is -1 when the
	// operation has no range.
	Off, Len int64
	// Attempts is the number of requests made (1 without retries).
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	s := "objstore: " + e.Op + " " + e.URL
	if e.Len >= 0 {
		s += fmt.Sprintf(" bytes %d-%d", e.Off, e.Off+e.Len-1)
		if e.Len == 0 {
			s = "objstore: " + e.Op + " " + e.URL + fmt.Sprintf(" at offset %d", e.Off)
		}
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNotFound is wrapped by the error for an object or bucket that does
// not exist.
var ErrNotFound = errors.New("object not found")

// ErrRangeUnsupported is wrapped by the error from an HTTP server that
// answers a Range request with the whole object.
var ErrRangeUnsupported = errors.New("server does not support range requests")

// ErrUnsupported is wrapped by the error for an operation a backend
// cannot do (writing over HTTP).
var ErrUnsupported = errors.New("not supported")

// StatusError is an HTTP status a backend got instead of the data.
type StatusError struct {
	Code int
	Msg  string
}

func (e *StatusError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("HTTP status %d: %s", e.Code, e.Msg)
	}
	return fmt.Sprintf("HTTP status %d", e.Code)
}

// statusCoder is an error that carries an HTTP status: ours, and the AWS
// SDK's response errors.
type statusCoder interface{ HTTPStatusCode() int }

func (e *StatusError) HTTPStatusCode() int { return e.Code }

// retryable reports whether err is worth another attempt: throttling and
// server errors, connection failures, truncated bodies and the attempt's
// own timeout. A cancelled or expired caller context is not (the caller
// checks its context before calling this).
func retryable(err error) bool {
	if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrRangeUnsupported) || errors.Is(err, context.Canceled) {
		return false
	}
	var sc statusCoder
	// The SDK wraps a failed send in a response error with status 0.
	if errors.As(err, &sc) && sc.HTTPStatusCode() != 0 {
		switch sc.HTTPStatusCode() {
		case 408, 429, 500, 502, 503, 504:
			return true
		}
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, errShortBody) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	// The AWS SDK's own judgement: it knows its wrapped send errors
	// (connection reset before the answer) and S3's throttling codes.
	return retry.IsErrorRetryables(retry.DefaultRetryables).IsErrorRetryable(err) == aws.TrueTernary ||
		retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary
}

// errShortBody is a response body that ended before the bytes it
// announced: a connection cut mid-body.
var errShortBody = errors.New("response body shorter than the range asked for")
