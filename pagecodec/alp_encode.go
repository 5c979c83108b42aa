package pagecodec

// The ALP encoder. Its choices are informative in the spec; ours follow the
// paper (Afroozeh, Kuffó, Boncz, "ALP: Adaptive Lossless floating-Point
// Compression", SIGMOD 2024) and AlpEncoding.md:
//
//   - Preset: once per encoder (a column chunk, until Reset), from up to 8
//     vectors spread over the first values (8 vectors' worth, or the first
//     page if it is smaller), 256 values sampled from each. For each sample
//     every (e, f) with 0 <= f <= e is tried and the one giving the smallest
//     estimated size wins (ties go to the larger e, then the larger f, as in
//     the paper); the up to 5 combinations that won most often form the
//     preset.
//   - Per vector: each preset combination is tried on 32 values sampled
//     from the vector and the smallest estimate is used for the whole
//     vector. With a single preset combination there is nothing to try.
//   - encoded = round-half-even(v * 10^e * 10^-f), computed in the value's
//     precision; any value whose normative decode is not bit-identical (NaN,
//     ±Inf, -0, out of the integer's range, or just not decimal at that
//     precision) is an exception, and its slot takes the first
//     non-exception encoded value of the vector (0 if none) before the
//     frame of reference is taken.
//
// Vectors are encoded as soon as they are complete (after the preset is
// made), so Len is exact except for the values of the last, partial vector,
// which it counts at their PLAIN size.

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/arrowpq/arrowpq/internal/bitpack"
)

const (
	alpSampleVectors  = 8
	alpSampleValues   = 256
	alpPresetSize     = 5
	alpVectorSamples  = 32
	alpExceptionBytes = 2 // position, on top of the value itself
)

// alpCombo is an (exponent, factor) pair.
type alpCombo struct{ e, f uint8 }

// ALPEncoder encodes FLOAT or DOUBLE values with ALP. The zero value is ready
// to use; one encoder takes values of one type (mixing AppendFloat and
// AppendDouble before [ALPEncoder.Reset] is a programmer error and panics).
// It is not safe for concurrent use.
type ALPEncoder struct {
	// LogVectorSize is log2 of the vector size, 3..15; 0 means 10 (1024
	// values, the spec's default). Set it before the first value after
	// Reset; other values are a programmer error and panic.
	LogVectorSize int

	width   int // 4 or 8, 0 before the first value
	pend32  []float32
	pend64  []float64
	preset  []alpCombo
	haveSet bool

	vectors []byte   // encoded vectors of the current page
	offsets []uint32 // their offsets, from the start of the vectors
	count   int      // values of the current page

	// scratch
	enc64  []int64
	enc32  []int32
	exc    []uint16
	packed []uint64
	pack32 []uint32
}

// Reset empties the encoder and forgets the preset, for a new column chunk.
// LogVectorSize is kept.
func (e *ALPEncoder) Reset() {
	e.width = 0
	e.pend32, e.pend64 = e.pend32[:0], e.pend64[:0]
	e.preset, e.haveSet = e.preset[:0], false
	e.vectors, e.offsets, e.count = e.vectors[:0], e.offsets[:0], 0
}

func (e *ALPEncoder) vectorLen() int {
	lg := e.LogVectorSize
	if lg == 0 {
		lg = alpDefaultLog
	}
	if lg < alpMinLogVector || lg > alpMaxLogVector {
		panic("pagecodec: ALPEncoder.LogVectorSize outside [3, 15]")
	}
	return 1 << lg
}

func (e *ALPEncoder) setWidth(w int) {
	if e.width == 0 {
		e.width = w
	} else if e.width != w {
		panic("pagecodec: ALPEncoder given FLOAT and DOUBLE values without Reset")
	}
}

// AppendDouble adds DOUBLE values to the page.
func (e *ALPEncoder) AppendDouble(values []float64) {
	e.setWidth(8)
	e.count += len(values)
	e.pend64 = append(e.pend64, values...)
	e.flush(false)
}

// AppendFloat adds FLOAT values to the page.
func (e *ALPEncoder) AppendFloat(values []float32) {
	e.setWidth(4)
	e.count += len(values)
	e.pend32 = append(e.pend32, values...)
	e.flush(false)
}

// pending is the number of values not yet encoded into a vector.
func (e *ALPEncoder) pending() int { return len(e.pend32) + len(e.pend64) }

// flush encodes the complete vectors pending (all of them when last, the
// final one possibly short), making the preset first if needed.
func (e *ALPEncoder) flush(last bool) {
	vl := e.vectorLen()
	if e.pending() == 0 {
		return
	}
	if !e.haveSet {
		if !last && e.pending() < alpSampleVectors*vl {
			return
		}
		e.makePreset(vl)
	}
	done := 0
	for p := e.pending(); p-done >= vl || (last && done < p); {
		k := min(vl, p-done)
		e.offsets = append(e.offsets, uint32(len(e.vectors)))
		if e.width == 8 {
			e.vectors = e.encodeVector64(e.vectors, e.pend64[done:done+k])
		} else {
			e.vectors = e.encodeVector32(e.vectors, e.pend32[done:done+k])
		}
		done += k
	}
	if e.width == 8 {
		e.pend64 = e.pend64[:copy(e.pend64, e.pend64[done:])]
	} else {
		e.pend32 = e.pend32[:copy(e.pend32, e.pend32[done:])]
	}
}

// Len returns the encoded size of the page so far in bytes: exact for the
// complete vectors, and for values not yet in a vector the most they can
// take (every one an exception), so that the page is never larger.
func (e *ALPEncoder) Len() int {
	if e.count == 0 {
		return 0
	}
	nv, size := len(e.offsets), len(e.vectors)
	if p := e.pending(); p > 0 {
		pv := (p + e.vectorLen() - 1) / e.vectorLen()
		nv += pv
		size += pv*(4+2*e.width+1) + p*(e.width+alpExceptionBytes)
	}
	return alpHeaderSize + 4*nv + size
}

// AppendTo appends the encoded page to dst and empties the page; the preset
// is kept for the next page of the column chunk.
func (e *ALPEncoder) AppendTo(dst []byte) []byte {
	lg := 0
	for 1<<lg < e.vectorLen() {
		lg++
	}
	e.flush(true)
	nv := len(e.offsets)
	dst = append(dst, alpModeALP, alpIntegerEncoding, byte(lg))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(e.count))
	for _, off := range e.offsets {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(4*nv)+off)
	}
	dst = append(dst, e.vectors...)
	e.vectors, e.offsets, e.count = e.vectors[:0], e.offsets[:0], 0
	return dst
}

// makePreset samples the pending values (see the file comment).
func (e *ALPEncoder) makePreset(vl int) {
	p := e.pending()
	nvec := (p + vl - 1) / vl
	ns := min(nvec, alpSampleVectors)
	wins := map[alpCombo]int{}
	for i := 0; i < ns; i++ {
		v := i * nvec / ns
		lo, hi := v*vl, min(p, (v+1)*vl)
		var best alpCombo
		if e.width == 8 {
			best = bestCombo64(sample(e.pend64[lo:hi], alpSampleValues), allCombos64)
		} else {
			best = bestCombo32(sample(e.pend32[lo:hi], alpSampleValues), allCombos32)
		}
		wins[best]++
	}
	e.preset = e.preset[:0]
	for c := range wins {
		e.preset = append(e.preset, c)
	}
	// Most wins first; then the larger exponent and factor, as in the
	// paper's tie-break; the order makes the preset deterministic.
	slices.SortFunc(e.preset, func(a, b alpCombo) int {
		if wins[a] != wins[b] {
			return wins[b] - wins[a]
		}
		if a.e != b.e {
			return int(b.e) - int(a.e)
		}
		return int(b.f) - int(a.f)
	})
	if len(e.preset) > alpPresetSize {
		e.preset = e.preset[:alpPresetSize]
	}
	e.haveSet = true
}

var allCombos64, allCombos32 = combos(alpMaxExponent64), combos(alpMaxExponent32)

// combos lists every (e, f) with f <= e <= maxE, larger e first so that the
// strict comparison of the searches below keeps the paper's tie-break.
func combos(maxE int) []alpCombo {
	var c []alpCombo
	for ex := maxE; ex >= 0; ex-- {
		for f := ex; f >= 0; f-- {
			c = append(c, alpCombo{uint8(ex), uint8(f)})
		}
	}
	return c
}

// sample returns up to n values of s taken at an even stride. The stride is
// odd: data with a period of a power of two (quarters, say) would otherwise
// be sampled at one phase only.
func sample[T float32 | float64](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	out := make([]T, 0, n)
	step := len(s) / n
	if step > 1 && step%2 == 0 {
		step--
	}
	for i := 0; i < n; i++ {
		out = append(out, s[i*step])
	}
	return out
}

// alpEncode64 maps v to its integer under c and reports whether the
// normative decode gives v back bit for bit.
func alpEncode64(v float64, c alpCombo) (int64, bool) {
	x := v * alpPow10[c.e] * alpNegPow10[c.f]
	// The range test also rejects NaN; 2^63 itself does not fit.
	if !(x >= -0x1p63 && x < 0x1p63) {
		return 0, false
	}
	n := int64(math.RoundToEven(x))
	back := float64(n) * alpPow10[c.f]
	back *= alpNegPow10[c.e]
	return n, math.Float64bits(back) == math.Float64bits(v)
}

// alpEncode32 is alpEncode64 in binary32.
func alpEncode32(v float32, c alpCombo) (int32, bool) {
	x := float32(v*alpPow10f[c.e]) * alpNegPow10f[c.f]
	if !(x >= -0x1p31 && x < 0x1p31) {
		return 0, false
	}
	n := int32(math.RoundToEven(float64(x)))
	back := float32(float32(n) * alpPow10f[c.f])
	back *= alpNegPow10f[c.e]
	return n, math.Float32bits(back) == math.Float32bits(v)
}

// estimate64 is the estimated encoded size in bits of vals under c:
// packed deltas plus exceptions; limit or more when it is not below limit.
func estimate64(vals []float64, c alpCombo, limit int) int {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	exc := 0
	for i, v := range vals {
		n, ok := alpEncode64(v, c)
		if !ok {
			// Give up on a combination whose exceptions alone
			// cost more than the best so far.
			if exc++; exc*8*(8+alpExceptionBytes) >= limit {
				return limit
			}
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
		// Every 32 values, the same with the bit width so far: the
		// width only grows, so this is a lower bound of the result.
		if i%32 == 31 && (i+1-exc)*bits.Len64(uint64(hi)-uint64(lo))+exc*8*(8+alpExceptionBytes) >= limit {
			return limit
		}
	}
	w := 0
	if lo <= hi {
		w = bits.Len64(uint64(hi) - uint64(lo))
	}
	return (len(vals)-exc)*w + exc*8*(8+alpExceptionBytes)
}

func estimate32(vals []float32, c alpCombo, limit int) int {
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	exc := 0
	for i, v := range vals {
		n, ok := alpEncode32(v, c)
		if !ok {
			// Give up on a combination whose exceptions alone
			// cost more than the best so far.
			if exc++; exc*8*(4+alpExceptionBytes) >= limit {
				return limit
			}
			continue
		}
		lo, hi = min(lo, n), max(hi, n)
		// Every 32 values, the same with the bit width so far: the
		// width only grows, so this is a lower bound of the result.
		if i%32 == 31 && (i+1-exc)*bits.Len32(uint32(hi)-uint32(lo))+exc*8*(4+alpExceptionBytes) >= limit {
			return limit
		}
	}
	w := 0
	if lo <= hi {
		w = bits.Len32(uint32(hi) - uint32(lo))
	}
	return (len(vals)-exc)*w + exc*8*(4+alpExceptionBytes)
}

func bestCombo64(vals []float64, cands []alpCombo) alpCombo {
	best, bestSize := cands[0], math.MaxInt
	for _, c := range cands {
		if s := estimate64(vals, c, bestSize); s < bestSize {
			best, bestSize = c, s
		}
	}
	return best
}

func bestCombo32(vals []float32, cands []alpCombo) alpCombo {
	best, bestSize := cands[0], math.MaxInt
	for _, c := range cands {
		if s := estimate32(vals, c, bestSize); s < bestSize {
			best, bestSize = c, s
		}
	}
	return best
}

// encodeVector64 appends one vector of vals to dst.
func (e *ALPEncoder) encodeVector64(dst []byte, vals []float64) []byte {
	c := e.preset[0]
	if len(e.preset) > 1 {
		c = bestCombo64(sample(vals, alpVectorSamples), e.preset)
	}
	enc := growLen(e.enc64[:0], len(vals))
	exc := e.exc[:0]
	var placeholder int64
	havePH := false
	for i, v := range vals {
		n, ok := alpEncode64(v, c)
		if !ok {
			exc = append(exc, uint16(i))
			continue
		}
		enc[i] = n
		if !havePH {
			placeholder, havePH = n, true
		}
	}
	for _, p := range exc {
		enc[p] = placeholder
	}
	lo, hi := placeholder, placeholder
	for _, n := range enc {
		lo, hi = min(lo, n), max(hi, n)
	}
	w := uint(bits.Len64(uint64(hi) - uint64(lo)))
	dst = append(dst, c.e, c.f)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(exc)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(lo))
	dst = append(dst, byte(w))
	// Pack whole groups of 8 (zero deltas pad the last), then cut the
	// bytes back to ceil(n*w/8): the padding values are zero bits.
	g := (len(vals) + 7) &^ 7
	deltas := growLen(e.packed[:0], g)
	for i, n := range enc {
		deltas[i] = uint64(n) - uint64(lo)
	}
	clear(deltas[len(enc):])
	start := len(dst)
	dst = bitpack.AppendPacked64(dst, deltas, w)
	dst = dst[:start+(len(vals)*int(w)+7)/8]
	for _, p := range exc {
		dst = binary.LittleEndian.AppendUint16(dst, p)
	}
	for _, p := range exc {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(vals[p]))
	}
	e.enc64, e.exc, e.packed = enc, exc, deltas
	return dst
}

// encodeVector32 is encodeVector64 for FLOAT.
func (e *ALPEncoder) encodeVector32(dst []byte, vals []float32) []byte {
	c := e.preset[0]
	if len(e.preset) > 1 {
		c = bestCombo32(sample(vals, alpVectorSamples), e.preset)
	}
	enc := growLen(e.enc32[:0], len(vals))
	exc := e.exc[:0]
	var placeholder int32
	havePH := false
	for i, v := range vals {
		n, ok := alpEncode32(v, c)
		if !ok {
			exc = append(exc, uint16(i))
			continue
		}
		enc[i] = n
		if !havePH {
			placeholder, havePH = n, true
		}
	}
	for _, p := range exc {
		enc[p] = placeholder
	}
	lo, hi := placeholder, placeholder
	for _, n := range enc {
		lo, hi = min(lo, n), max(hi, n)
	}
	w := uint(bits.Len32(uint32(hi) - uint32(lo)))
	dst = append(dst, c.e, c.f)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(exc)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(lo))
	dst = append(dst, byte(w))
	g := (len(vals) + 7) &^ 7
	deltas := growLen(e.pack32[:0], g)
	for i, n := range enc {
		deltas[i] = uint32(n) - uint32(lo)
	}
	clear(deltas[len(enc):])
	start := len(dst)
	dst = bitpack.AppendPacked32(dst, deltas, w)
	dst = dst[:start+(len(vals)*int(w)+7)/8]
	for _, p := range exc {
		dst = binary.LittleEndian.AppendUint16(dst, p)
	}
	for _, p := range exc {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(vals[p]))
	}
	e.enc32, e.exc, e.pack32 = enc, exc, deltas
	return dst
}
