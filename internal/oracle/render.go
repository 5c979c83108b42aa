// Package oracle renders Arrow data in the canonical JSON-lines form of
// ../shared/oracle (the README's "Canonical rendering", implemented by
// internal/arrowjson's Canonical style) and runs the
// independent engines behind ../shared/oracle/dump.mjs, so that tests can
// compare what arrowpq reads with what DuckDB, arrow-rs and hyparquet read.
//
// It is test support: only tests import it.
package oracle

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/arrowpq/arrowpq/internal/arrowjson"
)

// RenderRecord appends one canonical JSON line per row of rec to dst.
func RenderRecord(dst []byte, rec arrow.RecordBatch) ([]byte, error) {
	for row := 0; row < int(rec.NumRows()); row++ {
		var err error
		if dst, err = arrowjson.AppendRow(dst, rec, row, arrowjson.Canonical); err != nil {
			return dst, err
		}
		dst = append(dst, '\n')
	}
	return dst, nil
}

// RenderTable renders every row of tbl.
func RenderTable(tbl arrow.Table) ([]byte, error) {
	tr := array.NewTableReader(tbl, 1<<16)
	defer tr.Release()
	var out []byte
	for tr.Next() {
		var err error
		if out, err = RenderRecord(out, tr.RecordBatch()); err != nil {
			return out, err
		}
	}
	return out, tr.Err()
}
