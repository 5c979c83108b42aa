package pagecodec

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/arrowpq/arrowpq/internal/testshared"
	"github.com/arrowpq/arrowpq/metadata/format"
)

const testdataDir = "../../shared/testdata/parquet-testing/data"

// testColumn is one column chunk cut out of a test file, with what a page
// reader needs to know about its column.
type testColumn struct {
	Path       string
	Chunk      []byte
	FileOffset int64
	Meta       *format.ColumnMetaData
	Leaf       *format.SchemaElement
	MaxDef     int16
	MaxRep     int16
}

// readTestFile parses the footer of a parquet-testing file with the
// generated Thrift structs (independently of package metadata) and returns
// every column chunk of every row group.
func readTestFile(t testing.TB, name string) []testColumn {
	t.Helper()
	path := name
	if !filepath.IsAbs(name) {
		testshared.Need(t, testdataDir)
		path = filepath.Join(testdataDir, name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	if len(b) < 12 || string(b[len(b)-4:]) != "PAR1" {
		t.Fatalf("%s: not a parquet file", name)
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[len(b)-8-n : len(b)-8]
	mem := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(footer)}
	proto := thrift.NewTCompactProtocolConf(mem, &thrift.TConfiguration{MaxMessageSize: int32(len(footer))})
	var md format.FileMetaData
	if err := md.Read(context.Background(), proto); err != nil {
		t.Fatalf("%s: footer: %v", name, err)
	}
	type leafInfo struct {
		el       *format.SchemaElement
		def, rep int16
		path     string
	}
	var leaves []leafInfo
	var walk func(i int, def, rep int16, path string) int
	walk = func(i int, def, rep int16, path string) int {
		el := md.Schema[i]
		if i > 0 {
			if el.RepetitionType != nil {
				switch *el.RepetitionType {
				case format.FieldRepetitionType_OPTIONAL:
					def++
				case format.FieldRepetitionType_REPEATED:
					def++
					rep++
				}
			}
			if path != "" {
				path += "."
			}
			path += el.Name
		}
		i++
		if el.NumChildren == nil || *el.NumChildren == 0 {
			leaves = append(leaves, leafInfo{el, def, rep, path})
			return i
		}
		for c := int32(0); c < *el.NumChildren; c++ {
			i = walk(i, def, rep, path)
		}
		return i
	}
	walk(0, 0, 0, "")
	var cols []testColumn
	for _, rg := range md.RowGroups {
		for ci, cc := range rg.Columns {
			m := cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset != nil && *m.DictionaryPageOffset > 0 && *m.DictionaryPageOffset < start {
				start = *m.DictionaryPageOffset
			}
			end := start + m.TotalCompressedSize
			if start < 0 || end > int64(len(b)) {
				t.Fatalf("%s: column %d outside the file", name, ci)
			}
			l := leaves[ci]
			cols = append(cols, testColumn{Path: l.path, Chunk: b[start:end], FileOffset: start, Meta: m, Leaf: l.el, MaxDef: l.def, MaxRep: l.rep})
		}
	}
	return cols
}

// readerFor returns a page reader positioned on c.
func readerFor(c testColumn) *PageReader {
	r := new(PageReader)
	r.Reset(c.Chunk, c.Meta.Codec, PageReaderOptions{FileOffset: c.FileOffset, MaxDefinitionLevel: c.MaxDef, MaxRepetitionLevel: c.MaxRep})
	return r
}
