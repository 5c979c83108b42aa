package arrowpq

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
	"github.com/arrowpq/arrowpq/typemap"
)

// convTarget is the conversion of a flat leaf whose Arrow values are fixed
// width but not its physical values as stored (decimals, INT96
// timestamps, narrowed or scaled integers, intervals, fixed-size binary).
// Such a leaf converts values as it decodes them, straight into the
// batch's Arrow buffer, and converts each column chunk's dictionary once,
// so that dictionary pages gather converted values: a dictionary-encoded
// DECIMAL column costs one 16-byte copy per value instead of a gather plus
// a conversion (docs/performance.md).
type convTarget struct {
	conv  typemap.Conversion
	dt    arrow.DataType // Arrow storage type
	width int
	int96 arrow.TimeUnit

	// dict is the chunk's dictionary in Arrow layout; dictOK says it is
	// current (a dictionary with a value the conversion rejects is not
	// converted, and its pages take the per-value path, which fails only
	// if a page uses that value).
	dict   []byte
	dictOK bool
	// dictDone: the chunk's dictionary has been converted (when its first
	// dictionary-encoded page was met).
	dictDone bool
	// phys holds a page piece's physical values before conversion.
	phys column.Values
}

// newConvTarget returns the conversion of a flat leaf read as Arrow
// storage type dt, or nil when the leaf decodes without one (or has no
// fixed-width Arrow form).
func newConvTarget(physical format.Type, conv typemap.Conversion, dt arrow.DataType, int96 arrow.TimeUnit) *convTarget {
	switch physical {
	case format.Type_BOOLEAN:
		return nil
	case format.Type_INT32, format.Type_INT64, format.Type_FLOAT, format.Type_DOUBLE, format.Type_BYTE_ARRAY:
		if conv.Kind == typemap.Identity {
			return nil // decoded in place, or not fixed width
		}
	}
	if conv.Kind == typemap.Null {
		return nil
	}
	w, err := storageWidth(dt)
	if err != nil {
		return nil
	}
	return &convTarget{conv: conv, dt: dt, width: w, int96: int96}
}

// convert writes the Arrow form of the values in d to dst (exactly
// d.N*width bytes).
func (c *convTarget) convert(dst []byte, d *column.Values) error {
	out, err := convertDense(dst, c.conv, c.dt, d, c.width, c.int96)
	if err != nil {
		return err
	}
	if len(out) > 0 && &out[0] != &dst[0] {
		copy(dst, out) // an identity conversion returns the values as they are
	}
	return nil
}

// convertDictionary converts the chunk's freshly decoded dictionary.
func (c *convTarget) convertDictionary(dict *column.Values) {
	c.dict = growBytes(c.dict, dict.N*c.width)
	c.dictOK = dict.N == 0 || c.convert(c.dict, dict) == nil
	c.dictDone = true
}

// startConv points d.conv at a new Arrow buffer for numRows values of
// width bytes: a flat leaf has at most one value per row.
func (d *denseValues) startConv(mem memory.Allocator, numRows, width int) {
	d.direct = newUninitBuffer(mem, numRows*width)
	// Capped at the batch: a pool buffer's capacity runs to its size
	// class, and decodeConverted's bound on the values is this capacity.
	d.conv = d.direct.Bytes()[: 0 : numRows*width]
}

// takeConv hands over the buffer d.conv aliases.
func (d *denseValues) takeConv() *memory.Buffer {
	buf := d.direct
	d.direct, d.conv = nil, nil
	return buf
}

// decodeConverted decodes the next n values of the page and appends their
// Arrow form to l.dense.conv.
func (l *leafReader) decodeConverted(n int) error {
	c := l.conv
	d := &l.dense
	start := len(d.conv)
	if cap(d.conv)-start < n*c.width {
		return fmt.Errorf("%d values beyond the batch's %d rows: %w", n, cap(d.conv)/c.width, pagecodec.ErrCorrupt)
	}
	tail := d.conv[start : start+n*c.width]
	if l.cr.PageIsDictionaryEncoded() && !c.dictDone {
		dict, _ := l.cr.Dictionary()
		c.convertDictionary(dict)
	}
	if l.cr.PageIsDictionaryEncoded() && c.dictOK {
		// One pass from the page's indices to the converted values
		// (column.Reader.DecodeDictFixed): lineitem's decimals.
		if err := l.cr.DecodeDictFixed(tail, c.dict, c.width); err != nil {
			return err
		}
	} else {
		c.phys.Reset(l.col)
		if err := l.cr.DecodeValues(&c.phys, n); err != nil {
			return err
		}
		if err := c.convert(tail, &c.phys); err != nil {
			return err
		}
	}
	d.conv = d.conv[:start+n*c.width]
	d.N += n
	return nil
}
