package arrowpq_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/internal/testshared"
)

// readFileCorpus are the files FuzzReadFile mutates, by index (the seeds
// in testdata/fuzz/FuzzReadFile name files by their index: append only).
var readFileCorpus = []string{"alltypes_plain.parquet", "alltypes_dictionary.parquet", "nested_maps.snappy.parquet",
	"nullable.impala.parquet", "datapage_v2.snappy.parquet", "delta_length_byte_array.parquet",
	"byte_stream_split.zstd.parquet", "rle_boolean_encoding.parquet", "list_columns.parquet",
	"fixed_length_decimal.parquet", "int32_with_null_pages.parquet", "null_list.parquet"}

// FuzzReadFile mutates small valid Parquet files byte by byte and reads
// them to the end with every column: the reader must return data or an
// error, never panic (nor recover one into ErrInternal), and stay within
// the page size limit it is given; read in small windows, the same batches
// and error as with whole chunks.
//
// The input is a corpus file index and a list of edits, not the file: the
// fuzzer then mutates and minimizes a few bytes instead of a file of tens
// of kilobytes (with the file as input, minimizing each new input stalled
// the worker: 63 executions in 60 s; now thousands a second).
func FuzzReadFile(f *testing.F) {
	var files [][]byte
	testshared.Need(f, sharedTestdata) // the files it mutates
	for _, name := range readFileCorpus {
		b, err := os.ReadFile(dataFile(name))
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, b)
	}
	for i := range files {
		f.Add(uint8(i), []byte{})
		f.Add(uint8(i), []byte{0, 0xff, 0xf0, 0x55, 1, 0xff, 0xf8, 0x00})
		f.Add(uint8(i), []byte{2, 0x80, 0x00, 0x00, 0, 0x20, 0x00, 0x01})
	}
	f.Fuzz(func(t *testing.T, file uint8, edits []byte) {
		data := applyEdits(files[int(file)%len(files)], edits)
		// A hostile file must not hang the reader: each read gets a few
		// seconds.
		done := make(chan error, 1)
		go func() {
			err := readFully(data)
			if err == nil {
				err = sameInWindows(data)
			}
			done <- err
		}()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-timer.C:
			t.Fatalf("reading a %d-byte file took more than 10 s", len(data))
		}
	})
}

// applyEdits returns a copy of data changed by edits, four bytes an edit:
// an operation, a position (two bytes, scaled to the file's length) and a
// value. Operations: xor the byte with the value, set it, cut the file
// there, insert the value there.
func applyEdits(data, edits []byte) []byte {
	b := append([]byte(nil), data...)
	for ; len(edits) >= 4 && len(b) > 0; edits = edits[4:] {
		pos := int(uint64(edits[1])<<8|uint64(edits[2])) * len(b) >> 16
		v := edits[3]
		switch edits[0] % 4 {
		case 0:
			b[pos] ^= v
		case 1:
			b[pos] = v
		case 2:
			b = b[:pos]
		case 3:
			b = append(b[:pos], append([]byte{v}, b[pos:]...)...)
		}
	}
	return b
}

// TestReadFileInputs reads the inputs FuzzReadFile kept when it took whole
// files (testdata/readfile, in the fuzz corpus format): data or an error,
// never a panic.
func TestReadFileInputs(t *testing.T) {
	paths, err := filepath.Glob("testdata/readfile/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no inputs in testdata/readfile: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// "go test fuzz v1\n[]byte(\"...\")\n"
		_, lit, _ := strings.Cut(string(b), "[]byte(")
		lit = strings.TrimSuffix(strings.TrimSpace(lit), ")")
		data, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := readFully([]byte(data)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// readFully reads data as a Parquet file to the end, with strings as
// strings and as views into the pages (ReadOptions.Views), and reports a
// batch that is not well formed (read errors are fine: hostile input).
func readFully(data []byte) error {
	for _, views := range []bool{false, true} {
		opts := &arrowpq.ReadOptions{MaxPageSize: 4 << 20, BatchSize: 37, Parallelism: 1, Views: views}
		if err := readAllValid(data, opts); err != nil {
			return err
		}
	}
	return nil
}

func readAllValid(data []byte, opts *arrowpq.ReadOptions) error {
	r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return badError(err)
	}
	defer r.Close()
	for r.Next() {
		if err := array.ValidateRecordFull(r.RecordBatch()); err != nil {
			return fmt.Errorf("invalid batch (Views %v): %w", opts.Views, err)
		}
	}
	return badError(r.Err())
}

// sameInWindows reads data with whole chunks and in windows of 61 bytes
// and reports a difference in the batches or the error.
func sameInWindows(data []byte) error {
	read := func(window int) (string, error) {
		opts := &arrowpq.ReadOptions{MaxPageSize: 4 << 20, BatchSize: 37, Parallelism: 1, ChunkWindow: window}
		r, err := arrowpq.NewReader(bytes.NewReader(data), int64(len(data)), opts)
		if err != nil {
			return "", err
		}
		defer r.Close()
		var sb strings.Builder
		for r.Next() {
			for _, c := range r.RecordBatch().Columns() {
				sb.WriteString(c.String())
			}
		}
		return sb.String(), r.Err()
	}
	whole, errWhole := read(-1)
	win, errWin := read(61)
	if fmt.Sprint(errWhole) != fmt.Sprint(errWin) {
		return fmt.Errorf("in whole chunks: %v; in windows: %v", errWhole, errWin)
	}
	if whole != win {
		return errors.New("the batches differ in windows")
	}
	return nil
}
