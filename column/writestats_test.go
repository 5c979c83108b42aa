package column

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
	}
}
