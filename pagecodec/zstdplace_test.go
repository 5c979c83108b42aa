package pagecodec

import (
	"bytes"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestZstdPlacementKnown holds zstdOffsetsCrossPage to the layout of the
// klauspost/compress in go.mod: it must find the repeat offsets of every
// block decoder (three int, 24 bytes on 64-bit) and leave the decoder
// whole. It fails after an upgrade that moves them, so that the look is
// updated rather than silently lost.
func TestZstdPlacementKnown(t *testing.T) {
	const n = 3
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(n))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, known := zstdOffsetsCrossPage(d); !known {
		t.Fatal("the repeat offsets of klauspost's frame decoders were not found: update zstdplace.go for this klauspost/compress")
	}
	// Every block decoder is back: n decodes at once all finish.
	want := bytes.Repeat([]byte("arrowpq zstd placement "), 5000)
	enc, _ := zstd.NewWriter(nil)
	frame := enc.EncodeAll(want, nil)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got, err := d.DecodeAll(frame, nil)
			if err == nil && !bytes.Equal(got, want) {
				err = errCorrupt("differs")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, known := zstdOffsetsCrossPage(sharedZstdOrFail(t)); !known {
		t.Fatal("shared decoder: repeat offsets not found")
	}
}

func sharedZstdOrFail(t *testing.T) *zstd.Decoder {
	d, err := sharedZstd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCrossesPage: hand-computed spans against 4 KiB pages.
func TestCrossesPage(t *testing.T) {
	for _, c := range []struct {
		addr, size uintptr
		want       bool
	}{
		{4072, 24, false}, // ends at 4095
		{4073, 24, true},
		{4080, 24, true}, // the slow case: the store of offsets 1 and 2 at 4088
		{4088, 24, true},
		{4096, 24, false},
		{0, 24, false},
		{8184, 16, true},
		{8192 - 16, 16, false},
		{4095, 0, false},
	} {
		if got := crossesPage(c.addr, c.size); got != c.want {
			t.Errorf("crossesPage(%d, %d) = %v, want %v", c.addr, c.size, got, c.want)
		}
	}
}

// TestChooseZstdDecoder: decoders placed badly are made again, closed once
// one is chosen, and the last try is taken whatever its placement.
func TestChooseZstdDecoder(t *testing.T) {
	for bad := 0; bad <= zstdPlacementTries+1; bad++ {
		var made []*zstd.Decoder
		newDec := func() (*zstd.Decoder, error) {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
			made = append(made, d)
			return d, err
		}
		got, err := chooseZstdDecoder(newDec, func(d *zstd.Decoder) bool { return len(made) <= bad })
		if err != nil {
			t.Fatal(err)
		}
		wantMade := min(bad+1, zstdPlacementTries)
		if len(made) != wantMade || got != made[len(made)-1] {
			t.Fatalf("%d badly placed: made %d decoders, chose #%d; want %d, the last", bad, len(made), indexOf(made, got), wantMade)
		}
		for i, d := range made {
			_, err := d.DecodeAll(nil, nil)
			if closed := err == zstd.ErrDecoderClosed; closed != (d != got) {
				t.Errorf("%d badly placed: decoder %d closed=%v (chosen: %v)", bad, i, closed, d == got)
			}
		}
		got.Close()
	}
}

func indexOf(ds []*zstd.Decoder, d *zstd.Decoder) int {
	for i, x := range ds {
		if x == d {
			return i
		}
	}
	return -1
}
