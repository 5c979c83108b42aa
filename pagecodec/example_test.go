package pagecodec_test

import (
	"fmt"
	"io"

	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// A column chunk written with PageWriter and read back with PageReader.
func ExamplePageReader() {
	w, err := pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: format.CompressionCodec_ZSTD})
	if err != nil {
		panic(err)
	}
	values := pagecodec.AppendPlainInt64(nil, []int64{7, 8, 9})
	chunk, _, err := w.AppendDataPageV1(nil, &pagecodec.DataPageV1{NumLevels: 3, Encoding: format.Encoding_PLAIN, Values: values})
	if err != nil {
		panic(err)
	}

	var r pagecodec.PageReader
	r.Reset(chunk, format.CompressionCodec_ZSTD, pagecodec.PageReaderOptions{FileOffset: 4})
	for {
		p, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		var d pagecodec.PlainDecoder
		d.Reset(p.Values)
		out := make([]int64, p.NumLevels)
		if _, err := d.DecodeInt64(out); err != nil {
			panic(err)
		}
		fmt.Println(p.Type, p.Ordinal, p.Offset, out)
	}
	// Output: DATA_PAGE 0 4 [7 8 9]
}

// The second DELTA_BINARY_PACKED example of Encodings.md, decoded in two
// batches.
func ExampleDeltaBinaryPackedDecoder() {
	var d pagecodec.DeltaBinaryPackedDecoder
	if err := d.Reset([]byte{8, 1, 8, 14, 3, 2, 0xC0, 0x3F}); err != nil {
		panic(err)
	}
	a := make([]int64, 3)
	b := make([]int64, d.Len()-3)
	d.DecodeInt64(a)
	d.DecodeInt64(b)
	fmt.Println(a, b)
	// Output: [7 5 3] [1 2 3 4 5]
}

// Dictionary encoding with a size limit: the encoder takes values until the
// dictionary page would exceed 16 bytes, and the caller falls back to PLAIN
// for the rest.
func ExampleDictEncoder64() {
	var e pagecodec.DictEncoder64
	e.Reset(16)
	values := []int64{5, 5, 6, 5, 7, 8}
	n := e.AppendInt64(values)
	fmt.Println("taken:", n, "dictionary values:", e.DictLen())

	dictPage := e.AppendDictPage(nil)
	indices := e.AppendIndices(nil)
	dict := make([]int64, e.DictLen())
	var pd pagecodec.PlainDecoder
	pd.Reset(dictPage)
	pd.DecodeInt64(dict)
	var d pagecodec.DictIndexDecoder
	d.Reset(indices, len(dict))
	out := make([]int64, n)
	pagecodec.DecodeDict(&d, out, dict)
	fmt.Println(out, "then PLAIN:", values[n:])
	// Output:
	// taken: 4 dictionary values: 2
	// [5 5 6 5] then PLAIN: [7 8]
}
