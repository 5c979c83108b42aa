package arrowpq

// Evaluation of a bound predicate over an Arrow record batch. Each
// comparison runs one typed loop over the column's values buffer (the
// operator is chosen before the loop), producing a bitmap of "the
// comparison holds"; the column's validity (ANDed with the validity of its
// enclosing structs) turns it into two bitmaps, TRUE and FALSE, and rows in
// neither are unknown. AND, OR and NOT are Kleene logic on those bitmaps,
// a byte (8 rows) at a time:
//
//	AND: T = Ta & Tb, F = Fa | Fb    OR: T = Ta | Tb, F = Fa & Fb    NOT: swap T and F

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Selection says which rows of a batch a predicate selects (is TRUE for).
type Selection struct {
	n    int
	bits []byte // bit i (LSB first) set: row i selected; bits past n are zero
}

// NewSelection returns a selection of n rows from bools.
func NewSelection(bools []bool) *Selection {
	s := &Selection{n: len(bools), bits: make([]byte, (len(bools)+7)/8)}
	for i, b := range bools {
		if b {
			s.bits[i>>3] |= 1 << (i & 7)
		}
	}
	return s
}

// Len returns the number of rows the selection covers.
func (s *Selection) Len() int { return s.n }

// Count returns the number of selected rows.
func (s *Selection) Count() int { return bitutil.CountSetBits(s.bits, 0, s.n) }

// Selected reports whether row i is selected.
func (s *Selection) Selected(i int) bool { return s.bits[i>>3]&(1<<(i&7)) != 0 }

// Bitmap returns the selection as an Arrow-style bitmap (LSB first), owned
// by s.
func (s *Selection) Bitmap() []byte { return s.bits }

// Bools returns the selection as one bool per row.
func (s *Selection) Bools() []bool {
	out := make([]bool, s.n)
	for i := range out {
		out[i] = s.Selected(i)
	}
	return out
}

// Ranges returns the selected rows as sorted, disjoint [start, end) ranges.
func (s *Selection) Ranges() RowRanges {
	var out RowRanges
	start := -1
	for i := 0; i < s.n; {
		// Skip whole bytes of the same state.
		if i&7 == 0 && i+8 <= s.n {
			if b := s.bits[i>>3]; b == 0 && start < 0 || b == 0xff && start >= 0 {
				i += 8
				continue
			}
		}
		sel := s.Selected(i)
		switch {
		case sel && start < 0:
			start = i
		case !sel && start >= 0:
			out = append(out, RowRange{int64(start), int64(i)})
			start = -1
		}
		i++
	}
	if start >= 0 {
		out = append(out, RowRange{int64(start), int64(s.n)})
	}
	return out
}

// tri is the three-valued result of a node over n rows: t and f are
// bitmaps of the rows where it is TRUE and FALSE; the rest are unknown.
type tri struct{ t, f []byte }

// Evaluate runs b over batch, whose schema must have the columns b was
// bound to at the same positions and of the same types (the schema Bind
// saw, or a batch read with it). It returns the rows for which b is TRUE.
func (b *BoundPredicate) Evaluate(batch arrow.RecordBatch) (*Selection, error) {
	n := int(batch.NumRows())
	r, err := b.eval(b.root, batch, n)
	if err != nil {
		return nil, err
	}
	clearTail(r.t, n)
	return &Selection{n: n, bits: r.t}, nil
}

func clearTail(bm []byte, n int) {
	if n&7 != 0 && len(bm) > 0 {
		bm[len(bm)-1] &= byte(1)<<(n&7) - 1
	}
}

func newBitmap(n int) []byte { return make([]byte, (n+7)/8) }

func filledBitmap(n int, v byte) []byte {
	bm := newBitmap(n)
	if v != 0 {
		for i := range bm {
			bm[i] = v
		}
	}
	return bm
}

func (b *BoundPredicate) eval(nd *bnode, batch arrow.RecordBatch, n int) (tri, error) {
	switch nd.op {
	case opAnd, opOr:
		if len(nd.kids) == 0 {
			if nd.op == opAnd {
				return tri{filledBitmap(n, 0xff), newBitmap(n)}, nil
			}
			return tri{newBitmap(n), filledBitmap(n, 0xff)}, nil
		}
		acc, err := b.eval(nd.kids[0], batch, n)
		if err != nil {
			return tri{}, err
		}
		for _, k := range nd.kids[1:] {
			r, err := b.eval(k, batch, n)
			if err != nil {
				return tri{}, err
			}
			if nd.op == opAnd {
				for i := range acc.t {
					acc.t[i] &= r.t[i]
					acc.f[i] |= r.f[i]
				}
			} else {
				for i := range acc.t {
					acc.t[i] |= r.t[i]
					acc.f[i] &= r.f[i]
				}
			}
		}
		return acc, nil
	case opNot:
		r, err := b.eval(nd.kids[0], batch, n)
		return tri{r.f, r.t}, err
	}
	arr, valid, err := b.columnArray(nd.col, batch)
	if err != nil {
		return tri{}, err
	}
	switch nd.op {
	case opIsNull:
		f := valid
		t := make([]byte, len(f))
		for i := range f {
			t[i] = ^f[i]
		}
		return tri{t, f}, nil
	case opIsNotNull:
		t := valid
		f := make([]byte, len(t))
		for i := range t {
			f[i] = ^t[i]
		}
		return tri{t, f}, nil
	}
	var hold []byte
	switch nd.konst {
	case constTrue:
		hold = filledBitmap(n, 0xff)
	case constFalse:
		hold = newBitmap(n)
	case constUnknown:
		return tri{newBitmap(n), newBitmap(n)}, nil
	default:
		hold = newBitmap(n)
		if err := compareArray(nd, arr, hold); err != nil {
			return tri{}, fmt.Errorf("arrowpq: filter: column %s: %w", quoteIdent(nd.col.name), err)
		}
	}
	f := make([]byte, len(hold))
	for i := range hold {
		f[i] = valid[i] &^ hold[i]
		hold[i] &= valid[i]
	}
	nullIsUnknown := nd.op == opIn && nd.inHasNull
	if nullIsUnknown {
		// x IN (…, NULL) is TRUE or unknown, never FALSE.
		clear(f)
	}
	return tri{hold, f}, nil
}

// columnArray returns the array of column c in batch and its validity as
// a fresh bitmap at offset 0, ANDed with the validity of enclosing structs.
func (b *BoundPredicate) columnArray(c *boundColumn, batch arrow.RecordBatch) (arrow.Array, []byte, error) {
	n := int(batch.NumRows())
	if c.path[0] >= int(batch.NumCols()) {
		return nil, nil, fmt.Errorf("arrowpq: filter: column %s: the batch has %d columns", quoteIdent(c.name), batch.NumCols())
	}
	arr := batch.Column(c.path[0])
	valid := filledBitmap(n, 0xff)
	for depth := 0; ; depth++ {
		andValidity(valid, arr)
		if depth == len(c.path)-1 {
			break
		}
		st, ok := arr.(*array.Struct)
		if !ok || c.path[depth+1] >= st.NumField() {
			return nil, nil, fmt.Errorf("arrowpq: filter: column %s: the batch's schema is not the one the filter was bound to", quoteIdent(c.name))
		}
		arr = st.Field(c.path[depth+1])
	}
	want := c.typ
	got := arr.DataType()
	if d, ok := got.(*arrow.DictionaryType); ok {
		got = d.ValueType
	}
	if c.class != classOther && !arrow.TypeEqual(got, want) {
		return nil, nil, fmt.Errorf("arrowpq: filter: column %s is %s in the batch, %s when bound", quoteIdent(c.name), got, want)
	}
	clearTail(valid, n)
	return arr, valid, nil
}

// andValidity clears in valid the rows where arr is null.
func andValidity(valid []byte, arr arrow.Array) {
	if arr.NullN() == 0 {
		return
	}
	if arr.DataType().ID() == arrow.NULL {
		clear(valid)
		return
	}
	bm := arr.NullBitmapBytes()
	if len(bm) == 0 {
		return
	}
	off := arr.Data().Offset()
	if off&7 == 0 {
		src := bm[off>>3:]
		for i := range valid {
			if i < len(src) {
				valid[i] &= src[i]
			}
		}
		return
	}
	tmp := newBitmap(arr.Len())
	bitutil.CopyBitmap(bm, off, arr.Len(), tmp, 0)
	for i := range valid {
		valid[i] &= tmp[i]
	}
}

// setBit sets bit i of out when cond; written so that the compiler emits
// no branch for cond.
func selSetBit(out []byte, i int, cond bool) {
	var v byte
	if cond {
		v = 1
	}
	out[i>>3] |= v << (i & 7)
}

// compareArray sets in hold the rows of arr for which nd's comparison
// holds, ignoring validity.
func compareArray(nd *bnode, arr arrow.Array, hold []byte) error {
	if d, ok := arr.(*array.Dictionary); ok {
		return compareDictionary(nd, d, hold)
	}
	if e, ok := arr.(array.ExtensionArray); ok {
		// UUID and other extensions compare by their storage.
		arr = e.Storage()
	}
	switch a := arr.(type) {
	case *array.Int8:
		filtSigned(nd, a.Int8Values(), hold)
	case *array.Int16:
		filtSigned(nd, a.Int16Values(), hold)
	case *array.Int32:
		filtSigned(nd, a.Int32Values(), hold)
	case *array.Int64:
		filtSigned(nd, a.Int64Values(), hold)
	case *array.Date32:
		filtSigned(nd, a.Date32Values(), hold)
	case *array.Date64:
		filtSigned(nd, a.Date64Values(), hold)
	case *array.Timestamp:
		filtSigned(nd, a.TimestampValues(), hold)
	case *array.Decimal32:
		filtSigned(nd, a.Values(), hold)
	case *array.Decimal64:
		filtSigned(nd, a.Values(), hold)
	case *array.Uint8:
		filtUnsigned(nd, a.Uint8Values(), hold)
	case *array.Uint16:
		filtUnsigned(nd, a.Uint16Values(), hold)
	case *array.Uint32:
		filtUnsigned(nd, a.Uint32Values(), hold)
	case *array.Uint64:
		filtUnsigned(nd, a.Uint64Values(), hold)
	case *array.Float32:
		filtFloat(nd, a.Float32Values(), hold)
	case *array.Float64:
		filtFloat(nd, a.Float64Values(), hold)
	case *array.Float16:
		vals := a.Values()
		wide := make([]float32, len(vals))
		for i, v := range vals {
			wide[i] = v.Float32()
		}
		filtFloat(nd, wide, hold)
	case *array.Decimal128:
		filtDec128(nd, a.Values(), hold)
	case *array.Decimal256:
		filtDec256(nd, a.Values(), hold)
	case *array.String:
		filtOffsets(nd, a.ValueOffsets(), rawValueData(a), hold)
	case *array.LargeString:
		filtOffsets(nd, a.ValueOffsets(), rawValueData(a), hold)
	case *array.Binary:
		filtOffsets(nd, a.ValueOffsets(), rawValueData(a), hold)
	case *array.LargeBinary:
		filtOffsets(nd, a.ValueOffsets(), rawValueData(a), hold)
	case *array.FixedSizeBinary:
		filtFixed(nd, a, hold)
	case *array.StringView:
		for i := 0; i < a.Len(); i++ {
			selSetBit(hold, i, bytesHold(nd, []byte(a.Value(i))))
		}
	case *array.BinaryView:
		for i := 0; i < a.Len(); i++ {
			selSetBit(hold, i, bytesHold(nd, a.Value(i)))
		}
	case *array.Boolean:
		filtBool(nd, a, hold)
	default:
		return fmt.Errorf("cannot compare values of type %s", arr.DataType())
	}
	return nil
}

// compareDictionary evaluates the comparison once per dictionary entry,
// then gathers the result by the indices.
func compareDictionary(nd *bnode, d *array.Dictionary, hold []byte) error {
	dict := d.Dictionary()
	dh := newBitmap(dict.Len())
	if err := compareArray(nd, dict, dh); err != nil {
		return err
	}
	idx := d.Indices()
	switch a := idx.(type) {
	case *array.Int8:
		filtGather(a.Int8Values(), dh, hold)
	case *array.Int16:
		filtGather(a.Int16Values(), dh, hold)
	case *array.Int32:
		filtGather(a.Int32Values(), dh, hold)
	case *array.Int64:
		filtGather(a.Int64Values(), dh, hold)
	case *array.Uint8:
		filtGather(a.Uint8Values(), dh, hold)
	case *array.Uint16:
		filtGather(a.Uint16Values(), dh, hold)
	case *array.Uint32:
		filtGather(a.Uint32Values(), dh, hold)
	case *array.Uint64:
		filtGather(a.Uint64Values(), dh, hold)
	default:
		return fmt.Errorf("dictionary indices of type %s", idx.DataType())
	}
	return nil
}

func filtGather[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](idx []T, dh, hold []byte) {
	limit := uint64(len(dh) * 8)
	for i, k := range idx {
		// A null slot's index may be anything: bound it, validity masks it.
		if u := uint64(k); u < limit {
			selSetBit(hold, i, dh[u>>3]&(1<<(u&7)) != 0)
		}
	}
}

// b2u is 1 for true; the compiler turns it into a flag move, no branch.
func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// intRange turns an integer comparison x op k into lo <= x <= hi
// (negated for NE), which one unsigned compare tests: x-lo <= hi-lo. Bind
// has made the edge cases constants, so k±1 does not overflow here.
func intRange(op filterOp, k, min, max int64) (lo, hi int64, negate bool) {
	switch op {
	case opEQ:
		return k, k, false
	case opNE:
		return k, k, true
	case opLT:
		return min, k - 1, false
	case opLE:
		return min, k, false
	case opGT:
		return k + 1, max, false
	}
	return k, max, false // opGE
}

// packInRange sets bit i of hold when lo <= vals[i] <= lo+width (as
// uint64 arithmetic), eight values to a byte with no branch per value.
func packInRange[T ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64](vals []T, lo, width uint64, negate bool, hold []byte) {
	var flip byte
	if negate {
		flip = 0xff
	}
	full := len(vals) / 8
	hold = hold[:(len(vals)+7)/8]
	for j := range full {
		c := (*[8]T)(vals[j*8 : j*8+8])
		b := b2u(uint64(c[0])-lo <= width) | b2u(uint64(c[1])-lo <= width)<<1 |
			b2u(uint64(c[2])-lo <= width)<<2 | b2u(uint64(c[3])-lo <= width)<<3 |
			b2u(uint64(c[4])-lo <= width)<<4 | b2u(uint64(c[5])-lo <= width)<<5 |
			b2u(uint64(c[6])-lo <= width)<<6 | b2u(uint64(c[7])-lo <= width)<<7
		hold[j] = b ^ flip
	}
	for i := full * 8; i < len(vals); i++ {
		hold[i>>3] |= (b2u(uint64(vals[i])-lo <= width) ^ flip&1) << (i & 7)
	}
}

func filtSigned[T ~int8 | ~int16 | ~int32 | ~int64](nd *bnode, vals []T, hold []byte) {
	if nd.op == opIn {
		set := nd.setI64
		if len(set) > 8 {
			m := make(map[int64]struct{}, len(set))
			for _, v := range set {
				m[v] = struct{}{}
			}
			for i, v := range vals {
				_, ok := m[int64(v)]
				selSetBit(hold, i, ok)
			}
			return
		}
		for _, k := range set {
			for i, v := range vals {
				selSetBit(hold, i, int64(v) == k)
			}
		}
		return
	}
	// Sign-extending T to int64 then to uint64 keeps x-lo <= hi-lo right.
	lo, hi, negate := intRange(nd.op, nd.i64, math.MinInt64, math.MaxInt64)
	packInRange(vals, uint64(lo), uint64(hi)-uint64(lo), negate, hold)
}

func filtUnsigned[T ~uint8 | ~uint16 | ~uint32 | ~uint64](nd *bnode, vals []T, hold []byte) {
	if nd.op == opIn {
		for _, k := range nd.setU64 {
			for i, v := range vals {
				selSetBit(hold, i, uint64(v) == k)
			}
		}
		return
	}
	k := nd.u64
	lo, hi, negate := k, k, false
	switch nd.op {
	case opNE:
		negate = true
	case opLT:
		lo, hi = 0, k-1
	case opLE:
		lo, hi = 0, k
	case opGT:
		lo, hi = k+1, math.MaxUint64
	case opGE:
		lo, hi = k, math.MaxUint64
	}
	packInRange(vals, lo, hi-lo, negate, hold)
}

// filtFloat compares in DuckDB's total order: NaN equals NaN and is above
// every other value (+Inf included); -0 equals +0.
func filtFloat[T ~float32 | ~float64](nd *bnode, vals []T, hold []byte) {
	if nd.op == opIn {
		for _, k := range nd.setF64 {
			if k != k {
				for i, v := range vals {
					selSetBit(hold, i, v != v)
				}
				continue
			}
			for i, v := range vals {
				selSetBit(hold, i, float64(v) == k)
			}
		}
		return
	}
	k := nd.f64
	if math.IsNaN(k) {
		// x op NaN: only NaN equals it, everything else is below it.
		for i, v := range vals {
			isNaN := v != v
			var h bool
			switch nd.op {
			case opEQ, opGE:
				h = isNaN
			case opNE, opLT:
				h = !isNaN
			case opLE:
				h = true
			case opGT:
				h = false
			}
			selSetBit(hold, i, h)
		}
		return
	}
	// GT, GE and NE are the negations of LE, LT and EQ, which is also
	// DuckDB's rule for NaN: NaN <= k is false, so NaN > k is true.
	negate := nd.op == opGT || nd.op == opGE || nd.op == opNE
	base := map[filterOp]filterOp{opEQ: opEQ, opNE: opEQ, opLT: opLT, opLE: opLE, opGT: opLE, opGE: opLT}[nd.op]
	packFloat(vals, k, base, negate, hold)
}

// packFloat sets bit i of hold when vals[i] op k (op EQ, LT or LE, in
// IEEE terms), negated when negate; eight values to a byte.
func packFloat[T ~float32 | ~float64](vals []T, k float64, op filterOp, negate bool, hold []byte) {
	var flip byte
	if negate {
		flip = 0xff
	}
	full := len(vals) / 8
	hold = hold[:(len(vals)+7)/8]
	switch op {
	case opEQ:
		for j := range full {
			c := (*[8]T)(vals[j*8 : j*8+8])
			hold[j] = flip ^ (b2u(float64(c[0]) == k) | b2u(float64(c[1]) == k)<<1 | b2u(float64(c[2]) == k)<<2 | b2u(float64(c[3]) == k)<<3 |
				b2u(float64(c[4]) == k)<<4 | b2u(float64(c[5]) == k)<<5 | b2u(float64(c[6]) == k)<<6 | b2u(float64(c[7]) == k)<<7)
		}
		for i := full * 8; i < len(vals); i++ {
			hold[i>>3] |= (b2u(float64(vals[i]) == k) ^ flip&1) << (i & 7)
		}
	case opLT:
		for j := range full {
			c := (*[8]T)(vals[j*8 : j*8+8])
			hold[j] = flip ^ (b2u(float64(c[0]) < k) | b2u(float64(c[1]) < k)<<1 | b2u(float64(c[2]) < k)<<2 | b2u(float64(c[3]) < k)<<3 |
				b2u(float64(c[4]) < k)<<4 | b2u(float64(c[5]) < k)<<5 | b2u(float64(c[6]) < k)<<6 | b2u(float64(c[7]) < k)<<7)
		}
		for i := full * 8; i < len(vals); i++ {
			hold[i>>3] |= (b2u(float64(vals[i]) < k) ^ flip&1) << (i & 7)
		}
	default: // opLE
		for j := range full {
			c := (*[8]T)(vals[j*8 : j*8+8])
			hold[j] = flip ^ (b2u(float64(c[0]) <= k) | b2u(float64(c[1]) <= k)<<1 | b2u(float64(c[2]) <= k)<<2 | b2u(float64(c[3]) <= k)<<3 |
				b2u(float64(c[4]) <= k)<<4 | b2u(float64(c[5]) <= k)<<5 | b2u(float64(c[6]) <= k)<<6 | b2u(float64(c[7]) <= k)<<7)
		}
		for i := full * 8; i < len(vals); i++ {
			hold[i>>3] |= (b2u(float64(vals[i]) <= k) ^ flip&1) << (i & 7)
		}
	}
}

func filtDec128(nd *bnode, vals []decimal128.Num, hold []byte) {
	if nd.op == opIn {
		for _, k := range nd.setD128 {
			for i, v := range vals {
				selSetBit(hold, i, v == k)
			}
		}
		return
	}
	// Two's complement 128-bit order: high words signed, then low words
	// unsigned; the operator picks one loop.
	k := nd.d128
	khi, klo := k.HighBits(), k.LowBits()
	switch nd.op {
	case opEQ, opNE:
		ne := nd.op == opNE
		for i, v := range vals {
			selSetBit(hold, i, (v.HighBits() == khi && v.LowBits() == klo) != ne)
		}
	case opLT, opGE:
		ge := nd.op == opGE
		for i, v := range vals {
			h := v.HighBits()
			selSetBit(hold, i, (h < khi || h == khi && v.LowBits() < klo) != ge)
		}
	default: // LE is NOT GT, GT
		le := nd.op == opLE
		for i, v := range vals {
			h := v.HighBits()
			selSetBit(hold, i, (h > khi || h == khi && v.LowBits() > klo) != le)
		}
	}
}

func filtDec256(nd *bnode, vals []decimal256.Num, hold []byte) {
	if nd.op == opIn {
		for _, k := range nd.setD256 {
			for i, v := range vals {
				selSetBit(hold, i, v == k)
			}
		}
		return
	}
	k := nd.d256
	for i, v := range vals {
		selSetBit(hold, i, cmpHolds(nd.op, v.Cmp(k)))
	}
}

// cmpHolds says whether op holds for a three-way comparison result c.
func cmpHolds(op filterOp, c int) bool {
	switch op {
	case opEQ:
		return c == 0
	case opNE:
		return c != 0
	case opLT:
		return c < 0
	case opLE:
		return c <= 0
	case opGT:
		return c > 0
	case opGE:
		return c >= 0
	}
	return false
}

// bytesHold evaluates nd on one byte string (view arrays, fixed-size).
func bytesHold(nd *bnode, v []byte) bool {
	switch nd.op {
	case opStartsWith:
		return bytes.HasPrefix(v, nd.bytes)
	case opIn:
		for _, k := range nd.setBytes {
			if string(v) == k {
				return true
			}
		}
		return false
	}
	return cmpHolds(nd.op, bytes.Compare(v, nd.bytes))
}

// rawValueData returns the whole data buffer of a binary-like array:
// ValueOffsets are positions in it, while arrow-go's ValueBytes is rebased
// to the first offset of a sliced array.
func rawValueData(a arrow.Array) []byte {
	bufs := a.Data().Buffers()
	if len(bufs) < 3 || bufs[2] == nil {
		return nil
	}
	return bufs[2].Bytes()
}

func filtOffsets[O int32 | int64](nd *bnode, offs []O, data []byte, hold []byte) {
	n := len(offs) - 1
	if n <= 0 {
		return
	}
	k := nd.bytes
	switch nd.op {
	case opEQ:
		for i := 0; i < n; i++ {
			selSetBit(hold, i, bytes.Equal(data[offs[i]:offs[i+1]], k))
		}
	case opNE:
		for i := 0; i < n; i++ {
			selSetBit(hold, i, !bytes.Equal(data[offs[i]:offs[i+1]], k))
		}
	case opStartsWith:
		for i := 0; i < n; i++ {
			selSetBit(hold, i, bytes.HasPrefix(data[offs[i]:offs[i+1]], k))
		}
	case opIn:
		if len(nd.setBytes) > 8 {
			m := make(map[string]struct{}, len(nd.setBytes))
			for _, s := range nd.setBytes {
				m[s] = struct{}{}
			}
			for i := 0; i < n; i++ {
				_, ok := m[string(data[offs[i]:offs[i+1]])] // no allocation: map lookup by converted []byte
				selSetBit(hold, i, ok)
			}
			return
		}
		for i := 0; i < n; i++ {
			selSetBit(hold, i, bytesHold(nd, data[offs[i]:offs[i+1]]))
		}
	default:
		for i := 0; i < n; i++ {
			selSetBit(hold, i, cmpHolds(nd.op, bytes.Compare(data[offs[i]:offs[i+1]], k)))
		}
	}
}

func filtFixed(nd *bnode, a *array.FixedSizeBinary, hold []byte) {
	for i := 0; i < a.Len(); i++ {
		selSetBit(hold, i, bytesHold(nd, a.Value(i)))
	}
}

func filtBool(nd *bnode, a *array.Boolean, hold []byte) {
	// false < true; compare the value bit v with the operand k.
	n := a.Len()
	for i := 0; i < n; i++ {
		v := boolInt(a.Value(i))
		if nd.op == opIn {
			h := false
			for _, k := range nd.setI64 {
				h = h || v == k
			}
			selSetBit(hold, i, h)
			continue
		}
		k := boolInt(nd.bo)
		var c int
		switch {
		case v < k:
			c = -1
		case v > k:
			c = 1
		}
		selSetBit(hold, i, cmpHolds(nd.op, c))
	}
}

// FilterBatch returns the rows of batch that sel selects, as a new batch
// (the caller releases it). It shares batch's buffers when the selection
// is one range; otherwise it copies with arrow-go's compute.Filter, or,
// where a column's layout has no compute kernel (views, list views,
// run-end encoded arrays), column by column (filterColumns).
func FilterBatch(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, sel *Selection) (arrow.RecordBatch, error) {
	if int64(sel.Len()) != batch.NumRows() {
		return nil, fmt.Errorf("arrowpq: filter: selection of %d rows for a batch of %d", sel.Len(), batch.NumRows())
	}
	ranges := sel.Ranges()
	switch {
	case len(ranges) == 0:
		return batch.NewSlice(0, 0), nil
	case len(ranges) == 1:
		return batch.NewSlice(ranges[0].Start, ranges[0].End), nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx = compute.WithAllocator(ctx, mem)
	if !slices.ContainsFunc(batch.Schema().Fields(), func(f arrow.Field) bool { return !computeFilters(f.Type) }) {
		mask := array.NewBooleanData(array.NewData(arrow.FixedWidthTypes.Boolean, sel.n,
			[]*memory.Buffer{nil, memory.NewBufferBytes(sel.bits)}, nil, 0, 0))
		defer mask.Release()
		out, err := compute.FilterRecordBatch(ctx, batch, mask, compute.DefaultFilterOptions())
		if err != nil {
			return nil, fmt.Errorf("arrowpq: filter: %w", err)
		}
		return out, nil
	}
	return filterColumns(ctx, mem, batch, sel, ranges)
}
