package pqflight

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
)

// Options configures a [Server]. The zero value allows DoPut of new files
// but never overwrites, requires no token, makes one endpoint per row group
// without locations, and reads with the defaults of [arrowpq.ReadOptions].
type Options struct {
	// Token, when not empty, is the bearer token every call must carry in
	// an "authorization: Bearer <token>" header.
	Token string
	// ReadOnly refuses DoPut with PermissionDenied.
	ReadOnly bool
	// AllowOverwrite lets DoPut replace an existing file. Without it DoPut
	// on an existing path fails with AlreadyExists.
	AllowOverwrite bool
	// EndpointBytes groups consecutive row groups into one endpoint while
	// their total uncompressed size (RowGroup.TotalByteSize) stays within
	// it; a row group larger than EndpointBytes gets an endpoint of its
	// own. Zero means one endpoint per row group.
	EndpointBytes int64
	// Locations are the URIs (such as "grpc+tcp://host:8815") put on every
	// endpoint: servers of the same directory that can answer its ticket.
	// Empty means none, which tells clients to use the connection they
	// asked on.
	Locations []string
	// EndpointLocations, when not nil, gives the locations of each
	// endpoint instead of Locations, from the file path and the row groups
	// of the endpoint, for example to spread files over servers.
	EndpointLocations func(path string, rowGroups []int) []string
	// BatchSize is the number of rows per record batch of DoGet; zero
	// means arrowpq.DefaultBatchSize. With Parallelism it bounds the memory
	// of a stream: one batch and the compressed chunks of one row group.
	BatchSize int
	// Parallelism is the number of columns a DoGet stream decodes at once;
	// zero means GOMAXPROCS.
	Parallelism int
	// MaxBatchBytes splits the record batches DoGet sends when their Arrow
	// buffers are larger; zero means DefaultMaxBatchBytes, negative never
	// splits. Receiving larger messages is the grpc.Server's setting
	// (grpc.MaxRecvMsgSize), not this package's.
	MaxBatchBytes int64
	// MaxTicketBytes bounds the JSON of a ticket or command; zero means
	// DefaultMaxTicketBytes.
	MaxTicketBytes int
	// MaxPutColumns bounds the fields of a DoPut stream's schema, nested
	// fields included (each makes a column writer with its own buffers);
	// zero means DefaultMaxPutColumns.
	MaxPutColumns int
	// MaxPutRowGroupRows and MaxPutRowGroupBytes bound the row groups
	// DoPut writes, which the server holds in memory (as compressed pages)
	// until they are complete. A client whose WriteOptions ask for more
	// gets InvalidArgument; one that leaves them zero gets arrowpq's
	// defaults lowered to these. Zero means DefaultMaxPutRowGroupRows and
	// DefaultMaxPutRowGroupBytes.
	MaxPutRowGroupRows  int
	MaxPutRowGroupBytes int64
	// MaxPutMemory bounds the Arrow buffers the record batches of one
	// DoPut stream hold at once as they are received (a compressed IPC
	// buffer states its decompressed size, and a hostile one would have
	// the server allocate whatever it states); a stream that needs more
	// fails with ResourceExhausted. Zero means DefaultMaxPutMemory.
	MaxPutMemory int64
	// Allocator allocates the buffers of record batches read (DoGet) and
	// received (DoPut). Nil means the reader's recycling pool for batches
	// read (arrowpq.ReadOptions.RecycleBuffers: safe here because a batch
	// is serialized before the next is read) and memory.DefaultAllocator
	// for batches received.
	Allocator memory.Allocator
	// Decryption holds the keys of the encrypted files the server reads
	// (arrowpq.ReadOptions.Decryption); nil serves encrypted files as far
	// as no key is needed.
	Decryption *encryption.DecryptionOptions
}

// The defaults of the DoPut limits of [Options].
const (
	DefaultMaxPutColumns       = 10_000
	DefaultMaxPutRowGroupRows  = arrowpq.DefaultRowGroupRows
	DefaultMaxPutRowGroupBytes = arrowpq.DefaultRowGroupBytes
	DefaultMaxPutMemory        = 512 << 20
)

func orDefault[T int | int64](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Server is a Flight service over the Parquet files under a root
// directory. Register it into a flight.Server or grpc.Server (with
// [Server.Middleware] when a token is set). It is safe for concurrent use:
// every call opens its own files.
type Server struct {
	flight.BaseFlightServer
	root  *os.Root
	fsys  fs.FS // root.FS(), or the FS of NewServerFS (root nil)
	opts  Options
	alloc memory.Allocator

	// The limits of Options with defaults filled in.
	maxTicket    int
	maxColumns   int
	maxRGRows    int
	maxRGBytes   int64
	maxPutMemory int64

	// active counts the DoGet and DoPut handlers running; tests use it to
	// see that a cancelled stream really ended on the server.
	active atomic.Int64
}

var _ flight.FlightServer = (*Server)(nil)

// NewServer returns a Server of the files under root. opts may be nil.
// Close the Server to release the root directory.
func NewServer(root string, opts *Options) (*Server, error) {
	return newServer(func() (*os.Root, error) { return os.OpenRoot(root) }, opts)
}

// newServer is NewServer with the root opened by openRoot, which returns
// nil for a server of an fs.FS (fs.go).
func newServer(openRoot func() (*os.Root, error), opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.EndpointBytes < 0 {
		return nil, fmt.Errorf("pqflight: EndpointBytes %d is negative", o.EndpointBytes)
	}
	if o.BatchSize < 0 || o.Parallelism < 0 {
		return nil, fmt.Errorf("pqflight: BatchSize %d or Parallelism %d is negative", o.BatchSize, o.Parallelism)
	}
	if o.MaxTicketBytes < 0 || o.MaxPutColumns < 0 || o.MaxPutRowGroupRows < 0 || o.MaxPutRowGroupBytes < 0 || o.MaxPutMemory < 0 {
		return nil, fmt.Errorf("pqflight: a Max option is negative")
	}
	r, err := openRoot()
	if err != nil {
		return nil, fmt.Errorf("pqflight: %w", err)
	}
	s := &Server{root: r, opts: o, alloc: o.Allocator,
		maxTicket:    orDefault(o.MaxTicketBytes, DefaultMaxTicketBytes),
		maxColumns:   orDefault(o.MaxPutColumns, DefaultMaxPutColumns),
		maxRGRows:    orDefault(o.MaxPutRowGroupRows, DefaultMaxPutRowGroupRows),
		maxRGBytes:   orDefault(o.MaxPutRowGroupBytes, DefaultMaxPutRowGroupBytes),
		maxPutMemory: orDefault(o.MaxPutMemory, DefaultMaxPutMemory),
	}
	if s.alloc == nil {
		s.alloc = memory.DefaultAllocator
	}
	if r != nil {
		s.fsys = r.FS()
	}
	return s, nil
}

// Close releases the root directory. Calls in progress may fail.
func (s *Server) Close() error {
	if s.root == nil {
		return nil
	}
	return s.root.Close()
}

// Middleware returns the server middleware that checks the bearer token,
// for flight.NewServerWithMiddleware; nil when no token is set. The
// handlers check the token as well, so the middleware only makes refusals
// happen before a stream is set up.
func (s *Server) Middleware() []flight.ServerMiddleware {
	if s.opts.Token == "" {
		return nil
	}
	return []flight.ServerMiddleware{s.authMiddleware()}
}

// Handshake answers the Flight handshake. With a token it accepts the
// bearer token, as every other call does, or HTTP basic auth whose
// password is the token (any user name), which is what
// flight.Client.AuthenticateBasicToken sends; after basic auth the
// middleware hands the client the bearer token for later calls.
func (s *Server) Handshake(stream flight.FlightService_HandshakeServer) error {
	ctx := stream.Context()
	if s.authorize(ctx) == nil {
		return nil
	}
	if s.basicAuthorized(ctx) {
		return nil
	}
	return status.Error(codes.Unauthenticated, "pqflight: a valid bearer token or basic auth password is required")
}

// openFile opens a regular file under the root.
func (s *Server) openFile(name string) (fileHandle, int64, error) {
	if s.root == nil {
		return s.openFSFile(name) // fs.go
	}
	// Stat first: opening a FIFO or device would block or misbehave.
	st, err := s.root.Stat(name)
	if err != nil {
		return nil, 0, fsStatus(name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, status.Errorf(codes.InvalidArgument, "pqflight: %s is not a regular file", name)
	}
	f, err := s.root.Open(name)
	if err != nil {
		return nil, 0, fsStatus(name, err)
	}
	st, err = f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, status.Errorf(codes.InvalidArgument, "pqflight: %s is not a regular file", name)
	}
	return f, st.Size(), nil
}

// openReader opens the reader of a checked ticket; the caller closes both
// the Reader and the file. A failure with the projection is retried
// without it to tell a bad request (InvalidArgument, NotFound) from a file
// that cannot be read (Internal).
func (s *Server) openReader(ctx context.Context, t *Ticket) (*arrowpq.Reader, fileHandle, error) {
	f, size, err := s.openFile(t.Path)
	if err != nil {
		return nil, nil, err
	}
	opts := &arrowpq.ReadOptions{
		Columns:     t.Columns,
		BatchSize:   s.opts.BatchSize,
		Parallelism: s.opts.Parallelism,
		Allocator:   s.opts.Allocator,
		// Without a configured allocator DoGet recycles buffers: each
		// batch is serialized into the gRPC message before Send returns
		// and released by the next Next, and nothing keeps a string or
		// slice of it, so the pool's contract holds (docs/flight.md).
		RecycleBuffers: s.opts.Allocator == nil,
		Context:        ctx,
		Decryption:     s.opts.Decryption,
	}
	if len(t.RowGroups) > 0 {
		opts.RowGroups = t.RowGroups
	}
	if t.Filter != "" {
		p, perr := arrowpq.ParseFilter(t.Filter)
		if perr != nil {
			f.Close()
			return nil, nil, status.Errorf(codes.InvalidArgument, "pqflight: %s: %v", t.Path, perr)
		}
		opts.Filter = p
	}
	r, err := arrowpq.NewReader(f, size, opts)
	if err == nil {
		return r, f, nil
	}
	defer f.Close()
	file, _, ferr := encryption.ReadFooter(f, size, s.opts.Decryption)
	if ferr != nil {
		return nil, nil, status.Errorf(readCode(ferr), "pqflight: %s: %v", t.Path, ferr)
	}
	for _, rg := range t.RowGroups {
		if rg >= len(file.Meta.RowGroups) {
			return nil, nil, status.Errorf(codes.NotFound, "pqflight: %s: row group %d does not exist: the file has %d", t.Path, rg, len(file.Meta.RowGroups))
		}
	}
	if opts.Filter != nil {
		// A filter naming a column the file lacks, or comparing it with a
		// value of another type, is the request's fault.
		if all, aerr := arrowpq.NewReader(f, size, &arrowpq.ReadOptions{RowGroups: opts.RowGroups, Columns: t.Columns, Context: ctx}); aerr == nil {
			all.Close()
			return nil, nil, status.Errorf(codes.InvalidArgument, "pqflight: %s: %v", t.Path, err)
		}
	}
	if len(t.Columns) > 0 {
		if all, aerr := arrowpq.NewReader(f, size, &arrowpq.ReadOptions{RowGroups: opts.RowGroups, Context: ctx, Decryption: s.opts.Decryption}); aerr == nil {
			all.Close()
			return nil, nil, status.Errorf(codes.InvalidArgument, "pqflight: %s: %v", t.Path, err)
		}
	}
	return nil, nil, status.Errorf(readCode(err), "pqflight: %s: %v", t.Path, err)
}
