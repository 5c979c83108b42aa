package pagecodec

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGatherByteArrayShort checks the short-value gather against
// GatherByteArray on random dictionaries of values up to 16 bytes, and a
// hand-written case.
func TestGatherByteArrayShort(t *testing.T) {
	dictOffs := []int32{0, 1, 2, 2, 5}
	dictData := append([]byte("ANxyz"), make([]byte, 16)...)
	offs, data, err := GatherByteArrayShort([]int32{0}, []byte{}, dictOffs, dictData, []int32{3, 0, 2, 1, 3}, 3)
	if err != nil || string(data) != "xyzANxyz" || !slices.Equal(offs, []int32{0, 3, 4, 4, 5, 8}) {
		t.Fatalf("got %q %v %v", data, offs, err)
	}
	if _, _, err := GatherByteArrayShort([]int32{0}, nil, dictOffs, dictData, []int32{1, 4}, 3); !errors.Is(err, ErrCorrupt) {
		t.Errorf("index 4 of 4 values: %v", err)
	}
	if _, _, err := GatherByteArrayShort([]int32{0}, nil, dictOffs, dictData, []int32{3}, 2); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a value longer than maxLen: %v", err)
	}

	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 500; iter++ {
		maxLen := rng.IntN(17)
		n := 1 + rng.IntN(20)
		offs := []int32{0}
		var vals []byte
		for range n {
			l := rng.IntN(maxLen + 1)
			for range l {
				vals = append(vals, byte('a'+rng.IntN(26)))
			}
			offs = append(offs, int32(len(vals)))
		}
		slack := 16
		if iter%5 == 0 {
			slack = rng.IntN(16) // too little slack: the general path
		}
		dict := append(vals, make([]byte, slack)...)
		idx := make([]int32, rng.IntN(200))
		for i := range idx {
			idx[i] = int32(rng.IntN(n))
		}
		prefix := []byte("prefix")
		wantOff, wantData, err := GatherByteArray([]int32{0, 6}, slices.Clone(prefix), offs, dict, idx)
		if err != nil {
			t.Fatal(err)
		}
		gotOff, gotData, err := GatherByteArrayShort([]int32{0, 6}, slices.Clone(prefix), offs, dict, idx, maxLen)
		if err != nil || !slices.Equal(gotOff, wantOff) || string(gotData) != string(wantData) {
			t.Fatalf("maxLen %d, slack %d: %v\n got %q %v\nwant %q %v", maxLen, slack, err, gotData, gotOff, wantData, wantOff)
		}
	}
}
