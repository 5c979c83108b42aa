package column_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/arrowpq/arrowpq/column"
	"github.com/arrowpq/arrowpq/levels"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/metadata/format"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// spawner runs read-ahead tasks on goroutines and counts those alive.
type spawner struct {
	live  atomic.Int32
	wg    sync.WaitGroup
	deny  bool
	every int // > 0: refuse every every-th call
	calls atomic.Int32
}

func (s *spawner) spawn(task func()) bool {
	if s.deny || s.every > 0 && s.calls.Add(1)%int32(s.every) == 0 {
		return false
	}
	s.live.Add(1)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.live.Add(-1)
		task()
	}()
	return true
}

// settled fails t unless every task returns soon: a task's goroutine
// ends just after the Close or Reset that stopped it returns.
func (s *spawner) settled(t testing.TB, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: %d read-ahead tasks still alive", what, s.live.Load())
	}
}

func (s *spawner) options(pages int) column.ReaderOptions {
	return column.ReaderOptions{Prefetch: pages, Spawn: s.spawn, PrefetchMinBytes: 1}
}

// outcome is everything a read shows: levels, values, the error that
// ended it and where, and the page bodies read.
type outcome struct {
	data      testData
	err       string
	page      int
	offset    int64
	pagesRead int
}

// readOutcome reads c in steps of step levels, skipping 7 records before
// each read op when skips[i] is set, up to the end or the first error.
func readOutcome(col *metadata.Column, c column.Chunk, opts column.ReaderOptions, step int, skips func(i int) bool) outcome {
	r := column.NewReader(col, opts)
	defer r.Close()
	return readOutcomeFrom(r, col, c, step, skips)
}

// readOutcomeFrom is readOutcome with reader r.
func readOutcomeFrom(r *column.Reader, col *metadata.Column, c column.Chunk, step int, skips func(i int) bool) outcome {
	r.Reset(c)
	var o outcome
	var vals column.Values
	vals.Reset(col)
	def := make([]int16, step)
	rep := make([]int16, step)
	var err error
	for i := 0; ; i++ {
		if skips != nil && skips(i) {
			if _, err = r.SkipRecords(7); err != nil {
				break
			}
			o.data.values = append(o.data.values, "skip")
			continue
		}
		var nl int
		nl, _, err = r.Read(&vals, step, def, rep)
		if col.MaxDef > 0 {
			o.data.def = append(o.data.def, def[:nl]...)
		}
		if col.MaxRep > 0 {
			o.data.rep = append(o.data.rep, rep[:nl]...)
		}
		if err != nil {
			break
		}
	}
	for i := range vals.N {
		o.data.values = append(o.data.values, valueAt(&vals, i))
	}
	if err != io.EOF {
		o.err = err.Error()
		var pe *pagecodec.PageError
		if !errors.As(err, &pe) {
			o.err += " (not located)"
		}
	}
	o.page, o.offset = r.Location()
	o.pagesRead = column.PagesRead(r)
	return o
}

func sameOutcome(t testing.TB, what string, got, want outcome) {
	t.Helper()
	if got.err != want.err || got.page != want.page || got.offset != want.offset || got.pagesRead != want.pagesRead {
		t.Fatalf("%s: read ahead ended with %q at page %d offset %d after %d pages, serially with %q at page %d offset %d after %d pages",
			what, got.err, got.page, got.offset, got.pagesRead, want.err, want.page, want.offset, want.pagesRead)
	}
	if !slices.Equal(got.data.def, want.data.def) || !slices.Equal(got.data.rep, want.data.rep) || !slices.Equal(got.data.values, want.data.values) {
		t.Fatalf("%s: read ahead: %d levels, %d values; serially: %d levels, %d values, or they differ",
			what, len(got.data.def), len(got.data.values), len(want.data.def), len(want.data.values))
	}
}

// TestPrefetchMatchesSerial reads arrow-go's chunks (flat, nested,
// dictionary, v1 and v2 pages, with and without an offset index) read
// ahead and serially: the same levels and values, the written ones, with
// reads and skips interleaved too.
func TestPrefetchMatchesSerial(t *testing.T) {
	var sp spawner
	refusing := spawner{every: 3}
	for _, sh := range []shape{required, optional, deep, nested} {
		for _, v2 := range []bool{false, true} {
			for _, enc := range []parquet.Encoding{parquet.Encodings.Plain, parquet.Encodings.RLEDict} {
				for _, phys := range []parquet.Type{parquet.Types.ByteArray, parquet.Types.Int64} {
					s := spec{physical: phys, shape: sh, enc: enc, v2: v2, index: true,
						pageSize: 300, codec: compress.Codecs.Snappy, rows: 1500, seed: 3}
					d := generate(s)
					col, chunk, _ := chunkOf(t, writeFile(t, s, d), true)
					for _, pages := range []int{1, 2, 5} {
						for _, step := range []int{1, 64, 1000} {
							serial := readOutcome(col, chunk, column.ReaderOptions{}, step, nil)
							ahead := readOutcome(col, chunk, sp.options(pages), step, nil)
							sameOutcome(t, s.String(), ahead, serial)
							sameOutcome(t, s.String()+" some spawns refused", readOutcome(col, chunk, refusing.options(pages), step, nil), serial)
							compareData(t, s.String(), ahead.data, d)
							skips := func(i int) bool { return i%5 == 4 }
							sameOutcome(t, s.String()+" with skips", readOutcome(col, chunk, sp.options(pages), step, skips),
								readOutcome(col, chunk, column.ReaderOptions{}, step, skips))
						}
					}
					sp.settled(t, s.String())
					refusing.settled(t, s.String())
				}
			}
		}
	}
}

// crcChunk is a Snappy chunk written by pagecodec.PageWriter with CRCs: a
// dictionary page of 16 INT32 values, then data pages of 100 levels (max
// definition level 1, every seventh null), v1 and v2 in turn, dictionary
// indices and PLAIN values in turn.
func crcChunk(t *testing.T, pages int) (*metadata.Column, []byte) {
	col := &metadata.Column{MaxDef: 1, Physical: format.Type_INT32}
	w, err := pagecodec.NewPageWriter(pagecodec.PageWriterOptions{Codec: format.CompressionCodec_SNAPPY})
	if err != nil {
		t.Fatal(err)
	}
	dict := make([]byte, 16*4)
	for i := range 16 {
		binary.LittleEndian.PutUint32(dict[4*i:], uint32(i*1000-3))
	}
	chunk, _, err := w.AppendDictionaryPage(nil, &pagecodec.DictionaryPage{NumValues: 16, Values: dict})
	if err != nil {
		t.Fatal(err)
	}
	for p := range pages {
		def := make([]int16, 100)
		var idx []int16
		var plain []byte
		for i := range def {
			if (i+p)%7 == 0 {
				continue
			}
			def[i] = 1
			idx = append(idx, int16((i*p+i/3)%16))
			plain = binary.LittleEndian.AppendUint32(plain, uint32(i*p))
		}
		var le levels.Encoder
		le.Reset(1)
		if err := le.Append(def); err != nil {
			t.Fatal(err)
		}
		defs := append([]byte{}, le.Finish()...)
		values, enc := plain, format.Encoding_PLAIN
		if p%2 == 0 {
			var ie levels.Encoder
			ie.Reset(15)
			if err := ie.Append(idx); err != nil {
				t.Fatal(err)
			}
			values, enc = append([]byte{4}, ie.Finish()...), format.Encoding_RLE_DICTIONARY
		}
		if (p/2)%2 == 1 {
			chunk, _, err = w.AppendDataPageV2(chunk, &pagecodec.DataPageV2{NumLevels: 100, NumRows: 100, NumNulls: 100 - len(idx),
				Encoding: enc, DefinitionLevels: defs, Values: values})
		} else {
			chunk, _, err = w.AppendDataPageV1(chunk, &pagecodec.DataPageV1{NumLevels: 100, Encoding: enc,
				DefinitionLevels: defs, Values: values})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return col, chunk
}

// TestPrefetchErrors damages chunks at every position (a byte flipped:
// CRC failures in bodies, bad headers; cut short: truncated chunks) and
// reads each ahead and serially: the same values before the error, the
// same error, at the same page.
func TestPrefetchErrors(t *testing.T) {
	var sp spawner
	col, chunk := crcChunk(t, 12)
	s := spec{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.RLEDict, v2: true,
		pageSize: 200, codec: compress.Codecs.Snappy, rows: 300, seed: 9}
	ncol, nchunk, _ := chunkOf(t, writeFile(t, s, generate(s)), false)
	cases := []struct {
		name  string
		col   *metadata.Column
		data  []byte
		check bool
	}{{"crc", col, chunk, true}, {"crc skipped", col, chunk, false}, {"nested", ncol, nchunk.Data, true}}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		if n := readOutcome(tc.col, column.Chunk{Data: tc.data, Codec: format.CompressionCodec_SNAPPY}, sp.options(2), 64, nil); n.err != "" {
			t.Fatalf("%s: undamaged chunk: %s", tc.name, n.err)
		}
		for pos := range len(tc.data) {
			for _, cut := range []bool{false, true} {
				data := slices.Clone(tc.data)
				if cut {
					data = data[:pos]
				} else {
					data[pos] ^= byte(1 + rng.IntN(255))
				}
				c := column.Chunk{Data: data, Codec: format.CompressionCodec_SNAPPY, FileOffset: 4, NumRows: 1200}
				serialOpts := column.ReaderOptions{SkipChecksums: !tc.check}
				aheadOpts := sp.options(1 + pos%3)
				aheadOpts.SkipChecksums = !tc.check
				step := []int{7, 64, 500}[pos%3]
				serial := readOutcome(tc.col, c, serialOpts, step, nil)
				sameOutcome(t, tc.name, readOutcome(tc.col, c, aheadOpts, step, nil), serial)
				if tc.check && !cut && pos%11 == 0 {
					skips := func(i int) bool { return i == 3 }
					sameOutcome(t, tc.name+" with a skip", readOutcome(tc.col, c, aheadOpts, step, skips),
						readOutcome(tc.col, c, serialOpts, step, skips))
				}
			}
		}
	}
	sp.settled(t, "after Close")
}

// TestPrefetchStops shows that no task outlives a Reset, Close, or a
// chunk read to its end, and that a chunk whose Spawn finds no goroutine
// is read serially.
func TestPrefetchStops(t *testing.T) {
	col, chunk := crcChunk(t, 20)
	c := column.Chunk{Data: chunk, Codec: format.CompressionCodec_SNAPPY}
	var sp spawner
	r := column.NewReader(col, sp.options(2))
	var v column.Values
	def := make([]int16, 150)
	for _, stop := range []string{"Reset", "Close", "end", "FinishChunk"} {
		r.Reset(c)
		v.Reset(col)
		if _, _, err := r.Read(&v, 150, def, nil); err != nil {
			t.Fatal(err)
		}
		if sp.live.Load() != 1 {
			t.Fatalf("%s: %d tasks reading ahead, want 1", stop, sp.live.Load())
		}
		switch stop {
		case "Reset":
			r.Reset(c)
		case "Close":
			r.Close()
		case "end":
			for {
				v.Reset(col)
				if _, _, err := r.Read(&v, 150, def, nil); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
		case "FinishChunk":
			for left := 20*100 - 150; left > 0; left -= 50 {
				v.Reset(col)
				if _, _, err := r.Read(&v, 50, def, nil); err != nil {
					t.Fatal(err)
				}
			}
			r.FinishChunk()
		}
		sp.settled(t, stop)
		if stop == "FinishChunk" {
			if _, _, err := r.Read(&v, 50, def, nil); err != io.EOF {
				t.Fatalf("Read after FinishChunk: %v, want io.EOF", err)
			}
		}
	}
	sp.wg.Wait()
	deny := spawner{deny: true}
	got := readOutcome(col, c, deny.options(2), 64, nil)
	want := readOutcome(col, c, column.ReaderOptions{}, 64, nil)
	sameOutcome(t, "no goroutine free", got, want)
}

// TestSetPrefetch: SetPrefetch(0) reads the chunks Reset starts after it
// serially (no task is spawned), and SetPrefetch(n) turns reading ahead
// back on; every chunk reads as a serial reader does.
func TestSetPrefetch(t *testing.T) {
	col, chunk := crcChunk(t, 20)
	c := column.Chunk{Data: chunk, Codec: format.CompressionCodec_SNAPPY}
	want := readOutcome(col, c, column.ReaderOptions{}, 64, nil)
	var sp spawner
	r := column.NewReader(col, sp.options(2))
	def := make([]int16, 150)
	// read reads 150 levels and reports whether tasks were spawned.
	read := func() bool {
		t.Helper()
		calls := sp.calls.Load()
		var v column.Values
		v.Reset(col)
		if _, _, err := r.Read(&v, 150, def, nil); err != nil {
			t.Fatal(err)
		}
		return sp.calls.Load() > calls
	}
	sp.every = 1 << 30 // count the calls
	r.Reset(c)
	if !read() {
		t.Fatal("first chunk: not read ahead")
	}
	r.SetPrefetch(0)
	read()
	r.Reset(c)
	for range 5 {
		if read() {
			t.Fatal("after SetPrefetch(0), the next chunk is read ahead")
		}
	}
	r.SetPrefetch(2)
	r.Reset(c)
	if !read() {
		t.Fatal("after SetPrefetch(2), the next chunk is not read ahead")
	}
	r.Close()
	sp.settled(t, "after Close")
	for _, pages := range []int{0, 2} {
		r := column.NewReader(col, sp.options(2))
		r.SetPrefetch(pages)
		got := readOutcomeFrom(r, col, c, 64, nil)
		r.Close()
		sameOutcome(t, fmt.Sprintf("SetPrefetch(%d)", pages), got, want)
	}
	sp.settled(t, "after Close")
}

// FuzzReadPrefetch reads hostile chunks (FuzzRead's seeds) ahead and
// serially, reads and skips interleaved: the same outcome.
func FuzzReadPrefetch(f *testing.F) {
	for i, s := range []spec{
		{physical: parquet.Types.Int64, shape: optional, enc: parquet.Encodings.RLEDict, v2: true},
		{physical: parquet.Types.ByteArray, shape: nested, enc: parquet.Encodings.DeltaByteArray},
		{physical: parquet.Types.ByteArray, shape: optional, enc: parquet.Encodings.RLEDict},
		{physical: parquet.Types.Int32, shape: nested, enc: parquet.Encodings.Plain, v2: true},
	} {
		s.pageSize, s.rows, s.seed = 128, 100, uint64(i)
		s.codec = compress.Codecs.Snappy
		_, chunk, _ := chunkOf(f, writeFile(f, s, generate(s)), false)
		f.Add(uint8([]int{1, 4, 5, 9}[i]), uint8(chunk.Codec), uint8(i), chunk.Data)
	}
	var sp spawner
	f.Fuzz(func(t *testing.T, which, codec, how uint8, data []byte) {
		col := fuzzColumns[int(which)%len(fuzzColumns)]
		c := column.Chunk{Data: data, Codec: format.CompressionCodec(codec % 8), NumRows: 100}
		opts := column.ReaderOptions{MaxPageSize: 1 << 20, BatchRows: 64}
		ahead := opts
		ahead.Prefetch, ahead.Spawn, ahead.PrefetchMinBytes = 1+int(how%3), sp.spawn, 1
		step := []int{1, 10, 64}[how/3%3]
		skips := func(i int) bool { return how&0x80 != 0 && i%3 == 2 }
		sameOutcome(t, "fuzz", readOutcome(col, c, ahead, step, skips), readOutcome(col, c, opts, step, skips))
		sp.settled(t, "after Close")
	})
}
