package pqflight

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// DialOptions configures [Dial]. The zero value connects in plain text
// (unless the address says grpc+tls://) without a token.
type DialOptions struct {
	// Token, when not empty, is sent as "authorization: Bearer <token>".
	Token string
	// TLS, when not nil, secures the connection with this configuration;
	// nil with a grpc+tls:// address uses the system roots.
	TLS *tls.Config
	// GRPC are extra options for grpc.NewClient.
	GRPC []grpc.DialOption
}

// Dial returns a Flight client for addr, which is "host:port",
// "grpc://host:port", "grpc+tcp://host:port" or "grpc+tls://host:port"
// (the form of Flight locations). The connection is made lazily, on the
// first call. The client accepts messages of up to 256 MiB, not gRPC's
// default 4 MiB, since other Flight servers send large batches whole.
// opts may be nil. Close the client when done.
func Dial(addr string, opts *DialOptions) (flight.Client, error) {
	var o DialOptions
	if opts != nil {
		o = *opts
	}
	useTLS := o.TLS != nil
	switch {
	case strings.HasPrefix(addr, "grpc+tls://"):
		addr = strings.TrimPrefix(addr, "grpc+tls://")
		useTLS = true
	case strings.HasPrefix(addr, "grpc+tcp://"):
		addr = strings.TrimPrefix(addr, "grpc+tcp://")
	case strings.HasPrefix(addr, "grpc://"):
		addr = strings.TrimPrefix(addr, "grpc://")
	case strings.Contains(addr, "://"):
		return nil, fmt.Errorf("pqflight: address %q: scheme not supported (want grpc+tcp:// or grpc+tls://)", addr)
	}
	addr = strings.TrimSuffix(addr, "/")
	creds := insecure.NewCredentials()
	if useTLS {
		cfg := o.TLS
		if cfg == nil {
			cfg = &tls.Config{}
		}
		creds = credentials.NewTLS(cfg)
	}
	dopts := append([]grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRecvMsgSize)),
	}, o.GRPC...)
	var mw []flight.ClientMiddleware
	if o.Token != "" {
		mw = append(mw, BearerToken(o.Token))
	}
	return flight.NewClientWithMiddleware(addr, nil, mw, dopts...)
}

// ClientOptions configures [NewReader], [Download] and [Upload]. The zero
// value reads all columns, fetches up to DefaultParallelism endpoints at
// once over the given client, and uploads with the writer's defaults.
type ClientOptions struct {
	// Columns selects columns (top-level names or dotted paths) to fetch;
	// empty means all.
	Columns []string
	// RowGroups selects row groups to fetch; empty means all.
	RowGroups []int
	// Parallelism is the number of endpoints fetched at once; zero means
	// DefaultParallelism.
	Parallelism int
	// Buffer is the number of record batches buffered per endpoint being
	// fetched ahead of the consumer; zero means 2. With Parallelism it
	// bounds the memory of a download.
	Buffer int
	// Dial, when not nil, connects to the locations of endpoints that name
	// one (except flight's reuse-connection URI); nil fetches every
	// endpoint over the given client. Clients it returns are closed when
	// the download ends.
	Dial func(location string) (flight.Client, error)
	// Allocator allocates the received batches; nil means
	// memory.DefaultAllocator.
	Allocator memory.Allocator
	// WriteOptions are sent with Upload as the writer's options; nil means
	// the server's defaults.
	WriteOptions *arrowpq.WriteOptions
	// MaxBatchBytes splits the record batches Upload sends when their
	// Arrow buffers are larger; zero means DefaultMaxBatchBytes, negative
	// never splits.
	MaxBatchBytes int64
}

// DefaultParallelism is the number of endpoints fetched at once when
// ClientOptions.Parallelism is zero.
const DefaultParallelism = 4

// Reader is a record stream over the endpoints of a file on a Flight
// server, in order, with up to ClientOptions.Parallelism endpoints fetched
// at once. It implements array.RecordReader. The batch returned by
// RecordBatch is valid until the next call to Next; Retain it to keep it.
// A Reader is not safe for concurrent use.
type Reader struct {
	refs   int64
	schema *arrow.Schema
	info   *flight.FlightInfo
	parts  []*part
	next   int
	cur    arrow.RecordBatch
	err    error
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// part is the fetch of one endpoint: batches arrive on ch, which is closed
// at the end; err is set before the close.
type part struct {
	ch  chan arrow.RecordBatch
	err error
}

// NewReader asks the server for the FlightInfo of path (with the
// projection of opts) and starts fetching its endpoints. opts may be nil.
// Release or Close the Reader to stop the fetches.
func NewReader(ctx context.Context, c flight.Client, path string, opts *ClientOptions) (*Reader, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.Parallelism <= 0 {
		o.Parallelism = DefaultParallelism
	}
	if o.Buffer <= 0 {
		o.Buffer = 2
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	desc := PathDescriptor(path)
	if len(o.Columns) > 0 || len(o.RowGroups) > 0 {
		var err error
		desc, err = CommandDescriptor(&Ticket{Path: path, Columns: o.Columns, RowGroups: o.RowGroups})
		if err != nil {
			return nil, err
		}
	}
	info, err := c.GetFlightInfo(ctx, desc)
	if err != nil {
		return nil, err
	}
	schema, err := flight.DeserializeSchema(info.GetSchema(), o.Allocator)
	if err != nil {
		return nil, fmt.Errorf("pqflight: schema of %s: %w", path, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Reader{refs: 1, schema: schema, info: info, cancel: cancel}
	r.parts = make([]*part, len(info.GetEndpoint()))
	for i := range r.parts {
		r.parts[i] = &part{ch: make(chan arrow.RecordBatch, o.Buffer)}
	}
	dialer := &dialer{dial: o.Dial, base: c, clients: map[string]flight.Client{}}
	r.wg.Add(1)
	// The dispatcher starts fetches in endpoint order and never more than
	// Parallelism at once: the consumer always waits on the earliest
	// unfinished endpoint, which is therefore running, so it cannot
	// deadlock with later fetches blocked on their full buffers.
	go func() {
		defer r.wg.Done()
		defer dialer.close()
		sem := make(chan struct{}, o.Parallelism)
		var fetches sync.WaitGroup
		for i, ep := range info.GetEndpoint() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				for _, p := range r.parts[i:] {
					p.err = ctx.Err()
					close(p.ch)
				}
				fetches.Wait()
				return
			}
			fetches.Add(1)
			go func() {
				defer fetches.Done()
				defer func() { <-sem }()
				p := r.parts[i]
				p.err = fetch(ctx, dialer, i, ep, schema, o.Allocator, p.ch)
				close(p.ch)
			}()
		}
		fetches.Wait()
	}()
	return r, nil
}

// fetch streams one endpoint into ch. It tries the endpoint's locations in
// turn, starting at a different one per endpoint to spread the load, and
// moves to the next location only if nothing was received yet.
func fetch(ctx context.Context, d *dialer, i int, ep *flight.FlightEndpoint, schema *arrow.Schema, mem memory.Allocator, ch chan<- arrow.RecordBatch) error {
	locs := ep.GetLocation()
	n := max(len(locs), 1)
	var err error
	for k := range n {
		var loc string
		if len(locs) > 0 {
			loc = locs[(i+k)%len(locs)].GetUri()
		}
		var c flight.Client
		c, err = d.client(loc)
		if err != nil {
			err = status.Error(codes.Unavailable, err.Error())
			continue
		}
		var sent bool
		sent, err = fetchFrom(ctx, c, ep.GetTicket(), schema, mem, ch)
		// Only a server that cannot be reached is worth another location:
		// any other answer would be the same everywhere.
		if err == nil || sent || ctx.Err() != nil || status.Code(err) != codes.Unavailable {
			return err
		}
	}
	return err
}

func fetchFrom(ctx context.Context, c flight.Client, t *flight.Ticket, schema *arrow.Schema, mem memory.Allocator, ch chan<- arrow.RecordBatch) (sent bool, err error) {
	stream, err := c.DoGet(ctx, t)
	if err != nil {
		return false, err
	}
	rdr, err := flight.NewRecordReader(stream, ipc.WithAllocator(mem))
	if err != nil {
		return false, err
	}
	defer rdr.Release()
	if !rdr.Schema().Equal(schema) {
		return false, fmt.Errorf("pqflight: endpoint schema %v differs from the FlightInfo schema %v", rdr.Schema(), schema)
	}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rec.Retain()
		select {
		case ch <- rec:
			sent = true
		case <-ctx.Done():
			rec.Release()
			return sent, ctx.Err()
		}
	}
	return sent, rdr.Err()
}

// dialer hands out clients per location, dialling each once.
type dialer struct {
	dial    func(string) (flight.Client, error)
	base    flight.Client
	mu      sync.Mutex
	clients map[string]flight.Client
}

func (d *dialer) client(loc string) (flight.Client, error) {
	if loc == "" || d.dial == nil || loc == flight.LocationReuseConnection {
		return d.base, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.clients[loc]; ok {
		return c, nil
	}
	c, err := d.dial(loc)
	if err != nil {
		return nil, fmt.Errorf("pqflight: dial %s: %w", loc, err)
	}
	d.clients[loc] = c
	return c, nil
}

func (d *dialer) close() {
	for _, c := range d.clients {
		c.Close()
	}
}

// Schema returns the schema of the batches.
func (r *Reader) Schema() *arrow.Schema { return r.schema }

// Info returns the FlightInfo the Reader fetches.
func (r *Reader) Info() *flight.FlightInfo { return r.info }

// Next waits for the next batch and reports whether there is one.
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.err == nil && r.next < len(r.parts) {
		p := r.parts[r.next]
		rec, ok := <-p.ch
		if ok {
			r.cur = rec
			return true
		}
		if p.err != nil {
			r.err = fmt.Errorf("pqflight: endpoint %d: %w", r.next, p.err)
			r.cancel()
			return false
		}
		r.next++
	}
	if r.next >= len(r.parts) {
		r.cancel() // every fetch is done; release the context
	}
	return false
}

// RecordBatch returns the current batch, valid until the next call to Next.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: Use [Reader.RecordBatch].
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended Next, or nil at a clean end.
func (r *Reader) Err() error { return r.err }

// Retain adds a reference to the Reader.
func (r *Reader) Retain() { r.refs++ }

// Release drops a reference; the last one closes the Reader.
func (r *Reader) Release() {
	if r.refs--; r.refs == 0 {
		r.Close()
	}
}

// Close stops the fetches, waits for them to end and releases the batches
// they buffered. It is safe to call more than once.
func (r *Reader) Close() error {
	r.cancel()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for _, p := range r.parts {
		for rec := range p.ch {
			rec.Release()
		}
	}
	r.wg.Wait()
	return nil
}

// Download fetches a whole file (or the projection of opts) into a table,
// fetching endpoints in parallel. opts may be nil. Release the table when
// done.
func Download(ctx context.Context, c flight.Client, path string, opts *ClientOptions) (arrow.Table, error) {
	r, err := NewReader(ctx, c, path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return arrowpq.ReadAll(r)
}

// Upload sends the batches of r to the server, which writes them to a new
// Parquet file at path; it returns once the server has put the file in
// place. opts may be nil (only WriteOptions and Allocator are used). If ctx
// is cancelled or r fails, the server leaves no file behind.
func Upload(ctx context.Context, c flight.Client, path string, r array.RecordReader, opts *ClientOptions) (*PutResult, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.Allocator == nil {
		o.Allocator = memory.DefaultAllocator
	}
	desc := PathDescriptor(path)
	if o.WriteOptions != nil {
		var err error
		if desc, err = CommandDescriptor(&PutCommand{Path: path, Options: o.WriteOptions}); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	// Cancelling on every early return tells the server to drop the file.
	defer cancel()
	stream, err := c.DoPut(ctx)
	if err != nil {
		return nil, err
	}
	w := flight.NewRecordWriter(stream, ipc.WithSchema(r.Schema()), ipc.WithAllocator(o.Allocator))
	w.SetFlightDescriptor(desc)
	sendErr := func(err error) (*PutResult, error) {
		if errors.Is(err, io.EOF) {
			// The server ended the call; its status says why.
			return nil, serverResult(stream)
		}
		return nil, err
	}
	for r.Next() {
		if err := writeSplit(w, r.RecordBatch(), limitOr(o.MaxBatchBytes)); err != nil {
			return sendErr(err)
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("pqflight: upload %s: source: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return sendErr(err)
	}
	if err := stream.CloseSend(); err != nil {
		return sendErr(err)
	}
	var res *PutResult
	for {
		pr, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(pr.GetAppMetadata()) > 0 {
			res = new(PutResult)
			if err := json.Unmarshal(pr.GetAppMetadata(), res); err != nil {
				return nil, fmt.Errorf("pqflight: bad PutResult: %w", err)
			}
		}
	}
	if res == nil {
		return nil, fmt.Errorf("pqflight: upload %s: the server sent no result", path)
	}
	return res, nil
}

// serverResult reads the stream to its end and returns the status the
// server ended it with.
func serverResult(stream flight.FlightService_DoPutClient) error {
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return errors.New("pqflight: the server closed the stream")
		}
		if err != nil {
			return err
		}
	}
}

// List returns the FlightInfo of every file on the server whose path
// matches pattern (path.Match syntax; empty means all).
func List(ctx context.Context, c flight.Client, pattern string) ([]*flight.FlightInfo, error) {
	stream, err := c.ListFlights(ctx, &flight.Criteria{Expression: []byte(pattern)})
	if err != nil {
		return nil, err
	}
	var out []*flight.FlightInfo
	for {
		info, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
}
