//go:build linux

package snappy

import (
	"bytes"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"

	ref "github.com/golang/snappy"
)

// guarded returns n bytes of fresh memory that end (atEnd) or start right
// at an inaccessible page: a decoder that reads or writes one byte outside
// them faults, where it could go unnoticed inside a Go heap slice's
// capacity or neighbour.
func guarded(t *testing.T, n int, atEnd bool) []byte {
	ps := os.Getpagesize()
	data := (n + ps - 1) / ps * ps
	mem, err := syscall.Mmap(-1, 0, data+2*ps, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:ps], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[ps+data:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	if atEnd {
		return mem[ps+data-n : ps+data : ps+data]
	}
	return mem[ps : ps+n : ps+n]
}

// TestGuardPages decodes valid, truncated and corrupted blocks from src and
// into dst placed against inaccessible pages, both ends, with the assembly
// loop and the pure-Go decoder, and checks the outcome against
// golang/snappy's.
func TestGuardPages(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	var blocks [][]byte
	for range 40 {
		var b blockBuilder
		b.literal(randBytes(r, 1+r.IntN(100), 4), 0)
		for range 1 + r.IntN(120) {
			if r.IntN(3) == 0 {
				b.literal(randBytes(r, 1+r.IntN(90), 4), 0)
				continue
			}
			kind := []int{1, 2, 4}[r.IntN(3)]
			offset := 1 + r.IntN(min(len(b.want), 80))
			length := 1 + r.IntN(64)
			if kind == 1 {
				length = 4 + r.IntN(8)
			}
			b.copyElem(kind, offset, length)
		}
		src := b.block()
		blocks = append(blocks, src)
		for range 8 {
			c := bytes.Clone(src)
			c[r.IntN(len(c))] ^= byte(1 + r.IntN(255))
			blocks = append(blocks, c, src[:r.IntN(len(src))])
		}
	}
	// Long elements up to the last byte: the widest moves closest to the
	// ends of src and dst. Copies expand 3 bytes of src into up to 64 of
	// dst: with those last, the room in dst is what stops the fast loop,
	// and the padding literal puts every element at every distance from
	// the end.
	for _, offset := range []int{1, 3, 7, 8, 12, 16, 20, 64, 100} {
		for pad := range 64 {
			var b blockBuilder
			b.literal(randBytes(r, 150, 256), 1)
			b.literal(randBytes(r, 1+pad, 256), 0)
			for k := range 3 {
				b.copyElem(2, offset, 64)
				b.literal(randBytes(r, 60, 256), 0)
				b.copyElem(1, min(offset, 2047), 4+k)
			}
			for k := range 30 {
				b.copyElem(2, offset, 64-k%2*(pad%16))
			}
			blocks = append(blocks, b.block())
		}
	}
	// Literals of up to 64 bytes with every length encoding, last: the
	// room in src is what stops the fast loop.
	for extra := range 5 {
		for pad := range 16 {
			var b blockBuilder
			b.literal(randBytes(r, 100, 256), 1)
			b.literal(randBytes(r, 1+pad, 256), 0)
			for k := range 12 {
				b.literal(randBytes(r, 64-k%2*pad, 256), extra)
			}
			blocks = append(blocks, b.block())
		}
	}
	// Random short elements of every encoding: every element kind ends
	// up at every distance from the ends.
	for range 1500 {
		var b blockBuilder
		b.literal(randBytes(r, 1+r.IntN(80), 256), 0)
		for range 20 + r.IntN(40) {
			if r.IntN(2) == 0 {
				b.literal(randBytes(r, 1+r.IntN(64), 256), r.IntN(5))
				continue
			}
			kind := []int{1, 2, 4}[r.IntN(3)]
			length := 1 + r.IntN(64)
			if kind == 1 {
				length = 4 + r.IntN(8)
			}
			b.copyElem(kind, 1+r.IntN(min(len(b.want), 40)), length)
		}
		blocks = append(blocks, b.block())
	}
	for _, p := range [][]byte{randBytes(r, 5000, 3), bytes.Repeat([]byte("abcdefg"), 700)} {
		blocks = append(blocks, ref.Encode(nil, p))
	}
	for i, src := range blocks {
		want, wantErr := ref.Decode(nil, src)
		n, h, err := decodedLen(src)
		if err != nil || n > 1<<20 {
			continue
		}
		for _, srcAtEnd := range []bool{true, false} {
			for _, dstAtEnd := range []bool{true, false} {
				gs := guarded(t, len(src), srcAtEnd)
				copy(gs, src)
				gd := guarded(t, n, dstAtEnd)
				err := DecodeInto(gd, gs)
				if (err != nil) != (wantErr != nil) || err == nil && !bytes.Equal(gd, want) {
					t.Fatalf("block %d: DecodeInto err %v, golang/snappy %v", i, err, wantErr)
				}
				ok := decodeGeneric(gd, gs[h:], 0, 0)
				if ok != (wantErr == nil) || ok && !bytes.Equal(gd, want) {
					t.Fatalf("block %d: decodeGeneric ok=%v, golang/snappy %v", i, ok, wantErr)
				}
			}
		}
	}
}
