package arrowpq

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/arrowpq/arrowpq/pagecodec"
)

// TestByteArrayMinMaxAgainstCompare: the prefix-key min/max of byte
// arrays equals a bytes.Compare scan, for values that share 8-byte
// prefixes, are prefixes of one another, end in zero bytes or sit at the
// end of the data buffer (no 8 bytes to load).
func TestByteArrayMinMaxAgainstCompare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	alphabet := []byte{0, 1, 'a', 'b', 0x7f, 0x80, 0xff}
	for trial := range 3000 {
		n := 1 + r.IntN(12)
		offs := []int32{0}
		var data []byte
		for range n {
			l := r.IntN(24)
			if r.IntN(3) == 0 && len(data) > 0 {
				// A prefix of the previous value, possibly extended.
				prev := data[offs[len(offs)-2]:]
				data = append(data, prev[:min(len(prev), l)]...)
			} else {
				for range l {
					data = append(data, alphabet[r.IntN(len(alphabet))])
				}
			}
			offs = append(offs, int32(len(data)))
		}
		data = data[:len(data):len(data)]
		lo, hi := byteArrayMinMax(offs, data)
		wlo, whi := data[offs[0]:offs[1]], data[offs[0]:offs[1]]
		for i := 1; i < n; i++ {
			v := data[offs[i]:offs[i+1]]
			if bytes.Compare(v, wlo) < 0 {
				wlo = v
			}
			if bytes.Compare(v, whi) > 0 {
				whi = v
			}
		}
		if !bytes.Equal(lo, wlo) || !bytes.Equal(hi, whi) {
			t.Fatalf("trial %d: min %q max %q, want %q %q (offsets %v, data %q)", trial, lo, hi, wlo, whi, offs, data)
		}
		// The same values PLAIN encoded, as the direct gather leaves them.
		plain := pagecodec.AppendPlainByteArray(nil, offs, data)
		plain = plain[:len(plain):len(plain)]
		if plo, phi := plainByteArrayMinMax(plain); !bytes.Equal(plo, wlo) || !bytes.Equal(phi, whi) {
			t.Fatalf("trial %d: PLAIN min %q max %q, want %q %q", trial, plo, phi, wlo, whi)
		}
		a, b := newBloomFilter(256), newBloomFilter(256)
		a.insertByteArray(offs, data)
		b.insertPlainByteArray(plain)
		ab, _ := a.appendTo(nil)
		bb, _ := b.appendTo(nil)
		if !bytes.Equal(ab, bb) {
			t.Fatalf("trial %d: bloom filter from PLAIN values differs", trial)
		}
	}
}

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
