package pagecodec

import (
	"fmt"
	"testing"
)

// lineitemDicts are the dictionaries of lineitem's dictionary-encoded
// short columns (TPC-H): the fused decoders' main customers.
var lineitemDicts = []struct {
	name   string
	values []string
}{
	{"returnflag", []string{"N", "R", "A"}},
	{"linestatus", []string{"O", "F"}},
	{"shipmode", []string{"TRUCK", "MAIL", "REG AIR", "AIR", "FOB", "RAIL", "SHIP"}},
	{"shipinstruct", []string{"DELIVER IN PERSON", "TAKE BACK RETURN", "NONE", "COLLECT COD"}},
}

// benchIndexPage returns a dictionary data page of benchN random indices
// into a dictionary of dictLen values, as DictEncoderByteArray writes it.
func benchIndexPage(dictLen int) []byte {
	rng := benchRand()
	vals := make([]byte, 4*benchN)
	for i := range benchN {
		v := rng.IntN(dictLen)
		if i < dictLen {
			v = i // every value appears
		}
		vals[4*i], vals[4*i+1] = byte(v), byte(v>>8)
	}
	var e DictEncoderByteArray
	e.Reset(0, 4)
	e.AppendFixedLenByteArray(vals)
	return e.AppendIndices(nil)
}

// BenchmarkDecodeDictLineitem decodes pages of benchN random indices into
// lineitem-like dictionaries: path=arrays is DecodeDictFixed's fused path,
// path=gather its general twin; for strings path=short is DecodeDictShort,
// path=blocks DecodeDictByteArray. Bytes are the output values' bytes
// (for strings 4 a value for the offsets plus the longest value's).
func BenchmarkDecodeDictLineitem(b *testing.B) {
	for _, c := range []struct {
		name           string
		dictLen, width int
	}{{"quantity", 50, 16}, {"discount", 11, 16}, {"flba7", 1000, 7}, {"int96", 1000, 12}} {
		page := benchIndexPage(c.dictLen)
		dict := make([]byte, c.dictLen*c.width)
		for i := range dict {
			dict[i] = byte(i)
		}
		dst := make([]byte, benchN*c.width)
		for _, path := range []string{"arrays", "gather"} {
			b.Run(fmt.Sprintf("col=%s/width=%d/path=%s", c.name, c.width, path), func(b *testing.B) {
				var d DictIndexDecoder
				benchLoop(b, int64(len(dst)), func() error {
					if err := d.Reset(page, c.dictLen); err != nil {
						return err
					}
					var err error
					if path == "arrays" {
						_, err = DecodeDictFixed(&d, dst, dict, c.width)
					} else {
						_, err = decodeDictGather(&d, dst, dict, c.width)
					}
					return err
				})
			})
		}
	}
	for _, c := range lineitemDicts {
		offs, data := []int32{0}, []byte(nil)
		maxLen := 0
		for _, v := range c.values {
			data = append(data, v...)
			offs = append(offs, int32(len(data)))
			maxLen = max(maxLen, len(v))
		}
		data = append(data, make([]byte, 32)...)[:len(data)]
		page := benchIndexPage(len(c.values))
		o := make([]int32, 0, benchN+1)
		dd := make([]byte, 0, benchN*32+64)
		var sd ShortDict
		if !sd.Reset(offs, data) {
			b.Fatal("ShortDict.Reset failed")
		}
		for _, path := range []string{"short", "blocks"} {
			b.Run("col="+c.name+"/path="+path, func(b *testing.B) {
				var d DictIndexDecoder
				benchLoop(b, int64(benchN*4+benchN*maxLen), func() error {
					if err := d.Reset(page, len(c.values)); err != nil {
						return err
					}
					var err error
					if path == "short" {
						_, _, err = DecodeDictShort(&d, append(o[:0], 0), dd[:0], &sd, benchN)
					} else {
						_, _, err = DecodeDictByteArray(&d, append(o[:0], 0), dd[:0], offs, data[:len(data)+32], maxLen, benchN)
					}
					return err
				})
			})
		}
	}
}
