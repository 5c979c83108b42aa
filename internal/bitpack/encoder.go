package bitpack

import "encoding/binary"

// HybridEncoder writes the RLE/bit-packing hybrid (without length prefix).
// Input is taken run by run: a run of equal values that still holds 8 or
// more values after topping up the current bit-packed group becomes an RLE
// run (extended in O(1) while the same value keeps coming); everything else
// is bit-packed in groups of eight, up to 63 groups per bit-packed run so
// that its header is one byte. The last group is padded with zeros, as the
// spec requires of writers.
//
// The zero value is not usable; call [HybridEncoder.Reset] first. It is not
// safe for concurrent use.
type HybridEncoder struct {
	width uint
	mask  uint32
	out   []byte

	pending []uint32 // values waiting to be bit-packed, fewer than maxPending

	rleValue uint32
	rleCount int // length of the open RLE run, 0 if none
}

// maxPending is the most values one bit-packed run with a one-byte header
// holds: 63 groups.
const maxPending = 63 * 8

// Reset discards the encoded data and starts over with width bits (0..32) per
// value. The buffers are kept for reuse.
func (e *HybridEncoder) Reset(width uint) {
	if width > 32 {
		panic("bitpack: HybridEncoder width > 32")
	}
	*e = HybridEncoder{width: width, mask: uint32(1<<width - 1), out: e.out[:0], pending: e.pending[:0]}
	if e.pending == nil {
		e.pending = make([]uint32, 0, maxPending)
	}
}

// Append32 encodes values (each must fit the width; higher bits are dropped).
// Values between long runs are copied to the pending groups in bulk, so
// data without runs costs one comparison per value.
func (e *HybridEncoder) Append32(values []uint32) {
	i := 0
	if e.rleCount > 0 {
		for i < len(values) && values[i]&e.mask == e.rleValue {
			i++
		}
		e.extendRLE(i)
		if i == len(values) {
			return
		}
		e.flushRLE()
	}
	start, runStart := i, i
	for j := i + 1; j <= len(values); j++ {
		if j < len(values) && values[j] == values[j-1] {
			continue
		}
		if j-runStart >= 8 {
			e.appendPending(values[start:runStart])
			e.addRun(values[runStart]&e.mask, j-runStart)
			start = j
		}
		runStart = j
	}
	e.appendPending(values[start:])
}

// appendPending adds values to the pending groups, writing each full
// bit-packed run of 63 groups.
func (e *HybridEncoder) appendPending(values []uint32) {
	if len(values) > 0 && e.rleCount > 0 {
		e.flushRLE()
	}
	for len(values) > 0 {
		k := min(len(values), maxPending-len(e.pending))
		for _, v := range values[:k] {
			e.pending = append(e.pending, v&e.mask)
		}
		values = values[k:]
		if len(e.pending) == maxPending {
			e.flushPacked()
		}
	}
}

// AppendRepeat encodes n copies of value, as one RLE run where possible.
func (e *HybridEncoder) AppendRepeat(value uint32, n int) {
	if n > 0 {
		e.addRun(value&e.mask, n)
	}
}

func (e *HybridEncoder) addRun(v uint32, n int) {
	if e.rleCount > 0 {
		if v == e.rleValue {
			e.extendRLE(n)
			return
		}
		e.flushRLE()
	}
	fill := (8 - len(e.pending)%8) % 8
	if n-fill >= 8 {
		// Top up the open group with the run, then the rest is RLE.
		for range fill {
			e.pending = append(e.pending, v)
		}
		e.flushPacked()
		e.rleValue = v
		e.extendRLE(n - fill)
		return
	}
	for n > 0 {
		k := min(n, maxPending-len(e.pending))
		for range k {
			e.pending = append(e.pending, v)
		}
		n -= k
		if len(e.pending) == maxPending {
			e.flushPacked()
		}
	}
}

// extendRLE adds n to the open RLE run, splitting runs at MaxRunLen.
func (e *HybridEncoder) extendRLE(n int) {
	for n > 0 {
		k := min(n, MaxRunLen-e.rleCount)
		e.rleCount += k
		n -= k
		if e.rleCount == MaxRunLen {
			e.flushRLE()
		}
	}
}

// flushRLE writes the open RLE run.
func (e *HybridEncoder) flushRLE() {
	if e.rleCount == 0 {
		return
	}
	e.out = binary.AppendUvarint(e.out, uint64(e.rleCount)<<1)
	for i := 0; i < ByteWidth(e.width); i++ {
		e.out = append(e.out, byte(e.rleValue>>(8*i)))
	}
	e.rleCount = 0
}

// flushPacked writes the pending values (a multiple of 8 of them) as one
// bit-packed run.
func (e *HybridEncoder) flushPacked() {
	if len(e.pending) == 0 {
		return
	}
	e.out = append(e.out, byte(len(e.pending)/8<<1|1))
	e.out = AppendPacked32(e.out, e.pending, e.width)
	e.pending = e.pending[:0]
}

// Finish flushes pending values and returns the encoded bytes, owned by the
// encoder until the next Reset. Appending after Finish is not supported.
func (e *HybridEncoder) Finish() []byte {
	if e.rleCount > 0 {
		e.flushRLE()
	} else if len(e.pending) > 0 {
		for len(e.pending)%8 != 0 {
			e.pending = append(e.pending, 0)
		}
		e.flushPacked()
	}
	return e.out
}

// Len returns the encoded size so far; before Finish it counts pending
// values as they would be written, within a few bytes.
func (e *HybridEncoder) Len() int {
	n := len(e.out)
	if e.rleCount > 0 {
		n += 5 + ByteWidth(e.width)
	}
	if len(e.pending) > 0 {
		n += 1 + (len(e.pending)+7)/8*int(e.width)
	}
	return n
}
