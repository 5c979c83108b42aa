package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/arrowpq/arrowpq/metadata"
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
				path, cleanup, err := inputPath(args[0])
				if err != nil {
					return err
				}
				defer cleanup()
				f, err := openFooter(path)
				if err != nil {
					return err
				}
				return f.Schema.WriteText(out)
			}
		},
	})
}

// openFooter opens path and reads its footer, with errors that name the file.
func openFooter(path string) (*metadata.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a Parquet file", path)
	}
	f, err := metadata.ReadFooter(fh, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}
