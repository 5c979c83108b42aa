package arrowpq

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// denseValues holds the non-null values of one batch of a leaf in physical
// form (column.Values, filled by the leaf's column.Reader), and the Arrow
// buffers its slices alias when they decode straight into the batch's
// arrays. The slices are reused from batch to batch.
type denseValues struct {
	column.Values

	// direct, when set, is the Arrow values buffer the typed slice of a
	// flat fixed-width column aliases: values decode straight into it and
	// are spread in place, with no copy (see startDirect).
	direct *memory.Buffer
	// conv, when set, holds the converted values of a leaf with a
	// convTarget, in the Arrow buffer direct (see convleaf.go).
	conv []byte
	// offBuf and dataBuf, when set, are the Arrow buffers that offsets and
	// data of a BYTE_ARRAY leaf alias (see startBinary): byte arrays
	// decode straight into the buffers of the String or Binary array.
	offBuf, dataBuf *memory.Buffer
	// dataHint is the largest data size of a batch so far (first, an
	// estimate from the chunk's size): the next batch reserves a quarter
	// more, so that it rarely outgrows its buffer.
	dataHint int
	// binRows is the number of rows of the batch startBinary started;
	// lastData and lastRows the data size and rows of the last batch
	// taken (freshDataGuess).
	binRows, lastData, lastRows int
	// dataScratch: Data is scratch from cache, not the batch's (the
	// first batch with the fresh allocator when hintLow).
	dataScratch bool
	// hintLow: dataHint comes from a dictionary-encoded chunk's size.
	hintLow bool
	// guessCap is the capacity freshDataGuess gave the batch's data,
	// marginUp how many times its margin is doubled (adaptMargin).
	guessCap, marginUp int
	// scratch holds converted values before they are spread over slots.
	scratch []byte
	// cache lends scratch (and the first batch's Data with the fresh
	// allocator) between the leaves of the reader (ReadOptions.scratch).
	cache *scratchCache
}

// startDirect points the typed slice of a flat INT32/INT64/FLOAT/DOUBLE
// column at a new Arrow buffer of capacity numRows values: a flat column
// has at most one value per row, so decoding never outgrows it.
func (d *denseValues) startDirect(mem memory.Allocator, numRows int) {
	var buf *memory.Buffer
	switch d.Physical {
	case format.Type_INT32, format.Type_FLOAT:
		buf = newUninitBuffer(mem, numRows*4)
	case format.Type_INT64, format.Type_DOUBLE:
		buf = newUninitBuffer(mem, numRows*8)
	default:
		return
	}
	// Null slots are zeroed by spreadInPlace; the rest is overwritten.
	switch d.Physical {
	case format.Type_INT32:
		d.Int32 = arrow.Int32Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_INT64:
		d.Int64 = arrow.Int64Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_FLOAT:
		d.Float32 = arrow.Float32Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_DOUBLE:
		d.Float64 = arrow.Float64Traits.CastFromBytes(buf.Bytes())[:0]
	}
	d.direct = buf
}

// takeDirect hands over the direct buffer if the values are still in it
// (a corrupt page could have made the slice grow elsewhere) and detaches
// the typed slice from it.
func (d *denseValues) takeDirect() *memory.Buffer {
	buf := d.direct
	if buf == nil {
		return nil
	}
	d.direct = nil
	b := buf.Bytes()
	var first []byte
	switch d.Physical {
	case format.Type_INT32:
		first, d.Int32 = int32Bytes(d.Int32), nil
	case format.Type_INT64:
		first, d.Int64 = int64Bytes(d.Int64), nil
	case format.Type_FLOAT:
		first, d.Float32 = float32Bytes(d.Float32), nil
	case format.Type_DOUBLE:
		first, d.Float64 = float64Bytes(d.Float64), nil
	}
	if len(first) > 0 && &first[0] != &b[0] {
		buf.Release()
		return nil
	}
	return buf
}

// startBinary makes offsets and data of a BYTE_ARRAY leaf alias Arrow
// buffers from mem, with room for numValues values (more grow the buffers)
// and about as many bytes as the previous batch had. Buffers a batch did
// not hand over are reused.
//
// With the default freshAllocator the data decodes into new memory that
// the runtime does not zero (freshAllocator.allocateUninit), sized from
// the previous batch's bytes per row (freshDataGuess), and takeBinary
// hands it over as it is, cut to its length: the copy into an exact
// buffer that the data took before (freshCopy from a reused scratch
// slice) was 17% of a single-threaded read of the strings dataset. A
// guess much too long (a short last batch) or a buffer that a decoder had
// to grow elsewhere (a guess too short) is copied to an exact buffer as
// before, so slack never costs more than an eighth of the data. The pool
// decodes into its own buffers: its guesses that are too long cost
// nothing, the buffers come back.
func (d *denseValues) startBinary(mem memory.Allocator, numValues int) {
	fa, fresh := mem.(freshAllocator)
	d.binRows = numValues
	if d.offBuf == nil {
		d.offBuf = newUninitBuffer(mem, (numValues+1)*4)
		if !fresh {
			d.dataBuf = newUninitBuffer(mem, max(d.dataHint+d.dataHint/4, 64))
		}
	}
	d.offBuf.Reserve((numValues + 1) * 4)
	d.Offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:1]
	d.Offsets[0] = 0
	if fresh {
		if d.lastRows == 0 && d.hintLow {
			// The first batch has no size to go by, and dataHint, a
			// guess from the chunk's size, is far too small for a
			// dictionary-encoded chunk: it decodes into scratch that
			// grows as needed and stays with the reader (the decoders
			// grow by half at a time, and fresh memory would pay that
			// again for each leaf), and takeBinary copies it.
			d.Data = d.cache.take(d.dataHint)
			d.Data = slices.Grow(d.Data[:0], d.dataHint)
			d.dataScratch = true
			return
		}
		d.Data = fa.allocateUninit(d.freshDataGuess(numValues))[:0]
		d.dataScratch = false
		return
	}
	d.dataBuf.Reserve(max(d.dataHint+d.dataHint/4, 64))
	d.Data = capped(d.dataBuf.Buf(), 0)
}

// freshDataGuess is the capacity of a fresh batch's byte array data for
// numRows rows: the bytes per row of the previous batch and a margin of a
// 128th (the batches of the benchmarks' strings vary by about 0.2%), which
// also covers the room a dictionary gather asks for ahead of a block of
// 256 indices (their count times the longest value, pagecodec's short
// gathers: 256 × (17-12) bytes more than they take for lineitem's
// l_shipinstruct), and 1 KiB for small batches and the PLAIN decoder's 32
// bytes of slack. Each batch that outgrew its guess doubles the margin,
// up to a sixteenth (takeBinary copies data with more than an eighth of
// slack), and each that did not halves it again. The first batch of the reader takes dataHint,
// the estimate from the column chunk's size.
func (d *denseValues) freshDataGuess(numRows int) int {
	guess := d.dataHint
	if d.lastRows > 0 {
		// At most twice the last batch's bytes: a batch of few rows with
		// long values must not make the next one allocate without bound.
		guess = int(min(int64(d.lastData)*int64(min(numRows, 2*d.lastRows))/int64(d.lastRows), maxByteArrayData))
	}
	guess += guess>>(7-d.marginUp) + 1<<10
	d.guessCap = guess
	return guess
}

// adaptMargin widens freshDataGuess's margin after a batch of n bytes
// that outgrew its guess and narrows it after one that did not.
func (d *denseValues) adaptMargin(n int) {
	switch {
	case n > d.guessCap-32 && d.marginUp < 3:
		d.marginUp++
	case n <= d.guessCap-32 && d.marginUp > 0:
		d.marginUp--
	}
}

// capped returns b[:n] with no capacity past len(b): a pool buffer's
// slice may have more (a size class), and bytes a decoder appended
// there, beyond the Arrow buffer's length, were cleared when the buffer
// was resized to hold them (bufferPool's reallocate clears what it
// extends in place; a fused dictionary gather, growing data block by
// block, hit it).
func capped(b []byte, n int) []byte { return b[:n:len(b)] }

// freshCopy returns a new buffer, owned by nothing, holding a copy of b.
// append to an empty slice allocates without clearing the bytes it then
// copies over (runtime.growslice), so unlike make and copy the new memory
// is written once; every byte of it is one of b's, so nothing earlier in
// the process can show through.
func freshCopy(b []byte) *memory.Buffer {
	return memory.NewBufferBytes(append([]byte{}, b...))
}

// freshData hands over the byte array data of a batch decoded with the
// fresh allocator: the slice itself, cut to its length (new memory that
// only this leaf saw: allocateUninit's, or a decoder's when it grew it;
// every byte up to the length is a value's), when its capacity exceeds
// the length by at most an eighth; else an exact copy.
func freshData(data []byte) *memory.Buffer {
	n := len(data)
	if cap(data)-n > n/8 {
		return freshCopy(data)
	}
	return memory.NewBufferBytes(data[:n:n])
}

// reserveBinary makes room in the offsets buffer for k more values. The
// data buffer is not grown ahead: decoders grow data themselves when the
// batch's guess (startBinary) was short, and rehomeBinary moves it back.
func (d *denseValues) reserveBinary(k int) {
	if d.offBuf == nil {
		return
	}
	if need := len(d.Offsets) + k; need > cap(d.Offsets) {
		n := len(d.Offsets)
		d.offBuf.Reserve(max(need, 2*cap(d.Offsets)) * 4)
		d.Offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:n]
	}
}

// rehomeBinary moves offsets or data back into their Arrow buffers when a
// decoder had to grow them elsewhere.
func (d *denseValues) rehomeBinary() {
	if d.offBuf == nil {
		return
	}
	if b := d.offBuf.Buf(); len(d.Offsets) > 0 && (len(b) < 4 || &int32Bytes(d.Offsets)[0] != &b[0]) {
		off := d.Offsets
		d.offBuf.Reserve(cap(off) * 4)
		d.Offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:len(off)]
		copy(d.Offsets, off)
	}
	if d.dataBuf == nil {
		return // the data is the leaf's own (startBinary)
	}
	if b := d.dataBuf.Buf(); len(d.Data) > 0 && (len(b) == 0 || &d.Data[0] != &b[0]) {
		data := d.Data
		d.dataBuf.Reserve(cap(data))
		d.Data = capped(d.dataBuf.Buf(), len(data))
		copy(d.Data, data)
	}
}

// takeBinary hands over the offsets buffer, spread over the slots of s,
// and the data buffer; the next batch starts new ones.
func (d *denseValues) takeBinary(s slots) (offsets, data *memory.Buffer) {
	d.rehomeBinary()
	nv := len(d.Offsets) - 1
	d.offBuf.Reserve((s.n + 1) * 4)
	out := arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:s.n+1]
	if s.n != nv {
		levels.SpreadOffsetsInPlace(out, nv, s.bitmap(), s.n)
	}
	d.offBuf.ResizeNoShrink((s.n + 1) * 4)
	if d.dataBuf == nil {
		// Fresh memory not zeroed: a batch of fewer slots than startBinary
		// made room for (a list leaf's elements) leaves offsets unwritten
		// past its own, within the buffer's Buf.
		b := d.offBuf.Buf()
		clear(b[min(d.offBuf.Len(), len(b)):])
	}
	d.dataHint = max(d.dataHint, len(d.Data))
	offsets = d.offBuf
	if d.dataBuf == nil {
		if d.dataScratch {
			data = freshCopy(d.Data)
			// The array has its own copy: the slice goes to the next leaf.
			d.cache.give(d.Data)
			d.dataScratch = false
		} else {
			d.adaptMargin(len(d.Data))
			data = freshData(d.Data)
		}
		d.lastData, d.lastRows = len(d.Data), d.binRows
		d.Data = nil
	} else {
		d.dataBuf.ResizeNoShrink(len(d.Data))
		data = d.dataBuf
		d.Data = nil
	}
	d.offBuf, d.dataBuf = nil, nil
	d.Offsets = nil
	return offsets, data
}

// releaseBinary drops the Arrow buffers of startBinary.
func (d *denseValues) releaseBinary() {
	// Either buffer may be missing when startBinary failed half way.
	if d.offBuf != nil {
		d.offBuf.Release()
	}
	if d.dataBuf != nil {
		d.dataBuf.Release()
	}
	d.offBuf, d.dataBuf = nil, nil
	d.Offsets, d.Data = nil, nil
	d.dataScratch = false
}

// giveScratch gives the fixed-width values scratch to the cache, unless
// the values are in an Arrow buffer (direct, conv) a failed batch left.
func (d *denseValues) giveScratch() {
	if d.cache == nil || d.direct != nil || d.conv != nil {
		return
	}
	column.GiveValues(&d.cache.BufferCache, &d.Values)
}

// releaseDirect drops a direct buffer that was not handed over.
func (d *denseValues) releaseDirect() {
	if d.conv != nil {
		if buf := d.takeConv(); buf != nil {
			buf.Release()
		}
		return
	}
	if d.direct != nil {
		if buf := d.takeDirect(); buf != nil {
			buf.Release()
		}
	}
}
