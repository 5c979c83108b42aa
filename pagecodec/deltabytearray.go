package pagecodec

// DELTA_LENGTH_BYTE_ARRAY (Encodings.md, "Delta-length byte array
// (DELTA_LENGTH_BYTE_ARRAY = 6)"):
//
//	page = DELTA_BINARY_PACKED(lengths) data-of-value-0 data-of-value-1 ...
//
// DELTA_BYTE_ARRAY (Encodings.md, "Delta Strings (DELTA_BYTE_ARRAY = 7)"):
//
//	page  = DELTA_BINARY_PACKED(prefix lengths)
//	        DELTA_LENGTH_BYTE_ARRAY(suffixes)
//	value i = first prefix-length(i) bytes of value i-1, then suffix i
//	          (value -1 is empty)
//
// Both decode in chunks of lengthChunk values through fixed arrays, so that a
// header claiming billions of values costs nothing until they are asked for.

import (
	"math"
)

const lengthChunk = 256

// DeltaLengthByteArrayDecoder decodes DELTA_LENGTH_BYTE_ARRAY values. The
// zero value is ready after [DeltaLengthByteArrayDecoder.Reset].
type DeltaLengthByteArrayDecoder struct {
	lengths DeltaBinaryPackedDecoder
	data    []byte
	pos     int
	lbuf    [lengthChunk]int32
}

// Reset starts decoding src.
func (d *DeltaLengthByteArrayDecoder) Reset(src []byte) error {
	end, _, err := deltaBinaryPackedEnd(src)
	if err != nil {
		return err
	}
	if err := d.lengths.Reset(src[:end]); err != nil {
		return err
	}
	d.data, d.pos = src[end:], 0
	return nil
}

// Len returns the number of values not yet decoded.
func (d *DeltaLengthByteArrayDecoder) Len() int { return d.lengths.Len() }

// DecodeByteArray decodes n values like [PlainDecoder.DecodeByteArray].
func (d *DeltaLengthByteArrayDecoder) DecodeByteArray(offsets []int32, data []byte, n int) ([]int32, []byte, error) {
	return decodeDLBA(d, offsets, data, n, math.MaxInt32)
}

// nextLengths decodes the next k lengths into d.lbuf and returns them with
// their sum, checked against the data left.
func (d *DeltaLengthByteArrayDecoder) nextLengths(k int) ([]int32, int, error) {
	lens := d.lbuf[:k]
	if _, err := d.lengths.DecodeInt32(lens); err != nil {
		return nil, 0, err
	}
	total := 0
	for _, l := range lens {
		if l < 0 {
			return nil, 0, errCorrupt("DELTA_LENGTH_BYTE_ARRAY negative length %d", l)
		}
		total += int(l)
	}
	if total > len(d.data)-d.pos {
		return nil, 0, errTruncated("DELTA_LENGTH_BYTE_ARRAY: values of %d bytes, %d left", total, len(d.data)-d.pos)
	}
	return lens, total, nil
}

func decodeDLBA[O int32 | int64](d *DeltaLengthByteArrayDecoder, offsets []O, data []byte, n int, maxOffset int64) ([]O, []byte, error) {
	if n > d.Len() {
		return offsets, data, errTruncated("DELTA_LENGTH_BYTE_ARRAY: %d values asked, %d left", n, d.Len())
	}
	for n > 0 {
		k := min(n, lengthChunk)
		lens, total, err := d.nextLengths(k)
		if err != nil {
			return offsets, data, err
		}
		if int64(len(data))+int64(total) > maxOffset {
			return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(total))
		}
		// The values are contiguous: one copy for the chunk.
		base := len(data)
		data = append(data, d.data[d.pos:d.pos+total]...)
		d.pos += total
		offsets = growLen(offsets, k)
		out := offsets[len(offsets)-k:]
		o := base
		for i, l := range lens {
			o += int(l)
			out[i] = O(o)
		}
		n -= k
	}
	return offsets, data, nil
}

// DeltaByteArrayDecoder decodes DELTA_BYTE_ARRAY values (BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY). The zero value is ready after
// [DeltaByteArrayDecoder.Reset].
//
// Prefixes repeat bytes already decoded, so the output is not bounded by
// the page size: a small page can describe many long equal values. The
// decoder only produces the values asked for; the caller bounds them by the
// page's num_values and its output buffers.
type DeltaByteArrayDecoder struct {
	prefixes DeltaBinaryPackedDecoder
	suffixes DeltaLengthByteArrayDecoder
	pbuf     [lengthChunk]int32
	prev     []byte
	scratchO []int32
	scratchD []byte
}

// Reset starts decoding src.
func (d *DeltaByteArrayDecoder) Reset(src []byte) error {
	end, total, err := deltaBinaryPackedEnd(src)
	if err != nil {
		return err
	}
	if err := d.prefixes.Reset(src[:end]); err != nil {
		return err
	}
	if err := d.suffixes.Reset(src[end:]); err != nil {
		return err
	}
	if d.suffixes.Len() != total {
		return errCorrupt("DELTA_BYTE_ARRAY with %d prefix lengths and %d suffixes", total, d.suffixes.Len())
	}
	d.prev = d.prev[:0]
	return nil
}

// Len returns the number of values not yet decoded.
func (d *DeltaByteArrayDecoder) Len() int { return d.prefixes.Len() }

// DecodeByteArray decodes n values like [PlainDecoder.DecodeByteArray].
func (d *DeltaByteArrayDecoder) DecodeByteArray(offsets []int32, data []byte, n int) ([]int32, []byte, error) {
	return decodeDeltaByteArray(d, offsets, data, n, math.MaxInt32)
}

// DecodeFixedLenByteArray decodes len(dst)/typeLength values, each of which
// must be typeLength bytes long, into dst back to back.
func (d *DeltaByteArrayDecoder) DecodeFixedLenByteArray(dst []byte, typeLength int) (int, error) {
	if typeLength <= 0 {
		return 0, errCorrupt("FIXED_LEN_BYTE_ARRAY type length %d", typeLength)
	}
	want := len(dst) / typeLength
	done := 0
	for done < want {
		k := min(want-done, lengthChunk)
		var err error
		d.scratchO = append(d.scratchO[:0], 0)
		d.scratchO, d.scratchD, err = decodeDeltaByteArray(d, d.scratchO, d.scratchD[:0], k, math.MaxInt32)
		if err != nil {
			return done, err
		}
		for i := 1; i < len(d.scratchO); i++ {
			if int(d.scratchO[i]-d.scratchO[i-1]) != typeLength {
				return done + i - 1, errCorrupt("DELTA_BYTE_ARRAY value of %d bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", d.scratchO[i]-d.scratchO[i-1], typeLength)
			}
		}
		copy(dst[done*typeLength:], d.scratchD)
		done += k
	}
	return done, nil
}

func decodeDeltaByteArray[O int32 | int64](d *DeltaByteArrayDecoder, offsets []O, data []byte, n int, maxOffset int64) ([]O, []byte, error) {
	if n > d.Len() {
		return offsets, data, errTruncated("DELTA_BYTE_ARRAY: %d values asked, %d left", n, d.Len())
	}
	s := &d.suffixes
	for n > 0 {
		k := min(n, lengthChunk)
		pre := d.pbuf[:k]
		if _, err := d.prefixes.DecodeInt32(pre); err != nil {
			return offsets, data, err
		}
		lens, stotal, err := s.nextLengths(k)
		if err != nil {
			return offsets, data, err
		}
		total := stotal
		prevLen := len(d.prev)
		for i, p := range pre {
			if p < 0 || int(p) > prevLen {
				return offsets, data, errCorrupt("DELTA_BYTE_ARRAY prefix length %d, previous value has %d bytes", p, prevLen)
			}
			total += int(p)
			prevLen = int(p) + int(lens[i])
		}
		if int64(len(data))+int64(total) > maxOffset {
			return offsets, data, errLimit("BYTE_ARRAY data of %d bytes overflows the offsets", int64(len(data))+int64(total))
		}
		base := len(data)
		data = growLen(data, total)
		out := data[base:]
		offsets = growLen(offsets, k)
		outOff := offsets[len(offsets)-k:]
		// The previous value is d.prev for the first value of the chunk,
		// then the last value written to out (from prevStart).
		sp := s.pos
		w := 0
		prevStart := -1
		for i, p := range pre {
			start := w
			if prevStart >= 0 {
				// Overlapping copies are fine: copyShort's fixed-size
				// copy reads its source before writing.
				copyShort(out, w, out, prevStart, int(p))
			} else {
				copy(out[w:], d.prev[:p])
			}
			w += int(p)
			l := int(lens[i])
			copyShort(out, w, s.data, sp, l)
			sp += l
			w += l
			prevStart = start
			outOff[i] = O(base + w)
		}
		s.pos = sp
		if prevStart >= 0 {
			d.prev = append(d.prev[:0], out[prevStart:w]...)
		}
		n -= k
	}
	return offsets, data, nil
}

// DeltaLengthByteArrayEncoder encodes BYTE_ARRAY values as
// DELTA_LENGTH_BYTE_ARRAY. The zero value is ready.
type DeltaLengthByteArrayEncoder struct {
	lengths DeltaBinaryPackedEncoder
	data    []byte
	lbuf    [lengthChunk]int32
}

// Reset empties the encoder.
func (e *DeltaLengthByteArrayEncoder) Reset() { e.lengths.Reset(); e.data = e.data[:0] }

// AppendByteArray adds the len(offsets)-1 values data[offsets[i]:offsets[i+1]].
func (e *DeltaLengthByteArrayEncoder) AppendByteArray(offsets []int32, data []byte) {
	appendDLBA(e, offsets, data)
}

func appendDLBA[O int32 | int64](e *DeltaLengthByteArrayEncoder, offsets []O, data []byte) {
	if len(offsets) < 2 {
		return
	}
	for i := 0; i < len(offsets)-1; {
		k := min(len(offsets)-1-i, lengthChunk)
		for j := range e.lbuf[:k] {
			e.lbuf[j] = int32(offsets[i+j+1] - offsets[i+j])
		}
		e.lengths.AppendInt32(e.lbuf[:k])
		i += k
	}
	e.data = append(e.data, data[offsets[0]:offsets[len(offsets)-1]]...)
}

// Len returns the encoded size so far in bytes (an upper bound).
func (e *DeltaLengthByteArrayEncoder) Len() int { return e.lengths.Len() + len(e.data) }

// AppendTo appends the encoded page to dst and empties the encoder.
func (e *DeltaLengthByteArrayEncoder) AppendTo(dst []byte) []byte {
	dst = e.lengths.AppendTo(dst)
	dst = append(dst, e.data...)
	e.Reset()
	return dst
}

// DeltaByteArrayEncoder encodes BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY values as
// DELTA_BYTE_ARRAY. The zero value is ready.
type DeltaByteArrayEncoder struct {
	prefixes DeltaBinaryPackedEncoder
	suffixes DeltaLengthByteArrayEncoder
	prev     []byte
	pbuf     [lengthChunk]int32
	soff     []int32
}

// Reset empties the encoder.
func (e *DeltaByteArrayEncoder) Reset() {
	e.prefixes.Reset()
	e.suffixes.Reset()
	e.prev = e.prev[:0]
}

// AppendByteArray adds the len(offsets)-1 values data[offsets[i]:offsets[i+1]].
func (e *DeltaByteArrayEncoder) AppendByteArray(offsets []int32, data []byte) {
	appendDeltaByteArray(e, offsets, data)
}

// AppendFixedLenByteArray adds len(values)/typeLength values stored back to
// back.
func (e *DeltaByteArrayEncoder) AppendFixedLenByteArray(values []byte, typeLength int) {
	if typeLength <= 0 {
		return
	}
	n := len(values) / typeLength
	for i := 0; i < n; {
		k := min(n-i, lengthChunk)
		e.soff = e.soff[:0]
		for j := 0; j <= k; j++ {
			e.soff = append(e.soff, int32(j*typeLength))
		}
		appendDeltaByteArray(e, e.soff, values[i*typeLength:(i+k)*typeLength])
		i += k
	}
}

func appendDeltaByteArray[O int32 | int64](e *DeltaByteArrayEncoder, offsets []O, data []byte) {
	if len(offsets) < 2 {
		return
	}
	prev := e.prev
	for i := 0; i < len(offsets)-1; {
		k := min(len(offsets)-1-i, lengthChunk)
		for j := 0; j < k; j++ {
			v := data[offsets[i+j]:offsets[i+j+1]]
			p := commonPrefix(prev, v)
			e.pbuf[j] = int32(p)
			e.suffixes.lbuf[j] = int32(len(v) - p)
			e.suffixes.data = append(e.suffixes.data, v[p:]...)
			prev = v
		}
		e.prefixes.AppendInt32(e.pbuf[:k])
		e.suffixes.lengths.AppendInt32(e.suffixes.lbuf[:k])
		i += k
	}
	// prev aliases the caller's data until here; keep a copy.
	e.prev = append(e.prev[:0], prev...)
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Len returns the encoded size so far in bytes (an upper bound).
func (e *DeltaByteArrayEncoder) Len() int { return e.prefixes.Len() + e.suffixes.Len() }

// AppendTo appends the encoded page to dst and empties the encoder.
func (e *DeltaByteArrayEncoder) AppendTo(dst []byte) []byte {
	dst = e.prefixes.AppendTo(dst)
	dst = e.suffixes.AppendTo(dst)
	e.Reset()
	return dst
}
