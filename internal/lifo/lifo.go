// Package lifo is a stack safe for concurrent use: the readers of one file
// lend scratch objects (page decoders, levels assemblers) through it, the
// last one given taken first.
package lifo

import "sync"

// Stack holds values given back for later takers. The zero value is an
// empty stack.
type Stack[T any] struct {
	mu    sync.Mutex
	items []T
}

// Push puts v on the stack.
func (s *Stack[T]) Push(v T) {
	s.mu.Lock()
	s.items = append(s.items, v)
	s.mu.Unlock()
}

// Pop takes the value pushed last; ok is false when the stack is empty.
func (s *Stack[T]) Pop() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.items)
	if n == 0 {
		return v, false
	}
	v = s.items[n-1]
	var zero T
	s.items[n-1] = zero // the stack no longer keeps it alive
	s.items = s.items[:n-1]
	return v, true
}

// Drain empties the stack and returns what it held.
func (s *Stack[T]) Drain() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	items := s.items
	s.items = nil
	return items
}

// Len is the number of values held.
func (s *Stack[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}
