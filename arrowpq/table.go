package arrowpq

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// BatchSource is a stream of record batches: a [Reader], pqflight's
// Reader, any array.RecordReader.
type BatchSource interface {
	Schema() *arrow.Schema
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
}

// ReadAll reads every batch of src into a table of src's schema, and
// returns src's error, if any, instead (with nothing retained). The table
// holds its own references to the batches' arrays: release it when done;
// src is not closed. [ReadTable] and pqflight's Download are ReadAll over
// their readers.
func ReadAll(src BatchSource) (arrow.Table, error) {
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	for src.Next() {
		b := src.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	if err := src.Err(); err != nil {
		return nil, err
	}
	return array.NewTableFromRecords(src.Schema(), batches), nil
}
