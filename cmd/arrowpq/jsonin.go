package main

// JSON and NDJSON input. Values are read by arrow-go's array.JSONReader;
// what it lacks and this file adds is schema inference over a sample
// (objects to structs, arrays to lists, strings to dates and timestamps)
// and a top-level JSON array, which it does not read.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// maxJSONDepth bounds the nesting of an inferred type: deeper input is
// hostile or a mistake, and each level is a struct or list in the schema.
const maxJSONDepth = 64

// objectStream yields the top-level values of NDJSON (values separated by
// white space) or of one JSON array, as raw bytes.
type objectStream struct {
	dec     *json.Decoder
	inArray bool
	ended   bool
}

func newObjectStream(r io.Reader) (*objectStream, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if head, _ := br.Peek(3); bytes.Equal(head, utf8BOM) {
		br.Discard(3)
	}
	s := &objectStream{dec: json.NewDecoder(br)}
	// A '[' first means one array of objects.
	for {
		b, err := br.Peek(1)
		if err != nil {
			return s, nil
		}
		if b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n' {
			br.Discard(1)
			continue
		}
		if b[0] == '[' {
			if _, err := s.dec.Token(); err != nil {
				return nil, err
			}
			s.inArray = true
		}
		return s, nil
	}
}

// next returns the next value, or io.EOF after the last.
func (s *objectStream) next() (json.RawMessage, error) {
	if s.ended {
		return nil, io.EOF
	}
	if s.inArray && !s.dec.More() {
		s.ended = true
		if _, err := s.dec.Token(); err != nil { // the closing ]
			return nil, err
		}
		return nil, io.EOF
	}
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		if err == io.EOF && s.inArray {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return raw, nil
}

// linesReader turns a sample and the rest of an objectStream into NDJSON
// for array.JSONReader.
type linesReader struct {
	sample []json.RawMessage
	s      *objectStream
	buf    []byte
	err    error
}

func (l *linesReader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		var raw json.RawMessage
		if len(l.sample) > 0 {
			raw, l.sample = l.sample[0], l.sample[1:]
		} else {
			raw, l.err = l.s.next()
			if l.err != nil {
				continue
			}
		}
		l.buf = append(append(l.buf[:0], raw...), '\n')
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

// openJSON reads JSON or NDJSON objects from r.
func openJSON(r io.Reader, opts *sourceOptions) (*batchSource, error) {
	s, err := newObjectStream(r)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	sampleRows := opts.text.sampleRows
	if sampleRows <= 0 {
		sampleRows = defaultSampleRows
	}
	batchRows := opts.text.batchRows
	if batchRows <= 0 {
		batchRows = defaultBatchRows
	}
	var sample []json.RawMessage
	root := &jsonGuess{}
	for len(sample) < sampleRows {
		raw, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("json: value %d: %w", len(sample)+1, err)
		}
		if opts.schema == nil {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			v, err := decodeOrdered(dec, 0)
			if err != nil {
				return nil, fmt.Errorf("json: value %d: %w", len(sample)+1, err)
			}
			if _, ok := v.(jsonObject); !ok {
				return nil, fmt.Errorf("json: value %d is not an object: each row is a JSON object", len(sample)+1)
			}
			root.see(v, 0)
		}
		sample = append(sample, raw)
	}
	schema := opts.schema
	if schema == nil {
		if len(sample) == 0 {
			return nil, errors.New("json: no rows to infer the columns from; give them with --schema")
		}
		fields, err := root.structFields("")
		if err != nil {
			return nil, fmt.Errorf("json: %w", err)
		}
		schema = arrow.NewSchema(fields, nil)
	}
	jr := array.NewJSONReader(&linesReader{sample: sample, s: s}, schema, array.WithChunk(batchRows))
	var rows int64
	return &batchSource{schema: schema, kv: map[string]string{}, total: -1,
		close: func() error { jr.Release(); return nil },
		next: func() (arrow.RecordBatch, error) {
			if jr.Next() {
				rec := jr.RecordBatch()
				rows += rec.NumRows()
				return rec, nil
			}
			if err := jr.Err(); err != nil && err != io.EOF {
				if !strings.HasPrefix(err.Error(), "json: ") {
					err = fmt.Errorf("json: %w", err)
				}
				return nil, fmt.Errorf("%w (%d rows read before)", err, rows)
			}
			return nil, io.EOF
		}}, nil
}

// jsonGuess is what the values seen at one place of the documents say of
// its type.
type jsonGuess struct {
	bools, ints, floats, strs, objs, arrs bool
	text                                  columnGuess // the strings
	fields                                []string    // object keys, first seen first
	children                              map[string]*jsonGuess
	elem                                  *jsonGuess
}

func (g *jsonGuess) see(v any, depth int) {
	switch v := v.(type) {
	case nil:
	case bool:
		g.bools = true
	case json.Number:
		if _, err := v.Int64(); err == nil {
			g.ints = true
		} else {
			g.floats = true
		}
	case string:
		g.strs = true
		g.text.see(v)
		// Only dates and timestamps are read from strings: "12" stays a
		// string, as DuckDB's read_json keeps it.
		g.text.cand &= gDate | gTimestamp | gTimestampTZ
	case jsonObject:
		g.objs = true
		if g.children == nil {
			g.children = map[string]*jsonGuess{}
		}
		for _, m := range v {
			c, ok := g.children[m.key]
			if !ok {
				c = &jsonGuess{}
				g.children[m.key] = c
				g.fields = append(g.fields, m.key)
			}
			c.see(m.value, depth+1)
		}
	case []any:
		g.arrs = true
		if g.elem == nil {
			g.elem = &jsonGuess{}
		}
		for _, e := range v {
			g.elem.see(e, depth+1)
		}
	}
}

func (g *jsonGuess) structFields(path string) ([]arrow.Field, error) {
	fields := make([]arrow.Field, 0, len(g.fields))
	for _, k := range g.fields {
		p := k
		if path != "" {
			p = path + "." + k
		}
		t, err := g.children[k].dataType(p)
		if err != nil {
			return nil, err
		}
		fields = append(fields, arrow.Field{Name: k, Type: t, Nullable: true})
	}
	return fields, nil
}

func (g *jsonGuess) dataType(path string) (arrow.DataType, error) {
	nested := 0
	for _, b := range []bool{g.objs, g.arrs, g.bools || g.ints || g.floats || g.strs} {
		if b {
			nested++
		}
	}
	if nested > 1 {
		return nil, fmt.Errorf("column %s mixes objects, arrays and plain values; give the columns with --schema", path)
	}
	switch {
	case g.objs:
		fields, err := g.structFields(path)
		if err != nil {
			return nil, err
		}
		if len(fields) == 0 {
			return nil, fmt.Errorf("column %s: only empty objects, which Parquet cannot hold (a group needs a field)", path)
		}
		return arrow.StructOf(fields...), nil
	case g.arrs:
		et, err := g.elem.dataType(path + ".element")
		if err != nil {
			return nil, err
		}
		return arrow.ListOf(et), nil
	case g.strs && (g.bools || g.ints || g.floats):
		return nil, fmt.Errorf("column %s mixes strings and numbers or booleans; give the columns with --schema", path)
	case g.bools && (g.ints || g.floats):
		return nil, fmt.Errorf("column %s mixes booleans and numbers", path)
	case g.bools:
		return arrow.FixedWidthTypes.Boolean, nil
	case g.floats:
		return arrow.PrimitiveTypes.Float64, nil
	case g.ints:
		return arrow.PrimitiveTypes.Int64, nil
	case g.strs:
		return g.text.dataType(), nil
	}
	// Only nulls: a string column, as DuckDB does.
	return arrow.BinaryTypes.String, nil
}

// jsonObject is a JSON object with its members in document order (a Go
// map would lose the order, and with it the column order).
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value any
}

// decodeOrdered reads one value from dec (which uses json.Number):
// objects as jsonObject, arrays as []any, scalars as encoding/json does.
func decodeOrdered(dec *json.Decoder, depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		var obj jsonObject
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec, depth+1)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonMember{key: kt.(string), value: v})
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		arr := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		_, err := dec.Token()
		return arr, err
	}
	return tok, nil
}
