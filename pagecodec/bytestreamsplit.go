package pagecodec

// BYTE_STREAM_SPLIT (Encodings.md, "Byte Stream Split: (BYTE_STREAM_SPLIT =
// 9)"): for N values of K bytes each, K streams of N bytes; stream k holds
// byte k (little-endian order) of every value:
//
//	page = stream(0) stream(1) ... stream(K-1)
//	stream(k) = byte k of value 0, byte k of value 1, ..., of value N-1
//
// K is 4 (FLOAT, INT32), 8 (DOUBLE, INT64) or the FIXED_LEN_BYTE_ARRAY type
// length. The page size must be a multiple of K.

import (
	"encoding/binary"
	"math"
)

// ByteStreamSplitDecoder decodes BYTE_STREAM_SPLIT values. The zero value is
// ready after [ByteStreamSplitDecoder.Reset].
type ByteStreamSplitDecoder struct {
	src   []byte
	width int
	n     int // values in the page
	pos   int // values decoded
}

// Reset starts decoding src with values of width bytes (4, 8 or the
// FIXED_LEN_BYTE_ARRAY type length).
func (d *ByteStreamSplitDecoder) Reset(src []byte, width int) error {
	*d = ByteStreamSplitDecoder{}
	if width <= 0 {
		return errCorrupt("BYTE_STREAM_SPLIT value width %d", width)
	}
	if len(src)%width != 0 {
		return errCorrupt("BYTE_STREAM_SPLIT page of %d bytes is not a multiple of %d", len(src), width)
	}
	d.src, d.width, d.n = src, width, len(src)/width
	return nil
}

// Len returns the number of values not yet decoded.
func (d *ByteStreamSplitDecoder) Len() int { return d.n - d.pos }

func (d *ByteStreamSplitDecoder) take(want, width int, name string) (int, error) {
	if d.width != width {
		return 0, errCorrupt("BYTE_STREAM_SPLIT %s with %d-byte values", name, d.width)
	}
	if want > d.n-d.pos {
		return d.n - d.pos, errTruncated("BYTE_STREAM_SPLIT %s: %d values asked, %d left", name, want, d.n-d.pos)
	}
	return want, nil
}

// DecodeInt32 decodes len(dst) INT32 values.
func (d *ByteStreamSplitDecoder) DecodeInt32(dst []int32) (int, error) {
	n, err := d.take(len(dst), 4, "INT32")
	d.decode32(dst[:n])
	return n, err
}

// DecodeFloat decodes len(dst) FLOAT values.
func (d *ByteStreamSplitDecoder) DecodeFloat(dst []float32) (int, error) {
	n, err := d.take(len(dst), 4, "FLOAT")
	// The bits travel through an int32 view of the same values.
	tmp := dst[:n]
	for i := 0; i < len(tmp); {
		var buf [256]int32
		m := min(len(buf), len(tmp)-i)
		d.decode32(buf[:m])
		out := tmp[i:][:m]
		for j, v := range buf[:m] {
			out[j] = math.Float32frombits(uint32(v))
		}
		i += m
	}
	return n, err
}

func (d *ByteStreamSplitDecoder) decode32(dst []int32) {
	n := len(dst)
	if n == 0 {
		return
	}
	p := d.pos
	s0 := d.src[p : p+n]
	s1 := d.src[d.n+p:][:n]
	s2 := d.src[2*d.n+p:][:n]
	s3 := d.src[3*d.n+p:][:n]
	dst = dst[:len(s0)]
	for i := range s0 {
		dst[i] = int32(uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24)
	}
	d.pos += n
}

// DecodeInt64 decodes len(dst) INT64 values.
func (d *ByteStreamSplitDecoder) DecodeInt64(dst []int64) (int, error) {
	n, err := d.take(len(dst), 8, "INT64")
	d.decode64(dst[:n])
	return n, err
}

// DecodeDouble decodes len(dst) DOUBLE values.
func (d *ByteStreamSplitDecoder) DecodeDouble(dst []float64) (int, error) {
	n, err := d.take(len(dst), 8, "DOUBLE")
	tmp := dst[:n]
	for i := 0; i < len(tmp); {
		var buf [256]int64
		m := min(len(buf), len(tmp)-i)
		d.decode64(buf[:m])
		out := tmp[i:][:m]
		for j, v := range buf[:m] {
			out[j] = math.Float64frombits(uint64(v))
		}
		i += m
	}
	return n, err
}

func (d *ByteStreamSplitDecoder) decode64(dst []int64) {
	n := len(dst)
	if n == 0 {
		return
	}
	p, m := d.pos, d.n
	s0 := d.src[p : p+n]
	s1 := d.src[m+p:][:n]
	s2 := d.src[2*m+p:][:n]
	s3 := d.src[3*m+p:][:n]
	s4 := d.src[4*m+p:][:n]
	s5 := d.src[5*m+p:][:n]
	s6 := d.src[6*m+p:][:n]
	s7 := d.src[7*m+p:][:n]
	dst = dst[:len(s0)]
	for i := range s0 {
		dst[i] = int64(uint64(s0[i]) | uint64(s1[i])<<8 | uint64(s2[i])<<16 | uint64(s3[i])<<24 |
			uint64(s4[i])<<32 | uint64(s5[i])<<40 | uint64(s6[i])<<48 | uint64(s7[i])<<56)
	}
	d.pos += n
}

// DecodeFixedLenByteArray decodes len(dst)/width FIXED_LEN_BYTE_ARRAY
// values into dst, back to back.
func (d *ByteStreamSplitDecoder) DecodeFixedLenByteArray(dst []byte) (int, error) {
	w := d.width
	if w == 0 {
		return 0, errCorrupt("BYTE_STREAM_SPLIT decoder not reset")
	}
	n, err := d.take(len(dst)/w, w, "FIXED_LEN_BYTE_ARRAY")
	for k := 0; k < w; k++ {
		s := d.src[k*d.n+d.pos : k*d.n+d.pos+n]
		for i, b := range s {
			dst[i*w+k] = b
		}
	}
	d.pos += n
	return n, err
}

// ByteStreamSplitEncoder buffers values and writes them BYTE_STREAM_SPLIT.
// The zero value is not usable; call [ByteStreamSplitEncoder.Reset].
type ByteStreamSplitEncoder struct {
	buf   []byte // PLAIN bytes of the values so far
	width int
}

// Reset empties the encoder and sets the value width in bytes.
func (e *ByteStreamSplitEncoder) Reset(width int) { e.buf, e.width = e.buf[:0], width }

// AppendInt32 adds values (width 4).
func (e *ByteStreamSplitEncoder) AppendInt32(values []int32) { e.buf = appendLE(e.buf, values) }

// AppendInt64 adds values (width 8).
func (e *ByteStreamSplitEncoder) AppendInt64(values []int64) { e.buf = appendLE(e.buf, values) }

// AppendFloat adds values (width 4).
func (e *ByteStreamSplitEncoder) AppendFloat(values []float32) { e.buf = appendLE(e.buf, values) }

// AppendDouble adds values (width 8).
func (e *ByteStreamSplitEncoder) AppendDouble(values []float64) { e.buf = appendLE(e.buf, values) }

// AppendFixedLenByteArray adds FIXED_LEN_BYTE_ARRAY values stored back to
// back (len(values) a multiple of the width).
func (e *ByteStreamSplitEncoder) AppendFixedLenByteArray(values []byte) {
	e.buf = append(e.buf, values...)
}

// Len returns the encoded size so far in bytes.
func (e *ByteStreamSplitEncoder) Len() int { return len(e.buf) }

// AppendTo appends the encoded page to dst and empties the encoder.
func (e *ByteStreamSplitEncoder) AppendTo(dst []byte) []byte {
	w := e.width
	if w <= 0 {
		return dst
	}
	n := len(e.buf) / w
	start := len(dst)
	dst = growLen(dst, n*w)
	out := dst[start:]
	switch w {
	case 4:
		s0, s1, s2, s3 := out[:n], out[n:2*n], out[2*n:3*n], out[3*n:4*n]
		for i := range s0 {
			v := binary.LittleEndian.Uint32(e.buf[4*i:])
			s0[i], s1[i], s2[i], s3[i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	case 8:
		s0, s1, s2, s3 := out[:n], out[n:2*n], out[2*n:3*n], out[3*n:4*n]
		s4, s5, s6, s7 := out[4*n:5*n], out[5*n:6*n], out[6*n:7*n], out[7*n:8*n]
		for i := range s0 {
			v := binary.LittleEndian.Uint64(e.buf[8*i:])
			s0[i], s1[i], s2[i], s3[i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			s4[i], s5[i], s6[i], s7[i] = byte(v>>32), byte(v>>40), byte(v>>48), byte(v>>56)
		}
	default:
		for k := 0; k < w; k++ {
			s := out[k*n : (k+1)*n]
			for i := range s {
				s[i] = e.buf[i*w+k]
			}
		}
	}
	e.buf = e.buf[:0]
	return dst
}
