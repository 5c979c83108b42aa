package arrowpq

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// Arrow dictionary arrays whose dictionary is small next to the batch are
// written through their dictionary: each Arrow dictionary value the batch
// uses is converted, hashed into the Parquet dictionary and checked once per
// batch and column chunk, and the values of a piece are written as their
// Arrow indices translated through a memo (one load per value, no hash).
// Statistics and bloom filters take the distinct values of each piece,
// which give the same min, max and set; counts that depend on repetition
// (NaNs, unencoded BYTE_ARRAY bytes) are weighted by occurrences.
//
// When the Parquet dictionary falls back (it is full, or it does not pay),
// the rest of the chunk takes the per-value path of writegather.go.

// memoSlack is how much longer than the batch an Arrow dictionary may be
// for the memo path: clearing the memo costs one store per dictionary value.
const memoSlack = 4096

// dictMemo is the state of the memo path for the bound batch.
type dictMemo struct {
	on    bool     // the bound batch takes the memo path
	pidx  []uint32 // per Arrow dictionary value: Parquet index + 1, 0 if none yet
	stamp []uint32 // per Arrow dictionary value: the last piece that used it
	count []int32  // per Arrow dictionary value: uses in the current piece
	epoch uint32

	// keys: per Arrow dictionary value of a String or Binary dictionary,
	// its first 16 bytes as column.NewPrefixKey gives them, for min and max.
	keys []column.PrefixKey

	distinct []int64 // Arrow indices of the piece's values, first use order
	known    []int64
	fresh    int // distinct[:fresh] have no Parquet index yet
	out      []uint32
}

// bindMemo decides whether the batch, whose leaf is a dictionary array of
// numSlots slots over dictLen values, takes the memo path.
func (c *columnWriter) bindMemo(numSlots, dictLen int) {
	m := &c.memo
	m.on = c.cfg.dictionary && dictLen <= numSlots+memoSlack
	if !m.on {
		return
	}
	m.pidx = grown(m.pidx, dictLen)
	m.stamp = grown(m.stamp, dictLen)
	m.count = grown(m.count, dictLen)
	clear(m.pidx)
	clear(m.stamp)
	clear(m.count)
	m.epoch = 0
	// An empty dictionary may have no offsets at all, and arrow-go's
	// ValueOffsets panics on those.
	if s, ok := c.values.(binaryLike); ok && c.phys == format.Type_BYTE_ARRAY && dictLen > 0 {
		offs, data := binaryValues(s)
		if len(offs) < dictLen+1 {
			m.on = false // gatherMemoBinary would refuse it; the per-value path reports it
			return
		}
		m.keys = grown(m.keys, dictLen)
		for j := range m.keys {
			m.keys[j] = column.NewPrefixKey(data, offs[j], offs[j+1])
		}
	}
}

// resetMemo forgets the Parquet indices: a new column chunk has a new
// dictionary.
func (c *columnWriter) resetMemo() {
	if c.memo.on {
		clear(c.memo.pidx)
	}
}

// memoPiece reduces the Arrow indices idx of a piece's values to their
// distinct values, fresh ones first, counting the uses of each.
func (m *dictMemo) memoPiece(idx []int64) {
	m.epoch++
	if m.epoch == 0 {
		clear(m.stamp)
		m.epoch = 1
	}
	epoch, stamp, count, pidx := m.epoch, m.stamp, m.count, m.pidx
	fresh, known := m.distinct[:0], m.known[:0]
	for _, j := range idx {
		if stamp[j] != epoch {
			stamp[j] = epoch
			if pidx[j] == 0 {
				fresh = append(fresh, j)
			} else {
				known = append(known, j)
			}
		}
		count[j]++
	}
	m.fresh, m.known = len(fresh), known
	m.distinct = append(fresh, known...)
}

// gatherMemo gathers the distinct values of the piece whose Arrow
// dictionary indices are idx, and sets the counts of c.g for all of them.
func (c *columnWriter) gatherMemo(idx []int64) error {
	g, m := &c.g, &c.memo
	m.memoPiece(idx)
	distinct := m.distinct
	defer func() {
		for _, j := range distinct {
			m.count[j] = 0
		}
	}()
	if c.values.NullN() > 0 {
		for _, j := range distinct {
			if c.values.IsNull(int(j)) {
				return fmt.Errorf("valid dictionary index refers to a null dictionary value: %w", errInvalidArray)
			}
		}
	}
	n := int64(len(idx))
	if c.phys == format.Type_BYTE_ARRAY {
		if s, ok := c.values.(binaryLike); ok {
			return c.gatherMemoBinary(s, idx)
		}
	}
	g.unordered = !contiguousAny(distinct)
	if err := c.gatherValues(distinct); err != nil {
		return err
	}
	g.n, g.memo = len(idx), true
	// The Parquet dictionary grows by the fresh values at most.
	fresh := int64(m.fresh)
	switch c.phys {
	case format.Type_INT32, format.Type_FLOAT:
		g.rawBytes, g.dictBytes = 4*n, 4*fresh
	case format.Type_INT64, format.Type_DOUBLE:
		g.rawBytes, g.dictBytes = 8*n, 8*fresh
	case format.Type_INT96:
		g.rawBytes, g.dictBytes = 12*n, 12*fresh
	case format.Type_FIXED_LEN_BYTE_ARRAY:
		g.rawBytes, g.dictBytes = int64(c.width)*n, int64(c.width)*fresh
	case format.Type_BYTE_ARRAY:
		var total, freshBytes int64
		for k, j := range distinct {
			l := int64(g.v.Offsets[k+1] - g.v.Offsets[k])
			total += int64(m.count[j]) * l
			if k < m.fresh {
				freshBytes += 4 + l
			}
		}
		g.unencoded, g.rawBytes, g.dictBytes = total, total+4*n, freshBytes
	}
	// NaNs are counted per occurrence; the statistics see each once.
	g.nanExtra = 0
	switch {
	case c.phys == format.Type_FLOAT:
		for k, v := range g.v.Float {
			if v != v {
				g.nanExtra += int64(m.count[distinct[k]] - 1)
			}
		}
	case c.phys == format.Type_DOUBLE:
		for k, v := range g.v.Double {
			if v != v {
				g.nanExtra += int64(m.count[distinct[k]] - 1)
			}
		}
	case c.float16:
		for k := range distinct {
			if isFloat16NaN(g.v.FixedLenByteArray[2*k:]) {
				g.nanExtra += int64(m.count[distinct[k]] - 1)
			}
		}
	}
	return nil
}

// noValues is the offsets of no values.
var noValues = [1]int32{0}

// binaryLike is *array.String and *array.Binary: 32-bit offsets.
type binaryLike interface {
	ValueOffsets() []int32
	Data() arrow.ArrayData
}

// binaryValues returns the offsets of s's values and the data buffer they
// index. Not arrow-go's ValueBytes: for a slice whose first value is not
// at offset 0 it starts at that value, while ValueOffsets is not rebased,
// and indexing one with the other read the wrong bytes (or past the end).
func binaryValues(s binaryLike) (offs []int32, data []byte) {
	if bufs := s.Data().Buffers(); len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	return s.ValueOffsets(), data
}

// gatherMemoBinary is gatherMemo for String and Binary dictionaries: it
// copies only the fresh values (for the Parquet dictionary and the bloom
// filter, which see each value once per column chunk) and takes the
// minimum and maximum of all distinct values in place; a gather of every
// distinct value of every piece was 16% of BenchmarkWriteDictionary.
func (c *columnWriter) gatherMemoBinary(s binaryLike, idx []int64) error {
	g, m := &c.g, &c.memo
	distinct := m.distinct
	offs, data := binaryValues(s)
	if len(offs) < c.values.Len()+1 {
		return fmt.Errorf("binary dictionary of %d values with %d offsets: %w", c.values.Len(), len(offs), errInvalidArray)
	}
	var total, freshBytes int64
	for k, j := range distinct {
		l := int64(offs[j+1] - offs[j])
		total += int64(m.count[j]) * l
		if k < m.fresh {
			freshBytes += 4 + l
		}
	}
	g.memoLo, g.memoHi = binaryMinMaxAt(offs, data, m.keys, distinct)
	if m.fresh > 0 {
		g.v.Offsets, g.v.Data = gatherRuns(&g.s.Offsets, &g.s.Data, offs, data, distinct[:m.fresh])
	} else {
		g.v.Offsets, g.v.Data = noValues[:], nil
	}
	n := int64(len(idx))
	g.n, g.memo, g.memoMinMax = len(idx), true, true
	g.unencoded, g.rawBytes, g.dictBytes, g.nanExtra = total, total+4*n, freshBytes, 0
	return nil
}

// binaryMinMaxAt returns the least and the greatest of the values idx (at
// least one) of (offs, data), whose prefix keys are keys: the keys decide
// but for ties, without touching the values (random reads of the data
// were 14% of BenchmarkWriteDictionary).
func binaryMinMaxAt(offs []int32, data []byte, keys []column.PrefixKey, idx []int64) (lo, hi []byte) {
	loJ, hiJ := idx[0], idx[0]
	loK, hiK := keys[loJ], keys[hiJ]
	for _, j := range idx[1:] {
		k := keys[j]
		if loK.Less(k) && k.Less(hiK) {
			continue
		}
		if k.Less(loK) || k == loK && bytes.Compare(data[offs[j]:offs[j+1]], data[offs[loJ]:offs[loJ+1]]) < 0 {
			loJ, loK = j, k
		} else if hiK.Less(k) || k == hiK && bytes.Compare(data[offs[j]:offs[j+1]], data[offs[hiJ]:offs[hiJ+1]]) > 0 {
			hiJ, hiK = j, k
		}
	}
	return data[offs[loJ]:offs[loJ+1]], data[offs[hiJ]:offs[hiJ+1]]
}

func isFloat16NaN(b []byte) bool {
	h := uint16(b[0]) | uint16(b[1])<<8
	return h&0x7c00 == 0x7c00 && h&0x03ff != 0
}

// writeMemo gives the fresh values of the piece their Parquet indices,
// writes the indices of all its values to the page and has the statistics
// and bloom filter observe its distinct values. The caller checked that
// the dictionary has room for the fresh values.
func (c *columnWriter) writeMemo() error {
	g, m, cw := &c.g, &c.memo, c.cw
	idx := g.sidx
	fresh := m.fresh
	m.out = grown(m.out, max(fresh, len(idx)))
	out := m.out[:fresh]
	taken, err := cw.Insert(out, &g.v)
	if err != nil {
		return err
	}
	if taken != fresh {
		return fmt.Errorf("dictionary took %d of %d new values after room was checked", taken, fresh)
	}
	for k, j := range m.distinct[:fresh] {
		m.pidx[j] = out[k] + 1
	}
	// Translate the piece: one load per value.
	out = m.out[:len(idx)]
	pidx := m.pidx
	for i, j := range idx {
		out[i] = pidx[j] - 1
	}
	if err := cw.WriteIndices(out, g.rawBytes, g.unencoded); err != nil {
		return err
	}
	// BYTE_ARRAY memo pieces hold only their fresh values (for the bloom
	// filter, which sees each value once per chunk) and the least and
	// greatest of all; the others hold every distinct value.
	if g.memoMinMax {
		cw.ObserveRange(g.memoLo, g.memoHi)
	}
	if err := cw.Observe(&g.v); err != nil {
		return err
	}
	cw.AddNaNs(g.nanExtra)
	return nil
}
