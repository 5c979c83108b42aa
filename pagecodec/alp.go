package pagecodec

// ALP, Adaptive Lossless floating-Point (Encodings.md "ALP = 10" and
// AlpEncoding.md of apache/parquet-format at commit
// 19b0fe724db6b37231f85c8c15d7b40b1385ca5e, a preview of the format), for
// FLOAT and DOUBLE. All integers little-endian:
//
//	page      = header offset{num_vectors} vector{num_vectors}
//	header    = u8 compression_mode (0 = ALP; other values are reserved)
//	            u8 integer_encoding (0 = frame of reference + bit-packing)
//	            u8 log_vector_size (3..15)
//	            i32 num_elements (the non-null values of the page)
//	offset    = u32, from the start of the offset array; the first is
//	            num_vectors*4, each next one the previous plus the size of
//	            the previous vector
//	vector    = u8 exponent e (0..10 FLOAT, 0..18 DOUBLE) u8 factor f (0..e)
//	            u16 num_exceptions
//	            frame_of_reference (i32 FLOAT, i64 DOUBLE) u8 bit_width
//	              (0..32 FLOAT, 0..64 DOUBLE)
//	            packed deltas: ceil(n*bit_width/8) bytes, LSB first as in
//	              the RLE/bit-packing hybrid
//	            u16 exception position{num_exceptions} (index in the vector)
//	            exception value{num_exceptions} (the IEEE 754 bits as stored)
//
// num_vectors = ceil(num_elements / 2^log_vector_size); every vector but the
// last holds 2^log_vector_size values. The decode is normative: value =
// float(delta + frame_of_reference) * 10^f * 10^-e, two multiplications by
// the correctly rounded constants below (never pow), the addition wrapping
// in the width of the integer; then the exceptions overwrite their slots.
//
// FLOAT: the spec states the formula once for both types. We decode FLOAT
// entirely in binary32, as the paper's reference code (and Arrow C++'s) do
// for float: the int32 is converted to the nearest binary32, and both
// products are rounded to binary32, with binary32 constants (1e0f..1e10f,
// 1e-1f..1e-10f). 10^f for f <= 10 is exact in binary32, so only the 10^-e
// constants and the rounding of each product depend on this choice.
//
// Data after the last vector is ignored. Everything else is checked by
// [ALPDecoder.Reset] before a value is decoded.

import (
	"encoding/binary"
	"math"

	"github.com/arrowpq/arrowpq/internal/bitpack"
	"github.com/arrowpq/arrowpq/metadata/format"
)

const (
	alpHeaderSize      = 7
	alpMinLogVector    = 3
	alpMaxLogVector    = 15
	alpDefaultLog      = 10
	alpMaxExponent32   = 10
	alpMaxExponent64   = 18
	alpVectorHeader32  = 4 + 5
	alpVectorHeader64  = 4 + 9
	alpModeALP         = 0
	alpIntegerEncoding = 0
)

// Powers of ten: Go converts each exact constant to the nearest binary64 or
// binary32 value (round to nearest even), which is what the spec asks for;
// TestALPConstants checks them against strconv.ParseFloat.
var (
	alpPow10 = [alpMaxExponent64 + 1]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
		1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}
	alpNegPow10 = [alpMaxExponent64 + 1]float64{1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9,
		1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18}
	alpPow10f    = [alpMaxExponent32 + 1]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}
	alpNegPow10f = [alpMaxExponent32 + 1]float32{1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}
)

// ALPDecoder decodes an ALP page of FLOAT or DOUBLE values. The zero value is
// ready after [ALPDecoder.Reset]. Decoding allocates at most one vector of
// scratch (2^log_vector_size values), and only when a batch starts or ends
// inside a vector.
type ALPDecoder struct {
	src        []byte // from the offset array on
	width      int    // 4 (FLOAT) or 8 (DOUBLE)
	n          int    // num_elements
	vecLen     int    // values per full vector
	numVectors int

	vec  int // current vector
	pos  int // values of the current vector already returned
	done int // values returned

	// scratch holds vector scratchVec decoded, for batches that start or
	// end inside it.
	scratch32  []float32
	scratch64  []float64
	scratchVec int
}

// alpVector is the parsed header of one vector.
type alpVector struct {
	e, f    int
	nexc    int
	for64   int64
	width   uint
	packed  []byte // the packed deltas
	excPos  []byte // num_exceptions u16
	excVals []byte // num_exceptions values
}

// Reset starts decoding src, the values of a page (after levels and
// decompression), for a column of physical type FLOAT or DOUBLE. It checks
// the header, every offset and vector header against len(src), every bit
// width, exponent and factor, and that every exception position lies inside
// its vector, so that decoding cannot fail on a page that Reset accepted. An
// unknown compression_mode or integer_encoding wraps [ErrUnsupported];
// other defects wrap [ErrCorrupt] (and io.ErrUnexpectedEOF when the page is
// truncated).
func (d *ALPDecoder) Reset(src []byte, physical format.Type) error {
	s32, s64 := d.scratch32[:0], d.scratch64[:0]
	*d = ALPDecoder{scratch32: s32, scratch64: s64, scratchVec: -1}
	switch physical {
	case format.Type_FLOAT:
		d.width = 4
	case format.Type_DOUBLE:
		d.width = 8
	default:
		return errUnsupported("ALP values of type %v", physical)
	}
	if len(src) < alpHeaderSize {
		return errTruncated("ALP page of %d bytes, header needs %d", len(src), alpHeaderSize)
	}
	if m := src[0]; m != alpModeALP {
		return errUnsupported("ALP compression_mode %d", m)
	}
	if ie := src[1]; ie != alpIntegerEncoding {
		return errUnsupported("ALP integer_encoding %d", ie)
	}
	lg := int(src[2])
	if lg < alpMinLogVector || lg > alpMaxLogVector {
		return errCorrupt("ALP log_vector_size %d outside [%d, %d]", lg, alpMinLogVector, alpMaxLogVector)
	}
	n := int32(binary.LittleEndian.Uint32(src[3:]))
	if n < 0 {
		return errCorrupt("ALP num_elements %d", n)
	}
	d.n, d.vecLen = int(n), 1<<lg
	d.numVectors = (d.n + d.vecLen - 1) / d.vecLen
	d.src = src[alpHeaderSize:]
	// Every vector takes at least its offset and its header: a count
	// that cannot fit is rejected before the walk below.
	minVec := 4 + alpVectorHeader32
	if d.width == 8 {
		minVec = 4 + alpVectorHeader64
	}
	if d.numVectors > len(d.src)/minVec {
		return errTruncated("ALP page: %d values in %d vectors, %d bytes after the header", d.n, d.numVectors, len(d.src))
	}
	next := uint64(d.numVectors) * 4
	for i := 0; i < d.numVectors; i++ {
		off := uint64(binary.LittleEndian.Uint32(d.src[4*i:]))
		if off != next {
			return errCorrupt("ALP vector %d at offset %d, want %d", i, off, next)
		}
		v, size, err := d.parseVector(i, int(off))
		if err != nil {
			return err
		}
		for j := 0; j < v.nexc; j++ {
			if p := int(binary.LittleEndian.Uint16(v.excPos[2*j:])); p >= d.vectorLen(i) {
				return errCorrupt("ALP vector %d: exception %d at position %d, vector has %d values", i, j, p, d.vectorLen(i))
			}
		}
		next += uint64(size)
	}
	return nil
}

// vectorLen is the number of values of vector i.
func (d *ALPDecoder) vectorLen(i int) int {
	if i == d.numVectors-1 {
		return d.n - i*d.vecLen
	}
	return d.vecLen
}

// parseVector reads the header of vector i at off (relative to d.src) and
// slices its sections, checking them against the page.
func (d *ALPDecoder) parseVector(i, off int) (alpVector, int, error) {
	var v alpVector
	b := d.src[off:]
	hdr, maxE, maxW := alpVectorHeader32, alpMaxExponent32, 32
	if d.width == 8 {
		hdr, maxE, maxW = alpVectorHeader64, alpMaxExponent64, 64
	}
	if len(b) < hdr {
		return v, 0, errTruncated("ALP vector %d at offset %d: %d bytes left, header needs %d", i, off, len(b), hdr)
	}
	v.e, v.f = int(b[0]), int(b[1])
	v.nexc = int(binary.LittleEndian.Uint16(b[2:]))
	if v.e > maxE {
		return v, 0, errCorrupt("ALP vector %d: exponent %d > %d", i, v.e, maxE)
	}
	if v.f > v.e {
		return v, 0, errCorrupt("ALP vector %d: factor %d > exponent %d", i, v.f, v.e)
	}
	if d.width == 4 {
		v.for64 = int64(int32(binary.LittleEndian.Uint32(b[4:])))
	} else {
		v.for64 = int64(binary.LittleEndian.Uint64(b[4:]))
	}
	v.width = uint(b[hdr-1])
	if int(v.width) > maxW {
		return v, 0, errCorrupt("ALP vector %d: bit width %d > %d", i, v.width, maxW)
	}
	n := d.vectorLen(i)
	if v.nexc > n {
		return v, 0, errCorrupt("ALP vector %d: %d exceptions in %d values", i, v.nexc, n)
	}
	packed := (n*int(v.width) + 7) / 8
	size := hdr + packed + v.nexc*(2+d.width)
	if len(b) < size {
		return v, 0, errTruncated("ALP vector %d at offset %d: %d bytes left, vector needs %d", i, off, len(b), size)
	}
	b = b[hdr:]
	v.packed, b = b[:packed], b[packed:]
	v.excPos, b = b[:2*v.nexc], b[2*v.nexc:]
	v.excVals = b[:d.width*v.nexc]
	return v, size, nil
}

// Len returns the number of values not yet decoded.
func (d *ALPDecoder) Len() int { return d.n - d.done }

func (d *ALPDecoder) take(want, width int, name string) (int, error) {
	if d.width != width {
		return 0, errCorrupt("ALP %s from a page of %d-byte values", name, d.width)
	}
	if want > d.n-d.done {
		return d.n - d.done, errTruncated("ALP %s: %d values asked, %d left", name, want, d.n-d.done)
	}
	return want, nil
}

// vector returns the parsed header of the current vector; Reset has
// checked it.
func (d *ALPDecoder) vector() alpVector {
	off := int(binary.LittleEndian.Uint32(d.src[4*d.vec:]))
	v, _, _ := d.parseVector(d.vec, off)
	return v
}

// DecodeDouble decodes len(dst) DOUBLE values. Asking for more than [Len]
// values decodes what is left and returns an error wrapping [ErrCorrupt] and
// io.ErrUnexpectedEOF.
func (d *ALPDecoder) DecodeDouble(dst []float64) (int, error) {
	n, err := d.take(len(dst), 8, "DOUBLE")
	out := dst[:n]
	for len(out) > 0 {
		vl := d.vectorLen(d.vec)
		if d.pos == 0 && len(out) >= vl {
			// Whole vector: straight into dst.
			alpDecodeVector64(out[:vl], d.vector())
			out = out[vl:]
			d.vec++
			continue
		}
		if d.scratchVec != d.vec {
			d.scratch64 = growLen(d.scratch64[:0], vl)
			alpDecodeVector64(d.scratch64, d.vector())
			d.scratchVec = d.vec
		}
		k := copy(out, d.scratch64[d.pos:vl])
		out = out[k:]
		if d.pos += k; d.pos == vl {
			d.vec, d.pos = d.vec+1, 0
		}
	}
	d.done += n
	return n, err
}

// DecodeFloat decodes len(dst) FLOAT values, like [ALPDecoder.DecodeDouble].
func (d *ALPDecoder) DecodeFloat(dst []float32) (int, error) {
	n, err := d.take(len(dst), 4, "FLOAT")
	out := dst[:n]
	for len(out) > 0 {
		vl := d.vectorLen(d.vec)
		if d.pos == 0 && len(out) >= vl {
			alpDecodeVector32(out[:vl], d.vector())
			out = out[vl:]
			d.vec++
			continue
		}
		if d.scratchVec != d.vec {
			d.scratch32 = growLen(d.scratch32[:0], vl)
			alpDecodeVector32(d.scratch32, d.vector())
			d.scratchVec = d.vec
		}
		k := copy(out, d.scratch32[d.pos:vl])
		out = out[k:]
		if d.pos += k; d.pos == vl {
			d.vec, d.pos = d.vec+1, 0
		}
	}
	d.done += n
	return n, err
}

// alpChunk is the number of deltas unpacked at a time before they are turned
// into values: small enough for the stack, a multiple of 8.
const alpChunk = 256

// alpDecodeVector64 decodes the vector v into dst (its exact length):
// unpack, add the frame of reference and scale, one chunk at a time, then
// patch the exceptions.
func alpDecodeVector64(dst []float64, v alpVector) {
	fact, frac := alpPow10[v.f], alpNegPow10[v.e]
	base := uint64(v.for64)
	var buf [alpChunk]uint64
	full := len(dst) &^ 7 // values in whole groups of 8
	for i := 0; i < len(dst); i += alpChunk {
		k := min(alpChunk, len(dst)-i)
		d := buf[:k]
		if i+k <= full {
			bitpack.Unpack64(d, v.packed[i/8*int(v.width):], v.width)
		} else {
			// The last group is short: its packed bytes stop at the
			// last value, so unpack it from a zero-padded copy.
			g := full - i
			bitpack.Unpack64(d[:g], v.packed[i/8*int(v.width):], v.width)
			var pad [64]byte
			copy(pad[:], v.packed[full/8*int(v.width):])
			var last [8]uint64
			bitpack.Unpack64(last[:], pad[:], v.width)
			copy(d[g:], last[:])
		}
		out := dst[i:][:len(d)]
		for j, u := range d {
			// Two roundings, in this order, as the spec requires.
			x := float64(int64(u+base)) * fact
			out[j] = x * frac
		}
	}
	for j := 0; j < v.nexc; j++ {
		p := binary.LittleEndian.Uint16(v.excPos[2*j:])
		dst[p] = math.Float64frombits(binary.LittleEndian.Uint64(v.excVals[8*j:]))
	}
}

// alpDecodeVector32 is alpDecodeVector64 for FLOAT, in binary32 throughout.
func alpDecodeVector32(dst []float32, v alpVector) {
	fact, frac := alpPow10f[v.f], alpNegPow10f[v.e]
	base := uint32(v.for64)
	var buf [alpChunk]uint32
	full := len(dst) &^ 7
	for i := 0; i < len(dst); i += alpChunk {
		k := min(alpChunk, len(dst)-i)
		d := buf[:k]
		if i+k <= full {
			bitpack.Unpack32(d, v.packed[i/8*int(v.width):], v.width)
		} else {
			g := full - i
			bitpack.Unpack32(d[:g], v.packed[i/8*int(v.width):], v.width)
			var pad [32]byte
			copy(pad[:], v.packed[full/8*int(v.width):])
			var last [8]uint32
			bitpack.Unpack32(last[:], pad[:], v.width)
			copy(d[g:], last[:])
		}
		out := dst[i:][:len(d)]
		for j, u := range d {
			// The explicit conversion keeps the first product in
			// binary32 (the Go spec lets a conversion force rounding).
			x := float32(float32(int32(u+base)) * fact)
			out[j] = x * frac
		}
	}
	for j := 0; j < v.nexc; j++ {
		p := binary.LittleEndian.Uint16(v.excPos[2*j:])
		dst[p] = math.Float32frombits(binary.LittleEndian.Uint32(v.excVals[4*j:]))
	}
}
