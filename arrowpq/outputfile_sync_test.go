package arrowpq_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// recordSyncs records the name of every file OutputFile.Commit syncs (and
// still syncs it) for the rest of t.
func recordSyncs(t *testing.T) *[]string {
	names := new([]string)
	t.Cleanup(arrowpq.SetSyncFile(func(f *os.File) error {
		*names = append(*names, f.Name())
		return f.Sync()
	}))
	return names
}

func int64Record(vals ...int64) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
}

// TestCreateFileNoSync: CreateFile syncs the file once before the rename
// by default and not at all with WriteOptions.NoSync; the file is complete
// and in place either way, with no temporary file left.
func TestCreateFileNoSync(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *arrowpq.WriteOptions
		sync bool
	}{
		{"nil options", nil, true},
		{"default", &arrowpq.WriteOptions{}, true},
		{"NoSync", &arrowpq.WriteOptions{NoSync: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			syncs := recordSyncs(t)
			dir := t.TempDir()
			path := filepath.Join(dir, "out.parquet")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			rec := int64Record(1, 2, 3)
			defer rec.Release()
			w, err := arrowpq.CreateFile(path, rec.Schema(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			if len(*syncs) != 0 {
				t.Fatalf("synced %q before Close", *syncs)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// Durable: the temporary file before the rename, then the
			// directory, so that a power loss cannot undo the rename.
			switch got := *syncs; {
			case !tc.sync && len(got) != 0:
				t.Errorf("NoSync synced %q", got)
			case tc.sync && (len(got) != 2 || filepath.Dir(got[0]) != dir || !strings.Contains(got[0], "arrowpq-tmp") || got[1] != dir):
				t.Errorf("synced %q, want the temporary file in %s and then %s", got, dir, dir)
			}
			r, err := arrowpq.OpenFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if n := r.NumRows(); n != 3 {
				t.Errorf("%d rows, want 3", n)
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				if strings.Contains(e.Name(), "arrowpq-tmp") {
					t.Errorf("temporary file %s left", e.Name())
				}
			}
		})
	}
}

// TestOutputFileSyncTime: SyncTime is the time of Commit's syncs, zero
// before Commit and for a target written straight through (never synced).
func TestOutputFileSyncTime(t *testing.T) {
	const pause = 20 * time.Millisecond
	syncs := 0
	t.Cleanup(arrowpq.SetSyncFile(func(f *os.File) error {
		syncs++
		time.Sleep(pause)
		return f.Sync()
	}))
	o, err := arrowpq.CreateOutputFile(filepath.Join(t.TempDir(), "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if d := o.SyncTime(); d != 0 {
		t.Errorf("SyncTime before Commit = %v", d)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if d := o.SyncTime(); d < 2*pause || syncs != 2 {
		t.Errorf("SyncTime = %v after %d syncs, want at least %v after 2 (file and directory)", d, syncs, 2*pause)
	}

	dev, err := arrowpq.CreateOutputFile(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if err := dev.Commit(); err != nil {
		t.Fatal(err)
	}
	if d := dev.SyncTime(); d != 0 || syncs != 2 {
		t.Errorf("%s: SyncTime = %v, %d syncs; want 0 and still 2", os.DevNull, d, syncs)
	}
}
