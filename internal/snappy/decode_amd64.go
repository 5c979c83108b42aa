//go:build amd64 && !purego

package snappy

// The assembly loop runs while this much room is left (decode_amd64.s,
// which has the numbers too): in src a tag, 4 bytes after it and a 64-byte
// move, 69 bytes; in dst a copy of 64 bytes at an offset below 8, done in
// 8-byte words, writes up to 71. TestGuardPages faults with 68 for src.
const (
	fastSrcRoom = 72
	fastDstRoom = 80
)

// tagTable describes every tag byte for decodeFast: bits 0-31 mask the 4
// bytes after the tag down to the element's extra bytes; bits 32-39 are
// the element's length (for a literal with extra bytes, 1, to which the
// extra bytes add length-1); bits 40-42 are a 1-byte-offset copy's offset
// bits 8-10; bits 48-50 are the number of extra bytes.
var tagTable = func() (t [256]uint64) {
	for i := range t {
		tag := uint64(i)
		var length, offHigh, extra uint64
		switch tag & 3 {
		case 0:
			if x := tag >> 2; x < 60 {
				length = x + 1
			} else {
				length, extra = 1, x-59
			}
		case 1:
			length, offHigh, extra = 4+(tag>>2)&7, (tag>>5)<<8, 1
		case 2:
			length, extra = 1+tag>>2, 2
		default:
			length, extra = 1+tag>>2, 4
		}
		mask := uint64(1)<<(8*extra) - 1
		t[i] = mask | (length|offHigh|extra<<16)<<32
	}
	return t
}()

// decodeFast decodes elements from src[s:] into dst[d:] while at least
// fastSrcRoom bytes of src and fastDstRoom of dst are left, and returns
// where it stopped. n is 0 when it stopped for lack of room, the length of
// a literal over 64 bytes that starts at src[s] and goes to dst[d] (not yet
// checked against either), or -1 for a corrupt copy offset.
//
//go:noescape
func decodeFast(dst, src []byte, d, s int, tab *[256]uint64) (dOut, sOut, n int)

// decode decodes the elements of src into dst and reports whether they fill
// it exactly.
func decode(dst, src []byte) bool {
	d, s := 0, 0
	for len(dst)-d >= fastDstRoom && len(src)-s >= fastSrcRoom {
		var n int
		d, s, n = decodeFast(dst, src, d, s, &tagTable)
		if n == 0 {
			break
		}
		if n < 0 || n > len(dst)-d || n > len(src)-s {
			return false
		}
		copy(dst[d:d+n], src[s:s+n])
		d += n
		s += n
	}
	return decodeGeneric(dst, src, d, s)
}

// decodeBlock decodes the block src, whose header is h bytes long, into dst
// (exactly the decoded length) and reports whether it succeeded.
func decodeBlock(dst, src []byte, h int) bool { return decode(dst, src[h:]) }
