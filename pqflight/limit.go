package pqflight

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// errPutMemory is the error of a DoPut stream whose batches need more
// memory than Options.MaxPutMemory.
var errPutMemory = errors.New("the stream's record batches need more memory than the server allows")

// limitAllocator is the allocator of one DoPut stream's IPC reader: it
// refuses an allocation that would take the buffers the stream holds past
// limit. arrow-go's IPC reader sizes buffers from the message (the
// decompressed size of a compressed buffer is a number the client
// writes), and an allocation of terabytes would end the process instead
// of the stream.
//
// Allocate cannot return an error, so a refusal panics with errPutMemory.
// Only the IPC reader allocates from it, and the reader turns panics in
// its decoding into errors (arrow-go's ipc.Reader recovers them and
// reports them from Err), which DoPut then answers with
// ResourceExhausted.
type limitAllocator struct {
	mem   memory.Allocator
	limit int64
	held  atomic.Int64
}

func (a *limitAllocator) reserve(n int) {
	if n < 0 || a.held.Add(int64(n)) > a.limit {
		a.held.Add(-int64(max(n, 0)))
		panic(fmt.Errorf("%d more bytes with %d held, limit %d: %w", n, a.held.Load(), a.limit, errPutMemory))
	}
}

func (a *limitAllocator) Allocate(n int) []byte {
	a.reserve(n)
	return a.mem.Allocate(n)
}

func (a *limitAllocator) Reallocate(n int, b []byte) []byte {
	if d := n - len(b); d > 0 {
		a.reserve(d)
	} else {
		a.held.Add(int64(d))
	}
	return a.mem.Reallocate(n, b)
}

func (a *limitAllocator) Free(b []byte) {
	a.held.Add(-int64(len(b)))
	a.mem.Free(b)
}

// countFields counts the fields of a schema, nested ones included.
func countFields(schema *arrow.Schema) int {
	var count func(dt arrow.DataType) int
	count = func(dt arrow.DataType) int {
		n := 1
		switch t := dt.(type) {
		case arrow.NestedType:
			for _, f := range t.Fields() {
				n += count(f.Type)
			}
		case *arrow.DictionaryType:
			n += count(t.ValueType)
		case arrow.ExtensionType:
			n += count(t.StorageType()) - 1
		}
		return n
	}
	total := 0
	for _, f := range schema.Fields() {
		total += count(f.Type)
	}
	return total
}

// countLeaves counts the leaf columns of an Arrow type: the Parquet
// columns it is written as.
func countLeaves(dt arrow.DataType) int {
	switch t := dt.(type) {
	case arrow.ExtensionType:
		return countLeaves(t.StorageType())
	case *arrow.DictionaryType:
		return 1
	case arrow.NestedType:
		n := 0
		for _, f := range t.Fields() {
			n += countLeaves(f.Type)
		}
		return max(n, 1)
	}
	return 1
}
