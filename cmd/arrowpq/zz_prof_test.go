package main

import (
	"os"
	"testing"
)

func TestZZProfConvert(t *testing.T) {
	in := os.Getenv("H7_CSV")
	if in == "" {
		t.Skip()
	}
	_, errOut, code := runCLI("convert", "--quiet", in, "/tmp/h7/prof.parquet")
	if code != 0 {
		t.Fatal(errOut)
	}
}
