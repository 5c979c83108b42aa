package metadata_test

import (
	"fmt"
	"log"
	"os"

	"github.com/arrowpq/arrowpq/metadata"
)

// openExample opens a file of testdata/ (copies of three parquet-testing
// files) so that the examples run without ../shared.
func openExample(name string) (*os.File, *metadata.File) {
	fh, err := os.Open("testdata/" + name)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := fh.Stat()
	if err != nil {
		log.Fatal(err)
	}
	f, err := metadata.ReadFooter(fh, fi.Size())
	if err != nil {
		log.Fatal(err)
	}
	return fh, f
}

func ExampleColumnStats() {
	fh, f := openExample("float16_nonzeros_and_nans.parquet")
	defer fh.Close()
	st, err := metadata.ColumnStats(f, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order:", metadata.SortOrder(f.Schema.Columns[0]))
	fmt.Println("min:", st.Min, "max:", st.Max, "nulls:", st.NullCount)
	// Output:
	// order: signed
	// min: -2 max: 2 nulls: 1
}

func ExampleReadOffsetIndex() {
	fh, f := openExample("int32_with_null_pages.parquet")
	defer fh.Close()
	oi, err := metadata.ReadOffsetIndex(fh, f, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	ci, err := metadata.ReadColumnIndex(fh, f, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pages:", len(oi.PageLocations), "first row of page 0:", oi.PageLocations[0].FirstRowIndex)
	fmt.Println("column index pages:", len(ci.NullPages))
	// Output:
	// pages: 10 first row of page 0: 0
	// column index pages: 10
}

func ExampleReadBloomFilter() {
	fh, f := openExample("data_index_bloom_encoding_with_length.parquet")
	defer fh.Close()
	bf, err := metadata.ReadBloomFilter(fh, f, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bitset bytes:", len(bf.Bitset), "blocks:", len(bf.Bitset)/32)
	// Output:
	// bitset bytes: 2048 blocks: 64
}
