package bitpack

import "encoding/binary"

// Bit-packed layout (Encodings.md, "Run Length Encoding / Bit-Packing
// Hybrid", note 1): values of a fixed bit width are written back to back,
// filling each byte from its least significant bit; a value's own bits keep
// their order, so value i occupies bits [i*width, (i+1)*width) of the
// little-endian bit stream. Eight values of width w take exactly w bytes, which
// is why both the hybrid and DELTA_BINARY_PACKED pack in groups of eight.
//
// The kernels below are instantiated once per width through the group type
// parameter G = [w]byte: len(G{}) is a constant in each instantiation, so the
// compiler folds every shift, mask and byte offset of the unrolled 8-value
// step and removes its bounds checks (checked with -d=ssa/check_bce).

// group lists the byte size of a group of eight values for every width.
type group interface {
	[1]byte | [2]byte | [3]byte | [4]byte | [5]byte | [6]byte | [7]byte | [8]byte |
		[9]byte | [10]byte | [11]byte | [12]byte | [13]byte | [14]byte | [15]byte | [16]byte |
		[17]byte | [18]byte | [19]byte | [20]byte | [21]byte | [22]byte | [23]byte | [24]byte |
		[25]byte | [26]byte | [27]byte | [28]byte | [29]byte | [30]byte | [31]byte | [32]byte |
		[33]byte | [34]byte | [35]byte | [36]byte | [37]byte | [38]byte | [39]byte | [40]byte |
		[41]byte | [42]byte | [43]byte | [44]byte | [45]byte | [46]byte | [47]byte | [48]byte |
		[49]byte | [50]byte | [51]byte | [52]byte | [53]byte | [54]byte | [55]byte | [56]byte |
		[57]byte | [58]byte | [59]byte | [60]byte | [61]byte | [62]byte | [63]byte | [64]byte
}

// slack is how far past a group the 8-byte loads of the kernels may reach.
const slack = 8

// Unpack32 unpacks len(dst) values of width bits (0..32) each from src, packed
// LSB-first as in the RLE/bit-packing hybrid. len(dst) must be a multiple of 8
// and len(src) >= len(dst)*width/8; violating either is a programmer error and
// panics. Bytes of src past the packed values are never read.
func Unpack32(dst []uint32, src []byte, width uint) {
	if len(dst)%8 != 0 || width > 32 {
		panic("bitpack: Unpack32 with len(dst) not a multiple of 8 or width > 32")
	}
	if width == 0 {
		clear(dst)
		return
	}
	_ = src[:uint(len(dst))/8*width]
	unpack32Width(dst, src, width)
}

// Unpack64 is [Unpack32] for widths 0..64, as DELTA_BINARY_PACKED miniblocks
// of INT64 columns need.
func Unpack64(dst []uint64, src []byte, width uint) {
	if len(dst)%8 != 0 || width > 64 {
		panic("bitpack: Unpack64 with len(dst) not a multiple of 8 or width > 64")
	}
	if width == 0 {
		clear(dst)
		return
	}
	_ = src[:uint(len(dst))/8*width]
	unpack64Width(dst, src, width)
}

// unpack32 unpacks len(dst)/8 groups from src. The main loop needs slack bytes
// past each group; the last groups are copied into a zero-padded buffer.
func unpack32[G group](dst []uint32, src []byte) {
	var g G
	w := len(g)
	// Groups whose 8-byte loads stay inside src run in place, the rest from
	// a zero-padded copy.
	direct := 0
	if len(src) >= w+slack {
		direct = min(len(dst)/8, (len(src)-slack)/w)
	}
	unpack32Kernel[G](dst[:direct*8], src)
	for i := direct; i < len(dst)/8; i++ {
		var pad [64 + slack]byte
		copy(pad[:], src[i*w:i*w+w])
		unpack32Kernel[G](dst[i*8:i*8+8], pad[:])
	}
}

// unpack32Kernel unpacks len(dst)/8 groups; src must extend slack bytes past
// the last group.
func unpack32Kernel[G group](dst []uint32, src []byte) {
	var g G
	w := uint(len(g))
	mask := uint64(1)<<w - 1
	for len(dst) >= 8 && uint(len(src)) >= w+slack {
		s := src[:w+slack]
		d := dst[:8]
		d[0] = uint32(binary.LittleEndian.Uint64(s[0*w/8:]) >> (0 * w % 8) & mask)
		d[1] = uint32(binary.LittleEndian.Uint64(s[1*w/8:]) >> (1 * w % 8) & mask)
		d[2] = uint32(binary.LittleEndian.Uint64(s[2*w/8:]) >> (2 * w % 8) & mask)
		d[3] = uint32(binary.LittleEndian.Uint64(s[3*w/8:]) >> (3 * w % 8) & mask)
		d[4] = uint32(binary.LittleEndian.Uint64(s[4*w/8:]) >> (4 * w % 8) & mask)
		d[5] = uint32(binary.LittleEndian.Uint64(s[5*w/8:]) >> (5 * w % 8) & mask)
		d[6] = uint32(binary.LittleEndian.Uint64(s[6*w/8:]) >> (6 * w % 8) & mask)
		d[7] = uint32(binary.LittleEndian.Uint64(s[7*w/8:]) >> (7 * w % 8) & mask)
		dst = dst[8:]
		src = src[w:]
	}
}

// unpack64 is unpack32 for 64-bit values: a value may straddle nine bytes, in
// which case its top bits come from the ninth byte (a branch folded away per
// width and position).
func unpack64[G group](dst []uint64, src []byte) {
	var g G
	w := len(g)
	// Groups whose 8-byte loads stay inside src run in place, the rest from
	// a zero-padded copy.
	direct := 0
	if len(src) >= w+slack {
		direct = min(len(dst)/8, (len(src)-slack)/w)
	}
	unpack64Kernel[G](dst[:direct*8], src)
	for i := direct; i < len(dst)/8; i++ {
		var pad [64 + slack]byte
		copy(pad[:], src[i*w:i*w+w])
		unpack64Kernel[G](dst[i*8:i*8+8], pad[:])
	}
}

// unpack64Kernel unpacks len(dst)/8 groups; src must extend slack bytes past
// the last group.
func unpack64Kernel[G group](dst []uint64, src []byte) {
	var g G
	w := uint(len(g))
	mask := uint64(1)<<w - 1 // all ones for w == 64: Go shifts past the width give 0
	for len(dst) >= 8 && uint(len(src)) >= w+slack {
		s := src[:w+slack]
		d := dst[:8]
		d[0] = binary.LittleEndian.Uint64(s[0:]) & mask
		d[1] = word64(s, 1*w) & mask
		d[2] = word64(s, 2*w) & mask
		d[3] = word64(s, 3*w) & mask
		d[4] = word64(s, 4*w) & mask
		d[5] = word64(s, 5*w) & mask
		d[6] = word64(s, 6*w) & mask
		d[7] = word64(s, 7*w) & mask
		dst = dst[8:]
		src = src[w:]
	}
}

// word64 returns the 64 bits of s starting at bit off (s must hold 9 bytes
// from off/8). Small enough to inline, so off stays a constant.
func word64(s []byte, off uint) uint64 {
	b, sh := off/8, off%8
	v := binary.LittleEndian.Uint64(s[b:]) >> sh
	if sh != 0 {
		v |= uint64(s[b+8]) << (64 - sh)
	}
	return v
}

// unpack32Width dispatches to the kernel of one width. A switch rather than a
// table of funcs: direct calls let escape analysis keep callers' buffers on
// the stack.
func unpack32Width(dst []uint32, src []byte, width uint) {
	switch width {
	case 1:
		unpack32[[1]byte](dst, src)
	case 2:
		unpack32[[2]byte](dst, src)
	case 3:
		unpack32[[3]byte](dst, src)
	case 4:
		unpack32[[4]byte](dst, src)
	case 5:
		unpack32[[5]byte](dst, src)
	case 6:
		unpack32[[6]byte](dst, src)
	case 7:
		unpack32[[7]byte](dst, src)
	case 8:
		unpack32[[8]byte](dst, src)
	case 9:
		unpack32[[9]byte](dst, src)
	case 10:
		unpack32[[10]byte](dst, src)
	case 11:
		unpack32[[11]byte](dst, src)
	case 12:
		unpack32[[12]byte](dst, src)
	case 13:
		unpack32[[13]byte](dst, src)
	case 14:
		unpack32[[14]byte](dst, src)
	case 15:
		unpack32[[15]byte](dst, src)
	case 16:
		unpack32[[16]byte](dst, src)
	case 17:
		unpack32[[17]byte](dst, src)
	case 18:
		unpack32[[18]byte](dst, src)
	case 19:
		unpack32[[19]byte](dst, src)
	case 20:
		unpack32[[20]byte](dst, src)
	case 21:
		unpack32[[21]byte](dst, src)
	case 22:
		unpack32[[22]byte](dst, src)
	case 23:
		unpack32[[23]byte](dst, src)
	case 24:
		unpack32[[24]byte](dst, src)
	case 25:
		unpack32[[25]byte](dst, src)
	case 26:
		unpack32[[26]byte](dst, src)
	case 27:
		unpack32[[27]byte](dst, src)
	case 28:
		unpack32[[28]byte](dst, src)
	case 29:
		unpack32[[29]byte](dst, src)
	case 30:
		unpack32[[30]byte](dst, src)
	case 31:
		unpack32[[31]byte](dst, src)
	case 32:
		unpack32[[32]byte](dst, src)
	}
}

// unpack64Width dispatches to the kernel of one width. A switch rather than a
// table of funcs: direct calls let escape analysis keep callers' buffers on
// the stack.
func unpack64Width(dst []uint64, src []byte, width uint) {
	switch width {
	case 1:
		unpack64[[1]byte](dst, src)
	case 2:
		unpack64[[2]byte](dst, src)
	case 3:
		unpack64[[3]byte](dst, src)
	case 4:
		unpack64[[4]byte](dst, src)
	case 5:
		unpack64[[5]byte](dst, src)
	case 6:
		unpack64[[6]byte](dst, src)
	case 7:
		unpack64[[7]byte](dst, src)
	case 8:
		unpack64[[8]byte](dst, src)
	case 9:
		unpack64[[9]byte](dst, src)
	case 10:
		unpack64[[10]byte](dst, src)
	case 11:
		unpack64[[11]byte](dst, src)
	case 12:
		unpack64[[12]byte](dst, src)
	case 13:
		unpack64[[13]byte](dst, src)
	case 14:
		unpack64[[14]byte](dst, src)
	case 15:
		unpack64[[15]byte](dst, src)
	case 16:
		unpack64[[16]byte](dst, src)
	case 17:
		unpack64[[17]byte](dst, src)
	case 18:
		unpack64[[18]byte](dst, src)
	case 19:
		unpack64[[19]byte](dst, src)
	case 20:
		unpack64[[20]byte](dst, src)
	case 21:
		unpack64[[21]byte](dst, src)
	case 22:
		unpack64[[22]byte](dst, src)
	case 23:
		unpack64[[23]byte](dst, src)
	case 24:
		unpack64[[24]byte](dst, src)
	case 25:
		unpack64[[25]byte](dst, src)
	case 26:
		unpack64[[26]byte](dst, src)
	case 27:
		unpack64[[27]byte](dst, src)
	case 28:
		unpack64[[28]byte](dst, src)
	case 29:
		unpack64[[29]byte](dst, src)
	case 30:
		unpack64[[30]byte](dst, src)
	case 31:
		unpack64[[31]byte](dst, src)
	case 32:
		unpack64[[32]byte](dst, src)
	case 33:
		unpack64[[33]byte](dst, src)
	case 34:
		unpack64[[34]byte](dst, src)
	case 35:
		unpack64[[35]byte](dst, src)
	case 36:
		unpack64[[36]byte](dst, src)
	case 37:
		unpack64[[37]byte](dst, src)
	case 38:
		unpack64[[38]byte](dst, src)
	case 39:
		unpack64[[39]byte](dst, src)
	case 40:
		unpack64[[40]byte](dst, src)
	case 41:
		unpack64[[41]byte](dst, src)
	case 42:
		unpack64[[42]byte](dst, src)
	case 43:
		unpack64[[43]byte](dst, src)
	case 44:
		unpack64[[44]byte](dst, src)
	case 45:
		unpack64[[45]byte](dst, src)
	case 46:
		unpack64[[46]byte](dst, src)
	case 47:
		unpack64[[47]byte](dst, src)
	case 48:
		unpack64[[48]byte](dst, src)
	case 49:
		unpack64[[49]byte](dst, src)
	case 50:
		unpack64[[50]byte](dst, src)
	case 51:
		unpack64[[51]byte](dst, src)
	case 52:
		unpack64[[52]byte](dst, src)
	case 53:
		unpack64[[53]byte](dst, src)
	case 54:
		unpack64[[54]byte](dst, src)
	case 55:
		unpack64[[55]byte](dst, src)
	case 56:
		unpack64[[56]byte](dst, src)
	case 57:
		unpack64[[57]byte](dst, src)
	case 58:
		unpack64[[58]byte](dst, src)
	case 59:
		unpack64[[59]byte](dst, src)
	case 60:
		unpack64[[60]byte](dst, src)
	case 61:
		unpack64[[61]byte](dst, src)
	case 62:
		unpack64[[62]byte](dst, src)
	case 63:
		unpack64[[63]byte](dst, src)
	case 64:
		unpack64[[64]byte](dst, src)
	}
}

// AppendPacked32 appends src packed LSB-first at width bits (0..32) each to
// dst and returns the extended slice: len(src)*width/8 bytes. len(src) must be
// a multiple of 8. Bits of a value above width are dropped.
func AppendPacked32(dst []byte, src []uint32, width uint) []byte {
	if len(src)%8 != 0 || width > 32 {
		panic("bitpack: AppendPacked32 with len(src) not a multiple of 8 or width > 32")
	}
	if width == 0 {
		return dst
	}
	mask := uint64(1)<<width - 1
	var acc uint64 // pending bits, fewer than 32 between values
	var n uint
	for _, v := range src {
		acc |= (uint64(v) & mask) << n
		n += width
		if n >= 32 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
			acc >>= 32
			n -= 32
		}
	}
	for ; n > 0; n -= 8 {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// AppendPacked64 is [AppendPacked32] for widths 0..64.
func AppendPacked64(dst []byte, src []uint64, width uint) []byte {
	if len(src)%8 != 0 || width > 64 {
		panic("bitpack: AppendPacked64 with len(src) not a multiple of 8 or width > 64")
	}
	if width == 0 {
		return dst
	}
	mask := uint64(1)<<width - 1
	var acc uint64 // pending bits, fewer than 64 between values
	var n uint
	for _, v := range src {
		v &= mask
		acc |= v << n
		if n+width >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			if n == 0 {
				acc = 0
			} else {
				acc = v >> (64 - n)
			}
			n = n + width - 64
		} else {
			n += width
		}
	}
	for ; n > 0; n -= 8 {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// UnpackGather32 unpacks len(dst) indices of width bits (0..32) from src,
// as [Unpack32] does, and stores dict[index] in dst for each, eight at a
// time straight from the unpacking registers: dictionary data pages
// decoded with no index buffer. len(dst) must be a multiple of 8 and
// len(src) >= len(dst)*width/8 (a programmer error, which panics,
// otherwise). It returns len(dst), or the position of the first index at
// or past len(dict), having stored the values before its group.
func UnpackGather32[T any](dst []T, src []byte, width uint, dict []T) int {
	if len(dst)%8 != 0 || width > 32 {
		panic("bitpack: UnpackGather32 with len(dst) not a multiple of 8 or width > 32")
	}
	_ = src[:uint(len(dst))/8*width]
	switch width {
	case 0:
		if len(dst) > 0 && len(dict) == 0 {
			return 0
		}
		if len(dst) > 0 {
			x := dict[0]
			for i := range dst {
				dst[i] = x
			}
		}
		return len(dst)
	case 1:
		return unpackGather[[1]byte](dst, src, dict)
	case 2:
		return unpackGather[[2]byte](dst, src, dict)
	case 3:
		return unpackGather[[3]byte](dst, src, dict)
	case 4:
		return unpackGather[[4]byte](dst, src, dict)
	case 5:
		return unpackGather[[5]byte](dst, src, dict)
	case 6:
		return unpackGather[[6]byte](dst, src, dict)
	case 7:
		return unpackGather[[7]byte](dst, src, dict)
	case 8:
		return unpackGather[[8]byte](dst, src, dict)
	case 9:
		return unpackGather[[9]byte](dst, src, dict)
	case 10:
		return unpackGather[[10]byte](dst, src, dict)
	case 11:
		return unpackGather[[11]byte](dst, src, dict)
	case 12:
		return unpackGather[[12]byte](dst, src, dict)
	case 13:
		return unpackGather[[13]byte](dst, src, dict)
	case 14:
		return unpackGather[[14]byte](dst, src, dict)
	case 15:
		return unpackGather[[15]byte](dst, src, dict)
	case 16:
		return unpackGather[[16]byte](dst, src, dict)
	case 17:
		return unpackGather[[17]byte](dst, src, dict)
	case 18:
		return unpackGather[[18]byte](dst, src, dict)
	case 19:
		return unpackGather[[19]byte](dst, src, dict)
	case 20:
		return unpackGather[[20]byte](dst, src, dict)
	case 21:
		return unpackGather[[21]byte](dst, src, dict)
	case 22:
		return unpackGather[[22]byte](dst, src, dict)
	case 23:
		return unpackGather[[23]byte](dst, src, dict)
	case 24:
		return unpackGather[[24]byte](dst, src, dict)
	case 25:
		return unpackGather[[25]byte](dst, src, dict)
	case 26:
		return unpackGather[[26]byte](dst, src, dict)
	case 27:
		return unpackGather[[27]byte](dst, src, dict)
	case 28:
		return unpackGather[[28]byte](dst, src, dict)
	case 29:
		return unpackGather[[29]byte](dst, src, dict)
	case 30:
		return unpackGather[[30]byte](dst, src, dict)
	case 31:
		return unpackGather[[31]byte](dst, src, dict)
	default:
		return unpackGather[[32]byte](dst, src, dict)
	}
}

// unpackGather is UnpackGather32 for one width; groups near the end of
// src go through a zero-padded copy, as in unpack32.
func unpackGather[G group, T any](dst []T, src []byte, dict []T) int {
	var g G
	w := len(g)
	direct := 0
	if len(src) >= w+slack {
		direct = min(len(dst)/8, (len(src)-slack)/w)
	}
	if i := unpackGatherKernel[G](dst[:direct*8], src, dict); i < direct*8 {
		return i
	}
	for i := direct; i < len(dst)/8; i++ {
		var pad [64 + slack]byte
		copy(pad[:], src[i*w:i*w+w])
		if j := unpackGatherKernel[G](dst[i*8:i*8+8], pad[:], dict); j < 8 {
			return i*8 + j
		}
	}
	return len(dst)
}

// unpackGatherKernel unpacks and gathers len(dst)/8 groups; src must
// extend slack bytes past the last group.
func unpackGatherKernel[G group, T any](dst []T, src []byte, dict []T) int {
	var g G
	w := uint(len(g))
	mask := uint64(1)<<w - 1
	n := uint(len(dict))
	done := 0
	for len(dst) >= 8 && uint(len(src)) >= w+slack {
		s := src[:w+slack]
		d := dst[:8]
		// Index by index, each compared once: the compare is also the
		// bounds check of its dict[v] (checked with -d=ssa/check_bce),
		// and one index at a time keeps the eight out of the stack.
		v := uint(binary.LittleEndian.Uint64(s[0*w/8:]) >> (0 * w % 8) & mask)
		if v >= n {
			return done
		}
		d[0] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[1*w/8:]) >> (1 * w % 8) & mask)
		if v >= n {
			return done + 1
		}
		d[1] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[2*w/8:]) >> (2 * w % 8) & mask)
		if v >= n {
			return done + 2
		}
		d[2] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[3*w/8:]) >> (3 * w % 8) & mask)
		if v >= n {
			return done + 3
		}
		d[3] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[4*w/8:]) >> (4 * w % 8) & mask)
		if v >= n {
			return done + 4
		}
		d[4] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[5*w/8:]) >> (5 * w % 8) & mask)
		if v >= n {
			return done + 5
		}
		d[5] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[6*w/8:]) >> (6 * w % 8) & mask)
		if v >= n {
			return done + 6
		}
		d[6] = dict[v]
		v = uint(binary.LittleEndian.Uint64(s[7*w/8:]) >> (7 * w % 8) & mask)
		if v >= n {
			return done + 7
		}
		d[7] = dict[v]
		dst = dst[8:]
		src = src[w:]
		done += 8
	}
	return done
}
