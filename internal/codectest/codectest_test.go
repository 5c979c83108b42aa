package codectest

import (
	"errors"
	"fmt"
	"testing"
)

func TestBatchesSum(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		for _, b := range [][]byte{nil, {0}, {3, 255}} {
			sum := 0
			for _, k := range Batches(n, b, 1) {
				if k < 1 || k > 256 {
					t.Fatalf("size %d", k)
				}
				sum += k
			}
			if sum != n {
				t.Fatalf("n %d: sizes sum to %d", n, sum)
			}
		}
	}
	// Byte 3 means batches of 4.
	if got := Batches(10, []byte{3}, 0); fmt.Sprint(got) != "[4 4 2]" {
		t.Fatalf("got %v", got)
	}
}

func TestCheckErrorAccepts(t *testing.T) {
	s := errors.New("corrupt")
	CheckError(t, nil, s)
	CheckError(t, fmt.Errorf("x: %w", s), s)
}
