package column

import "testing"

// TestBufferCacheBestFit: take returns the smallest buffer that holds the
// page, else the largest, else nil.
func TestBufferCacheBestFit(t *testing.T) {
	var c BufferCache
	for _, n := range []int{1000, 4000, 2000} {
		c.Give(make([]byte, 10, n))
	}
	c.Give(nil)
	for _, tc := range []struct{ want, cap int }{{1500, 2000}, {5000, 4000}, {0, 1000}, {1, 0}} {
		b := c.Take(tc.want)
		if cap(b) != tc.cap || len(b) != 0 {
			t.Fatalf("take(%d): len %d cap %d, want cap %d", tc.want, len(b), cap(b), tc.cap)
		}
	}
}
