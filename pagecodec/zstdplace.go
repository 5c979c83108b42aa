package pagecodec

import (
	"reflect"
	"unsafe"

	"github.com/klauspost/compress/zstd"
)

// klauspost's sequence loop (sequenceDecs_decodeSync_bmi2) keeps the three
// repeat offsets of a frame decoder in memory and stores them for every
// sequence. When that store crosses a 4 KiB page, the decoder takes ~1.5×
// the CPU on the same frames: the lineitem ZSTD pages in 167 ms instead of
// 111–114, strings in 343 instead of 188–200 (internal/zstdbench/_placement
// moves one frame decoder to chosen addresses and times each). Where a
// frame decoder lands is the heap's choice, and about one in twelve lands
// so: a process whose shared decoder drew one read every ZSTD file ~1.2–1.5×
// slower. newZstdDecoder therefore looks where the repeat offsets of each
// block decoder's frame decoder are, and makes another decoder while they
// cross a page. Checked: of 36 decoders made one after another, the 3 it
// calls crossing decoded 40 MB of text frames in 58-63 ms, the others in
// 33-37 (one run at 45-52), GOMAXPROCS=1.
//
// The look goes through unexported fields of klauspost/compress v1.20
// (Decoder.decoders, blockDec.localFrame, frameDec.history,
// history.decoders, sequenceDecs.prevOffset): it only reads addresses, and
// it takes the block decoders out of their channel and puts them back
// before the decoder is used by anyone. With another layout it finds
// nothing and accepts the decoder as it is (TestZstdPlacementKnown fails
// then, so that an upgrade notices).

// zstdPlacementTries is the most decoders newZstdDecoder makes: with one in
// twelve frame decoders badly placed and one per CPU, four tries all fail
// about once in ten thousand on 2 CPUs.
const zstdPlacementTries = 4

// newZstdDecoder returns a decoder made by newDec whose frame decoders all
// keep their repeat offsets within one 4 KiB page, when one of a few tries
// gives one (else the last).
func newZstdDecoder(newDec func() (*zstd.Decoder, error)) (*zstd.Decoder, error) {
	return chooseZstdDecoder(newDec, func(d *zstd.Decoder) bool {
		crossing, _ := zstdOffsetsCrossPage(d)
		return crossing
	})
}

// chooseZstdDecoder is newZstdDecoder with the test of a decoder's
// placement given.
func chooseZstdDecoder(newDec func() (*zstd.Decoder, error), badlyPlaced func(*zstd.Decoder) bool) (*zstd.Decoder, error) {
	var rejected []*zstd.Decoder
	defer func() {
		for _, d := range rejected {
			d.Close()
		}
	}()
	for try := 1; ; try++ {
		d, err := newDec()
		if err != nil || try == zstdPlacementTries {
			return d, err
		}
		if !badlyPlaced(d) {
			return d, nil
		}
		// Kept until a decoder is chosen, so that the next one is not
		// made in the memory this one is freed into.
		rejected = append(rejected, d)
	}
}

// zstdOffsetsCrossPage reports whether the repeat offsets of one of d's
// frame decoders cross a 4 KiB page; known is false when d's layout is not
// the one this reads, and nothing was looked at. d must not be in use.
func zstdOffsetsCrossPage(d *zstd.Decoder) (crossing, known bool) {
	ch, ok := field(reflect.ValueOf(d).Elem(), "decoders")
	if !ok || ch.Kind() != reflect.Chan {
		return false, false
	}
	var blocks []reflect.Value
	defer func() {
		for _, b := range blocks {
			ch.Send(b)
		}
	}()
	for range ch.Len() {
		b, ok := ch.TryRecv()
		if !ok {
			break
		}
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return false, false
	}
	for _, b := range blocks {
		offsets, ok := repeatOffsets(b)
		if !ok {
			return false, false
		}
		if crossesPage(offsets.UnsafeAddr(), offsets.Type().Size()) {
			crossing = true
		}
	}
	return crossing, true
}

// repeatOffsets returns the prevOffset array of block decoder b's frame
// decoder (b a *blockDec).
func repeatOffsets(b reflect.Value) (reflect.Value, bool) {
	v := b
	for _, name := range []string{"localFrame", "history", "decoders", "prevOffset"} {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		var ok bool
		if v, ok = field(v, name); !ok {
			return reflect.Value{}, false
		}
	}
	if v.Kind() != reflect.Array || !v.CanAddr() {
		return reflect.Value{}, false
	}
	return v, true
}

// field returns the field name of the addressable struct s, usable
// although unexported.
func field(s reflect.Value, name string) (reflect.Value, bool) {
	f := s.FieldByName(name)
	if !f.IsValid() || !f.CanAddr() {
		return reflect.Value{}, false
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), true
}

// crossesPage reports whether the size bytes at addr span two 4 KiB pages.
func crossesPage(addr, size uintptr) bool {
	return size > 0 && addr/4096 != (addr+size-1)/4096
}
