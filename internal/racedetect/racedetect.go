// Package racedetect tells tests whether they run under the race
// detector, so that a test whose work is sequential, or a sweep whose
// concurrent part a smaller sample already runs, can leave the repetition
// to the plain run. Under the detector a read takes several times its
// plain CPU time, and CI runs both.
package racedetect

import "testing"

// SkipSequential skips t under the race detector: why says what the test
// measures or sweeps that the plain run covers and the detector cannot
// add to (nothing in it runs on two goroutines at once, or its figures
// are the plain build's).
func SkipSequential(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip("race detector: " + why)
	}
}

// Sample returns every step-th element of s under the race detector and
// s whole otherwise.
func Sample[T any](s []T, step int) []T {
	if !Enabled || step <= 1 {
		return s
	}
	out := make([]T, 0, (len(s)+step-1)/step)
	for i := 0; i < len(s); i += step {
		out = append(out, s[i])
	}
	return out
}
