package arrowpq

import (
	"sync"
	"sync/atomic"
)

// forEach calls fn(i) for every i in [0, n) and returns the lowest i whose
// call failed, with its error (-1 and nil when none did). With more than one
// worker, up to workers goroutines take the next i from a shared counter and
// every call is made; with one, the calls run on the calling goroutine in
// order and stop at the first error. fn must not panic: nothing this package
// runs in it does on any input, so there is no recover.
func forEach(n, workers int, fn func(i int) error) (int, error) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := fn(i); err != nil {
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
				errs[i] = fn(i)
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
