package arrowpq

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestForEachPanic checks the last line of defence: a panic in a call of
// forEach, on the calling goroutine or on a worker, comes back as that
// call's error wrapping ErrInternal, with the panic value and its stack.
func TestForEachPanic(t *testing.T) {
	for _, workers := range []int{1, 3} {
		i, err := forEach(6, workers, func(i int) error {
			if i == 4 {
				var s []int
				_ = s[i] // index out of range
			}
			return nil
		})
		if i != 4 || !errors.Is(err, ErrInternal) {
			t.Fatalf("workers %d: got %d, %v; want 4 and ErrInternal", workers, i, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "index out of range") || !strings.Contains(msg, "TestForEachPanic") {
			t.Errorf("workers %d: error lacks the panic or its stack:\n%s", workers, msg)
		}
	}
}

// panicker is a field decoder with a bug.
type panicker struct{}

func (panicker) startRowGroup(*Reader, int, map[int][]byte) error { return nil }
func (panicker) next(int) (arrow.Array, error)                    { panic("bug") }
func (panicker) name() string                                     { return "broken" }

// TestDecodeBatchPanic checks that a field decoder's panic ends the read
// with an *Error naming the field and wrapping ErrInternal.
func TestDecodeBatchPanic(t *testing.T) {
	for _, parallelism := range []int{1, 2} {
		r := &Reader{rg: 3, plan: &readPlan{fields: []fieldDecoder{panicker{}, panicker{}}, order: []int{1, 0}},
			opts: ReadOptions{Parallelism: parallelism}}
		_, err := r.decodeBatch(10)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrInternal) || e.Column != "broken" || e.RowGroup != 3 {
			t.Fatalf("parallelism %d: got %v, want an *Error for column broken wrapping ErrInternal", parallelism, err)
		}
	}
}
