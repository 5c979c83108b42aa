// Command arrowpq inspects and converts Parquet files.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "arrowpq: not yet")
	os.Exit(2)
}
