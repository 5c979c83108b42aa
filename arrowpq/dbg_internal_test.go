package arrowpq

import (
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestDbgX(t *testing.T) {
	for _, b := range []byte{'a', 0x80, 0xff, 1} {
		t.Logf("%x: %x %x", b, xxhash64([]byte{b}), xxhash.Sum64([]byte{b}))
	}
}
