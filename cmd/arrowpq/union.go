package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// openSources opens every input and returns one source that yields their
// batches in order, under the union of their schemas: columns by name, in
// the order they are first seen; a column some inputs lack is null in
// their rows. A column whose type differs between two inputs is an error
// naming both inputs and both types. One input is returned as it is.
func openSources(ctx context.Context, names []string, opts *sourceOptions) (*batchSource, error) {
	if len(names) == 0 {
		return nil, &usageError{"want at least one input"}
	}
	srcs := make([]*batchSource, 0, len(names))
	closeAll := func() {
		for _, s := range srcs {
			s.close()
		}
	}
	for _, n := range names {
		s, err := openSource(ctx, n, opts)
		if err != nil {
			closeAll()
			return nil, err
		}
		srcs = append(srcs, s)
	}
	if len(srcs) == 1 {
		return srcs[0], nil
	}
	schema, err := unionSchema(srcs)
	if err != nil {
		closeAll()
		return nil, err
	}
	u := &batchSource{name: names[0], schema: schema, kv: map[string]string{}, release: true}
	// Key/value metadata: the first input's value of each key wins.
	for i := len(srcs) - 1; i >= 0; i-- {
		for k, v := range srcs[i].kv {
			u.kv[k] = v
		}
	}
	for _, s := range srcs {
		if s.total < 0 || u.total < 0 {
			u.total = -1
		} else {
			u.total += s.total
		}
		if s.size < 0 || u.size < 0 {
			u.size = -1
		} else {
			u.size += s.size
		}
	}
	var cur int
	var doneBefore int64
	u.done = func() int64 {
		if cur < len(srcs) && srcs[cur].done != nil {
			return doneBefore + srcs[cur].done()
		}
		return doneBefore
	}
	u.close = func() error {
		var errs []error
		for _, s := range srcs[min(cur, len(srcs)):] {
			errs = append(errs, s.close())
		}
		return errors.Join(errs...)
	}
	u.next = func() (arrow.RecordBatch, error) {
		for cur < len(srcs) {
			s := srcs[cur]
			rec, err := s.next()
			if errors.Is(err, io.EOF) {
				if s.size > 0 {
					doneBefore += s.size
				}
				cerr := s.close()
				cur++
				if cerr != nil {
					return nil, fmt.Errorf("%s: %w", s.name, cerr)
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			out, err := project(rec, schema)
			if s.release {
				rec.Release()
			}
			return out, err
		}
		return nil, io.EOF
	}
	return u, nil
}

// unionSchema is the union by name of the schemas of srcs.
func unionSchema(srcs []*batchSource) (*arrow.Schema, error) {
	var fields []arrow.Field
	from := map[string]int{} // field name -> index in fields
	owner := map[string]string{}
	for _, s := range srcs {
		for _, f := range s.schema.Fields() {
			i, ok := from[f.Name]
			if !ok {
				from[f.Name] = len(fields)
				owner[f.Name] = s.name
				fields = append(fields, f)
				continue
			}
			if !arrow.TypeEqual(fields[i].Type, f.Type) {
				return nil, fmt.Errorf("column %q has type %s in %s but %s in %s: the inputs' schemas conflict (convert them to one type first)",
					f.Name, fields[i].Type, owner[f.Name], f.Type, s.name)
			}
			fields[i].Nullable = fields[i].Nullable || f.Nullable
		}
	}
	// A column that some input lacks is null there.
	for i := range fields {
		for _, s := range srcs {
			if len(s.schema.FieldIndices(fields[i].Name)) == 0 {
				fields[i].Nullable = true
			}
		}
	}
	return arrow.NewSchema(fields, nil), nil
}

// project returns rec's columns arranged as schema's fields, with a null
// column for each field rec lacks. The caller releases the result.
func project(rec arrow.RecordBatch, schema *arrow.Schema) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, schema.NumFields())
	var made []arrow.Array
	for i, f := range schema.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) > 0 {
			cols[i] = rec.Column(idx[0])
			continue
		}
		a := array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, n)
		made = append(made, a)
		cols[i] = a
	}
	out := array.NewRecordBatch(schema, cols, int64(n))
	for _, a := range made {
		a.Release()
	}
	return out, nil
}
