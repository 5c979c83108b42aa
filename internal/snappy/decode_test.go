package snappy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	ref "github.com/golang/snappy"
)

// blockBuilder writes Snappy elements by hand and keeps the output they
// stand for, computed here byte by byte: an oracle independent of both
// decoders.
type blockBuilder struct {
	elems []byte
	want  []byte
}

// literal appends a literal with its length in the given number of extra
// bytes (0: in the tag; 1 instead when the length needs it).
func (b *blockBuilder) literal(p []byte, extra int) {
	x := len(p) - 1
	if extra == 0 && x >= 60 {
		extra = 1
	}
	if extra == 0 {
		b.elems = append(b.elems, byte(x<<2))
	} else {
		b.elems = append(b.elems, byte((59+extra)<<2))
		for i := range extra {
			b.elems = append(b.elems, byte(x>>(8*i)))
		}
	}
	b.elems = append(b.elems, p...)
	b.want = append(b.want, p...)
}

// copyElem appends a copy of kind 1, 2 or 4 (bytes of offset).
func (b *blockBuilder) copyElem(kind, offset, length int) {
	switch kind {
	case 1:
		b.elems = append(b.elems, byte(1|(length-4)<<2|(offset>>8)<<5), byte(offset))
	case 2:
		b.elems = append(b.elems, byte(2|(length-1)<<2), byte(offset), byte(offset>>8))
	default:
		b.elems = binary.LittleEndian.AppendUint32(append(b.elems, byte(3|(length-1)<<2)), uint32(offset))
	}
	for range length {
		b.want = append(b.want, b.want[len(b.want)-offset])
	}
}

func (b *blockBuilder) block() []byte {
	return append(binary.AppendUvarint(nil, uint64(len(b.want))), b.elems...)
}

// checkBlock decodes src with every path and golang/snappy and checks that
// they agree with each other and, when want is not nil, with want.
func checkBlock(t *testing.T, src, want []byte) {
	t.Helper()
	refOut, refErr := ref.Decode(nil, src)
	if want != nil {
		if refErr != nil {
			t.Fatalf("golang/snappy rejects the block: %v", refErr)
		}
		if !bytes.Equal(refOut, want) {
			t.Fatalf("golang/snappy disagrees with the builder")
		}
	}
	got, err := Decode(nil, src)
	if (err != nil) != (refErr != nil) {
		t.Fatalf("Decode error %v, golang/snappy %v", err, refErr)
	}
	if err == nil && !bytes.Equal(got, refOut) {
		t.Fatalf("Decode output differs from golang/snappy at byte %d of %d", firstDiff(got, refOut), len(refOut))
	}
	n, h, lerr := decodedLen(src)
	if lerr != nil {
		if refErr == nil {
			t.Fatalf("header rejected: %v", lerr)
		}
		return
	}
	if n > 1<<24 {
		return
	}
	// Garbage in dst must not show through.
	dst := bytes.Repeat([]byte{0xa5}, n)
	ok := decodeGeneric(dst, src[h:], 0, 0)
	if ok != (refErr == nil) || ok && !bytes.Equal(dst, refOut) {
		t.Fatalf("decodeGeneric ok=%v, golang/snappy err %v (outputs equal: %v)", ok, refErr, bytes.Equal(dst, refOut))
	}
	dst = bytes.Repeat([]byte{0x5a}, n)
	err = DecodeInto(dst, src)
	if (err != nil) != (refErr != nil) || err == nil && !bytes.Equal(dst, refOut) {
		t.Fatalf("DecodeInto err %v, golang/snappy %v", err, refErr)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func randBytes(r *rand.Rand, n, alphabet int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.IntN(alphabet))
	}
	return p
}

// TestCopyOffsets checks overlapping and plain copies at every offset 1..70
// and every length of each copy kind, behind enough history and with output
// before and after, so that both the assembly loop and the tail decode them.
func TestCopyOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, kind := range []int{1, 2, 4} {
		lengths := []int{1, 64}
		if kind == 1 {
			lengths = []int{4, 11}
		}
		for offset := 1; offset <= 70; offset++ {
			t.Run(fmt.Sprintf("kind=%d/offset=%d", kind, offset), func(t *testing.T) {
				for length := lengths[0]; length <= lengths[1]; length++ {
					for _, tail := range []int{0, 7, 100} {
						var b blockBuilder
						b.literal(randBytes(r, offset+r.IntN(3), 256), 0)
						b.copyElem(kind, offset, length)
						b.copyElem(kind, offset, length)
						if tail > 0 {
							b.literal(randBytes(r, tail, 256), 1)
						}
						checkBlock(t, b.block(), b.want)
					}
				}
			})
		}
	}
}

// TestLiterals checks every literal length encoding, lengths around the
// 16- and 64-byte moves and the fast loop's room, and long literals.
func TestLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 15, 16, 17, 31, 32, 33, 48, 49, 60, 63, 64, 65, 71, 72, 73, 79, 80, 81, 255, 256, 257, 1000, 65535, 65536, 65537, 1 << 20} {
		for extra := 0; extra <= 4; extra++ {
			if extra == 0 && n > 60 || extra == 1 && n > 256 || extra == 2 && n > 65536 {
				continue
			}
			for _, lead := range []int{0, 1, 90} {
				t.Run(fmt.Sprintf("n=%d/extra=%d/lead=%d", n, extra, lead), func(t *testing.T) {
					var b blockBuilder
					if lead > 0 {
						b.literal(randBytes(r, lead, 256), 2)
					}
					b.literal(randBytes(r, n, 256), extra)
					b.literal(randBytes(r, 5, 256), 0)
					b.literal(randBytes(r, 100, 256), 0+1)
					checkBlock(t, b.block(), b.want)
				})
			}
		}
	}
}

// TestRandomElements decodes random sequences of every element kind, long
// enough that the assembly loop runs and stops for lack of room in src or
// in dst at any element.
func TestRandomElements(t *testing.T) {
	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 5))
	for i := range 3000 {
		var b blockBuilder
		b.literal(randBytes(r, 1+r.IntN(80), 4), 0)
		for range r.IntN(200) {
			switch k := r.IntN(10); {
			case k < 3:
				n := 1 + r.IntN(100)
				if r.IntN(20) == 0 {
					n += r.IntN(5000)
				}
				extra := 1 + r.IntN(4)
				if n <= 60 && r.IntN(2) == 0 {
					extra = 0
				} else if n > 256 && extra == 1 {
					extra = 2
				}
				b.literal(randBytes(r, n, 1+r.IntN(256)), extra)
			default:
				kind := []int{1, 2, 4}[r.IntN(3)]
				offset := 1 + r.IntN(min(len(b.want), 100))
				if r.IntN(4) == 0 {
					offset = 1 + r.IntN(len(b.want))
				}
				if kind == 1 && offset >= 2048 {
					kind = 2
				}
				if kind == 2 && offset >= 65536 {
					kind = 4
				}
				length := 1 + r.IntN(64)
				if kind == 1 {
					length = 4 + r.IntN(8)
				}
				b.copyElem(kind, offset, length)
			}
		}
		src := b.block()
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkBlock(t, src, b.want) })
		if t.Failed() {
			return
		}
	}
}

// TestEncoded decodes what golang/snappy's encoder (and s2's Snappy
// encoders) make of random and repetitive data of many sizes.
func TestEncoded(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	for _, n := range []int{0, 1, 10, 71, 72, 79, 80, 81, 100, 1000, 4096, 65536, 1 << 20} {
		for _, alphabet := range []int{1, 2, 4, 26, 256} {
			p := randBytes(r, n, alphabet)
			checkBlock(t, ref.Encode(nil, p), p)
		}
		// Text-like: words from a small vocabulary.
		var p []byte
		words := []string{"lorem", "ipsum", "dolor", "sit", "amet", "2026-11-25", "DELIVER IN PERSON", "TRUCK", "0.04"}
		for len(p) < n {
			p = append(p, words[r.IntN(len(words))]...)
			p = append(p, ' ')
		}
		p = p[:n]
		checkBlock(t, ref.Encode(nil, p), p)
	}
}

// TestTruncatedAndCorrupted cuts valid blocks at every byte and flips bytes
// one at a time: the decoders must agree with golang/snappy on each.
func TestTruncatedAndCorrupted(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	var b blockBuilder
	b.literal(randBytes(r, 100, 8), 2)
	for range 60 {
		b.copyElem([]int{1, 2, 4}[r.IntN(3)], 1+r.IntN(90), 4+r.IntN(8))
		b.literal(randBytes(r, 1+r.IntN(70), 8), 0)
	}
	src := b.block()
	checkBlock(t, src, b.want)
	for i := range src {
		checkBlock(t, src[:i], nil)
	}
	for i := range src {
		c := bytes.Clone(src)
		for _, v := range []byte{0, 0xff, c[i] ^ 1, c[i] ^ 0x80, c[i] + 4} {
			c[i] = v
			checkBlock(t, c, nil)
		}
	}
}

func TestHeader(t *testing.T) {
	for _, tc := range []struct {
		src  []byte
		want error
	}{
		{nil, ErrCorrupt},
		{[]byte{0x80}, ErrCorrupt},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x10}, ErrCorrupt}, // 2^32
		{[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, ErrCorrupt},
	} {
		if _, err := Decode(nil, tc.src); !errors.Is(err, tc.want) {
			t.Errorf("Decode(%x) = %v, want %v", tc.src, err, tc.want)
		}
		if _, err := DecodedLen(tc.src); !errors.Is(err, tc.want) {
			t.Errorf("DecodedLen(%x) = %v, want %v", tc.src, err, tc.want)
		}
	}
	// An empty block decodes to nothing; a length with no elements is
	// corrupt; DecodeInto wants the exact length.
	if out, err := Decode(nil, []byte{0}); err != nil || len(out) != 0 {
		t.Errorf("empty block: %v, %d bytes", err, len(out))
	}
	if _, err := Decode(nil, []byte{3}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("3 bytes promised, none given: %v", err)
	}
	if err := DecodeInto(make([]byte, 4), ref.Encode(nil, []byte("abc"))); !errors.Is(err, ErrCorrupt) {
		t.Errorf("DecodeInto with a longer dst: %v", err)
	}
}

// TestPages decodes page bodies dumped from the benchmark files
// (ARROWPQ_SNAPPY_PAGES, see BenchmarkDecode).
func TestPages(t *testing.T) {
	for _, name := range pageFiles(t) {
		for i, p := range readPages(t, name) {
			checkBlock(t, p, nil)
			if t.Failed() {
				t.Fatalf("%s page %d", name, i)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{0, 100, 300} {
		f.Add(ref.Encode(nil, randBytes(r, n, 3)))
		f.Add(ref.Encode(nil, bytes.Repeat([]byte("0123456789abcdefgh"), n/10)))
	}
	var b blockBuilder
	b.literal(randBytes(r, 90, 8), 1)
	for k := range 40 {
		b.copyElem([]int{1, 2, 4}[k%3], 1+k%9, 4+k%8)
		b.literal(randBytes(r, 1+k, 8), k%2)
	}
	f.Add(b.block())
	f.Fuzz(func(t *testing.T, src []byte) {
		if n, err := DecodedLen(src); err == nil && n > 1<<20 {
			return
		}
		checkBlock(t, src, nil)
	})
}

// TestLongBlocks decodes random element streams of several hundred KiB,
// the size of real pages, with copies reaching back up to the start of
// the block (4-byte offsets past 64 KiB) and literals of 2-byte lengths
// between them.
func TestLongBlocks(t *testing.T) {
	seed := uint64(os.Getpid())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 11))
	for i := range 12 {
		var b blockBuilder
		b.literal(randBytes(r, 1+r.IntN(80), 4), 0)
		for len(b.want) < 200<<10+r.IntN(200<<10) {
			if r.IntN(8) == 0 {
				n := 1 + r.IntN(300)
				b.literal(randBytes(r, n, 1+r.IntN(256)), 2)
				continue
			}
			offset := 1 + r.IntN(min(len(b.want), 100))
			if r.IntN(4) == 0 {
				offset = 1 + r.IntN(len(b.want))
			}
			kind := 2
			if offset >= 65536 {
				kind = 4
			}
			b.copyElem(kind, offset, 1+r.IntN(64))
		}
		src := b.block()
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkBlock(t, src, b.want) })
		if t.Failed() {
			return
		}
	}
}
