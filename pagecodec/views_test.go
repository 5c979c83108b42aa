package pagecodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
)

// viewHeaders reads views as arrow-go's ViewHeader, its reading of the
// columnar format's layout, not ours.
func viewHeaders(t *testing.T, views []uint64) []arrow.ViewHeader {
	t.Helper()
	if len(views)%2 != 0 {
		t.Fatalf("%d words of views", len(views))
	}
	out := make([]arrow.ViewHeader, len(views)/2)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*arrow.ViewHeaderSizeBytes)
	for i, w := range views {
		binary.LittleEndian.PutUint64(raw[8*i:], w)
	}
	return out
}

// checkViews checks views against values: each view's length, its inline
// bytes (zero-padded: the padding is compared too) or its prefix, buffer
// and the bytes at its offset there.
func checkViews(t *testing.T, views []uint64, values [][]byte, bufs [][]byte) {
	t.Helper()
	hs := viewHeaders(t, views)
	if len(hs) != len(values) {
		t.Fatalf("%d views, want %d", len(hs), len(values))
	}
	for i := range hs {
		h, v := &hs[i], values[i]
		if h.Len() != len(v) {
			t.Fatalf("view %d: length %d, want %d", i, h.Len(), len(v))
		}
		if len(v) <= ViewInlineSize {
			if !h.IsInline() {
				t.Fatalf("view %d of %d bytes is not inline", i, len(v))
			}
			var pad [ViewInlineSize]byte
			copy(pad[:], v)
			raw := unsafe.Slice((*byte)(unsafe.Pointer(h)), arrow.ViewHeaderSizeBytes)
			if !bytes.Equal(raw[4:], pad[:]) {
				t.Fatalf("view %d: inline bytes %q, want %q zero-padded", i, raw[4:], v)
			}
			continue
		}
		if h.IsInline() {
			t.Fatalf("view %d of %d bytes is inline", i, len(v))
		}
		if p := h.Prefix(); !bytes.Equal(p[:], v[:4]) {
			t.Fatalf("view %d: prefix %q, want %q", i, p, v[:4])
		}
		b, off := int(h.BufferIndex()), int(h.BufferOffset())
		if b >= len(bufs) || off+len(v) > len(bufs[b]) {
			t.Fatalf("view %d: buffer %d offset %d beyond the buffers", i, b, off)
		}
		if got := bufs[b][off : off+len(v)]; !bytes.Equal(got, v) {
			t.Fatalf("view %d: %q in buffer %d at %d, want %q", i, got, b, off, v)
		}
	}
}

// plainPage is the PLAIN encoding of values, from the spec: a 4-byte
// little-endian length, then the bytes.
func plainPage(values [][]byte) []byte {
	var page []byte
	for _, v := range values {
		page = binary.LittleEndian.AppendUint32(page, uint32(len(v)))
		page = append(page, v...)
	}
	return page
}

// TestDecodeByteArrayViews decodes PLAIN pages of values of every length
// around the inline limit (0 to 40 bytes, and the last values of a page,
// where the whole-word reads of short values would run past it) in steps
// of random sizes, into views of two buffer indices.
func TestDecodeByteArrayViews(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	for round := range 200 {
		values := make([][]byte, rng.IntN(60))
		for i := range values {
			values[i] = make([]byte, rng.IntN(41))
			for j := range values[i] {
				values[i][j] = byte(rng.IntN(256))
			}
		}
		page := plainPage(values)
		page = page[:len(page):len(page)]
		buf := uint32(round % 3)
		var d PlainDecoder
		d.Reset(page)
		var views []uint64
		for done := 0; done < len(values); {
			k := min(1+rng.IntN(8), len(values)-done)
			var err error
			if views, err = d.DecodeByteArrayViews(views, k, buf); err != nil {
				t.Fatal(err)
			}
			done += k
		}
		bufs := make([][]byte, buf+1)
		bufs[buf] = page
		checkViews(t, views, values, bufs)
		if d.Remaining() != 0 {
			t.Fatalf("%d bytes left", d.Remaining())
		}
	}
}

// TestDecodeByteArrayViewsTruncated: a page that ends inside a value's
// length or bytes is corrupt and an unexpected EOF, with the views of the
// values before it.
func TestDecodeByteArrayViewsTruncated(t *testing.T) {
	values := [][]byte{[]byte("short"), []byte("a value longer than twelve"), []byte("x")}
	page := plainPage(values)
	for cut := range len(page) {
		var d PlainDecoder
		d.Reset(page[:cut])
		views, err := d.DecodeByteArrayViews(nil, len(values), 0)
		if !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v, want a corrupt unexpected EOF", cut, err)
		}
		whole := 0
		for end := 0; whole < len(values); whole++ {
			end += 4 + len(values[whole])
			if end > cut {
				break
			}
		}
		checkViews(t, views, values[:whole], [][]byte{page})
	}
}

// TestAppendViews makes the views of offsets and data as DecodeByteArray
// returns them.
func TestAppendViews(t *testing.T) {
	values := [][]byte{{}, []byte("twelve bytes"), []byte("thirteen byte"), []byte("é"), bytes.Repeat([]byte("ab"), 40)}
	var d PlainDecoder
	d.Reset(plainPage(values))
	offsets, data, err := d.DecodeByteArray([]int32{0}, nil, len(values))
	if err != nil {
		t.Fatal(err)
	}
	checkViews(t, AppendViews(nil, offsets, data, 2), values, [][]byte{nil, nil, data})
}

// FuzzDecodeByteArrayViews decodes hostile PLAIN bytes as views and as
// offsets and data (the path every other read takes): no panic, the same
// error or none, and views that describe the same values. Run: go test
// ./pagecodec -run XXX -fuzz FuzzDecodeByteArrayViews
func FuzzDecodeByteArrayViews(f *testing.F) {
	f.Add(plainPage([][]byte{[]byte("a"), []byte("a value longer than twelve")}), uint16(2), uint8(1))
	f.Add(plainPage([][]byte{{}, []byte("123456789012"), []byte("1234567890123")}), uint16(3), uint8(3))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1}, uint16(1), uint8(1))
	f.Add([]byte{5, 0, 0, 0, 'a', 'b'}, uint16(1), uint8(1))
	f.Fuzz(func(t *testing.T, src []byte, n uint16, step uint8) {
		count := int(n) % maxFuzzValues
		var dv, dp PlainDecoder
		dv.Reset(src)
		dp.Reset(src)
		var views []uint64
		offsets, data := []int32{0}, []byte(nil)
		var verr, perr error
		for done := 0; done < count && verr == nil && perr == nil; {
			k := min(int(step)+1, count-done)
			views, verr = dv.DecodeByteArrayViews(views, k, 1)
			offsets, data, perr = dp.DecodeByteArray(offsets, data, k)
			done += k
		}
		checkErr(t, verr)
		if (verr == nil) != (perr == nil) {
			t.Fatalf("views: %v, offsets and data: %v", verr, perr)
		}
		values := make([][]byte, len(offsets)-1)
		for i := range values {
			values[i] = data[offsets[i]:offsets[i+1]]
		}
		checkViews(t, views, values, [][]byte{nil, src})
	})
}
