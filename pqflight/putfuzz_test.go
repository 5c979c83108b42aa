package pqflight_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

var putFuzzStreams = flag.Int("putfuzz.streams", 800, "malformed DoPut streams TestDoPutStreamFuzz sends")
var putFuzzSeed = flag.Uint64("putfuzz.seed", 0, "seed of TestDoPutStreamFuzz; 0 means one from the clock")

// captureStream collects the FlightData messages flight's record writer
// sends, deep-copied (the writer reuses its message and body buffer).
type captureStream struct{ msgs []*flight.FlightData }

func (c *captureStream) Send(fd *flight.FlightData) error {
	c.msgs = append(c.msgs, &flight.FlightData{
		FlightDescriptor: fd.FlightDescriptor,
		DataHeader:       bytes.Clone(fd.DataHeader),
		DataBody:         bytes.Clone(fd.DataBody),
		AppMetadata:      bytes.Clone(fd.AppMetadata),
	})
	return nil
}

// captureMessages returns the messages of a DoPut stream of recs to path.
func captureMessages(t testing.TB, path string, recs ...arrow.RecordBatch) []*flight.FlightData {
	t.Helper()
	var c captureStream
	w := flight.NewRecordWriter(&c, ipc.WithSchema(recs[0].Schema()))
	w.SetFlightDescriptor(pqflight.PathDescriptor(path))
	for _, rec := range recs {
		must(t, w.Write(rec))
	}
	must(t, w.Close())
	return c.msgs
}

// fuzzRecord is a batch with strings, a list of strings, a struct, a
// dictionary and fixed-width columns: every kind of buffer the writer
// validates is in the stream, for the mutations to hit.
func fuzzRecord(start, n int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "pt", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64}, arrow.Field{Name: "label", Type: arrow.BinaryTypes.Binary, Nullable: true}), Nullable: true},
		{Name: "kind", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}, Nullable: true},
		{Name: "code", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := start; i < start+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%5 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i))
		}
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		for k := 0; k < i%4; k++ {
			lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", k))
		}
		sb := b.Field(3).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Float64Builder).Append(float64(i) / 4)
		sb.FieldBuilder(1).(*array.BinaryBuilder).Append([]byte{byte(i), byte(i >> 8)})
		if err := b.Field(4).(*array.BinaryDictionaryBuilder).AppendString([]string{"red", "green", "blue"}[i%3]); err != nil {
			panic(err) // a dictionary builder of strings takes strings
		}
		b.Field(5).(*array.FixedSizeBinaryBuilder).Append([]byte{'a', byte('a' + i%26), 'z'})
	}
	return b.NewRecordBatch()
}

// mutation is one way of breaking a stream; it returns the messages to
// send, made from the captured messages of a good stream.
type mutation struct {
	name string
	fn   func(r *rand.Rand, msgs []*flight.FlightData, other []*flight.FlightData) []*flight.FlightData
}

func cloneMsgs(msgs []*flight.FlightData) []*flight.FlightData {
	out := make([]*flight.FlightData, len(msgs))
	for i, m := range msgs {
		out[i] = &flight.FlightData{FlightDescriptor: m.FlightDescriptor, DataHeader: bytes.Clone(m.DataHeader), DataBody: bytes.Clone(m.DataBody)}
	}
	return out
}

// withBody returns the index of a random message that has a body (a
// record batch or dictionary batch), or -1.
func withBody(r *rand.Rand, msgs []*flight.FlightData) int {
	var idx []int
	for i, m := range msgs {
		if len(m.DataBody) > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return -1
	}
	return idx[r.IntN(len(idx))]
}

var mutations = []mutation{
	{"flip body bytes", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		if i := withBody(r, msgs); i >= 0 {
			b := msgs[i].DataBody
			for k := 0; k < 1+r.IntN(8); k++ {
				b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
			}
		}
		return msgs
	}},
	{"bad offset or length word in the body", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		if i := withBody(r, msgs); i >= 0 {
			b := msgs[i].DataBody
			at := r.IntN(len(b)/4) * 4
			v := []uint32{0, 1, 0xffffffff, 0x7fffffff, 0x80000000, uint32(r.IntN(1 << 16))}[r.IntN(6)]
			binary.LittleEndian.PutUint32(b[at:], v)
		}
		return msgs
	}},
	{"flip header bytes", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		m := msgs[r.IntN(len(msgs))]
		if len(m.DataHeader) > 0 {
			for k := 0; k < 1+r.IntN(4); k++ {
				m.DataHeader[r.IntN(len(m.DataHeader))] ^= byte(1 + r.IntN(255))
			}
		}
		return msgs
	}},
	{"bad word in the header", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		m := msgs[r.IntN(len(msgs))]
		if len(m.DataHeader) >= 8 {
			at := r.IntN(len(m.DataHeader)/8) * 8
			v := []uint64{0, 1 << 40, 1<<63 - 1, 1 << 63, uint64(r.IntN(1 << 20))}[r.IntN(5)]
			binary.LittleEndian.PutUint64(m.DataHeader[at:], v)
		}
		return msgs
	}},
	{"truncated body", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		if i := withBody(r, msgs); i >= 0 {
			msgs[i].DataBody = msgs[i].DataBody[:r.IntN(len(msgs[i].DataBody))]
		}
		return msgs
	}},
	{"truncated header", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		m := msgs[r.IntN(len(msgs))]
		m.DataHeader = m.DataHeader[:r.IntN(len(m.DataHeader)+1)]
		return msgs
	}},
	{"garbage message", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		i := 1 + r.IntN(len(msgs)-1)
		h := make([]byte, r.IntN(200))
		b := make([]byte, r.IntN(2000))
		for k := range h {
			h[k] = byte(r.Uint32())
		}
		for k := range b {
			b[k] = byte(r.Uint32())
		}
		msgs[i] = &flight.FlightData{DataHeader: h, DataBody: b}
		return msgs
	}},
	{"garbage stream", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		h := make([]byte, r.IntN(100))
		for k := range h {
			h[k] = byte(r.Uint32())
		}
		return []*flight.FlightData{{FlightDescriptor: msgs[0].FlightDescriptor, DataHeader: h}}
	}},
	{"schema and batches of different streams", func(r *rand.Rand, msgs, other []*flight.FlightData) []*flight.FlightData {
		out := cloneMsgs(other[:1])
		out[0].FlightDescriptor = msgs[0].FlightDescriptor
		return append(out, cloneMsgs(msgs[1:])...)
	}},
	{"batches without schema", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		out := cloneMsgs(msgs[1:])
		out[0].FlightDescriptor = msgs[0].FlightDescriptor
		return out
	}},
	{"message dropped", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		i := 1 + r.IntN(len(msgs)-1)
		return slices.Delete(msgs, i, i+1)
	}},
	{"message repeated", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		i := r.IntN(len(msgs))
		return slices.Insert(msgs, i, cloneMsgs(msgs[i:i+1])...)
	}},
	{"bad path", func(r *rand.Rand, msgs, _ []*flight.FlightData) []*flight.FlightData {
		msgs = cloneMsgs(msgs)
		p := []string{strings.Repeat("a/", 3000) + "x.parquet", "../up.parquet", "/abs.parquet", "esc\x1b[31m.parquet", "nul\x00.parquet", strings.Repeat("n", 300) + ".parquet", "a//b/../../../c.parquet", "sub"}[r.IntN(8)]
		msgs[0].FlightDescriptor = pqflight.PathDescriptor(p)
		return msgs
	}},
}

// sendRaw sends msgs as one DoPut stream and returns the call's status:
// nil when the server accepted the file.
func sendRaw(ctx context.Context, c flight.Client, msgs []*flight.FlightData) error {
	stream, err := c.DoPut(ctx)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if err := stream.Send(m); err != nil {
			break // the server ended the stream; Recv has its status
		}
	}
	stream.CloseSend()
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TestDoPutStreamFuzz sends -putfuzz.streams (800) malformed DoPut streams
// — flipped and out-of-range words in IPC bodies (offsets, lengths,
// validity, indices) and headers, truncated and garbage messages, a
// schema of another stream, batches without schema, dropped and repeated
// messages, bad paths — to a real server on 127.0.0.1 with no token. The
// server must answer every one with a status (not die: a panic in a
// handler ends this test binary), serve a good DoGet after every 100, and
// leave the directory as it was: no temporary file, and a file only where
// a mutation left the stream valid (checked readable, then removed).
// The seed is logged; rerun one with -putfuzz.seed.
func TestDoPutStreamFuzz(t *testing.T) {
	root := newRoot(t)
	before := listDir(t, root)
	ts := startServer(t, root, nil)
	ctx := context.Background()

	recs := []arrow.RecordBatch{fuzzRecord(0, 40), fuzzRecord(40, 25)}
	defer recs[0].Release()
	defer recs[1].Release()
	good := captureMessages(t, "fuzz.parquet", recs...)
	other := captureMessages(t, "fuzz.parquet", genRecord(0, 10))

	seed := *putFuzzSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (-putfuzz.seed)", seed)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	// The unmutated stream is accepted: the fuzzer's base is valid.
	must(t, sendRaw(ctx, ts.client, good))
	must(t, os.Remove(filepath.Join(root, "fuzz.parquet")))

	codesSeen := map[codes.Code]int{}
	sample := map[codes.Code]string{}
	rejectedBy := map[string]int{}
	accepted := map[string]int{}
	start := time.Now()
	for i := 0; i < *putFuzzStreams; i++ {
		m := mutations[r.IntN(len(mutations))]
		err := sendRaw(ctx, ts.client, m.fn(r, good, other))
		code := status.Code(err)
		codesSeen[code]++
		if err != nil {
			switch msg := err.Error(); {
			case strings.Contains(msg, arrowpq.ErrInvalidArray.Error()):
				rejectedBy["array validation"]++
			case strings.Contains(msg, "bad IPC message header"):
				rejectedBy["header check"]++
			case strings.Contains(msg, "invalid path"):
				rejectedBy["path check"]++
			default:
				rejectedBy["other"]++
			}
		}
		if _, ok := sample[code]; !ok && err != nil {
			sample[code] = m.name + ": " + err.Error()
		}
		switch code {
		case codes.OK:
			// The mutation hit bytes that do not matter (a value, not an
			// offset): the file must be a good Parquet file.
			accepted[m.name]++
			path := filepath.Join(root, "fuzz.parquet")
			pr, err := arrowpq.OpenFile(path, nil)
			if err != nil {
				t.Fatalf("stream %d (%s) accepted, file unreadable: %v", i, m.name, err)
			}
			for pr.Next() {
			}
			if err := pr.Err(); err != nil {
				t.Fatalf("stream %d (%s) accepted, file unreadable: %v", i, m.name, err)
			}
			pr.Close()
			must(t, os.Remove(path))
		case codes.Unavailable, codes.Unknown:
			t.Fatalf("stream %d (%s): %v: is the server still up?", i, m.name, err)
		}
		if i%100 == 99 {
			tbl, err := doGet(t, ts.client, &flight.Ticket{Ticket: []byte(`{"path":"gen.parquet"}`)})
			if err != nil {
				t.Fatalf("DoGet after %d streams: %v", i+1, err)
			}
			if tbl.NumRows() != 1000 {
				t.Fatalf("DoGet after %d streams: %d rows, want 1000", i+1, tbl.NumRows())
			}
			tbl.Release()
		}
	}
	waitFor(t, "the DoPut handlers to end", func() bool { return ts.srv.Active() == 0 })
	after := listDir(t, root)
	if !slices.Equal(before, after) {
		t.Errorf("directory before: %q\nafter: %q", before, after)
	}
	t.Logf("%d streams in %v; status codes %v; accepted (mutation left the stream valid): %v; directory after: %q",
		*putFuzzStreams, time.Since(start).Round(time.Millisecond), codesSeen, accepted, after)
	t.Logf("rejected by: %v", rejectedBy)
	for code, msg := range sample {
		t.Logf("e.g. %v: %.300s", code, msg)
	}
}
