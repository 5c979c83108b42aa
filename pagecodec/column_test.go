package pagecodec

import (
	"encoding/csv"
	"encoding/hex"
	"errors"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/arrowpq/arrowpq/internal/bitpack"
	"github.com/arrowpq/arrowpq/internal/codectest"
	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

// decodeFlatColumn decodes a column chunk without repetition into one string
// per row ("" for null), asking the decoders for batches of batch() values.
// It is the test's own small column reader built on the package API.
func decodeFlatColumn(t testing.TB, c testColumn, batch func() int) []string {
	t.Helper()
	if c.MaxRep != 0 {
		t.Fatalf("%s: repeated column", c.Path)
	}
	r := readerFor(c)
	typ := c.Leaf.GetType()
	typeLen := int(c.Leaf.GetTypeLength())
	var dict []string
	var rows []string
	for {
		p, err := r.Next()
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Path, err)
		}
		if p.Type == format.PageType_DICTIONARY_PAGE {
			dict = decodeValues(t, c, typ, typeLen, format.Encoding_PLAIN, p.Values, p.NumValues, nil, batch)
			continue
		}
		// Definition levels -> which slots hold values.
		defined := make([]bool, p.NumLevels)
		numValues := p.NumLevels
		if c.MaxDef > 0 {
			if p.DefinitionLevelEncoding != format.Encoding_RLE {
				t.Fatalf("%s: def level encoding %v", c.Path, p.DefinitionLevelEncoding)
			}
			var hr bitpack.HybridReader
			hr.Reset(p.DefinitionLevels, uint(bits.Len16(uint16(c.MaxDef))))
			lv := make([]uint32, p.NumLevels)
			n, err := hr.Decode32(lv)
			if err != nil || n != len(lv) {
				t.Fatalf("%s: def levels: %d of %d, %v", c.Path, n, len(lv), err)
			}
			numValues = 0
			for i, l := range lv {
				defined[i] = l == uint32(c.MaxDef)
				if defined[i] {
					numValues++
				}
			}
		} else {
			for i := range defined {
				defined[i] = true
			}
		}
		if p.NumValues >= 0 && p.NumValues != numValues {
			t.Fatalf("%s: v2 header says %d values, levels %d", c.Path, p.NumValues, numValues)
		}
		vals := decodeValues(t, c, typ, typeLen, p.Encoding, p.Values, numValues, dict, batch)
		k := 0
		for _, d := range defined {
			if d {
				rows = append(rows, vals[k])
				k++
			} else {
				rows = append(rows, "")
			}
		}
	}
}

// decodeValues decodes n values of one page section with the decoder of enc
// in batches, and renders them as strings.
func decodeValues(t testing.TB, c testColumn, typ format.Type, typeLen int, enc format.Encoding, src []byte, n int, dict []string, batch func() int) []string {
	t.Helper()
	out := make([]string, 0, n)
	fail := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v %v: %v", c.Path, enc, typ, err)
		}
	}
	var plain PlainDecoder
	var dbp DeltaBinaryPackedDecoder
	var dlba DeltaLengthByteArrayDecoder
	var dba DeltaByteArrayDecoder
	var bss ByteStreamSplitDecoder
	var dix DictIndexDecoder
	var rle RLEBooleanDecoder
	switch enc {
	case format.Encoding_PLAIN:
		plain.Reset(src)
	case format.Encoding_DELTA_BINARY_PACKED:
		fail(dbp.Reset(src))
	case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
		fail(dlba.Reset(src))
	case format.Encoding_DELTA_BYTE_ARRAY:
		fail(dba.Reset(src))
	case format.Encoding_BYTE_STREAM_SPLIT:
		w := map[format.Type]int{format.Type_INT32: 4, format.Type_FLOAT: 4, format.Type_INT64: 8, format.Type_DOUBLE: 8, format.Type_FIXED_LEN_BYTE_ARRAY: typeLen}[typ]
		fail(bss.Reset(src, w))
	case format.Encoding_PLAIN_DICTIONARY, format.Encoding_RLE_DICTIONARY:
		fail(dix.Reset(src, len(dict)))
	case format.Encoding_RLE:
		fail(rle.Reset(src))
	default:
		t.Fatalf("%s: encoding %v", c.Path, enc)
	}
	for len(out) < n {
		k := min(max(batch(), 1), n-len(out))
		var err error
		switch {
		case enc == format.Encoding_PLAIN_DICTIONARY || enc == format.Encoding_RLE_DICTIONARY:
			idx := make([]int32, k)
			_, err = dix.DecodeIndices(idx)
			fail(err)
			for _, i := range idx {
				out = append(out, dict[i])
			}
			continue
		case typ == format.Type_INT32:
			v := make([]int32, k)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeInt32(v)
			case format.Encoding_DELTA_BINARY_PACKED:
				_, err = dbp.DecodeInt32(v)
			case format.Encoding_BYTE_STREAM_SPLIT:
				_, err = bss.DecodeInt32(v)
			}
			fail(err)
			for _, x := range v {
				out = append(out, strconv.FormatInt(int64(x), 10))
			}
		case typ == format.Type_INT64:
			v := make([]int64, k)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeInt64(v)
			case format.Encoding_DELTA_BINARY_PACKED:
				_, err = dbp.DecodeInt64(v)
			case format.Encoding_BYTE_STREAM_SPLIT:
				_, err = bss.DecodeInt64(v)
			}
			fail(err)
			for _, x := range v {
				out = append(out, strconv.FormatInt(x, 10))
			}
		case typ == format.Type_FLOAT:
			v := make([]float32, k)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeFloat(v)
			case format.Encoding_BYTE_STREAM_SPLIT:
				_, err = bss.DecodeFloat(v)
			}
			fail(err)
			for _, x := range v {
				out = append(out, strconv.FormatFloat(float64(x), 'g', -1, 32))
			}
		case typ == format.Type_DOUBLE:
			v := make([]float64, k)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeDouble(v)
			case format.Encoding_BYTE_STREAM_SPLIT:
				_, err = bss.DecodeDouble(v)
			}
			fail(err)
			for _, x := range v {
				out = append(out, strconv.FormatFloat(x, 'g', -1, 64))
			}
		case typ == format.Type_BOOLEAN:
			bm := make([]byte, (k+3+7)/8)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeBoolean(bm, 3, k)
			case format.Encoding_RLE:
				_, err = rle.DecodeBoolean(bm, 3, k)
			}
			fail(err)
			for i := 0; i < k; i++ {
				out = append(out, strconv.FormatBool(bm[(i+3)/8]>>((i+3)%8)&1 == 1))
			}
		case typ == format.Type_INT96:
			v := make([][12]byte, k)
			_, err = plain.DecodeInt96(v)
			fail(err)
			for _, x := range v {
				out = append(out, hex.EncodeToString(x[:]))
			}
		case typ == format.Type_FIXED_LEN_BYTE_ARRAY:
			v := make([]byte, k*typeLen)
			switch enc {
			case format.Encoding_PLAIN:
				_, err = plain.DecodeFixedLenByteArray(v, typeLen)
			case format.Encoding_BYTE_STREAM_SPLIT:
				_, err = bss.DecodeFixedLenByteArray(v)
			case format.Encoding_DELTA_BYTE_ARRAY:
				_, err = dba.DecodeFixedLenByteArray(v, typeLen)
			}
			fail(err)
			for i := 0; i < k; i++ {
				out = append(out, hex.EncodeToString(v[i*typeLen:(i+1)*typeLen]))
			}
		case typ == format.Type_BYTE_ARRAY:
			offs := []int32{0}
			var data []byte
			switch enc {
			case format.Encoding_PLAIN:
				offs, data, err = plain.DecodeByteArray(offs, data, k)
			case format.Encoding_DELTA_LENGTH_BYTE_ARRAY:
				offs, data, err = dlba.DecodeByteArray(offs, data, k)
			case format.Encoding_DELTA_BYTE_ARRAY:
				offs, data, err = dba.DecodeByteArray(offs, data, k)
			}
			fail(err)
			for i := 0; i < k; i++ {
				out = append(out, string(data[offs[i]:offs[i+1]]))
			}
		default:
			t.Fatalf("%s: type %v", c.Path, typ)
		}
	}
	return out
}

func readCSV(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(testdataDir, name))
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[1:]
}

// TestDeltaFilesAgainstCSV decodes the delta-encoded files of parquet-testing
// and compares every cell with the *_expect.csv written by their producers.
// Each file is decoded in one batch and in random-size batches.
func TestDeltaFilesAgainstCSV(t *testing.T) {
	testshared.Need(t, testdataDir)
	for _, tc := range []struct{ file, csv string }{
		{"delta_binary_packed.parquet", "delta_binary_packed_expect.csv"},
		{"delta_byte_array.parquet", "delta_byte_array_expect.csv"},
		{"delta_encoding_optional_column.parquet", "delta_encoding_optional_column_expect.csv"},
		{"delta_encoding_required_column.parquet", "delta_encoding_required_column_expect.csv"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := readCSV(t, tc.csv)
			cols := readTestFile(t, tc.file)
			random := codectest.RandomSizes(t, 70)
			for ci, c := range cols {
				for _, mode := range []string{"one", "random"} {
					batch := func() int { return 1 << 30 }
					if mode == "random" {
						batch = random
					}
					got := decodeFlatColumn(t, c, batch)
					if len(got) != len(want) {
						t.Fatalf("%s: %d rows, want %d", c.Path, len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i][ci] {
							t.Fatalf("%s (%s batches) row %d: got %q, want %q", c.Path, mode, i, got[i], want[i][ci])
						}
					}
				}
			}
		})
	}
}

// TestDeltaLengthByteArrayFile decodes delta_length_byte_array.parquet
// (ZSTD, CRC): the producer wrote "apple_banana_mango<i*i>" for row i (the
// values of parquet-testing's generator; the file has no CSV).
func TestDeltaLengthByteArrayFile(t *testing.T) {
	testshared.Need(t, testdataDir)
	c := readTestFile(t, "delta_length_byte_array.parquet")[0]
	got := decodeFlatColumn(t, c, func() int { return 37 })
	if len(got) != 1000 {
		t.Fatalf("%d rows", len(got))
	}
	for i, v := range got {
		if want := "apple_banana_mango" + strconv.Itoa(i*i); v != want {
			t.Fatalf("row %d: %q, want %q", i, v, want)
		}
	}
}

var _ = errors.Is
