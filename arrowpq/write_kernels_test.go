package arrowpq

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestGatherRunsAgainstPerValue: copying runs of consecutive indices gives
// the values a copy per value gives, for index sets with and without gaps,
// from an offsets slice that does not start at 0.
func TestGatherRunsAgainstPerValue(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for trial := range 500 {
		n := 1 + r.IntN(60)
		offs := []int32{int32(r.IntN(5))}
		data := make([]byte, offs[0])
		for range n {
			for range r.IntN(7) {
				data = append(data, byte(r.IntN(256)))
			}
			offs = append(offs, int32(len(data)))
		}
		var idx []int64
		gap := 1 + r.IntN(4)
		for j := 0; j < n; j++ {
			if r.IntN(gap) == 0 {
				idx = append(idx, int64(j))
			}
		}
		if len(idx) == 0 {
			continue
		}
		var so []int32
		var sd []byte
		gotOffs, gotData := gatherRuns(&so, &sd, offs, data, idx)
		if len(gotOffs) != len(idx)+1 || gotOffs[0] != 0 {
			t.Fatalf("trial %d: offsets %v", trial, gotOffs)
		}
		for i, j := range idx {
			want := data[offs[j]:offs[j+1]]
			if got := gotData[gotOffs[i]:gotOffs[i+1]]; !bytes.Equal(got, want) {
				t.Fatalf("trial %d: value %d (index %d) is %x, want %x", trial, i, j, got, want)
			}
		}
		if int(gotOffs[len(idx)]) != len(gotData) {
			t.Fatalf("trial %d: %d data bytes, offsets end at %d", trial, len(gotData), gotOffs[len(idx)])
		}
	}
}
