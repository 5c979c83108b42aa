package pagecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// plainByteArrayPage returns the PLAIN encoding of count random byte
// arrays of minLen..maxLen bytes, with their offsets and data. Bytes are
// random, high bits included.
func plainByteArrayPage(rng *rand.Rand, count, minLen, maxLen int) (page []byte, offs []int32, data []byte) {
	offs = []int32{0}
	for range count {
		l := minLen + rng.IntN(maxLen-minLen+1)
		for range l {
			data = append(data, byte(rng.Uint32()))
		}
		offs = append(offs, int32(len(data)))
	}
	return AppendPlainByteArray(nil, offs, data), offs, data
}

// TestPlainByteArrayOnePass compares the one-pass path (room in data) with
// the two-pass path (decodePlainByteArrayTwoPass alone) and with the
// values encoded, on random pages cut into random pieces: empty values,
// lengths 0..100 and long ones, data buffers without room, with a little
// and with much, truncated pages and an offset limit.
func TestPlainByteArrayOnePass(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 17))
	for iter := range 400 {
		count := rng.IntN(300)
		maxLen := []int{0, 1, 8, 31, 32, 33, 100, 129, 700}[rng.IntN(9)]
		page, offs, data := plainByteArrayPage(rng, count, 0, maxLen)
		// Cut: a truncated page now and then.
		trunc := rng.IntN(4) == 0 && len(page) > 0
		if trunc {
			page = page[:rng.IntN(len(page))]
		}
		// A prefix in data and offsets, as a batch's earlier pages leave.
		prefix := rng.IntN(40)
		slack := []int{0, 5, 32, 64, 1 << 10, len(page) + 64}[rng.IntN(6)]
		maxOffset := int64(math.MaxInt32)
		if rng.IntN(8) == 0 {
			maxOffset = int64(prefix + rng.IntN(len(data)+1))
		}
		name := fmt.Sprintf("iter=%d/count=%d/maxLen=%d/trunc=%v/slack=%d/limit=%d", iter, count, maxLen, trunc, slack, maxOffset)
		run := func(onePass bool) ([]int32, []byte, int, error) {
			d0 := make([]byte, prefix, prefix+slack)
			for i := range d0 {
				d0[i] = 'p'
			}
			o0 := []int32{0, int32(prefix)}
			var d PlainDecoder
			d.Reset(page)
			o, dd := o0, d0
			var err error
			for left := count; left > 0 && err == nil; {
				k := min(left, 1+rng.IntN(count))
				if onePass {
					o, dd, err = decodePlainByteArray(&d, o, dd, k, maxOffset)
				} else {
					o, dd, err = decodePlainByteArrayTwoPass(&d, o, dd, 0, k, maxOffset)
				}
				left -= k
			}
			return o, dd, d.pos, err
		}
		o1, d1, p1, err1 := run(true)
		o2, d2, p2, err2 := run(false)
		if (err1 == nil) != (err2 == nil) || errors.Is(err1, ErrLimit) != errors.Is(err2, ErrLimit) {
			t.Fatalf("%s: one pass: %v, two passes: %v", name, err1, err2)
		}
		// Past the offset limit the batch is abandoned (column.BatchFullError),
		// so what was decoded before it does not matter.
		if !errors.Is(err1, ErrLimit) && (p1 != p2 || !slices.Equal(o1, o2) || !bytes.Equal(d1, d2)) {
			t.Fatalf("%s: one pass (%v, pos %d, %d offsets, %d bytes) != two passes (%v, pos %d, %d offsets, %d bytes)",
				name, err1, p1, len(o1), len(d1), err2, p2, len(o2), len(d2))
		}
		if err1 != nil {
			if !errors.Is(err1, ErrCorrupt) && !errors.Is(err1, ErrLimit) {
				t.Fatalf("%s: %v, want ErrCorrupt or ErrLimit", name, err1)
			}
			if errors.Is(err1, ErrCorrupt) && !errors.Is(err1, io.ErrUnexpectedEOF) {
				t.Fatalf("%s: %v, want io.ErrUnexpectedEOF", name, err1)
			}
			continue
		}
		// Against the encoded values.
		if len(o1) != count+2 || !bytes.Equal(d1[prefix:], data) {
			t.Fatalf("%s: %d offsets, data %d bytes; want %d, %d", name, len(o1), len(d1), count+2, len(data))
		}
		for i := range offs {
			if o1[i+1] != int32(prefix)+offs[i] {
				t.Fatalf("%s: offset %d = %d, want %d", name, i, o1[i+1], int32(prefix)+offs[i])
			}
		}
	}
}

// TestPlainByteArrayBlocks checks the one-pass path's block copies
// against the bytes for every length 0..200 at every alignment of the
// value within a block, with the value last in the page (no room for a
// block past it in the source) and followed by 100 bytes.
func TestPlainByteArrayBlocks(t *testing.T) {
	for n := 0; n <= 200; n++ {
		for pad := 0; pad < 32; pad++ {
			for _, tail := range []int{0, 100} {
				// pad bytes of a first value, then the value of n bytes,
				// then a value of tail bytes.
				page := binary.LittleEndian.AppendUint32(nil, uint32(pad))
				page = append(page, bytes.Repeat([]byte{'p'}, pad)...)
				val := make([]byte, n)
				for i := range val {
					val[i] = byte(i*7 + 1)
				}
				page = binary.LittleEndian.AppendUint32(page, uint32(n))
				page = append(page, val...)
				page = binary.LittleEndian.AppendUint32(page, uint32(tail))
				page = append(page, bytes.Repeat([]byte{'t'}, tail)...)
				var d PlainDecoder
				d.Reset(page)
				offs, data, err := d.DecodeByteArray([]int32{0}, make([]byte, 3, 3+pad+n+tail+64), 3)
				if err != nil {
					t.Fatal(err)
				}
				want := append(append(append([]byte{0, 0, 0}, bytes.Repeat([]byte{'p'}, pad)...), val...), bytes.Repeat([]byte{'t'}, tail)...)
				if !bytes.Equal(data, want) || !slices.Equal(offs, []int32{0, int32(3 + pad), int32(3 + pad + n), int32(3 + pad + n + tail)}) {
					t.Fatalf("n=%d pad=%d tail=%d: got %v %v", n, pad, tail, offs, data)
				}
			}
		}
	}
}

// BenchmarkPlainByteArray decodes 64Ki strings into data with room (the
// steady state of a batch) with the one-pass path and the two-pass path;
// b.SetBytes is the string bytes.
func BenchmarkPlainByteArray(b *testing.B) {
	for _, lens := range [][2]int{{10, 40}, {40, 400}} {
		rng := rand.New(rand.NewPCG(1, 2))
		page, _, data := plainByteArrayPage(rng, benchN, lens[0], lens[1])
		for i := range data {
			data[i] &= 0x7f
		}
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, len(page)+64)
		for _, path := range []string{"onepass", "twopass"} {
			b.Run(fmt.Sprintf("len=%d-%d/path=%s", lens[0], lens[1], path), func(b *testing.B) {
				c0 := cpuNanos()
				defer func() {
					b.ReportMetric(float64(len(data))*float64(b.N)/(float64(cpuNanos()-c0)/1e9)/1e6, "cpu-MB/s")
				}()
				benchLoop(b, int64(len(data)), func() error {
					var d PlainDecoder
					d.Reset(page)
					var err error
					if path == "onepass" {
						_, _, err = decodePlainByteArray(&d, append(o[:0], 0), dd[:0], benchN, math.MaxInt32)
					} else {
						_, _, err = decodePlainByteArrayTwoPass(&d, append(o[:0], 0), dd[:0], 0, benchN, math.MaxInt32)
					}
					return err
				})
			})
		}
	}
}

// FuzzPlainByteArrayOnePass decodes hostile bytes with the one-pass path
// (data with room) and the two-pass path alone, in pieces, and wants the
// same values, position and error class.
func FuzzPlainByteArrayOnePass(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 3, 0, 0, 0, 'x', 'y', 'z'}, uint16(3), uint16(40), uint8(2))
	f.Add([]byte{40, 0, 0, 0, 'a'}, uint16(1), uint16(100), uint8(1))
	f.Fuzz(func(t *testing.T, page []byte, n, room uint16, piece uint8) {
		k := int(n % 2048)
		step := max(int(piece), 1)
		run := func(onePass bool) ([]int32, []byte, int, error) {
			var d PlainDecoder
			d.Reset(page)
			o, dd := []int32{0}, make([]byte, 0, int(room))
			var err error
			for left := k; left > 0 && err == nil; left -= step {
				if onePass {
					o, dd, err = decodePlainByteArray(&d, o, dd, min(step, left), math.MaxInt32)
				} else {
					o, dd, err = decodePlainByteArrayTwoPass(&d, o, dd, 0, min(step, left), math.MaxInt32)
				}
			}
			return o, dd, d.pos, err
		}
		o1, d1, p1, err1 := run(true)
		o2, d2, p2, err2 := run(false)
		if (err1 == nil) != (err2 == nil) || p1 != p2 || !slices.Equal(o1, o2) || !bytes.Equal(d1, d2) {
			t.Fatalf("one pass (%v, pos %d, %v, %q) != two passes (%v, pos %d, %v, %q)", err1, p1, o1, d1, err2, p2, o2, d2)
		}
		if err1 != nil && !errors.Is(err1, ErrCorrupt) {
			t.Fatalf("%v, want ErrCorrupt", err1)
		}
	})
}

// TestMove32 holds move32 equal to copy (memmove) for every overlap of
// source and destination within one buffer, and copy32 for disjoint ones.
func TestMove32(t *testing.T) {
	for shift := -40; shift <= 40; shift++ {
		buf := make([]byte, 128)
		for i := range buf {
			buf[i] = byte(i*7 + 1)
		}
		want := bytes.Clone(buf)
		copy(want[48+shift:48+shift+32], want[48:80])
		move32(buf[48+shift:], buf[48:])
		if !bytes.Equal(buf, want) {
			t.Fatalf("shift %d: move32 differs from copy", shift)
		}
	}
	src, dst := make([]byte, 40), make([]byte, 40)
	for i := range src {
		src[i] = byte(i + 1)
	}
	copy32(dst[3:], src[5:])
	if !bytes.Equal(dst[3:35], src[5:37]) || dst[2] != 0 || dst[35] != 0 {
		t.Fatalf("copy32: %v", dst)
	}
}
