package bitpack

import (
	"errors"
	"io"
	"testing"
)

// decodeAll reads every value with NextRun, the way a run-aware caller does.
func decodeAll(src []byte, width uint) ([]uint64, error) {
	var r HybridReader
	r.Reset(src, width)
	var out []uint64
	for {
		run, err := r.NextRun()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(out)+run.Count > refLimit {
			return out, nil // long runs are legal; stop comparing there
		}
		if run.Packed == nil {
			for range run.Count {
				out = append(out, run.Value)
			}
			continue
		}
		out = append(out, naiveUnpack(run.Packed, run.Count, width)...)
	}
}

func FuzzDecodeHybrid(f *testing.F) {
	f.Add([]byte{0x03, 0x88, 0xC6, 0xFA}, byte(3))
	f.Add([]byte{0x14, 0x05, 0x03, 0x88, 0xC6}, byte(3))
	f.Add([]byte{0xD8, 0x04, 0x01, 0x05, 0xff, 0xff}, byte(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, byte(0))
	f.Fuzz(func(t *testing.T, src []byte, w byte) {
		width := uint(w % 33)
		got, err := decodeAll(src, width)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		want, werr := refDecode(src, width)
		if len(want) > refLimit {
			// Both stopped early at a long run; compare what they hold.
			if len(want) < len(got) {
				t.Fatalf("reference stopped at %d values, decoder at %d", len(want), len(got))
			}
			want = want[:len(got)]
		} else if (err == nil) != (werr == nil) {
			t.Fatalf("err %v, reference err %v", err, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%d values, reference %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("value %d = %d, reference %d", i, got[i], want[i])
			}
		}
		// Decode32 in chunks of 13 agrees with the runs.
		var r HybridReader
		r.Reset(src, width)
		buf := make([]uint32, 13)
		for i := 0; i < len(got); {
			n, err := r.Decode32(buf)
			if err != nil && i+n < len(got) {
				t.Fatalf("Decode32 error %v at %d of %d", err, i+n, len(got))
			}
			for j := range buf[:min(n, len(got)-i)] {
				if uint64(buf[j]) != got[i+j] {
					t.Fatalf("Decode32 value %d = %d, want %d", i+j, buf[j], got[i+j])
				}
			}
			if n < len(buf) || err != nil {
				break
			}
			i += n
		}
	})
}

func FuzzRoundTripHybrid(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7}, byte(3))
	f.Add([]byte{0x85, 0x85, 0x85, 0x01}, byte(1))
	f.Fuzz(func(t *testing.T, data []byte, w byte) {
		width := uint(w % 33)
		// Each byte b gives value (b&15 spread over the width) repeated
		// 1 + b>>4 times, so runs of every length occur.
		var vals []uint32
		for i, b := range data {
			v := (uint32(b&15) * 0x1111_1111 >> (i % 8)) & uint32(1<<width-1)
			for range 1 + int(b>>4)*int(b>>4) {
				vals = append(vals, v)
			}
		}
		var e HybridEncoder
		e.Reset(width)
		// Three pieces: Append32, then AppendRepeat per run, then Append32,
		// so runs and open RLE runs cross calls.
		a, b := 0, 0
		if len(data) > 1 && len(vals) > 0 {
			a = int(data[0]) % (len(vals) + 1)
			b = a + int(data[1])%(len(vals)-a+1)
		}
		e.Append32(vals[:a])
		for i := a; i < b; {
			j := i + 1
			for j < b && vals[j] == vals[i] {
				j++
			}
			e.AppendRepeat(vals[i], j-i)
			i = j
		}
		e.Append32(vals[b:])
		enc := e.Finish()
		got, err := refDecode(enc, width)
		if err != nil || len(got) < len(vals) || len(got) >= len(vals)+8 {
			t.Fatalf("decoded %d values, %v; want %d", len(got), err, len(vals))
		}
		for i, v := range vals {
			if got[i] != uint64(v) {
				t.Fatalf("value %d = %d, want %d", i, got[i], v)
			}
		}
	})
}

func FuzzUnpack(f *testing.F) {
	f.Add([]byte{0x88, 0xC6, 0xFA}, byte(3))
	f.Add(make([]byte, 70), byte(64))
	f.Fuzz(func(t *testing.T, src []byte, w byte) {
		width := uint(w % 65)
		n := 0
		if width > 0 {
			n = len(src) * 8 / int(width) / 8 * 8
		}
		want := naiveUnpack(src, n, width)
		got := make([]uint64, n)
		Unpack64(got, src, width)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("Unpack64 value %d = %d, want %d", i, got[i], want[i])
			}
		}
		if width <= 32 {
			got32 := make([]uint32, n)
			Unpack32(got32, src, width)
			for i := range got32 {
				if uint64(got32[i]) != want[i] {
					t.Fatalf("Unpack32 value %d = %d, want %d", i, got32[i], want[i])
				}
			}
		}
	})
}
