package snappy

import (
	"encoding/binary"
	"errors"
)

var (
	// ErrCorrupt reports an invalid block.
	ErrCorrupt = errors.New("snappy: corrupt input")
	// ErrTooLarge reports a block whose decoded length does not fit an int.
	ErrTooLarge = errors.New("snappy: decoded block is too large")
)

// DecodedLen returns the decoded length of the block src, from its header.
func DecodedLen(src []byte) (int, error) {
	n, _, err := decodedLen(src)
	return n, err
}

func decodedLen(src []byte) (blockLen, headerLen int, err error) {
	v, n := binary.Uvarint(src)
	if n <= 0 || v > 0xffffffff {
		return 0, 0, ErrCorrupt
	}
	if uint64(int(v)) != v || int(v) < 0 {
		return 0, 0, ErrTooLarge
	}
	return int(v), n, nil
}

// Decode returns the decoded form of the block src. It decodes into dst
// when dst is long enough (the result is then dst[:n]) and allocates
// otherwise. On error the contents of dst are undefined. dst and src must
// not overlap.
func Decode(dst, src []byte) ([]byte, error) {
	n, h, err := decodedLen(src)
	if err != nil {
		return nil, err
	}
	if n <= len(dst) {
		dst = dst[:n]
	} else {
		dst = make([]byte, n)
	}
	if !decodeBlock(dst, src, h) {
		return nil, ErrCorrupt
	}
	return dst, nil
}

// DecodeInto decodes the block src into dst, which must have exactly the
// decoded length: a block of any other length is [ErrCorrupt]. On error the
// contents of dst are undefined. dst and src must not overlap.
func DecodeInto(dst, src []byte) error {
	n, h, err := decodedLen(src)
	if err != nil {
		return err
	}
	if n != len(dst) || !decodeBlock(dst, src, h) {
		return ErrCorrupt
	}
	return nil
}

// decodeGeneric decodes the elements src[s:] into dst[d:], dst[:d] being
// the output so far, and reports whether they fill dst exactly. Every
// element is checked against the bounds of src and dst before its bytes
// move.
func decodeGeneric(dst, src []byte, d, s int) bool {
	for s < len(src) {
		tag := src[s]
		var length, offset int
		switch tag & 3 {
		case 0:
			x := uint(tag >> 2)
			s++
			if x >= 60 {
				// length-1 in the next x-59 bytes, little-endian.
				nb := int(x - 59)
				if nb > len(src)-s {
					return false
				}
				x = 0
				for i := nb - 1; i >= 0; i-- {
					x = x<<8 | uint(src[s+i])
				}
				s += nb
			}
			// x < 2^32, so x+1 does not overflow a uint and the
			// compares are exact even with a 32-bit int.
			if x >= uint(len(src)-s) || x >= uint(len(dst)-d) {
				return false
			}
			length = int(x) + 1
			if length <= 16 && len(src)-s >= 16 && len(dst)-d >= 16 {
				// Two 8-byte moves instead of a memmove call; the
				// bytes past length are overwritten by what follows.
				binary.LittleEndian.PutUint64(dst[d:], binary.LittleEndian.Uint64(src[s:]))
				binary.LittleEndian.PutUint64(dst[d+8:], binary.LittleEndian.Uint64(src[s+8:]))
			} else {
				copy(dst[d:d+length], src[s:s+length])
			}
			d += length
			s += length
			continue
		case 1:
			if len(src)-s < 2 {
				return false
			}
			length = 4 + int(tag>>2)&7
			offset = int(tag&0xe0)<<3 | int(src[s+1])
			s += 2
		case 2:
			if len(src)-s < 3 {
				return false
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src[s+1:]))
			s += 3
		default:
			if len(src)-s < 5 {
				return false
			}
			length = 1 + int(tag>>2)
			o := binary.LittleEndian.Uint32(src[s+1:])
			if uint64(o) > uint64(d) {
				return false
			}
			offset = int(o)
			s += 5
		}
		if offset <= 0 || offset > d || length > len(dst)-d {
			return false
		}
		if offset >= 8 && length <= 16 && len(dst)-d >= 16 {
			// Two 8-byte moves, the second read after the first is
			// written (it may overlap it).
			binary.LittleEndian.PutUint64(dst[d:], binary.LittleEndian.Uint64(dst[d-offset:]))
			binary.LittleEndian.PutUint64(dst[d+8:], binary.LittleEndian.Uint64(dst[d-offset+8:]))
			d += length
			continue
		}
		out := dst[d : d+length]
		if offset >= length {
			copy(out, dst[d-offset:d])
		} else {
			// The copy overlaps its own output: byte by byte, each
			// byte offset back is final when it is read.
			from := dst[d-offset : d-offset+length]
			for i := range out {
				out[i] = from[i]
			}
		}
		d += length
	}
	return d == len(dst)
}
