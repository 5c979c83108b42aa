package levels

import (
	"bytes"
	"testing"
)

func TestGrowBitmap(t *testing.T) {
	b := GrowBitmap(nil, 0)
	if len(b) != 0 {
		t.Fatalf("0 bits: len %d", len(b))
	}
	b = GrowBitmap(b, 9) // 2 bytes
	if len(b) != 2 || b[0] != 0 || b[1] != 0 {
		t.Fatalf("9 bits: %v", b)
	}
	b[0], b[1] = 0xff, 0x01
	b = GrowBitmap(b, 17) // keeps content, adds a clear byte
	if want := []byte{0xff, 0x01, 0x00}; !bytes.Equal(b, want) {
		t.Fatalf("17 bits: %v, want %v", b, want)
	}
	// Growing within capacity clears bytes left over from earlier use.
	b = b[:1]
	b = GrowBitmap(b, 16)
	if want := []byte{0xff, 0x00}; !bytes.Equal(b, want) {
		t.Fatalf("regrown: %v, want %v", b, want)
	}
	if got := GrowBitmap(b, 3); len(got) != 2 {
		t.Fatalf("shrink request changed length to %d", len(got))
	}
}
