package lifo

import (
	"slices"
	"sync"
	"testing"
)

func TestStackOrder(t *testing.T) {
	var s Stack[int]
	if _, ok := s.Pop(); ok {
		t.Fatal("Pop of an empty stack reported a value")
	}
	for i := range 5 {
		s.Push(i)
	}
	if v, ok := s.Pop(); !ok || v != 4 {
		t.Fatalf("Pop = %d, %v; want the last pushed, 4", v, ok)
	}
	if got := s.Drain(); !slices.Equal(got, []int{0, 1, 2, 3}) || s.Len() != 0 {
		t.Fatalf("Drain = %v (then %d held), want [0 1 2 3] and an empty stack", got, s.Len())
	}
}

// TestStackConcurrent pushes and pops from several goroutines: every value
// pushed is popped or drained exactly once.
func TestStackConcurrent(t *testing.T) {
	var s Stack[int]
	var mu sync.Mutex
	var seen []int
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				s.Push(g*1000 + i)
				if v, ok := s.Pop(); ok {
					mu.Lock()
					seen = append(seen, v)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	seen = append(seen, s.Drain()...)
	slices.Sort(seen)
	if len(seen) != 4000 || seen[0] != 0 || seen[3999] != 3999 || len(slices.Compact(slices.Clone(seen))) != 4000 {
		t.Fatalf("%d values back, want each of 4000 once", len(seen))
	}
}
