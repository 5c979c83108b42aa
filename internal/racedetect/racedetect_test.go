package racedetect

import (
	"slices"
	"testing"
)

func TestSample(t *testing.T) {
	s := []int{0, 1, 2, 3, 4, 5, 6}
	got := Sample(s, 3)
	want := s
	if Enabled {
		want = []int{0, 3, 6}
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sample(%v, 3) = %v, want %v (race detector on: %v)", s, got, want, Enabled)
	}
	if got := Sample(s, 1); !slices.Equal(got, s) {
		t.Errorf("Sample(%v, 1) = %v", s, got)
	}
}
