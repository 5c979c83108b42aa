package pqflight

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

type collect struct{ msgs []*flight.FlightData }

func (c *collect) Send(fd *flight.FlightData) error {
	c.msgs = append(c.msgs, &flight.FlightData{DataHeader: bytes.Clone(fd.DataHeader), DataBody: bytes.Clone(fd.DataBody)})
	return nil
}

// schemaAndBatch returns the headers of the schema message and the record
// batch message of a stream of a list<utf8> column, as arrow-go writes
// them.
func schemaAndBatch(t *testing.T) (schema, batch []byte) {
	t.Helper()
	dt := arrow.ListOf(arrow.BinaryTypes.String)
	s := arrow.NewSchema([]arrow.Field{{Name: "l", Type: dt, Nullable: true}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer b.Release()
	lb := b.Field(0).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).Append("x")
	rec := b.NewRecordBatch()
	defer rec.Release()
	var c collect
	w := flight.NewRecordWriter(&c, ipc.WithSchema(s))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return c.msgs[0].DataHeader, c.msgs[1].DataHeader
}

// TestCheckMessage: the headers arrow-go writes pass; a schema whose
// field claims 2^32-16 children (the fuzzer's crasher: arrow-go made a
// slice of that many fields, 377 GB), a batch claiming 2^40 rows, and
// truncated headers are refused, each with an error saying why.
func TestCheckMessage(t *testing.T) {
	schema, batch := schemaAndBatch(t)
	if err := checkMessage(schema, 100); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if err := checkMessage(batch, 100); err != nil {
		t.Fatalf("batch: %v", err)
	}
	if err := checkMessage(schema, 1); err == nil || !strings.Contains(err.Error(), "more than 1 fields") {
		t.Fatalf("two fields with a limit of 1: %v", err)
	}

	// Message.header (field 2) -> Schema.fields (field 1) -> the first
	// Field's children (field 5): its count.
	b := fbuf(bytes.Clone(schema))
	mt, mvt, _ := b.table(0)
	st, svt, _ := b.table(b.field(mt, mvt, 2))
	start, _, _ := b.vector(b.field(st, svt, 1), 4)
	ft, fvt, _ := b.table(start)
	ref := b.field(ft, fvt, 5)
	off, _ := b.u32(ref)
	binary.LittleEndian.PutUint32(b[ref+off:], 0xfffffff0)
	if err := checkMessage(b, 100); err == nil || !strings.Contains(err.Error(), "a vector of 4294967280 elements") {
		t.Fatalf("2^32-16 children: %v", err)
	}

	// RecordBatch.length (field 0) of 2^40.
	b = fbuf(bytes.Clone(batch))
	mt, mvt, _ = b.table(0)
	rt, rvt, _ := b.table(b.field(mt, mvt, 2))
	binary.LittleEndian.PutUint64(b[b.field(rt, rvt, 0):], 1<<40)
	if err := checkMessage(b, 100); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Fatalf("2^40 rows: %v", err)
	}

	for n := 0; n < len(schema); n++ {
		checkMessage(schema[:n], 100) // no panic; most are refused
	}
	for n := 0; n < len(batch); n++ {
		checkMessage(batch[:n], 100)
	}
}

// FuzzCheckMessage: no header makes checkMessage panic.
func FuzzCheckMessage(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, h []byte) {
		checkMessage(h, 1000)
	})
}
