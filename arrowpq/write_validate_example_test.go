package arrowpq_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func ExampleValidateArray() {
	// A string array whose offsets (0, 5, 2) go backwards.
	offsets := make([]byte, 12)
	binary.LittleEndian.PutUint32(offsets[4:], 5)
	binary.LittleEndian.PutUint32(offsets[8:], 2)
	data := array.NewData(arrow.BinaryTypes.String, 2,
		[]*memory.Buffer{nil, memory.NewBufferBytes(offsets), memory.NewBufferBytes([]byte("hello"))}, nil, 0, 0)
	defer data.Release()
	arr := array.MakeFromData(data)
	defer arr.Release()
	fmt.Println(arrowpq.ValidateArray(arr))

	// The Writer refuses it the same way, naming the column.
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	w, err := arrowpq.NewWriter(io.Discard, schema, nil)
	if err != nil {
		log.Fatal(err)
	}
	rec := array.NewRecordBatch(schema, []arrow.Array{arr}, 2)
	defer rec.Release()
	err = w.Write(rec)
	fmt.Println(errors.Is(err, arrowpq.ErrInvalidArray), err)
	w.Abort()
	// Output:
	// offsets decrease at slot 1: 2 after 5: invalid Arrow array
	// true arrowpq: write row group 0, column s: offsets decrease at slot 1: 2 after 5: invalid Arrow array
}

func ExampleReadOptions_recycleBuffers() {
	var buf bytes.Buffer
	schema := arrow.NewSchema([]arrow.Field{{Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 100_000; i++ {
		b.Append(fmt.Sprintf("name-%06d", i))
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	defer rec.Release()
	w, err := arrowpq.NewWriter(&buf, schema, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// With RecycleBuffers a batch's memory is reused once it is
	// released: copy what you keep (strings.Clone), as here, or Retain
	// the batch. Without it, the string could be kept as it is.
	r, err := arrowpq.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()),
		&arrowpq.ReadOptions{BatchSize: 10_000, RecycleBuffers: true})
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	var firsts []string
	for r.Next() {
		names := r.RecordBatch().Column(0).(*array.String)
		firsts = append(firsts, strings.Clone(names.Value(0)))
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(firsts), firsts[0], firsts[9])
	// Output: 10 name-000000 name-090000
}
