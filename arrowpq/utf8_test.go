package arrowpq

import (
	"errors"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/pagecodec"
)

// TestCheckUTF8 covers values that are valid alone, invalid alone, and
// invalid alone although their concatenation is valid (a character split
// between two values).
func TestCheckUTF8(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		ok     bool
	}{
		{"ascii", []string{"a", "", "bc", ""}, true},
		{"multibyte", []string{"é", "日本", "", "🙂"}, true},
		{"invalid byte", []string{"a", "\xff"}, false},
		{"split character", []string{"\xc3", "\xa9"}, false}, // "é" cut in two
		{"truncated at end", []string{"ok", "\xe6\x97"}, false},
		{"long ascii", []string{strings.Repeat("x", 9000), "y"}, true},
		{"long, split after 8 KiB", []string{strings.Repeat("x", 9000) + "\xc3", "\xa9"}, false},
		{"long, valid after 8 KiB", []string{strings.Repeat("x", 9000) + "é", "日本"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offsets := []int32{0}
			var data []byte
			for _, v := range tt.values {
				data = append(data, v...)
				offsets = append(offsets, int32(len(data)))
			}
			err := checkUTF8(offsets, data)
			if tt.ok != (err == nil) || (err != nil && !errors.Is(err, pagecodec.ErrCorrupt)) {
				t.Errorf("got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// BenchmarkCheckUTF8 measures the check on 64Ki ASCII values of 20 bytes;
// SetBytes is the data size.
func BenchmarkCheckUTF8(b *testing.B) {
	const n, size = 64 << 10, 20
	data := make([]byte, n*size)
	offsets := make([]int32, n+1)
	for i := range data {
		data[i] = 'a' + byte(i%26)
	}
	for i := range offsets {
		offsets[i] = int32(i * size)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := checkUTF8(offsets, data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCheckViewsUTF8 checks the views of TestCheckUTF8's values, and long
// values (13 to 80 bytes, ASCII but for one byte) with an invalid byte or
// a two-byte character at every position: the whole-word ASCII pass must
// see every byte, the tail's last word included.
func TestCheckViewsUTF8(t *testing.T) {
	check := func(values []string) error {
		offsets := []int32{0}
		var data []byte
		for _, v := range values {
			data = append(data, v...)
			offsets = append(offsets, int32(len(data)))
		}
		data = data[:len(data):len(data)]
		return checkViewsUTF8(pagecodec.AppendViews(nil, offsets, data, 1), [][]byte{nil, data}, 0)
	}
	for _, tt := range []struct {
		name   string
		values []string
		ok     bool
	}{
		{"ascii", []string{"a", "", "bc", "", "thirteen byte"}, true},
		{"multibyte", []string{"é", "日本", "", "🙂", "twelve bytes", "more than twelve, é"}, true},
		{"invalid inline", []string{"a", "\xff"}, false},
		{"split character", []string{"\xc3", "\xa9"}, false},
		{"truncated at end", []string{"ok", "\xe6\x97"}, false},
	} {
		if err := check(tt.values); tt.ok != (err == nil) || (err != nil && !errors.Is(err, pagecodec.ErrCorrupt)) {
			t.Errorf("%s: got %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	for n := 13; n <= 80; n++ {
		for at := 0; at < n; at++ {
			bad := []byte(strings.Repeat("x", n))
			bad[at] = 0xff
			if err := check([]string{"short", string(bad)}); err == nil {
				t.Fatalf("%d bytes, 0xff at %d: no error", n, at)
			}
			if at+1 < n {
				good := []byte(strings.Repeat("x", n))
				copy(good[at:], "é")
				if err := check([]string{string(good)}); err != nil {
					t.Fatalf("%d bytes, é at %d: %v", n, at, err)
				}
			}
		}
	}
}
