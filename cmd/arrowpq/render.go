package main

import (
	"encoding/csv"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/internal/arrowjson"
)

// cellText renders row i of arr for the table and CSV views: plain text,
// no quoting; nested values as compact JSON (arrowjson.Text).
func cellText(arr arrow.Array, i int) string { return arrowjson.Text(arr, i) }

// recordWriter writes batches in one of the cat formats.
type recordWriter interface {
	write(rec arrow.RecordBatch) error
	flush() error
}

// jsonlWriter writes one JSON object per row: JSON lines, or with array
// the rows as one JSON array, one row per line.
type jsonlWriter struct {
	w     io.Writer
	array bool
	rows  int64
	buf   []byte
}

func (j *jsonlWriter) write(rec arrow.RecordBatch) error {
	for row := 0; row < int(rec.NumRows()); row++ {
		j.buf = j.buf[:0]
		if j.array {
			if j.rows == 0 {
				j.buf = append(j.buf, "[\n"...)
			} else {
				j.buf = append(j.buf, ",\n"...)
			}
		}
		j.rows++
		// The Readable style never fails: types without a JSON form are
		// quoted text.
		j.buf, _ = arrowjson.AppendRow(j.buf, rec, row, arrowjson.Readable)
		if !j.array {
			j.buf = append(j.buf, '\n')
		}
		if _, err := j.w.Write(j.buf); err != nil {
			return err
		}
	}
	return nil
}

func (j *jsonlWriter) flush() error {
	if !j.array {
		return nil
	}
	end := "\n]\n"
	if j.rows == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// newCSVWriter returns the CSV writer of cat and convert: a header line
// (unless tf.noHeader) then one line per row; tsv or tf.delimiter choose
// the delimiter.
func newCSVWriter(w io.Writer, names *arrow.Schema, tsv bool, tf textOutput) *csvWriter {
	cw := csv.NewWriter(w)
	if tsv {
		cw.Comma = '\t'
	}
	if d := []rune(tf.delimiter); tf.delimiter == `\t` {
		cw.Comma = '\t'
	} else if len(d) == 1 {
		cw.Comma = d[0]
	}
	return &csvWriter{w: cw, names: names, header: tf.noHeader}
}

type csvWriter struct {
	w      *csv.Writer
	names  *arrow.Schema // the header, written before the first row (or alone)
	header bool
	row    []string
}

func (c *csvWriter) writeHeader() error {
	if c.header || c.names == nil {
		return nil
	}
	c.header = true
	names := make([]string, c.names.NumFields())
	for i, f := range c.names.Fields() {
		names[i] = f.Name
	}
	return c.w.Write(names)
}

func (c *csvWriter) write(rec arrow.RecordBatch) error {
	if c.names == nil {
		c.names = rec.Schema()
	}
	if err := c.writeHeader(); err != nil {
		return err
	}
	for row := 0; row < int(rec.NumRows()); row++ {
		c.row = c.row[:0]
		for _, col := range rec.Columns() {
			c.row = append(c.row, cellText(col, row))
		}
		if err := c.w.Write(c.row); err != nil {
			return err
		}
	}
	return nil
}

func (c *csvWriter) flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}
