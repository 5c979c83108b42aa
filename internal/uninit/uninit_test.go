package uninit

import "testing"

// TestBytes: n bytes, capacity cut at n (bytes past it are not reachable),
// writable, and an empty slice for n ≤ 0.
func TestBytes(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 7, 4096, 1 << 20} {
		b := Bytes(n)
		want := max(n, 0)
		if len(b) != want || cap(b) != want {
			t.Fatalf("Bytes(%d): len %d cap %d, want %d", n, len(b), cap(b), want)
		}
		for i := range b {
			b[i] = byte(i)
		}
		for i := range b {
			if b[i] != byte(i) {
				t.Fatalf("Bytes(%d): byte %d reads %d after writing %d", n, i, b[i], byte(i))
			}
		}
	}
}
