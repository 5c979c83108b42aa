package column

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// Values holds decoded values of one column in physical form, appended by
// [Reader.DecodeValues] and [Reader.Read]; only the slice of the column's
// physical type is used. A caller may point a slice at memory of its own
// (an Arrow buffer with room for the batch) so that values decode straight
// into it: the reader appends, and moves the slice elsewhere only when it
// runs out of capacity.
type Values struct {
	Physical format.Type
	// Width is the bytes per value of INT96 (12) and FIXED_LEN_BYTE_ARRAY.
	Width int
	// N counts the values held (indices in IndexMode).
	N int

	Int32   []int32
	Int64   []int64
	Float32 []float32
	Float64 []float64
	// Fixed holds INT96 and FIXED_LEN_BYTE_ARRAY values, Width bytes each.
	Fixed []byte
	// Bits holds BOOLEAN values, LSB first.
	Bits []byte
	// Offsets and Data hold BYTE_ARRAY values: Offsets[0] is 0 after
	// Reset, Offsets[i+1]-Offsets[i] is value i's length.
	Offsets []int32
	Data    []byte

	// IndexMode asks for dictionary indices (Indices, into
	// [Reader.Dictionary]) instead of values while pages are dictionary
	// encoded.
	IndexMode bool
	Indices   []int32

	// ViewMode asks for BYTE_ARRAY values as Arrow views (Views and
	// ViewBuffers) instead of Offsets and Data; not with IndexMode.
	ViewMode bool
	// Views holds a view per value, two words each (pagecodec.View): a
	// value of up to 12 bytes inline, a longer one as an index into
	// ViewBuffers and an offset there. ViewBuffers is the memory the
	// long values are in: pages and dictionaries the reader gave up, so
	// a caller may keep them (see views.go); Reset forgets them.
	Views       []uint64
	ViewBuffers [][]byte
}

// Reset empties v for values of col, keeping its slices' memory and
// IndexMode.
func (v *Values) Reset(col *metadata.Column) {
	v.Physical = col.Physical
	v.N = 0
	switch col.Physical {
	case format.Type_INT96:
		v.Width = 12
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		v.Width = int(col.TypeLength)
	}
	v.Int32, v.Int64, v.Float32, v.Float64 = v.Int32[:0], v.Int64[:0], v.Float32[:0], v.Float64[:0]
	v.Fixed, v.Bits = v.Fixed[:0], v.Bits[:0]
	v.Offsets = append(v.Offsets[:0], 0)
	v.Data = v.Data[:0]
	v.Indices = v.Indices[:0]
	v.Views = v.Views[:0]
	clear(v.ViewBuffers)
	v.ViewBuffers = v.ViewBuffers[:0]
}

// presize gives the slice of the physical type room for n values, so that
// a dictionary of n values is decoded without growing it step by step.
func (v *Values) presize(n int) {
	switch v.Physical {
	case format.Type_INT32:
		v.Int32 = slices.Grow(v.Int32[:0], n)
	case format.Type_INT64:
		v.Int64 = slices.Grow(v.Int64[:0], n)
	case format.Type_FLOAT:
		v.Float32 = slices.Grow(v.Float32[:0], n)
	case format.Type_DOUBLE:
		v.Float64 = slices.Grow(v.Float64[:0], n)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		v.Fixed = slices.Grow(v.Fixed[:0], n*v.Width)
	case format.Type_BYTE_ARRAY:
		v.Offsets = slices.Grow(v.Offsets[:1], n)
	}
}

// ReserveValues gives the empty dst (after [Values.Reset]) room for the
// values of the chunk's next numRows records, estimated from the footer:
// the chunk's num_values per row times numRows, and a sixteenth more for
// batches that carry more than the average. A Values kept from batch to
// batch (arrowpq's scratch for nested and converted leaves) is then
// allocated once at about its size, where growing it page piece by page
// piece allocated two to three times that (nested: 5.6 MB a read of 41 MB
// of Arrow data for two int64 leaves). Nothing is allocated when dst has
// the room already, for booleans and byte arrays (sized by their
// callers), or when the chunk's counts are missing.
//
// The counts come from the file, so the estimate only sizes scratch, and
// is bounded: to the bytes one value per row takes (numRows times the
// value's width, at most 16) or, when more, to four times the chunk's
// bytes. A footer claiming 2^60 values therefore allocates at most what a
// flat column's batch would (TestReserveValuesHostileCount).
func (r *Reader) ReserveValues(dst *Values, numRows int) {
	if r.numRows <= 0 || r.numValues <= 0 || numRows <= 0 {
		return
	}
	width := valueBytes(dst.Physical, dst.Width)
	if dst.IndexMode {
		width = 4
	}
	if width <= 0 || dst.Physical == format.Type_BOOLEAN || (dst.Physical == format.Type_BYTE_ARRAY && !dst.IndexMode) {
		return
	}
	est := mulSat(r.numValues, int64(numRows)) / r.numRows
	est += est/16 + 1
	limit := max(mulSat(int64(numRows), min(width, 16)), mulSat(int64(r.chunkLen), 4)) / width
	n := int(min(est, limit, math.MaxInt32/16))
	if n <= 0 {
		return
	}
	if dst.IndexMode {
		dst.Indices = reserve(r.opts.Scratch, dst.Indices, n)
		return
	}
	switch dst.Physical {
	case format.Type_INT32:
		dst.Int32 = reserve(r.opts.Scratch, dst.Int32, n)
	case format.Type_INT64:
		dst.Int64 = reserve(r.opts.Scratch, dst.Int64, n)
	case format.Type_FLOAT:
		dst.Float32 = reserve(r.opts.Scratch, dst.Float32, n)
	case format.Type_DOUBLE:
		dst.Float64 = reserve(r.opts.Scratch, dst.Float64, n)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		dst.Fixed = reserve(r.opts.Scratch, dst.Fixed, n*dst.Width)
	}
}

// reserve returns the empty s, or a new empty slice when s has room for
// fewer than n elements: of n, or of n and an eighth more when s was
// already sized for an earlier chunk (this chunk's estimate is larger;
// the row groups of a file differ by a few percent, and each would have
// allocated again).
//
// A new slice comes from c when it lends one large enough.
func reserve[T scratchValue](c *BufferCache, s []T, n int) []T {
	switch {
	case cap(s) >= n:
		return s[:0]
	case cap(s) > 0:
		n += n / 8
	}
	if s := takeScratch[T](c, n); s != nil {
		return s
	}
	return make([]T, 0, n)
}

// scratchValue is what ReserveValues sizes: types without pointers, so
// that their arrays may be lent as bytes.
type scratchValue interface {
	byte | int32 | int64 | float32 | float64
}

// takeScratch returns an empty slice of capacity at least n in a buffer of
// c, or nil when c lends none that large, or none aligned for T.
func takeScratch[T scratchValue](c *BufferCache, n int) []T {
	if c == nil {
		return nil
	}
	var zero T
	size := int(unsafe.Sizeof(zero))
	b := c.Take(n * size)
	if cap(b) < n*size || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%unsafe.Alignof(zero) != 0 {
		if cap(b) > 0 {
			c.Give(b)
		}
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/size)[:0]
}

// scratchBytes is the array of s as bytes.
func scratchBytes[T scratchValue](s []T) []byte {
	if cap(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), cap(s)*int(unsafe.Sizeof(zero)))[:0]
}

// GiveValues gives the arrays of v's fixed-width values (Indices, Int32,
// Int64, Float32, Float64, Fixed) to c and clears them in v. Only for
// values that are the caller's scratch, sized by [Reader.ReserveValues]
// or grown by decoding: never slices of an array handed to anyone else.
func GiveValues(c *BufferCache, v *Values) {
	for _, b := range [][]byte{scratchBytes(v.Indices), scratchBytes(v.Int32), scratchBytes(v.Int64),
		scratchBytes(v.Float32), scratchBytes(v.Float64), scratchBytes(v.Fixed)} {
		if cap(b) > 0 {
			c.Give(b)
		}
	}
	v.Indices, v.Int32, v.Int64, v.Float32, v.Float64, v.Fixed = nil, nil, nil, nil, nil, nil
}

// heldBytes is what the values take so far, in the slice of their
// physical type.
func (v *Values) heldBytes() int64 {
	switch v.Physical {
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		return int64(len(v.Fixed))
	case format.Type_BYTE_ARRAY:
		return int64(len(v.Offsets)*4+len(v.Data)) + int64(len(v.Views))*8
	}
	return int64(v.N) * valueBytes(v.Physical, v.Width)
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

// dictionary holds the decoded dictionary page of a column chunk.
type dictionary struct {
	Values
	// maxLen is the length of the longest BYTE_ARRAY value: dictionaries
	// of short values gather with pagecodec.GatherByteArrayShort.
	maxLen int
	// short is the dictionary laid out for pagecodec.DecodeDictShort,
	// built by the first data page that gathers from it: shortState 0
	// (not yet), 1 (built) or -1 (the dictionary does not fit).
	short      *pagecodec.ShortDict // made by the first dictionary it fits
	shortState int8
	// views are the BYTE_ARRAY values as views into Data as buffer
	// viewsBuf (viewsFor), built by the first data page that reads views.
	views    []uint64
	viewsBuf uint32
}

// shortDict returns the dictionary laid out for pagecodec.DecodeDictShort,
// or nil if it does not fit one (values past 31 bytes, too many).
func (d *dictionary) shortDict() *pagecodec.ShortDict {
	if d.shortState == 0 {
		d.shortState = -1
		if d.maxLen <= 31 && len(d.Offsets) > d.N {
			if d.short == nil {
				d.short = new(pagecodec.ShortDict)
			}
			if d.short.Reset(d.Offsets[:d.N+1], d.Data) {
				d.shortState = 1
			}
		}
	}
	if d.shortState < 0 {
		return nil
	}
	return d.short
}

// valueDecoder decodes the values of one data page in its encoding. It is
// set up once per page; each decode call moves a run of values, never one.
//
// The encoding × physical type dispatch lives in reset (which decoder the
// page needs, and whether the encoding applies to the type) and decode (one
// call per run into the slice of the type): a new encoding is one arm in
// each.
type valueDecoder struct {
	enc      format.Encoding
	physical format.Type
	width    int

	plain   pagecodec.PlainDecoder
	rleBool pagecodec.RLEBooleanDecoder
	dictIdx *pagecodec.DictIndexDecoder // the reader's (pageDecoders) while v.dict is set
	// The delta decoders carry kilobytes of block state each: allocated
	// on the first page that needs them, so that a reader of a
	// dictionary or PLAIN chunk (one per leaf: thousands on a wide file)
	// does not carry 5 KiB of them (the Reader was 9.6 KiB, 4.8 without).
	delta *pagecodec.DeltaBinaryPackedDecoder
	dlba  *pagecodec.DeltaLengthByteArrayDecoder
	dba   *pagecodec.DeltaByteArrayDecoder
	bss   pagecodec.ByteStreamSplitDecoder
	alp   pagecodec.ALPDecoder

	dict *dictionary
	// maxData bounds the byte array data of a batch
	// (ReaderOptions.MaxByteArrayData); 0 for a dictionary page.
	maxData int

	// DELTA_BYTE_ARRAY values share prefixes with their predecessors, so a
	// small page can describe quadratically large output: outLeft bounds
	// what one page may produce.
	outLeft int
	// outLimit bounds the bytes of values one batch may hold (checkOut):
	// what the column chunk can decode to.
	outLimit int64

	// views: the values being decoded are views (Values.ViewMode);
	// viewSrc is the page's value section once views point into it
	// (Reader.viewSource), viewScratch the delta encodings' values
	// before their copy (decodeViews).
	views       bool
	viewSrc     []byte
	viewScratch *Values // made by the first delta page read as views
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
	if v.views {
		need = mulSat(int64(n), viewBytes)
	}
	if held+need > v.outLimit {
		return fmt.Errorf("%d values of %d bytes after %d bytes of the batch: beyond the %d bytes the column chunk can hold; read with a smaller BatchSize: %w",
			n, per, held, v.outLimit, errLimit)
	}
	return nil
}

// maxDeltaByteArrayGrowth is how many bytes of output a DELTA_BYTE_ARRAY
// page may produce per byte it holds (long shared prefixes, as in sorted
// URLs, stay far below it); pages get at least minDeltaByteArrayOut.
const (
	maxDeltaByteArrayGrowth = 256
	minDeltaByteArrayOut    = 64 << 20
)

// reset prepares the decoder of data page p.
func (v *valueDecoder) reset(r *Reader, p *pagecodec.Page) error {
	v.enc = p.Encoding
	v.physical = r.col.Physical
	v.maxData = r.opts.MaxByteArrayData
	v.width = int(r.col.TypeLength)
	if v.physical == format.Type_INT96 {
		v.width = 12
	}
	v.dict = nil
	v.viewSrc = nil
	v.outLimit = r.outputLimit(r.opts.BatchRows)
	src := p.Values
	switch v.enc {
	case format.Encoding_PLAIN:
		v.plain.Reset(src)
	case format.Encoding_PLAIN_DICTIONARY, format.Encoding_RLE_DICTIONARY:
		if !r.hasDict {
			return fmt.Errorf("%v data page without a dictionary page: %w", v.enc, errCorrupt)
		}
		v.dict = &r.dict
		v.dictIdx = &r.pd.dictIdx
		return v.dictIdx.Reset(src, r.dict.N)
	case format.Encoding_RLE:
		if v.physical != format.Type_BOOLEAN {
			return fmt.Errorf("RLE values of type %v: %w", v.physical, errUnsupported)
		}
		return v.rleBool.Reset(src)
	case format.Encoding_DELTA_BINARY_PACKED:
		if v.physical != format.Type_INT32 && v.physical != format.Type_INT64 {
			return fmt.Errorf("DELTA_BINARY_PACKED values of type %v: %w", v.physical, errUnsupported)
		}
		if v.delta == nil {
			v.delta = new(pagecodec.DeltaBinaryPackedDecoder)
		}
		return v.delta.Reset(src)
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		if v.physical != format.Type_BYTE_ARRAY {
			return fmt.Errorf("DELTA_LENGTH_BYTE_ARRAY values of type %v: %w", v.physical, errUnsupported)
		}
		if v.dlba == nil {
			v.dlba = new(pagecodec.DeltaLengthByteArrayDecoder)
		}
		return v.dlba.Reset(src)
	case format.Encoding_DELTA_BYTE_ARRAY:
		if v.physical != format.Type_BYTE_ARRAY && v.physical != format.Type_FIXED_LEN_BYTE_ARRAY {
			return fmt.Errorf("DELTA_BYTE_ARRAY values of type %v: %w", v.physical, errUnsupported)
		}
		v.outLeft = max(maxDeltaByteArrayGrowth*len(src), minDeltaByteArrayOut)
		if v.dba == nil {
			v.dba = new(pagecodec.DeltaByteArrayDecoder)
		}
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
			return fmt.Errorf("BYTE_STREAM_SPLIT values of type %v: %w", v.physical, errUnsupported)
		}
		return v.bss.Reset(src, w)
	case format.Encoding_ALP:
		if v.physical != format.Type_FLOAT && v.physical != format.Type_DOUBLE {
			return fmt.Errorf("ALP values of type %v: %w", v.physical, errUnsupported)
		}
		if err := v.alp.Reset(src, v.physical); err != nil {
			return err
		}
		return r.checkALPCount(p, v.alp.Len())
	default:
		return fmt.Errorf("value encoding %v: %w", v.enc, errUnsupported)
	}
	return nil
}

// checkALPCount checks an ALP page's num_elements (n) against the non-null
// values its levels carry: ALP states the count twice, and a page whose two
// counts differ is corrupt rather than short. The count is known from a
// DATA_PAGE_V2 header, from the page's level count when the column is
// required, and from the definition levels, counted in a pass of their
// own, when the column is not flat; a flat optional v1 page decodes its
// levels lazily, so there n can only be bounded by the level count here,
// and a page with too few values fails when they are decoded.
func (r *Reader) checkALPCount(p *pagecodec.Page, n int) error {
	want := -1
	switch {
	case p.NumValues >= 0:
		want = p.NumValues
	case r.col.MaxDef == 0:
		want = p.NumLevels
	case !r.flat:
		var err error
		if want, err = r.countDefined(p); err != nil {
			return err
		}
	}
	if want >= 0 && n != want {
		return fmt.Errorf("ALP page of %d values where the levels carry %d: %w", n, want, errCorrupt)
	}
	if n > p.NumLevels {
		return fmt.Errorf("ALP page of %d values in %d levels: %w", n, p.NumLevels, errCorrupt)
	}
	return nil
}

// countDefined counts the definition levels of data page p at the
// column's maximum, in a pass of its own over them (before the page's first
// window is decoded, whose buffer it uses).
func (r *Reader) countDefined(p *pagecodec.Page) (int, error) {
	var d levels.Decoder
	if err := resetLevelDecoder(&d, p.DefinitionLevels, p.DefinitionLevelEncoding, r.col.MaxDef, p.NumLevels, "definition"); err != nil {
		return 0, err
	}
	count := 0
	for pos := 0; pos < p.NumLevels; {
		buf := growInt16(r.pd.defWin, min(levelWindow, p.NumLevels-pos))
		r.pd.defWin = buf
		if err := decodeExactly(&d, buf, p.NumLevels, pos, "definition"); err != nil {
			return 0, err
		}
		count += countEqual(buf, r.col.MaxDef)
		pos += len(buf)
	}
	return count, nil
}

// decode appends the next n values of the page to d.
func (v *valueDecoder) decode(r *Reader, d *Values, n int) error {
	v.views = d.ViewMode && !d.IndexMode && v.physical == format.Type_BYTE_ARRAY
	if err := v.checkOut(d.heldBytes(), n); err != nil {
		return err
	}
	if v.dict != nil && !v.views {
		if d.IndexMode {
			var tail []int32
			d.Indices, tail = extend(d.Indices, n)
			if err := v.decodeIndices(tail); err != nil {
				return err
			}
			d.N += n
			return nil
		}
		return v.decodeDict(d, n)
	}
	if d.IndexMode {
		// A page that fell back from the dictionary: the batch gives up
		// on indices and holds values.
		if err := d.materialize(&r.dict, v.maxData); err != nil {
			return err
		}
	}
	var got int
	var err error
	switch v.physical {
	case format.Type_BOOLEAN:
		got, err = v.decodeBoolean(d, n)
	case format.Type_INT32:
		got, err = v.decodeInt32(d, n)
	case format.Type_INT64:
		got, err = v.decodeInt64(d, n)
	case format.Type_FLOAT:
		got, err = v.decodeFloat(d, n)
	case format.Type_DOUBLE:
		got, err = v.decodeDouble(d, n)
	case format.Type_INT96:
		got, err = v.decodeInt96(d, n)
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		got, err = v.decodeFixedLenByteArray(d, n)
	case format.Type_BYTE_ARRAY:
		if v.views {
			got, err = v.decodeViews(r, d, n) // dictionary pages too
		} else {
			got, err = v.decodeByteArray(d, n)
		}
	default:
		return fmt.Errorf("physical type %v: %w", v.physical, errUnsupported)
	}
	if err != nil {
		return err
	}
	if got != n {
		if got == 0 && !v.encodingFits() {
			return fmt.Errorf("encoding %v for type %v: %w", v.enc, v.physical, errUnsupported)
		}
		return short(got, n)
	}
	d.N += n
	return nil
}

// decodeBoolean appends the next n BOOLEAN values of the page to d.
func (v *valueDecoder) decodeBoolean(d *Values, n int) (got int, err error) {
	start := d.N
	d.Bits = levels.GrowBitmap(d.Bits, start+n)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeBoolean(d.Bits, start, n)
	case format.Encoding_RLE:
		got, err = v.rleBool.DecodeBoolean(d.Bits, start, n)
	}
	return got, err
}

// decodeInt32 appends the next n INT32 values of the page to d.
func (v *valueDecoder) decodeInt32(d *Values, n int) (got int, err error) {
	var tail []int32
	d.Int32, tail = extend(d.Int32, n)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeInt32(tail)
	case format.Encoding_DELTA_BINARY_PACKED:
		got, err = v.delta.DecodeInt32(tail)
	case format.Encoding_BYTE_STREAM_SPLIT:
		got, err = v.bss.DecodeInt32(tail)
	}
	return got, err
}

// decodeInt64 appends the next n INT64 values of the page to d.
func (v *valueDecoder) decodeInt64(d *Values, n int) (got int, err error) {
	var tail []int64
	d.Int64, tail = extend(d.Int64, n)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeInt64(tail)
	case format.Encoding_DELTA_BINARY_PACKED:
		got, err = v.delta.DecodeInt64(tail)
	case format.Encoding_BYTE_STREAM_SPLIT:
		got, err = v.bss.DecodeInt64(tail)
	}
	return got, err
}

// decodeFloat appends the next n FLOAT values of the page to d.
func (v *valueDecoder) decodeFloat(d *Values, n int) (got int, err error) {
	var tail []float32
	d.Float32, tail = extend(d.Float32, n)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeFloat(tail)
	case format.Encoding_BYTE_STREAM_SPLIT:
		got, err = v.bss.DecodeFloat(tail)
	case format.Encoding_ALP:
		got, err = v.alp.DecodeFloat(tail)
	}
	return got, err
}

// decodeDouble appends the next n DOUBLE values of the page to d.
func (v *valueDecoder) decodeDouble(d *Values, n int) (got int, err error) {
	var tail []float64
	d.Float64, tail = extend(d.Float64, n)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeDouble(tail)
	case format.Encoding_BYTE_STREAM_SPLIT:
		got, err = v.bss.DecodeDouble(tail)
	case format.Encoding_ALP:
		got, err = v.alp.DecodeDouble(tail)
	}
	return got, err
}

// decodeInt96 appends the next n INT96 values of the page to d.
func (v *valueDecoder) decodeInt96(d *Values, n int) (got int, err error) {
	var tail []byte
	d.Fixed, tail = extend(d.Fixed, n*12)
	if v.enc == format.Encoding_PLAIN {
		got, err = v.plain.DecodeFixedLenByteArray(tail, 12)
	}
	return got, err
}

// decodeFixedLenByteArray appends the next n FIXED_LEN_BYTE_ARRAY values of the page to d.
func (v *valueDecoder) decodeFixedLenByteArray(d *Values, n int) (got int, err error) {
	var tail []byte
	d.Fixed, tail = extend(d.Fixed, n*v.width)
	switch v.enc {
	case format.Encoding_PLAIN:
		got, err = v.plain.DecodeFixedLenByteArray(tail, v.width)
	case format.Encoding_DELTA_BYTE_ARRAY:
		got, err = v.dba.DecodeFixedLenByteArray(tail, v.width)
	case format.Encoding_BYTE_STREAM_SPLIT:
		got, err = v.bss.DecodeFixedLenByteArray(tail)
	}
	return got, err
}

// decodeByteArray appends the next n BYTE_ARRAY values of the page to d.
func (v *valueDecoder) decodeByteArray(d *Values, n int) (got int, err error) {
	before := len(d.Offsets)
	switch v.enc {
	case format.Encoding_PLAIN:
		d.Offsets, d.Data, err = v.plain.DecodeByteArray(d.Offsets, d.Data, n)
		err = v.batchFull(err)
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		d.Offsets, d.Data, err = v.dlba.DecodeByteArray(d.Offsets, d.Data, n)
		err = v.batchFull(err)
	case format.Encoding_DELTA_BYTE_ARRAY:
		// In slices, checking the output against the page's bound.
		for left := n; left > 0 && err == nil; {
			k := min(left, 256)
			size := len(d.Data)
			d.Offsets, d.Data, err = v.dba.DecodeByteArray(d.Offsets, d.Data, k)
			err = v.batchFull(err)
			v.outLeft -= len(d.Data) - size
			if err == nil && v.outLeft < 0 {
				err = fmt.Errorf("DELTA_BYTE_ARRAY page expands beyond %d bytes per byte: %w", maxDeltaByteArrayGrowth, errLimit)
			}
			left -= k
		}
	}
	got = len(d.Offsets) - before
	if err == nil {
		err = v.checkBatchData(d)
	}
	return got, err
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
	case format.Encoding_ALP:
		return v.physical == format.Type_FLOAT || v.physical == format.Type_DOUBLE
	}
	return false
}

// batchFull classifies err from a BYTE_ARRAY decoder call of a data page:
// a limit error (the data outgrew the offsets) may go away with fewer
// rows. The decoder of a dictionary page has no maxData: its limit errors
// stand.
func (v *valueDecoder) batchFull(err error) error {
	if err != nil && v.maxData > 0 && errors.Is(err, errLimit) {
		return &BatchFullError{Cause: err}
	}
	return err
}

// checkBatchData reports byte array data beyond maxData (the pagecodec
// decoders stop at math.MaxInt32 themselves; tests set a smaller limit).
func (v *valueDecoder) checkBatchData(d *Values) error {
	if v.maxData > 0 && len(d.Data) > v.maxData {
		return &BatchFullError{Cause: fmt.Errorf("%d bytes of byte array data in one batch exceed %d: %w", len(d.Data), v.maxData, errLimit)}
	}
	return nil
}

// dictBlock is how many indices the unfused path (BOOLEAN) decodes before
// it gathers their values.
const dictBlock = 1024

// decodeDict appends the dictionary values of the page's next n indices
// to d. Every type but BOOLEAN decodes and gathers in one pass
// (pagecodec.DecodeDict and its twins), with no index buffer: on a
// DuckDB-written file of 2,000 dictionary-encoded int64 columns the
// indices of each chunk took 80 KB allocated and zeroed per read and a
// second pass over them, 25% of the read in DecodeIndices and 25% in
// Gather (docs/performance.md). gather, the unfused path, stays for
// materialize and BOOLEAN.
func (v *valueDecoder) decodeDict(d *Values, n int) error {
	dict := v.dict
	var got int
	var err error
	switch v.physical {
	case format.Type_INT32:
		var tail []int32
		d.Int32, tail = extend(d.Int32, n)
		got, err = pagecodec.DecodeDict(v.dictIdx, tail, dict.Int32)
	case format.Type_INT64:
		var tail []int64
		d.Int64, tail = extend(d.Int64, n)
		got, err = pagecodec.DecodeDict(v.dictIdx, tail, dict.Int64)
	case format.Type_FLOAT:
		var tail []float32
		d.Float32, tail = extend(d.Float32, n)
		got, err = pagecodec.DecodeDict(v.dictIdx, tail, dict.Float32)
	case format.Type_DOUBLE:
		var tail []float64
		d.Float64, tail = extend(d.Float64, n)
		got, err = pagecodec.DecodeDict(v.dictIdx, tail, dict.Float64)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		var tail []byte
		d.Fixed, tail = extend(d.Fixed, n*v.width)
		got, err = pagecodec.DecodeDictFixed(v.dictIdx, tail, dict.Fixed, v.width)
	case format.Type_BYTE_ARRAY:
		before := len(d.Offsets)
		if sd := dict.shortDict(); sd != nil {
			// Flags, codes, short names: lineitem's l_returnflag went
			// from 58 to 15 instructions a value, l_shipmode 58 to 32,
			// l_shipinstruct 97 to 39 (callgrind, pagecodec
			// BenchmarkDecodeDictLineitem's pages).
			d.Offsets, d.Data, err = pagecodec.DecodeDictShort(v.dictIdx, d.Offsets, d.Data, sd, n)
		} else {
			d.Offsets, d.Data, err = pagecodec.DecodeDictByteArray(v.dictIdx, d.Offsets, d.Data, dict.Offsets, dict.slackData(), dict.maxLen, n)
		}
		got = len(d.Offsets) - before
		if err = v.batchFull(err); err == nil {
			err = v.checkBatchData(d)
		}
	default:
		// BOOLEAN: indices a block at a time on the stack, then the
		// gather; no index buffer the size of the page per reader.
		var block [dictBlock]int32
		for n > 0 {
			idx := block[:min(n, dictBlock)]
			if err := v.decodeIndices(idx); err != nil {
				return err
			}
			if err := v.gather(d, idx); err != nil {
				return err
			}
			n -= len(idx)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if got != n {
		return short(got, n)
	}
	d.N += n
	return nil
}

// slackData is the dictionary's byte array data with the slack after it
// (dictionarySlack zero bytes within cap), which lets gathers copy values
// as whole blocks near the end of the dictionary too.
func (d *dictionary) slackData() []byte {
	data := d.Data
	if cap(data)-len(data) >= dictionarySlack {
		data = data[:len(data)+dictionarySlack]
	}
	return data
}

// DecodeDictFixed decodes the next len(dst)/width indices of a
// dictionary-encoded page ([Reader.PageIsDictionaryEncoded]) and stores
// the width-byte values dict holds at them in dst, in one pass without an
// index buffer. dict is the chunk's dictionary in a fixed-width form of
// the caller's (arrowpq converts a decimal dictionary to Decimal128 once
// per chunk), [Reader.Dictionary]'s N values back to back. An index past
// the dictionary is an error, as in [Reader.DecodeIndices].
func (r *Reader) DecodeDictFixed(dst, dict []byte, width int) error {
	if r.dec.dict == nil {
		return r.locate(fmt.Errorf("indices from a page in encoding %v: %w", r.dec.enc, errCorrupt))
	}
	got, err := pagecodec.DecodeDictFixed(r.dec.dictIdx, dst, dict, width)
	if err == nil && got != len(dst)/width {
		err = short(got, len(dst)/width)
	}
	if err != nil {
		return r.locate(err)
	}
	return nil
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
func (v *valueDecoder) gather(d *Values, idx []int32) error {
	n := len(idx)
	dict := v.dict
	var err error
	switch v.physical {
	case format.Type_BOOLEAN:
		start := d.N
		d.Bits = levels.GrowBitmap(d.Bits, start+n)
		nd := dict.N
		for i, x := range idx {
			if uint(x) >= uint(nd) {
				return fmt.Errorf("dictionary index %d out of range for %d values: %w", x, nd, errCorrupt)
			}
			setBit(d.Bits, start+i, dict.Bits[x>>3]>>(x&7)&1 == 1)
		}
	case format.Type_INT32:
		var tail []int32
		d.Int32, tail = extend(d.Int32, n)
		err = pagecodec.Gather(tail, dict.Int32, idx)
	case format.Type_INT64:
		var tail []int64
		d.Int64, tail = extend(d.Int64, n)
		err = pagecodec.Gather(tail, dict.Int64, idx)
	case format.Type_FLOAT:
		var tail []float32
		d.Float32, tail = extend(d.Float32, n)
		err = pagecodec.Gather(tail, dict.Float32, idx)
	case format.Type_DOUBLE:
		var tail []float64
		d.Float64, tail = extend(d.Float64, n)
		err = pagecodec.Gather(tail, dict.Float64, idx)
	case format.Type_INT96, format.Type_FIXED_LEN_BYTE_ARRAY:
		var tail []byte
		d.Fixed, tail = extend(d.Fixed, n*v.width)
		err = pagecodec.GatherFixedLenByteArray(tail, dict.Fixed, v.width, idx)
	case format.Type_BYTE_ARRAY:
		data := dict.slackData()
		if dict.maxLen <= 32 {
			d.Offsets, d.Data, err = pagecodec.GatherByteArrayShort(d.Offsets, d.Data, dict.Offsets, data, idx, dict.maxLen)
		} else {
			d.Offsets, d.Data, err = pagecodec.GatherByteArray(d.Offsets, d.Data, dict.Offsets, data, idx)
		}
		if err = v.batchFull(err); err == nil {
			err = v.checkBatchData(d)
		}
	}
	if err != nil {
		return err
	}
	d.N += n
	return nil
}

// materialize turns the indices collected so far into values and leaves
// index mode.
func (d *Values) materialize(dict *dictionary, maxData int) error {
	d.IndexMode = false
	idx := d.Indices
	d.N = 0
	if len(idx) == 0 {
		return nil
	}
	var v valueDecoder
	v.physical, v.width, v.dict, v.maxData = d.Physical, d.Width, dict, maxData
	return v.gather(d, idx)
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

func setBit(b []byte, i int, v bool) {
	if v {
		b[i>>3] |= 1 << (i & 7)
	} else {
		b[i>>3] &^= 1 << (i & 7)
	}
}

// decodeDictionary decodes a dictionary page (PLAIN, or PLAIN_DICTIONARY
// in old files) into r.dict. buf is the decompression buffer the page may
// lie in (nil when unknown). A fixed-width dictionary in it is used where
// it lies, without a copy (viewDictionary); viewed then says that r.dict
// holds buf's memory, which the caller must hand over to r.dictBuf and not
// decompress into again.
func (r *Reader) decodeDictionary(p *pagecodec.Page, buf []byte) (viewed bool, err error) {
	if p.Encoding != format.Encoding_PLAIN && p.Encoding != format.Encoding_PLAIN_DICTIONARY {
		return false, fmt.Errorf("dictionary page in encoding %v: %w", p.Encoding, errUnsupported)
	}
	if p.Header == nil || p.Header.DictionaryPageHeader == nil {
		return false, fmt.Errorf("dictionary page without its header: %w", errCorrupt)
	}
	n := int(p.Header.DictionaryPageHeader.NumValues)
	if n < 0 {
		return false, fmt.Errorf("dictionary of %d values: %w", n, errCorrupt)
	}
	// Every value takes at least one byte (a bit for booleans, four for a
	// byte array's length), so a count beyond the page's bytes is corrupt
	// and must not size an allocation.
	per := valueBytes(r.col.Physical, int(r.col.TypeLength))
	if r.col.Physical == format.Type_BOOLEAN {
		per = 0 // a bit each; checked by the decoder
	}
	if n > len(p.Values) || mulSat(int64(n), per) > int64(len(p.Values)) {
		if r.col.Physical != format.Type_BOOLEAN || n > 8*len(p.Values) {
			return false, fmt.Errorf("dictionary of %d values in %d bytes: %w", n, len(p.Values), errCorrupt)
		}
	}
	d := &r.dict
	if r.dictViewed {
		// The last dictionary's slices are r.dictBuf, which the caller
		// may decompress into next: never decode into them.
		d.Int32, d.Int64, d.Float32, d.Float64, d.Fixed = nil, nil, nil, nil, nil
		r.dictViewed = false
	}
	if r.dictShared {
		// Views of batches handed out point into the last dictionary's
		// data: never decode into it again (views.go).
		d.Data = nil
		r.dictShared = false
	}
	d.views = d.views[:0]
	d.Reset(r.col)
	d.IndexMode, d.ViewMode = false, false
	if n > 0 && holds(buf, p.Values) && viewDictionary(&d.Values, p.Values, n) {
		d.N = n
		r.dictViewed = true
		return true, nil
	}
	d.presize(n)
	// The reader's own decoder, between data pages: every data page
	// resets it. A local one escaped, 6.5 KB allocated per column chunk.
	dec := &r.dec
	dec.enc = format.Encoding_PLAIN
	dec.physical = r.col.Physical
	dec.width = d.Width
	dec.dict = nil
	dec.maxData = 0
	dec.plain.Reset(p.Values)
	dec.outLimit = math.MaxInt64 // bounded by the page, checked above
	if n > 0 {
		if err := dec.decode(r, &d.Values, n); err != nil {
			return false, fmt.Errorf("dictionary page: %w", err)
		}
	}
	d.N = n
	if d.Physical == format.Type_BYTE_ARRAY {
		// Slack after the last value, so that gathers copy every short
		// value as one block (pagecodec's copyShort and
		// GatherByteArrayShort) instead of calling copy for values near
		// the end: with tiny dictionaries ("A", "N", "R") that was every
		// value (lineitem).
		d.Data = append(d.Data, make([]byte, dictionarySlack)...)
		d.Data = d.Data[:len(d.Data)-dictionarySlack]
		d.maxLen, d.shortState = 0, 0
		for i := range n {
			d.maxLen = max(d.maxLen, int(d.Offsets[i+1]-d.Offsets[i]))
		}
	}
	return false, nil
}

// dictionarySlack is the zero padding after a BYTE_ARRAY dictionary's data
// (beyond len, within cap).
const dictionarySlack = 32
