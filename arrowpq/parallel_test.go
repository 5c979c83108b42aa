package arrowpq

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestForEach(t *testing.T) {
	fail := errors.New("fail")
	for _, workers := range []int{1, 3} {
		var calls atomic.Int64
		i, err := forEach(10, workers, func(i int) error {
			calls.Add(1)
			if i == 4 || i == 7 {
				return fail
			}
			return nil
		})
		if i != 4 || err != fail {
			t.Errorf("workers %d: failure %d %v, want 4", workers, i, err)
		}
		want := int64(10) // in parallel every call is made
		if workers == 1 {
			want = 5 // serially the first error stops
		}
		if calls.Load() != want {
			t.Errorf("workers %d: %d calls, want %d", workers, calls.Load(), want)
		}
	}
	if i, err := forEach(0, 4, func(int) error { return errors.New("called") }); i != -1 || err != nil {
		t.Errorf("no items: %d %v", i, err)
	}
}
