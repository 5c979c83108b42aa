package arrowpq

import (
	"testing"
	"unsafe"
)

// TestFreshDataGuess: the guess scales the last batch's bytes per row
// (at most to twice its bytes), adds a 128th and 1 KiB, widens the margin
// after a batch that outgrew it (up to a sixteenth) and narrows it after
// one that did not.
func TestFreshDataGuess(t *testing.T) {
	var d denseValues
	d.dataHint = 5000
	if g := d.freshDataGuess(100); g != 5000+5000/128+1024 {
		t.Fatalf("first guess %d", g)
	}
	d.lastData, d.lastRows = 128_000, 1000
	if g := d.freshDataGuess(500); g != 64_000+64_000/128+1024 {
		t.Fatalf("half the rows: guess %d", g)
	}
	if g := d.freshDataGuess(1_000_000); g != 256_000+256_000/128+1024 {
		t.Fatalf("many more rows: guess %d, want twice the last batch", g)
	}
	d.freshDataGuess(1000)
	for i, want := range []int{1, 2, 3, 3} {
		d.adaptMargin(d.guessCap + 1) // outgrew
		if d.marginUp != want {
			t.Fatalf("after %d short guesses marginUp = %d, want %d", i+1, d.marginUp, want)
		}
	}
	if g := d.freshDataGuess(1000); g != 128_000+128_000/16+1024 {
		t.Fatalf("widest margin: guess %d", g)
	}
	d.adaptMargin(128_000)
	if d.marginUp != 2 {
		t.Fatalf("after a good guess marginUp = %d", d.marginUp)
	}
}

// TestFreshData: data with at most an eighth of slack is handed over as
// is, cut to its length; more is copied to an exact buffer.
func TestFreshData(t *testing.T) {
	b := make([]byte, 800, 900)
	got := freshData(b).Buf()
	if unsafe.SliceData(got) != unsafe.SliceData(b) || len(got) != 800 || cap(got) != 800 {
		t.Fatalf("slack 100 of 800: len %d cap %d, same memory %v", len(got), cap(got), unsafe.SliceData(got) == unsafe.SliceData(b))
	}
	b = make([]byte, 800, 901)
	b[799] = 7
	got = freshData(b).Buf()
	if unsafe.SliceData(got) == unsafe.SliceData(b) || len(got) != 800 || got[799] != 7 {
		t.Fatalf("slack 101 of 800: not copied (len %d)", len(got))
	}
}
