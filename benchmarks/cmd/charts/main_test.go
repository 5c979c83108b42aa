package main

import (
	"encoding/xml"
	"io"
	"reflect"
	"strings"
	"testing"
)

const sample = `# Performance
## Reading files (issue 6)
text

| dataset | codec | arrowpq MB/s | pqarrow MB/s | ratio | parquet-go MB/s |
|---|---|---|---|---|---|
| lineitem | SNAPPY | 1185 | 303 | 3.91× | 1582 |
| nested | ZSTD | 609 | 221 | 2.75× | 765 |

## Writing files
`

// TestReadTable reads the table under its heading, by column name.
func TestReadTable(t *testing.T) {
	groups, values, err := readTable(sample, "## Reading files", []string{"arrowpq MB/s", "pqarrow MB/s", "parquet-go MB/s"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(groups, []string{"lineitem SNAPPY", "nested ZSTD"}) || !reflect.DeepEqual(values, [][]float64{{1185, 303, 1582}, {609, 221, 765}}) {
		t.Fatalf("groups %v values %v", groups, values)
	}
	if _, _, err := readTable(sample, "## Writing files", []string{"arrowpq MB/s"}); err == nil {
		t.Fatal("a heading without a table is not an error")
	}
}

// TestDrawBars: the SVG is well-formed XML with one bar per value, the
// tallest bar for the largest value.
func TestDrawBars(t *testing.T) {
	var b strings.Builder
	drawBars(&b, "t", []string{"a X", "b Y"}, []string{"s1", "s2"}, [][]float64{{10, 20}, {40, 5}})
	dec := xml.NewDecoder(strings.NewReader(b.String()))
	bars := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, b.String())
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "title" {
			bars++
		}
	}
	if bars != 4 {
		t.Fatalf("%d bars, want 4", bars)
	}
	if niceStep(7) != 10 || niceStep(230) != 500 || niceStep(1.5) != 2 {
		t.Fatal("niceStep")
	}
}
