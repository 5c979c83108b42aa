package main

import (
	"flag"
	"fmt"
	"io"
)

func init() {
	register(&command{
		name:    "schema",
		summary: "print the Parquet schema of a file in the text notation of the Parquet docs",
		usage:   "FILE",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			return func(args []string, out io.Writer) error {
				if len(args) != 1 {
					return &usageError{fmt.Sprintf("want one FILE, got %d arguments", len(args))}
				}
				f, err := openFooter(args[0])
				if err != nil {
					return err
				}
				return f.Schema.WriteText(out)
			}
		},
	})
}
