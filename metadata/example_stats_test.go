package metadata_test

import (
	"fmt"
	"log"
	"os"

	"github.com/arrowpq/arrowpq/metadata"
)

// openExample opens a file of the repository's testdata/, written by
// arrow-go's Parquet writer (testdata/gen): sample.parquet has 100 rows in
// two row groups; indexed.parquet has the same rows in one row group of 10
// pages per column, with a page index and a bloom filter on city.
func openExample(name string) (*os.File, *metadata.File) {
	fh, err := os.Open("../testdata/" + name)
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
	fh, f := openExample("sample.parquet")
	defer fh.Close()
	// Row group 0, column 2: temperature = i%40 - 9.5 for rows 0..49, null
	// where i%11 == 5.
	st, err := metadata.ColumnStats(f, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("order:", metadata.SortOrder(f.Schema.Columns[2]))
	fmt.Println("min:", st.Min, "max:", st.Max, "nulls:", st.NullCount)
	// Output:
	// order: signed
	// min: -9.5 max: 29.5 nulls: 5
}

func ExampleReadOffsetIndex() {
	fh, f := openExample("indexed.parquet")
	defer fh.Close()
	// Column 2, temperature: a page per 10 rows, nulls at rows 5, 16, 27,
	// 38, 49, 60, 71, 82 and 93.
	oi, err := metadata.ReadOffsetIndex(fh, f, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	ci, err := metadata.ReadColumnIndex(fh, f, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("pages:", len(oi.PageLocations), "first row of page 3:", oi.PageLocations[3].FirstRowIndex)
	fmt.Println("null counts per page:", ci.NullCounts)
	// Output:
	// pages: 10 first row of page 3: 30
	// null counts per page: [1 1 1 1 1 0 1 1 1 1]
}

func ExampleReadBloomFilter() {
	fh, f := openExample("indexed.parquet")
	defer fh.Close()
	// Column 1, city: sized by arrow-go for 100 distinct values at a 5%
	// false-positive rate.
	bf, err := metadata.ReadBloomFilter(fh, f, 0, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bitset bytes:", len(bf.Bitset), "blocks:", len(bf.Bitset)/32)
	// Output:
	// bitset bytes: 128 blocks: 4
}
