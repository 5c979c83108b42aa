// Command _dumppages writes the compressed page bodies of a Parquet file as
// a sequence of (uvarint length, body) records, for the decode benchmarks
// of internal/snappy (ARROWPQ_SNAPPY_PAGES): go run
// ./internal/snappy/_dumppages in.parquet out.pages maxBytes [codec]
// (codec SNAPPY by default, or ZSTD, ...). Not part of the build (leading _).
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

func main() {
	in, out := os.Args[1], os.Args[2]
	limit, _ := strconv.Atoi(os.Args[3]) // compressed bytes
	codec := format.CompressionCodec_SNAPPY
	if len(os.Args) > 4 {
		c, err := format.CompressionCodecFromString(os.Args[4])
		check(err)
		codec = c
	}
	f, err := os.Open(in)
	check(err)
	st, _ := f.Stat()
	md, err := metadata.ReadFooter(f, st.Size())
	check(err)
	w, err := os.Create(out)
	check(err)
	var pr pagecodec.PageReader
	total, pages, raw := 0, 0, 0
	for _, rg := range md.Meta.RowGroups {
		for _, cc := range rg.Columns {
			m := cc.MetaData
			if m.Codec != codec {
				continue
			}
			start := m.DataPageOffset
			if m.DictionaryPageOffset != nil && *m.DictionaryPageOffset > 0 && *m.DictionaryPageOffset < start {
				start = *m.DictionaryPageOffset
			}
			chunk := make([]byte, m.TotalCompressedSize)
			_, err := f.ReadAt(chunk, start)
			check(err)
			pr.Reset(chunk, m.Codec, pagecodec.PageReaderOptions{})
			for {
				h, err := pr.NextHeader()
				if err == io.EOF {
					break
				}
				check(err)
				pr.Skip()
				end := pr.Offset()
				body := chunk[end-int(h.CompressedPageSize) : end]
				if v2 := h.DataPageHeaderV2; v2 != nil {
					if !v2.IsCompressed {
						continue
					}
					body = body[v2.RepetitionLevelsByteLength+v2.DefinitionLevelsByteLength:]
				}
				var lb [binary.MaxVarintLen64]byte
				w.Write(lb[:binary.PutUvarint(lb[:], uint64(len(body)))])
				w.Write(body)
				total += len(body)
				raw += int(h.UncompressedPageSize)
				pages++
				if total >= limit {
					fmt.Println(pages, "pages", total, "bytes", raw, "uncompressed")
					w.Close()
					return
				}
			}
		}
	}
	fmt.Println(pages, "pages", total, "bytes", raw, "uncompressed")
	check(w.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
