package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// sampleFile is the repository's sample file (100 rows), as README uses it.
const sampleFile = "../../testdata/sample.parquet"

// readPQBytes reads a Parquet file from memory with arrow-go's pqarrow.
func readPQBytes(t *testing.T, b []byte) arrow.Table {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// dirNames lists dir, to see that no temporary file is left behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestConvertFailureKeepsTarget converts a file that fails mid-read (a
// page checksum) over an existing 100-row file: the target stays byte for
// byte as it was and no temporary file is left, for Parquet and Arrow
// outputs (issue 12).
func TestConvertFailureKeepsTarget(t *testing.T) {
	needSharedDir(t, corpusDir)
	orig, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out.parquet", "out.arrow", "out.arrows"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, name)
			if err := os.WriteFile(out, orig, 0o644); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI("convert", corpusDir+"/datapage_v1-corrupt-checksum.parquet", out)
			if code != 1 || !strings.Contains(errOut, "checksum") && !strings.Contains(errOut, "CRC") {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, orig) {
				t.Errorf("the target changed: %d bytes, was %d", len(got), len(orig))
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// TestConvertStdout writes Parquet and Arrow to "-": the bytes on stdout
// are the file, as arrow-go reads it.
func TestConvertStdout(t *testing.T) {
	want := readPQ(t, sampleFile)
	defer want.Release()
	out := runOut(t, "convert", sampleFile, "-")
	got := readPQBytes(t, []byte(out))
	defer got.Release()
	if !array.TableEqual(got, want) {
		t.Errorf("convert - differs from the input:\n%v\n%v", got, want)
	}
	// --to arrows to stdout, then back from stdin ("-") to Parquet.
	stream := runOut(t, "convert", "--to", "arrows", sampleFile, "-")
	r, err := ipc.NewReader(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	r.Release()
	if rows != 100 {
		t.Errorf("IPC stream on stdout: %d rows, want 100", rows)
	}
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(stream)
	back := runOut(t, "convert", "-", "-")
	got2 := readPQBytes(t, []byte(back))
	defer got2.Release()
	if !array.TableEqual(got2, want) {
		t.Errorf("stream from stdin to Parquet on stdout differs from the input")
	}
	// A Parquet file on stdin (copied to a temporary file) for cat.
	stdin = bytes.NewReader([]byte(out))
	if csv := runOut(t, "head", "-n", "2", "--columns", "id,city", "--format", "csv", "-"); csv != "id,city\n0,Lisbon\n1,Oslo\n" {
		t.Errorf("head - (Parquet on stdin): %q", csv)
	}
	// Binary to a terminal is refused.
	fakeTerminal(t, 80)
	if _, errOut, code := runCLI("convert", sampleFile, "-"); code != 1 || !strings.Contains(errOut, "terminal") {
		t.Errorf("convert - to a terminal: exit %d, %q", code, errOut)
	}
}

// TestConvertKeyValue checks that convert keeps the footer's key/value
// metadata (Spark's entries in int96_from_spark.parquet), Parquet to
// Parquet, through Arrow IPC and back, with one ARROW:schema entry that
// the writer made.
func TestConvertKeyValue(t *testing.T) {
	needSharedDir(t, corpusDir)
	in := corpusDir + "/int96_from_spark.parquet"
	const sparkRow = `{"type":"struct","fields":[{"name":"a","type":"timestamp","nullable":true,"metadata":{}}]}`
	dir := t.TempDir()
	kvOf := func(path string) map[string][]string {
		r, err := arrowpq.OpenFile(path, &arrowpq.ReadOptions{Int96Unit: arrow.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		kv := map[string][]string{}
		for _, e := range r.Metadata().Meta.KeyValueMetadata {
			kv[e.Key] = append(kv[e.Key], *e.Value)
		}
		return kv
	}
	check := func(path string) {
		t.Helper()
		kv := kvOf(path)
		if v := kv["org.apache.spark.version"]; len(v) != 1 || v[0] != "3.4.3" {
			t.Errorf("%s: org.apache.spark.version = %q", path, v)
		}
		if v := kv["org.apache.spark.sql.parquet.row.metadata"]; len(v) != 1 || v[0] != sparkRow {
			t.Errorf("%s: row.metadata = %q", path, v)
		}
		if v := kv["ARROW:schema"]; len(v) != 1 {
			t.Errorf("%s: %d ARROW:schema entries, want 1", path, len(v))
		}
	}
	pq := filepath.Join(dir, "a.parquet")
	runOut(t, "convert", "--int96-unit", "us", in, pq)
	check(pq)
	arrowFile := filepath.Join(dir, "a.arrow")
	runOut(t, "convert", "--int96-unit", "us", in, arrowFile)
	f, err := os.Open(arrowFile)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if md := fr.Schema().Metadata(); md.FindKey("org.apache.spark.version") < 0 || md.Values()[md.FindKey("org.apache.spark.version")] != "3.4.3" {
		t.Errorf("Arrow schema metadata %v lacks org.apache.spark.version", md)
	}
	fr.Close()
	f.Close()
	back := filepath.Join(dir, "b.parquet")
	runOut(t, "convert", arrowFile, back)
	check(back)
}

// TestConvertTargets writes to a FIFO, through a symlink and to a
// directory. The Parquet cases depend on arrowpq.CreateFile writing
// non-regular targets straight through and never replacing a symlink (a
// library change by another helper); the Arrow cases use the CLI's own
// createOutput.
func TestConvertTargets(t *testing.T) {
	want := readPQ(t, sampleFile)
	defer want.Release()
	for _, format := range []string{"parquet", "arrow"} {
		// readBack checks that b holds the sample's 100 rows.
		readBack := func(t *testing.T, b []byte) {
			t.Helper()
			if format == "parquet" {
				got := readPQBytes(t, b)
				defer got.Release()
				if !array.TableEqual(got, want) {
					t.Errorf("the written file differs from the input")
				}
				return
			}
			fr, err := ipc.NewFileReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("not an Arrow file (%d bytes): %v", len(b), err)
			}
			defer fr.Close()
			var rows int64
			for i := 0; i < fr.NumRecords(); i++ {
				rec, err := fr.RecordBatchAt(i)
				if err != nil {
					t.Fatal(err)
				}
				rows += rec.NumRows()
				rec.Release()
			}
			if rows != 100 {
				t.Errorf("%d rows, want 100", rows)
			}
		}
		t.Run(format+"/fifo", func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "out."+format)
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			// The reader end opens first without waiting for a writer; the
			// keeper holds a write end so that the reader sees EOF only when
			// the test closes it, whatever convert does.
			r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			keeper, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan []byte, 1)
			go func() {
				var b bytes.Buffer
				b.ReadFrom(r)
				got <- b.Bytes()
			}()
			_, errOut, code := runCLI("convert", sampleFile, fifo)
			keeper.Close()
			data := <-got
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("the FIFO was replaced: %v %v", st.Mode(), err)
			}
			readBack(t, data)
		})
		t.Run(format+"/symlink", func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "real."+format)
			if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "link."+format)
			if err := os.Symlink("real."+format, link); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI("convert", sampleFile, link)
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the symlink was replaced (mode %v, %v)", st.Mode(), err)
			}
			b, err := os.ReadFile(target)
			if err != nil {
				t.Fatal(err)
			}
			switch code {
			case 0: // written through to the link's target
				readBack(t, b)
			case 1: // or refused, the target untouched
				if string(b) != "old" || errOut == "" {
					t.Errorf("refused (%q) but the target changed", errOut)
				}
			default:
				t.Errorf("exit %d: %s", code, errOut)
			}
			if names := dirNames(t, dir); len(names) != 2 {
				t.Errorf("left behind: %v", names)
			}
		})
		t.Run(format+"/directory", func(t *testing.T) {
			dir := t.TempDir()
			sub := filepath.Join(dir, "out."+format)
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI("convert", sampleFile, sub)
			if code != 1 || !strings.Contains(errOut, "is a directory") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and a line saying it is a directory", code, errOut)
			}
			if st, err := os.Stat(sub); err != nil || !st.IsDir() {
				t.Errorf("the directory is gone: %v", err)
			}
			if names := dirNames(t, dir); len(names) != 1 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}
