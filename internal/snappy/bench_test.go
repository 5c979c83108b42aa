package snappy

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ref "github.com/golang/snappy"
)

// pageFiles lists the files of Snappy page bodies named by
// ARROWPQ_SNAPPY_PAGES (a glob), written by _dumppages from the benchmark
// datasets: go run ./internal/snappy/_dumppages lineitem.parquet
// lineitem.pages 40000000.
func pageFiles(tb testing.TB) []string {
	glob := os.Getenv("ARROWPQ_SNAPPY_PAGES")
	if glob == "" {
		tb.Skip("ARROWPQ_SNAPPY_PAGES not set")
	}
	names, err := filepath.Glob(glob)
	if err != nil || len(names) == 0 {
		tb.Skipf("no files match ARROWPQ_SNAPPY_PAGES=%q", glob)
	}
	return names
}

func readPages(tb testing.TB, name string) [][]byte {
	f, err := os.Open(name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var pages [][]byte
	for {
		n, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return pages
		}
		if err != nil {
			tb.Fatal(err)
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(br, p); err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, p)
	}
}

// BenchmarkDecode decodes the pages of each file of ARROWPQ_SNAPPY_PAGES
// with golang/snappy, this package and its pure-Go decoder; bytes are
// decoded bytes.
func BenchmarkDecode(b *testing.B) {
	for _, name := range pageFiles(b) {
		pages := readPages(b, name)
		size, largest := 0, 0
		for _, p := range pages {
			n, err := DecodedLen(p)
			if err != nil {
				b.Fatal(err)
			}
			size += n
			largest = max(largest, n)
		}
		dst := make([]byte, largest)
		data := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		b.Run("data="+data+"/dec=golang", func(b *testing.B) {
			cpuLoop(b, size, func() {
				for _, p := range pages {
					if _, err := ref.Decode(dst, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run("data="+data+"/dec=arrowpq", func(b *testing.B) {
			cpuLoop(b, size, func() {
				for _, p := range pages {
					if _, err := Decode(dst, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run("data="+data+"/dec=purego", func(b *testing.B) {
			cpuLoop(b, size, func() {
				for _, p := range pages {
					n, h, _ := decodedLen(p)
					if !decodeGeneric(dst[:n], p[h:], 0, 0) {
						b.Fatal("corrupt")
					}
				}
			})
		})
	}
}
