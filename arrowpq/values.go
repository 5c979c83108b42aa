package arrowpq

import (
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// denseValues holds the non-null values of one batch of a leaf in physical
// form; only the slice of the column's physical type is used. The slices
// are reused from batch to batch.
type denseValues struct {
	physical format.Type
	width    int // bytes per value for INT96 and FIXED_LEN_BYTE_ARRAY
	n        int

	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	fixed []byte // INT96 (12 bytes a value) and FIXED_LEN_BYTE_ARRAY
	bits  []byte // BOOLEAN, LSB first
	// BYTE_ARRAY: offsets[0] == 0, offsets[i+1]-offsets[i] is value i's length.
	offsets []int32
	data    []byte

	// indexMode: the values are dictionary indices (idx) into the column
	// chunk's dictionary, kept for a Dictionary output instead of gathered.
	indexMode bool
	idx       []int32

	// direct, when set, is the Arrow values buffer the typed slice of a
	// flat fixed-width column aliases: values decode straight into it and
	// are spread in place, with no copy (see leafReader.startDirect).
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
	// scratch holds converted values before they are spread over slots.
	scratch []byte
}

func (d *denseValues) reset(col *metadata.Column) {
	d.physical = col.Physical
	d.n = 0
	switch col.Physical {
	case format.Type_INT96:
		d.width = 12
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		d.width = int(col.TypeLength)
	}
	d.i32, d.i64, d.f32, d.f64 = d.i32[:0], d.i64[:0], d.f32[:0], d.f64[:0]
	d.fixed, d.bits = d.fixed[:0], d.bits[:0]
	if d.offBuf == nil {
		d.offsets = append(d.offsets[:0], 0)
		d.data = d.data[:0]
	}
	d.idx = d.idx[:0]
}

// presize gives the slice of the physical type room for n values, so that
// a dictionary of n values is decoded without growing it step by step.
func (d *denseValues) presize(n int) {
	switch d.physical {
	case format.Type_INT32:
		d.i32 = slices.Grow(d.i32[:0], n)
	case format.Type_INT64:
		d.i64 = slices.Grow(d.i64[:0], n)
	case format.Type_FLOAT:
		d.f32 = slices.Grow(d.f32[:0], n)
	case format.Type_DOUBLE:
		d.f64 = slices.Grow(d.f64[:0], n)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		d.fixed = slices.Grow(d.fixed[:0], n*d.width)
	case format.Type_BYTE_ARRAY:
		d.offsets = slices.Grow(d.offsets[:1], n)
	}
}

// startDirect points the typed slice of a flat INT32/INT64/FLOAT/DOUBLE
// column at a new Arrow buffer of capacity numRows values: a flat column
// has at most one value per row, so decoding never outgrows it.
func (d *denseValues) startDirect(mem memory.Allocator, numRows int) {
	var buf *memory.Buffer
	switch d.physical {
	case format.Type_INT32, format.Type_FLOAT:
		buf = newUninitBuffer(mem, numRows*4)
	case format.Type_INT64, format.Type_DOUBLE:
		buf = newUninitBuffer(mem, numRows*8)
	default:
		return
	}
	// Null slots are zeroed by spreadInPlace; the rest is overwritten.
	switch d.physical {
	case format.Type_INT32:
		d.i32 = arrow.Int32Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_INT64:
		d.i64 = arrow.Int64Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_FLOAT:
		d.f32 = arrow.Float32Traits.CastFromBytes(buf.Bytes())[:0]
	case format.Type_DOUBLE:
		d.f64 = arrow.Float64Traits.CastFromBytes(buf.Bytes())[:0]
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
	switch d.physical {
	case format.Type_INT32:
		first, d.i32 = int32Bytes(d.i32), nil
	case format.Type_INT64:
		first, d.i64 = int64Bytes(d.i64), nil
	case format.Type_FLOAT:
		first, d.f32 = float32Bytes(d.f32), nil
	case format.Type_DOUBLE:
		first, d.f64 = float64Bytes(d.f64), nil
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
// With the default freshAllocator the data is not decoded into an Arrow
// buffer: its size is known only once the batch is decoded, so a buffer
// allocated ahead is either short (the decoders grow it elsewhere and
// rehomeBinary copies it back: two more fresh buffers) or too long (the
// slack is zeroed and handed out with the array), and the dictionary
// gathers ask for room for their longest value each. Instead the data
// decodes into d.data, the leaf's own slice reused batch after batch,
// and takeBinary copies it into a fresh buffer of the exact size, which
// the runtime does not zero first (freshCopy). The pool keeps the direct
// path: its buffers come back, so a guess that is too long costs nothing.
func (d *denseValues) startBinary(mem memory.Allocator, numValues int) {
	_, fresh := mem.(freshAllocator)
	if d.offBuf == nil {
		d.offBuf = newUninitBuffer(mem, (numValues+1)*4)
		if !fresh {
			d.dataBuf = newUninitBuffer(mem, max(d.dataHint+d.dataHint/4, 64))
		}
	}
	d.offBuf.Reserve((numValues + 1) * 4)
	d.offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:1]
	d.offsets[0] = 0
	if d.dataBuf == nil {
		d.data = slices.Grow(d.data[:0], d.dataHint)
		return
	}
	d.dataBuf.Reserve(max(d.dataHint+d.dataHint/4, 64))
	d.data = d.dataBuf.Buf()[:0]
}

// freshCopy returns a new buffer, owned by nothing, holding a copy of b.
// append to an empty slice allocates without clearing the bytes it then
// copies over (runtime.growslice), so unlike make and copy the new memory
// is written once; every byte of it is one of b's, so nothing earlier in
// the process can show through.
func freshCopy(b []byte) *memory.Buffer {
	return memory.NewBufferBytes(append([]byte{}, b...))
}

// reserveBinary makes room in the offsets buffer for k more values. The
// data buffer is not grown ahead: decoders grow data themselves when the
// batch's guess (startBinary) was short, and rehomeBinary moves it back.
func (d *denseValues) reserveBinary(k int) {
	if d.offBuf == nil {
		return
	}
	if need := len(d.offsets) + k; need > cap(d.offsets) {
		n := len(d.offsets)
		d.offBuf.Reserve(max(need, 2*cap(d.offsets)) * 4)
		d.offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:n]
	}
}

// rehomeBinary moves offsets or data back into their Arrow buffers when a
// decoder had to grow them elsewhere.
func (d *denseValues) rehomeBinary() {
	if d.offBuf == nil {
		return
	}
	if b := d.offBuf.Buf(); len(d.offsets) > 0 && (len(b) < 4 || &int32Bytes(d.offsets)[0] != &b[0]) {
		off := d.offsets
		d.offBuf.Reserve(cap(off) * 4)
		d.offsets = arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:len(off)]
		copy(d.offsets, off)
	}
	if d.dataBuf == nil {
		return // the data is the leaf's own (startBinary)
	}
	if b := d.dataBuf.Buf(); len(d.data) > 0 && (len(b) == 0 || &d.data[0] != &b[0]) {
		data := d.data
		d.dataBuf.Reserve(cap(data))
		d.data = d.dataBuf.Buf()[:len(data)]
		copy(d.data, data)
	}
}

// takeBinary hands over the offsets buffer, spread over the slots of s,
// and the data buffer; the next batch starts new ones.
func (d *denseValues) takeBinary(s slots) (offsets, data *memory.Buffer) {
	d.rehomeBinary()
	nv := len(d.offsets) - 1
	d.offBuf.Reserve((s.n + 1) * 4)
	out := arrow.Int32Traits.CastFromBytes(d.offBuf.Buf())[:s.n+1]
	if s.n != nv {
		spreadOffsetsInPlace(out, nv, s)
	}
	d.offBuf.ResizeNoShrink((s.n + 1) * 4)
	d.dataHint = max(d.dataHint, len(d.data))
	offsets = d.offBuf
	if d.dataBuf == nil {
		data = freshCopy(d.data)
		d.data = d.data[:0] // kept: the array has its own copy
	} else {
		d.dataBuf.ResizeNoShrink(len(d.data))
		data = d.dataBuf
		d.data = nil
	}
	d.offBuf, d.dataBuf = nil, nil
	d.offsets = nil
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
	d.offsets, d.data = nil, nil
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

// extend returns s grown by n elements (the new tail to fill).
func extend[T any](s []T, n int) ([]T, []T) {
	l := len(s)
	if cap(s)-l < n {
		ns := make([]T, l, 2*cap(s)+n)
		copy(ns, s)
		s = ns
	}
	s = s[:l+n]
	return s, s[l:]
}

// maxByteArrayData bounds the byte array data of one batch: the Arrow
// String/Binary layout has 32-bit offsets.
const maxByteArrayData = math.MaxInt32

// valueDecoder decodes the values of one data page in its encoding. It is
// set up once per page; each decode call moves a run of values, never one.
type valueDecoder struct {
	enc      format.Encoding
	physical format.Type
	width    int

	plain   pagecodec.PlainDecoder
	rleBool pagecodec.RLEBooleanDecoder
	dictIdx pagecodec.DictIndexDecoder
	delta   pagecodec.DeltaBinaryPackedDecoder
	dlba    pagecodec.DeltaLengthByteArrayDecoder
	dba     pagecodec.DeltaByteArrayDecoder
	bss     pagecodec.ByteStreamSplitDecoder

	indices []int32
	dict    *dictionary
	// maxData bounds the byte array data of a batch (leafReader.maxData).
	maxData int

	// DELTA_BYTE_ARRAY values share prefixes with their predecessors, so a
	// small page can describe quadratically large output: outLeft bounds
	// what one page may produce.
	outLeft int
	// outLimit bounds the bytes of values one batch of the leaf may hold
	// (checkOut): what the column chunk can decode to.
	outLimit int64
}

// valueBytes is the least number of bytes one value of a physical type
// takes in a PLAIN or BYTE_STREAM_SPLIT page (a byte array its length
// prefix), and in memory once decoded (a byte array its offset); booleans
// count as one.
func valueBytes(physical format.Type, width int) int64 {
	switch physical {
	case format.Type_INT32, format.Type_FLOAT, format.Type_BYTE_ARRAY:
		return 4
	case format.Type_INT64, format.Type_DOUBLE:
		return 8
	case format.Type_INT96:
		return 12
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		return int64(width)
	}
	return 1
}

// checkOut checks, before anything is allocated for them, that n more
// values are backed: PLAIN and BYTE_STREAM_SPLIT pages spend at least
// valueBytes on each, so the page must hold that much; other values
// (dictionary gathers, delta encodings) may expand without bound, so with
// the held bytes of the batch so far they must stay within outLimit. The
// count comes from levels, whose RLE runs cost nothing, and the width may
// come from the footer.
func (v *valueDecoder) checkOut(held int64, n int) error {
	per := valueBytes(v.physical, v.width)
	need := mulSat(int64(n), per)
	if v.dict == nil && v.physical != format.Type_BOOLEAN &&
		(v.enc == format.Encoding_PLAIN || v.enc == format.Encoding_BYTE_STREAM_SPLIT) {
		left := int64(v.plain.Remaining())
		if v.enc == format.Encoding_BYTE_STREAM_SPLIT {
			left = int64(v.bss.Len()) * per
		}
		if need > left {
			return short(int(left/max(per, 1)), n)
		}
		return nil
	}
	if held+need > v.outLimit {
		return fmt.Errorf("%d values of %d bytes after %d bytes of the batch: beyond the %d bytes the column chunk can hold; read with a smaller BatchSize: %w",
			n, per, held, v.outLimit, pagecodec.ErrLimit)
	}
	return nil
}

// heldBytes is what the batch's values take so far, in the slice of their
// physical type.
func (d *denseValues) heldBytes() int64 {
	switch d.physical {
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return int64(len(d.fixed))
	case format.Type_BYTE_ARRAY:
		return int64(len(d.offsets)*4 + len(d.data))
	}
	return int64(d.n) * valueBytes(d.physical, d.width)
}

// maxDeltaByteArrayGrowth is how many bytes of output a DELTA_BYTE_ARRAY
// page may produce per byte it holds (long shared prefixes, as in sorted
// URLs, stay far below it); pages get at least minDeltaByteArrayOut.
const (
	maxDeltaByteArrayGrowth = 256
	minDeltaByteArrayOut    = 64 << 20
)

func (v *valueDecoder) reset(l *leafReader, p *pagecodec.Page) error {
	v.enc = p.Encoding
	v.physical = l.col.Physical
	v.maxData = l.maxData
	v.width = int(l.col.TypeLength)
	if v.physical == format.Type_INT96 {
		v.width = 12
	}
	v.dict = nil
	v.outLimit = max(mulSat(int64(l.chunkLen), maxChunkRatio), minBatchLimit, mulSat(int64(l.batchRows), 32))
	src := p.Values
	switch v.enc {
	case format.Encoding_PLAIN:
		v.plain.Reset(src)
	case format.Encoding_PLAIN_DICTIONARY, format.Encoding_RLE_DICTIONARY:
		if !l.hasDict {
			return fmt.Errorf("%v data page without a dictionary page: %w", v.enc, pagecodec.ErrCorrupt)
		}
		v.dict = &l.dict
		return v.dictIdx.Reset(src, l.dict.n)
	case format.Encoding_RLE:
		if v.physical != format.Type_BOOLEAN {
			return fmt.Errorf("RLE values of type %v: %w", v.physical, pagecodec.ErrUnsupported)
		}
		return v.rleBool.Reset(src)
	case format.Encoding_DELTA_BINARY_PACKED:
		if v.physical != format.Type_INT32 && v.physical != format.Type_INT64 {
			return fmt.Errorf("DELTA_BINARY_PACKED values of type %v: %w", v.physical, pagecodec.ErrUnsupported)
		}
		return v.delta.Reset(src)
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		if v.physical != format.Type_BYTE_ARRAY {
			return fmt.Errorf("DELTA_LENGTH_BYTE_ARRAY values of type %v: %w", v.physical, pagecodec.ErrUnsupported)
		}
		return v.dlba.Reset(src)
	case format.Encoding_DELTA_BYTE_ARRAY:
		if v.physical != format.Type_BYTE_ARRAY && v.physical != format.Type_FIXED_LEN_BYTE_ARRAY {
			return fmt.Errorf("DELTA_BYTE_ARRAY values of type %v: %w", v.physical, pagecodec.ErrUnsupported)
		}
		v.outLeft = max(maxDeltaByteArrayGrowth*len(src), minDeltaByteArrayOut)
		return v.dba.Reset(src)
	case format.Encoding_BYTE_STREAM_SPLIT:
		w := 0
		switch v.physical {
		case format.Type_INT32, format.Type_FLOAT:
			w = 4
		case format.Type_INT64, format.Type_DOUBLE:
			w = 8
		case format.Type_FIXED_LEN_BYTE_ARRAY:
			w = v.width
		default:
			return fmt.Errorf("BYTE_STREAM_SPLIT values of type %v: %w", v.physical, pagecodec.ErrUnsupported)
		}
		return v.bss.Reset(src, w)
	default:
		return fmt.Errorf("value encoding %v: %w", v.enc, pagecodec.ErrUnsupported)
	}
	return nil
}

// short reports a page that ran out of values before its levels did.
func short(got, want int) error {
	return fmt.Errorf("the page holds %d values where its levels need %d: %w", got, want, pagecodec.ErrCorrupt)
}

// decode appends the next n values of the page to d.
func (v *valueDecoder) decode(l *leafReader, d *denseValues, n int) error {
	if err := v.checkOut(d.heldBytes(), n); err != nil {
		return err
	}
	if v.dict != nil {
		if d.indexMode {
			var tail []int32
			d.idx, tail = extend(d.idx, n)
			if err := v.decodeIndices(tail); err != nil {
				return err
			}
			d.n += n
			return nil
		}
		return v.decodeDict(d, n)
	}
	if d.indexMode {
		// A page that fell back from the dictionary: the batch gives up
		// on indices and holds values.
		if err := d.materialize(&l.dict); err != nil {
			return err
		}
	}
	var got int
	var err error
	switch v.physical {
	case format.Type_BOOLEAN:
		start := d.n
		d.bits = growBits(d.bits, start+n)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeBoolean(d.bits, start, n)
		case format.Encoding_RLE:
			got, err = v.rleBool.DecodeBoolean(d.bits, start, n)
		}
	case format.Type_INT32:
		var tail []int32
		d.i32, tail = extend(d.i32, n)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeInt32(tail)
		case format.Encoding_DELTA_BINARY_PACKED:
			got, err = v.delta.DecodeInt32(tail)
		case format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeInt32(tail)
		}
	case format.Type_INT64:
		var tail []int64
		d.i64, tail = extend(d.i64, n)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeInt64(tail)
		case format.Encoding_DELTA_BINARY_PACKED:
			got, err = v.delta.DecodeInt64(tail)
		case format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeInt64(tail)
		}
	case format.Type_FLOAT:
		var tail []float32
		d.f32, tail = extend(d.f32, n)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeFloat(tail)
		case format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeFloat(tail)
		}
	case format.Type_DOUBLE:
		var tail []float64
		d.f64, tail = extend(d.f64, n)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeDouble(tail)
		case format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeDouble(tail)
		}
	case format.Type_INT96:
		var tail []byte
		d.fixed, tail = extend(d.fixed, n*12)
		if v.enc == format.Encoding_PLAIN {
			got, err = v.plain.DecodeFixedLenByteArray(tail, 12)
		}
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		var tail []byte
		d.fixed, tail = extend(d.fixed, n*v.width)
		switch v.enc {
		case format.Encoding_PLAIN:
			got, err = v.plain.DecodeFixedLenByteArray(tail, v.width)
		case format.Encoding_DELTA_BYTE_ARRAY:
			got, err = v.dba.DecodeFixedLenByteArray(tail, v.width)
		case format.Encoding_BYTE_STREAM_SPLIT:
			got, err = v.bss.DecodeFixedLenByteArray(tail)
		}
	case format.Type_BYTE_ARRAY:
		before := len(d.offsets)
		switch v.enc {
		case format.Encoding_PLAIN:
			d.reserveBinary(n)
			d.offsets, d.data, err = v.plain.DecodeByteArray(d.offsets, d.data, n)
			err = v.batchFull(err)
		case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
			d.reserveBinary(n)
			d.offsets, d.data, err = v.dlba.DecodeByteArray(d.offsets, d.data, n)
			err = v.batchFull(err)
		case format.Encoding_DELTA_BYTE_ARRAY:
			// In slices, checking the output against the page's bound.
			for left := n; left > 0 && err == nil; {
				k := min(left, 256)
				size := len(d.data)
				d.offsets, d.data, err = v.dba.DecodeByteArray(d.offsets, d.data, k)
				err = v.batchFull(err)
				v.outLeft -= len(d.data) - size
				if err == nil && v.outLeft < 0 {
					err = fmt.Errorf("DELTA_BYTE_ARRAY page expands beyond %d bytes per byte: %w", maxDeltaByteArrayGrowth, pagecodec.ErrLimit)
				}
				left -= k
			}
		}
		d.rehomeBinary()
		got = len(d.offsets) - before
		if err == nil {
			err = v.checkBatchData(d)
		}
	default:
		return fmt.Errorf("physical type %v: %w", v.physical, pagecodec.ErrUnsupported)
	}
	if err != nil {
		return err
	}
	if got != n {
		if got == 0 && !v.encodingFits() {
			return fmt.Errorf("encoding %v for type %v: %w", v.enc, v.physical, pagecodec.ErrUnsupported)
		}
		return short(got, n)
	}
	d.n += n
	return nil
}

// encodingFits reports whether the page's encoding applies to the physical
// type at all (decode's switch leaves got at 0 when it does not).
func (v *valueDecoder) encodingFits() bool {
	switch v.enc {
	case format.Encoding_PLAIN:
		return true
	case format.Encoding_RLE:
		return v.physical == format.Type_BOOLEAN
	case format.Encoding_DELTA_BINARY_PACKED:
		return v.physical == format.Type_INT32 || v.physical == format.Type_INT64
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		return v.physical == format.Type_BYTE_ARRAY
	case format.Encoding_DELTA_BYTE_ARRAY:
		return v.physical == format.Type_BYTE_ARRAY || v.physical == format.Type_FIXED_LEN_BYTE_ARRAY
	case format.Encoding_BYTE_STREAM_SPLIT:
		return v.physical != format.Type_BOOLEAN && v.physical != format.Type_BYTE_ARRAY && v.physical != format.Type_INT96
	}
	return false
}

// decodeDict decodes n dictionary indices and gathers their values.
func (v *valueDecoder) decodeDict(d *denseValues, n int) error {
	v.indices = growInt32(v.indices, n)
	if err := v.decodeIndices(v.indices); err != nil {
		return err
	}
	return v.gather(d, v.indices)
}

// decodeIndices decodes exactly len(dst) dictionary indices of the page.
func (v *valueDecoder) decodeIndices(dst []int32) error {
	got, err := v.dictIdx.DecodeIndices(dst)
	if err != nil {
		return err
	}
	if got != len(dst) {
		return short(got, len(dst))
	}
	return nil
}

// gather appends the dictionary values of idx to d.
func (v *valueDecoder) gather(d *denseValues, idx []int32) error {
	n := len(idx)
	dict := v.dict
	var err error
	switch v.physical {
	case format.Type_BOOLEAN:
		start := d.n
		d.bits = growBits(d.bits, start+n)
		for i, x := range idx {
			setBit(d.bits, start+i, dict.bits[x>>3]>>(x&7)&1 == 1)
		}
	case format.Type_INT32:
		var tail []int32
		d.i32, tail = extend(d.i32, n)
		err = pagecodec.Gather(tail, dict.i32, idx)
	case format.Type_INT64:
		var tail []int64
		d.i64, tail = extend(d.i64, n)
		err = pagecodec.Gather(tail, dict.i64, idx)
	case format.Type_FLOAT:
		var tail []float32
		d.f32, tail = extend(d.f32, n)
		err = pagecodec.Gather(tail, dict.f32, idx)
	case format.Type_DOUBLE:
		var tail []float64
		d.f64, tail = extend(d.f64, n)
		err = pagecodec.Gather(tail, dict.f64, idx)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		var tail []byte
		d.fixed, tail = extend(d.fixed, n*v.width)
		err = pagecodec.GatherFixedLenByteArray(tail, dict.fixed, v.width, idx)
	case format.Type_BYTE_ARRAY:
		d.reserveBinary(n)
		if dict.maxLen <= 16 {
			d.offsets, d.data, err = pagecodec.GatherByteArrayShort(d.offsets, d.data, dict.offsets, dict.data, idx, dict.maxLen)
		} else {
			d.offsets, d.data, err = pagecodec.GatherByteArray(d.offsets, d.data, dict.offsets, dict.data, idx)
		}
		d.rehomeBinary()
		if err = v.batchFull(err); err == nil {
			err = v.checkBatchData(d)
		}
	}
	if err != nil {
		return err
	}
	d.n += n
	return nil
}

// materialize turns the indices collected so far into values and leaves
// index mode.
func (d *denseValues) materialize(dict *dictionary) error {
	d.indexMode = false
	idx := d.idx
	d.n = 0
	if len(idx) == 0 {
		return nil
	}
	var v valueDecoder
	v.physical, v.width, v.dict = d.physical, d.width, dict
	v.indices = idx
	return v.gather(d, idx)
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

// growBits makes b hold at least nbits bits, keeping its content.
func growBits(b []byte, nbits int) []byte {
	need := (nbits + 7) / 8
	if len(b) >= need {
		return b
	}
	if cap(b) >= need {
		old := len(b)
		b = b[:need]
		clear(b[old:])
		return b
	}
	nb := make([]byte, need, 2*need)
	copy(nb, b)
	return nb
}

func setBit(b []byte, i int, v bool) {
	if v {
		b[i>>3] |= 1 << (i & 7)
	} else {
		b[i>>3] &^= 1 << (i & 7)
	}
}

// decodeDictionary decodes a dictionary page (PLAIN, or PLAIN_DICTIONARY
// in old files) into l.dict.
func (l *leafReader) decodeDictionary(p *pagecodec.Page) error {
	if p.Encoding != format.Encoding_PLAIN && p.Encoding != format.Encoding_PLAIN_DICTIONARY {
		return fmt.Errorf("dictionary page in encoding %v: %w", p.Encoding, pagecodec.ErrUnsupported)
	}
	if p.Header == nil || p.Header.DictionaryPageHeader == nil {
		return fmt.Errorf("dictionary page without its header: %w", pagecodec.ErrCorrupt)
	}
	n := int(p.Header.DictionaryPageHeader.NumValues)
	if n < 0 {
		return fmt.Errorf("dictionary of %d values: %w", n, pagecodec.ErrCorrupt)
	}
	// Every value takes at least one byte (a bit for booleans, four for a
	// byte array's length), so a count beyond the page's bytes is corrupt
	// and must not size an allocation.
	per := valueBytes(l.col.Physical, int(l.col.TypeLength))
	if l.col.Physical == format.Type_BOOLEAN {
		per = 0 // a bit each; checked by the decoder
	}
	if n > len(p.Values) || mulSat(int64(n), per) > int64(len(p.Values)) {
		if l.col.Physical != format.Type_BOOLEAN || n > 8*len(p.Values) {
			return fmt.Errorf("dictionary of %d values in %d bytes: %w", n, len(p.Values), pagecodec.ErrCorrupt)
		}
	}
	d := &l.dict
	d.reset(l.col)
	d.presize(n)
	var dec valueDecoder
	dec.enc = format.Encoding_PLAIN
	dec.physical = l.col.Physical
	dec.width = d.width
	dec.plain.Reset(p.Values)
	dec.outLimit = math.MaxInt64 // bounded by the page, checked above
	if n > 0 {
		if err := dec.decode(l, &d.denseValues, n); err != nil {
			return fmt.Errorf("dictionary page: %w", err)
		}
	}
	d.n = n
	if d.physical == format.Type_BYTE_ARRAY {
		// Slack after the last value, so that gathers copy every short
		// value as one block (pagecodec's copyShort and
		// GatherByteArrayShort) instead of calling copy for values near
		// the end: with tiny dictionaries ("A", "N", "R") that was every
		// value (lineitem).
		d.data = append(d.data, make([]byte, dictionarySlack)...)
		d.maxLen = 0
		for i := range n {
			d.maxLen = max(d.maxLen, int(d.offsets[i+1]-d.offsets[i]))
		}
	}
	return nil
}

// dictionarySlack is the zero padding after a BYTE_ARRAY dictionary's data.
const dictionarySlack = 32
