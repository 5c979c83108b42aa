package arrowpq

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// ErrInternal is wrapped by the error a read returns when decoding hit a
// bug in this package (a panic) instead of failing cleanly. Input is
// validated before it is used, so no file should ever produce it: the
// package's fuzz targets, forging campaign and corpus tests fail on it.
// The panic is turned into an error only so that one bad file cannot take
// down a server's other requests; it is never a way to reject input.
var ErrInternal = errors.New("internal error (a bug in arrowpq, please report it)")

// internalError is a recovered panic: its value and the stack where it
// happened.
type internalError struct {
	value any
	stack []byte
}

func (e *internalError) Error() string {
	return fmt.Sprintf("%v: panic: %v\n%s", ErrInternal, e.value, e.stack)
}

func (e *internalError) Unwrap() error { return ErrInternal }

// call runs fn(i), turning a panic into an error wrapping ErrInternal.
func call(fn func(i int) error, i int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &internalError{value: v, stack: debug.Stack()}
		}
	}()
	return fn(i)
}

// forEach calls fn(i) for every i in [0, n) and returns the lowest i whose
// call failed, with its error (-1 and nil when none did). With more than one
// worker, up to workers goroutines take the next i from a shared counter and
// every call is made; with one, the calls run on the calling goroutine in
// order and stop at the first error.
//
// fn must not panic: nothing this package runs in it does on any input. As
// a last line of defence, a panic that escapes fn anyway is returned as that
// call's error (wrapping [ErrInternal], with the stack) rather than killing
// the process from a goroutine the caller cannot recover in; tests treat it
// as a failure, never as a way to reject input.
func forEach(n, workers int, fn func(i int) error) (int, error) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := call(fn, i); err != nil {
				return i, err
			}
		}
		return -1, nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = call(fn, i)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return i, err
		}
	}
	return -1, nil
}
