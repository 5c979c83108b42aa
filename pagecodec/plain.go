package pagecodec

// PLAIN (Encodings.md, "Plain: (PLAIN = 0)"):
//
//	BOOLEAN              1 bit per value, LSB first, the last byte padded
//	INT32, FLOAT         4 bytes little-endian per value
//	INT64, DOUBLE        8 bytes little-endian per value
//	INT96                12 bytes per value
//	FIXED_LEN_BYTE_ARRAY type_length bytes per value
//	BYTE_ARRAY           4-byte little-endian length, then the bytes
//
// The values of a page are concatenated without separators; nothing says how
// many there are, the caller knows it from the levels.

import (
	"encoding/binary"
	"math"
)

// fixed is the set of fixed-width element types: PLAIN decodes them with
// one copy on little-endian machines.
type fixed interface {
	int32 | int64 | uint32 | uint64 | float32 | float64
}

// PlainDecoder decodes PLAIN values of any physical type. The zero value is
// ready after [PlainDecoder.Reset]. Every Decode method decodes exactly the
// number of values asked for or returns an error: truncation wraps both
// [ErrCorrupt] and io.ErrUnexpectedEOF, and the returned count says how many
// values were decoded before it.
type PlainDecoder struct {
	src []byte
	pos int // byte position; for BOOLEAN the bit position is bit
	bit int
}

// Reset starts decoding src, the value section of a page.
func (d *PlainDecoder) Reset(src []byte) { *d = PlainDecoder{src: src} }

// Remaining returns the bytes not yet decoded (BOOLEAN: whole bytes not yet
// touched).
func (d *PlainDecoder) Remaining() int { return len(d.src) - d.pos - (d.bit+7)/8 }

// DecodeInt32 decodes len(dst) INT32 values.
func (d *PlainDecoder) DecodeInt32(dst []int32) (int, error) {
	return decodePlainFixed(d, dst, "INT32")
}

// DecodeInt64 decodes len(dst) INT64 values.
func (d *PlainDecoder) DecodeInt64(dst []int64) (int, error) {
	return decodePlainFixed(d, dst, "INT64")
}

// DecodeFloat decodes len(dst) FLOAT values.
func (d *PlainDecoder) DecodeFloat(dst []float32) (int, error) {
	return decodePlainFixed(d, dst, "FLOAT")
}

// DecodeDouble decodes len(dst) DOUBLE values.
func (d *PlainDecoder) DecodeDouble(dst []float64) (int, error) {
	return decodePlainFixed(d, dst, "DOUBLE")
}

func decodePlainFixed[T fixed](d *PlainDecoder, dst []T, name string) (int, error) {
	size := int(sizeOf[T]())
	avail := (len(d.src) - d.pos) / size
	n := min(avail, len(dst))
	copyLE(dst[:n], d.src[d.pos:d.pos+n*size])
	d.pos += n * size
	if n < len(dst) {
		return n, errTruncated("PLAIN %s: %d values asked, %d bytes left", name, len(dst), len(d.src)-d.pos)
	}
	return n, nil
}

// DecodeInt96 decodes len(dst) INT96 values as their 12 raw bytes.
func (d *PlainDecoder) DecodeInt96(dst [][12]byte) (int, error) {
	src := d.src[d.pos:]
	n := min(len(src)/12, len(dst))
	for i := range dst[:n] {
		dst[i] = [12]byte(src[12*i:])
	}
	d.pos += 12 * n
	if n < len(dst) {
		return n, errTruncated("PLAIN INT96: %d values asked, %d bytes left", len(dst), len(src))
	}
	return n, nil
}

// DecodeFixedLenByteArray decodes len(dst)/typeLength FIXED_LEN_BYTE_ARRAY
// values into dst, back to back.
func (d *PlainDecoder) DecodeFixedLenByteArray(dst []byte, typeLength int) (int, error) {
	if typeLength <= 0 {
		return 0, errCorrupt("FIXED_LEN_BYTE_ARRAY type length %d", typeLength)
	}
	want := len(dst) / typeLength
	n := min((len(d.src)-d.pos)/typeLength, want)
	copy(dst, d.src[d.pos:d.pos+n*typeLength])
	d.pos += n * typeLength
	if n < want {
		return n, errTruncated("PLAIN FIXED_LEN_BYTE_ARRAY: %d values asked, %d bytes left", want, len(d.src)-d.pos)
	}
	return n, nil
}

// DecodeBoolean decodes n BOOLEAN values into bitmap starting at bit
// bitOffset (LSB first, as in an Arrow bitmap). bitmap must hold
// bitOffset+n bits.
func (d *PlainDecoder) DecodeBoolean(bitmap []byte, bitOffset, n int) (int, error) {
	availBits := (len(d.src)-d.pos)*8 - d.bit
	m := min(n, availBits)
	copyBits(bitmap, bitOffset, d.src[d.pos:], d.bit, m)
	d.bit += m
	d.pos += d.bit / 8
	d.bit %= 8
	if m < n {
		return m, errTruncated("PLAIN BOOLEAN: %d values asked, %d left", n, m)
	}
	return m, nil
}

// DecodeByteArray decodes n BYTE_ARRAY values, appending their bytes to data
// and, after each value, len(data) to offsets (so offsets starts with the
// caller's initial 0, as in Arrow). It returns the extended slices. Offsets
// beyond math.MaxInt32 are [ErrLimit]. Like append it may write into the
// capacity of data, and up to 32 bytes past the returned length (bytes of
// the page), so that short values move in whole blocks.
func (d *PlainDecoder) DecodeByteArray(offsets []int32, data []byte, n int) ([]int32, []byte, error) {
	return decodePlainByteArray(d, offsets, data, n, math.MaxInt32)
}

func decodePlainByteArray[O int32 | int64](d *PlainDecoder, offsets []O, data []byte, n int, maxOffset int64) ([]O, []byte, error) {
	offsets, data, m := decodePlainByteArrayRoom(d, offsets, data, n, maxOffset)
	if m == n {
		return offsets, data, nil
	}
	return decodePlainByteArrayTwoPass(d, offsets, data, m, n, maxOffset)
}

// decodePlainByteArrayRoom is the one-pass fast path of PLAIN BYTE_ARRAY
// decoding: while data has room for a value plus 32 bytes of slack, it
// checks the value's length, appends its offset and copies its bytes in
// 32-byte blocks (values up to 64 bytes: a call of memmove per value
// costs more than the bytes; 40-400 byte strings: blocks up to 64 bytes
// 11.6 GB/s, up to 128 9.9, up to 256 9.0), which may write up to 32 bytes past the end
// of data into its capacity (bytes of the page that the next value
// overwrites or that stay beyond len(data)). It stops at the first value
// without room, a truncated value or n, and returns how many values it
// decoded; decodePlainByteArrayTwoPass does the rest. It skips the
// separate pass over the lengths that sizes the buffers: in process CPU
// time (BenchmarkPlainByteArray, -count 3, shared machine) 10-40 byte
// strings decode at 3.3 GB/s where the two passes did 2.4, 40-400 byte
// strings at 11.6 GB/s where they did 5.5.
func decodePlainByteArrayRoom[O int32 | int64](d *PlainDecoder, offsets []O, data []byte, n int, maxOffset int64) ([]O, []byte, int) {
	src := d.src
	pos := d.pos
	// The room for data: its capacity less the slack, and no offset
	// beyond maxOffset.
	room := cap(data) - 32
	if int64(room) > maxOffset {
		room = int(maxOffset)
	}
	if room < len(data) || n <= 0 {
		return offsets, data, 0
	}
	base := len(offsets)
	offsets = growLen(offsets, n)
	outOff := offsets[base:]
	out := data[:cap(data)]
	w := len(data)
	m := 0
	for ; m < len(outOff); m++ {
		if len(src)-pos < 4 {
			break
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		if uint64(l) > uint64(len(src)-pos-4) || uint64(l) > uint64(room-w) {
			break
		}
		pos += 4
		if l <= 64 && pos+64 <= len(src) {
			// Written out: as a function (copyBlocks, before) this was
			// past the inlining budget with copy32, and a call per value
			// of lineitem's l_comment (10-43 bytes) cost 37 instructions
			// (callgrind).
			copy32(out[w:w+32], src[pos:pos+32])
			if l > 32 {
				copy32(out[w+32:w+64], src[pos+32:pos+64])
			}
		} else {
			copy(out[w:w+int(l)], src[pos:pos+int(l)])
		}
		pos += int(l)
		w += int(l)
		outOff[m] = O(w)
	}
	d.pos = pos
	return offsets[:base+m], out[:w], m
}

// decodePlainByteArrayTwoPass is the general path of PLAIN BYTE_ARRAY
// decoding: a first pass finds the values and their size, so that both
// buffers grow at most once; the second copies them.
// done values of the call were decoded already, n in all.
func decodePlainByteArrayTwoPass[O int32 | int64](d *PlainDecoder, offsets []O, data []byte, done, n int, maxOffset int64) ([]O, []byte, error) {
	// First pass: find the values and their total size without copying, so
	// that both buffers grow once per batch.
	src := d.src
	pos := d.pos
	total := 0
	m := done
	for ; m < n; m++ {
		if len(src)-pos < 4 {
			break
		}
		l := binary.LittleEndian.Uint32(src[pos:])
		if uint64(l) > uint64(len(src)-pos-4) {
			break
		}
		pos += 4 + int(l)
		total += int(l)
	}
	if int64(len(data))+int64(total) > maxOffset {
		return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(total))
	}
	offsets = growLen(offsets, m-done)
	outOff := offsets[len(offsets)-(m-done):]
	start := len(data)
	data = growLen(data, total)
	out := data[start:]
	pos = d.pos
	w := 0
	for i := range outOff {
		l := int(binary.LittleEndian.Uint32(src[pos:]))
		pos += 4
		if l <= 32 && pos+32 <= len(src) && w+32 <= len(out) {
			copy32(out[w:w+32], src[pos:pos+32]) // copyShort's common case, inlined
		} else {
			copyShort(out, w, src, pos, l)
		}
		pos += l
		w += l
		outOff[i] = O(start + w)
	}
	d.pos = pos
	if m < n {
		return offsets, data, errTruncated("PLAIN BYTE_ARRAY: value %d of %d runs past the page", m, n)
	}
	return offsets, data, nil
}

// growLen extends s by n elements (their contents are garbage).
func growLen[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s[:len(s)+n]
	}
	ns := make(S, len(s)+n, len(s)+n+max(len(s)/2, 16))
	copy(ns, s)
	return ns
}

// AppendPlainInt32 appends the PLAIN encoding of values to dst.
func AppendPlainInt32(dst []byte, values []int32) []byte { return appendLE(dst, values) }

// AppendPlainInt64 appends the PLAIN encoding of values to dst.
func AppendPlainInt64(dst []byte, values []int64) []byte { return appendLE(dst, values) }

// AppendPlainFloat appends the PLAIN encoding of values to dst.
func AppendPlainFloat(dst []byte, values []float32) []byte { return appendLE(dst, values) }

// AppendPlainDouble appends the PLAIN encoding of values to dst.
func AppendPlainDouble(dst []byte, values []float64) []byte { return appendLE(dst, values) }

// AppendPlainInt96 appends the PLAIN encoding of values to dst.
func AppendPlainInt96(dst []byte, values [][12]byte) []byte {
	for i := range values {
		dst = append(dst, values[i][:]...)
	}
	return dst
}

// AppendPlainFixedLenByteArray appends the PLAIN encoding of
// FIXED_LEN_BYTE_ARRAY values stored back to back in values: the bytes
// themselves.
func AppendPlainFixedLenByteArray(dst []byte, values []byte) []byte { return append(dst, values...) }

// AppendPlainByteArray appends the PLAIN encoding of the len(offsets)-1
// values data[offsets[i]:offsets[i+1]] to dst.
func AppendPlainByteArray(dst []byte, offsets []int32, data []byte) []byte {
	return appendPlainByteArray(dst, offsets, data)
}

func appendPlainByteArray[O int32 | int64](dst []byte, offsets []O, data []byte) []byte {
	if len(offsets) < 2 {
		return dst
	}
	n := len(offsets) - 1
	start := len(dst)
	dst = growLen(dst, 4*n+int(offsets[n]-offsets[0]))
	out := dst[start:]
	w := 0
	for i := 0; i < n; i++ {
		v := data[offsets[i]:offsets[i+1]]
		binary.LittleEndian.PutUint32(out[w:], uint32(len(v)))
		w += 4
		w += copy(out[w:], v)
	}
	return dst
}

// PlainBooleanEncoder packs BOOLEAN values LSB first. The zero value is
// ready; [PlainBooleanEncoder.Reset] reuses its buffer.
type PlainBooleanEncoder struct {
	buf   []byte
	nbits int
}

// Reset empties the encoder.
func (e *PlainBooleanEncoder) Reset() { e.buf, e.nbits = e.buf[:0], 0 }

// Append appends the n values of bitmap starting at bit bitOffset.
func (e *PlainBooleanEncoder) Append(bitmap []byte, bitOffset, n int) {
	need := (e.nbits + n + 7) / 8
	if need > len(e.buf) {
		e.buf = growLen(e.buf, need-len(e.buf))
		e.buf[len(e.buf)-1] = 0
	}
	copyBits(e.buf, e.nbits, bitmap, bitOffset, n)
	e.nbits += n
}

// AppendBools appends values one per bool.
func (e *PlainBooleanEncoder) AppendBools(values []bool) {
	need := (e.nbits + len(values) + 7) / 8
	if need > len(e.buf) {
		e.buf = growLen(e.buf, need-len(e.buf))
	}
	for _, v := range values {
		i, m := e.nbits>>3, byte(1)<<(e.nbits&7)
		if v {
			e.buf[i] |= m
		} else {
			e.buf[i] &^= m
		}
		e.nbits++
	}
}

// Len returns the encoded size so far in bytes.
func (e *PlainBooleanEncoder) Len() int { return (e.nbits + 7) / 8 }

// Bytes returns the encoded values; the slice is valid until the next call
// of a method of e.
func (e *PlainBooleanEncoder) Bytes() []byte { return e.buf[:e.Len()] }

// copyBits copies n bits from src at bit srcOff to dst at bit dstOff, LSB
// first, leaving the other bits of dst unchanged.
func copyBits(dst []byte, dstOff int, src []byte, srcOff int, n int) {
	if n <= 0 {
		return
	}
	dst = dst[dstOff>>3 : (dstOff+n+7)>>3]
	dstOff &= 7
	src = src[srcOff>>3 : (srcOff+n+7)>>3]
	srcOff &= 7
	// Head: bits until dst is byte aligned.
	for n > 0 && dstOff != 0 {
		b := src[srcOff>>3] >> (srcOff & 7) & 1
		dst[0] = dst[0]&^(1<<dstOff) | b<<dstOff
		dstOff++
		srcOff++
		n--
		if dstOff == 8 {
			dst = dst[1:]
			dstOff = 0
		}
	}
	if n == 0 {
		return
	}
	src = src[srcOff>>3:]
	srcOff &= 7
	full := n >> 3
	if srcOff == 0 {
		copy(dst[:full], src[:full])
	} else {
		// src holds srcOff+n > 8*full bits, so src[full] exists.
		s := uint(srcOff)
		sb := src[:full+1]
		db := dst[:full]
		i := 0
		for ; i+8 < len(sb); i += 8 {
			v := binary.LittleEndian.Uint64(sb[i:])>>s | uint64(sb[i+8])<<(64-s)
			binary.LittleEndian.PutUint64(db[i:], v)
		}
		for ; i < len(db); i++ {
			db[i] = byte(uint16(sb[i])>>s | uint16(sb[i+1])<<(8-s))
		}
	}
	// Tail.
	rest := n & 7
	if rest == 0 {
		return
	}
	bitPos := full*8 + srcOff
	var v uint16
	v = uint16(src[bitPos>>3]) >> (bitPos & 7)
	if (bitPos&7)+rest > 8 {
		v |= uint16(src[bitPos>>3+1]) << (8 - bitPos&7)
	}
	mask := byte(1)<<rest - 1
	dst[full] = dst[full]&^mask | byte(v)&mask
}

// copyShort copies src[sp:sp+n] to dst[dp:]. Values of strings are short,
// and a call of memmove per value costs more than the bytes: when both
// sides have 32 bytes of room it moves 32 bytes with two fixed-size copies
// (the bytes past n are overwritten by the next value or are beyond the
// data). PLAIN BYTE_ARRAY decode of 10-40 byte strings, in thread CPU time
// on the shared 2-core machine: 1.29-1.61 GB/s with it, 1.03-1.34 GB/s with
// copy alone (5 alternating runs).
func copyShort(dst []byte, dp int, src []byte, sp, n int) {
	if n <= 32 && sp+32 <= len(src) && dp+32 <= len(dst) {
		move32(dst[dp:dp+32], src[sp:sp+32])
		return
	}
	copy(dst[dp:dp+n], src[sp:sp+n])
}

// copy32 copies the first 32 bytes of src to dst, which must not
// overlap, as two 16-byte moves through a register, where a 32-byte array
// move between two slices is a call to runtime.memmove (which must allow
// for overlap): cheap enough to inline into copyBlocks' loop.
func copy32(dst, src []byte) {
	*(*[16]byte)(dst[:16]) = [16]byte(src[:16])
	*(*[16]byte)(dst[16:32]) = [16]byte(src[16:32])
}

// move32 copies the first 32 bytes of src to dst as four 8-byte words in
// registers, all loaded before any is stored, so that dst may overlap src
// (DeltaByteArray copies prefixes within its output). The compiler makes
// a 32-byte array move between two slices a call to runtime.memmove (20%
// of lineitem's l_shipinstruct read), and [16]byte halves held across
// each other's stores go through the stack.
func move32(dst, src []byte) {
	// (copy32's two moves would do for DeltaByteArray too, whose copies
	// within its output need only bytes before dst, but that argument
	// is not worth its fragility.)
	s, d := (*[32]byte)(src[:32]), (*[32]byte)(dst[:32])
	a := binary.LittleEndian.Uint64(s[0:])
	b := binary.LittleEndian.Uint64(s[8:])
	c := binary.LittleEndian.Uint64(s[16:])
	e := binary.LittleEndian.Uint64(s[24:])
	binary.LittleEndian.PutUint64(d[0:], a)
	binary.LittleEndian.PutUint64(d[8:], b)
	binary.LittleEndian.PutUint64(d[16:], c)
	binary.LittleEndian.PutUint64(d[24:], e)
}
