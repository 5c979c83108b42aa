package pqflight

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/encryption"
	"github.com/arrowpq/arrowpq/metadata"
	"github.com/arrowpq/arrowpq/pagecodec"
)

// DoGet streams the record batches a JSON [Ticket] asks for. It reads one
// batch at a time and sends it before reading the next, so a slow client
// holds back the reader through gRPC flow control instead of buffering;
// a client that cancels ends the stream at the next batch boundary (the
// reader checks the stream's context too).
func (s *Server) DoGet(tk *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	s.active.Add(1)
	defer s.active.Add(-1)
	ctx := stream.Context()
	if err := s.authorize(ctx); err != nil {
		return err
	}
	t, err := decodeTicketLimit(tk.GetTicket(), s.maxTicket)
	if err != nil {
		return err
	}
	r, f, err := s.openReader(ctx, &t)
	if err != nil {
		return err
	}
	defer f.Close()
	defer r.Close()
	w := flight.NewRecordWriter(stream, ipc.WithSchema(r.Schema()), ipc.WithAllocator(s.alloc))
	for r.Next() {
		if err := writeSplit(w, r.RecordBatch(), limitOr(s.opts.MaxBatchBytes)); err != nil {
			return streamStatus(ctx, "send", err)
		}
	}
	if err := r.Err(); err != nil {
		return streamStatus(ctx, "read "+t.Path, err)
	}
	if err := w.Close(); err != nil {
		return streamStatus(ctx, "send", err)
	}
	return nil
}

// streamStatus turns an error of a stream into a gRPC status: Canceled or
// DeadlineExceeded when the client went away, the error itself when it
// already is a status, the code of readCode otherwise.
func streamStatus(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return status.FromContextError(cerr).Err()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Errorf(readCode(err), "pqflight: %s: %v", op, err)
}

// readCode is the gRPC code of an error reading a served file: DataLoss
// for a file that is not Parquet or is corrupt (a checksum mismatch too),
// ResourceExhausted for a file over the reader's limits, Unimplemented for
// what the reader does not support (encryption, a codec), Internal for
// the rest, and always for a bug (arrowpq.ErrInternal).
func readCode(err error) codes.Code {
	switch {
	case errors.Is(err, arrowpq.ErrInternal):
		return codes.Internal
	case errors.Is(err, metadata.ErrNotParquet), errors.Is(err, metadata.ErrCorrupt),
		errors.Is(err, pagecodec.ErrCorrupt), errors.Is(err, pagecodec.ErrChecksum):
		return codes.DataLoss
	case errors.Is(err, metadata.ErrLimit), errors.Is(err, pagecodec.ErrLimit):
		return codes.ResourceExhausted
	case errors.Is(err, metadata.ErrEncrypted):
		// The server lacks a key (Options.Decryption) or the AAD prefix.
		return codes.FailedPrecondition
	case errors.Is(err, encryption.ErrAuthentication):
		// A wrong key, or tampered data: the file does not authenticate.
		return codes.DataLoss
	case errors.Is(err, metadata.ErrUnsupported), errors.Is(err, pagecodec.ErrUnsupported):
		return codes.Unimplemented
	}
	return codes.Internal
}

// PutResult is the JSON in the app metadata of the PutResult that DoPut
// sends once the file is in place.
type PutResult struct {
	// Path is the file written, relative to the root.
	Path string `json:"path"`
	// Rows is the number of rows written.
	Rows int64 `json:"rows"`
}

// DoPut writes the incoming stream to a new Parquet file. The data goes to
// a temporary file beside the target; only when the client has finished
// the stream and the writer has closed the file cleanly is it linked (or,
// with AllowOverwrite, renamed) into place. A client that disconnects, a
// batch that cannot be decoded or written, or a shutdown of the server
// removes the temporary file and leaves the directory as it was.
func (s *Server) DoPut(stream flight.FlightService_DoPutServer) (err error) {
	s.active.Add(1)
	defer s.active.Add(-1)
	ctx := stream.Context()
	if err := s.authorize(ctx); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return status.Error(codes.PermissionDenied, "pqflight: the server is read-only")
	}
	lim := &limitAllocator{mem: s.alloc, limit: s.maxPutMemory}
	// Every message header is checked before arrow-go's reader trusts its
	// counts (ipccheck.go), and the reader allocates within MaxPutMemory.
	rdr, err := flight.NewRecordReader(checkedStream{stream, s.maxColumns}, ipc.WithAllocator(lim))
	if err != nil {
		if errors.Is(err, errPutMemory) {
			return status.Errorf(codes.ResourceExhausted, "pqflight: DoPut: %v", err)
		}
		if errors.Is(err, io.EOF) {
			return status.Error(codes.InvalidArgument, "pqflight: DoPut stream has no schema")
		}
		if ctx.Err() != nil {
			return status.FromContextError(ctx.Err()).Err()
		}
		if st, ok := status.FromError(err); ok && st.Code() != codes.Unknown {
			return err
		}
		return status.Errorf(codes.InvalidArgument, "pqflight: DoPut: %v", err)
	}
	defer rdr.Release()
	cmd, err := putFromDescriptor(rdr.LatestFlightDescriptor(), s.maxTicket)
	if err != nil {
		return err
	}
	if n := countFields(rdr.Schema()); n > s.maxColumns {
		return status.Errorf(codes.InvalidArgument, "pqflight: DoPut schema has %d fields; the server takes at most %d", n, s.maxColumns)
	}
	wopts, err := s.putOptions(cmd.Options, rdr.Schema())
	if err != nil {
		return err
	}
	name := cmd.Path
	if path.Ext(name) != parquetExt {
		return status.Errorf(codes.InvalidArgument, "pqflight: %s: the name of a Parquet file must end in %q", name, parquetExt)
	}
	// Fail early on the common cases; the final link decides races.
	if st, err := s.root.Lstat(name); err == nil {
		if !s.opts.AllowOverwrite {
			return status.Errorf(codes.AlreadyExists, "pqflight: %s already exists", name)
		}
		if !st.Mode().IsRegular() {
			return status.Errorf(codes.InvalidArgument, "pqflight: %s exists and is not a regular file", name)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fsStatus(name, err)
	}
	dir := path.Dir(name)
	if st, err := s.root.Stat(dir); err != nil {
		return fsStatus(dir, err)
	} else if !st.IsDir() {
		return status.Errorf(codes.InvalidArgument, "pqflight: %s is not a directory", dir)
	}

	var suffix [8]byte
	rand.Read(suffix[:])
	tmp := path.Join(dir, "."+path.Base(name)+tempMarker+hex.EncodeToString(suffix[:])+".tmp")
	f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fsStatus(tmp, err)
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			s.root.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := arrowpq.NewWriter(bw, rdr.Schema(), wopts)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "pqflight: %s: %v", name, err)
	}
	writerClosed := false
	defer func() {
		if !writerClosed {
			w.Close()
		}
	}()
	var rows int64
	for batch := 0; rdr.Next(); batch++ {
		// Write checks every array of the batch before it reads one
		// (arrowpq.ValidateArray): offsets, lengths, buffer sizes, child
		// arrays, null counts and dictionary indices sent by the client
		// are never trusted.
		rec := rdr.RecordBatch()
		if err := w.Write(rec); err != nil {
			return streamStatusCode(ctx, codes.InvalidArgument, fmt.Sprintf("write %s: batch %d", name, batch), err)
		}
		rows += rec.NumRows()
	}
	if err := rdr.Err(); err != nil {
		if errors.Is(err, errPutMemory) {
			return status.Errorf(codes.ResourceExhausted, "pqflight: receive: %v", err)
		}
		return streamStatusCode(ctx, codes.InvalidArgument, "receive", err)
	}
	// A cancelled client may look like a clean end of stream to the reader.
	if err := ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	writerClosed = true
	if err := w.Close(); err != nil {
		return streamStatusCode(ctx, codes.InvalidArgument, "write "+name, err)
	}
	if err := bw.Flush(); err != nil {
		return fsStatus(tmp, err)
	}
	if err := f.Sync(); err != nil {
		return fsStatus(tmp, err)
	}
	if err := f.Close(); err != nil {
		committed = true // closed: only the name is left to remove
		s.root.Remove(tmp)
		return fsStatus(tmp, err)
	}
	if err := s.commit(tmp, name); err != nil {
		committed = true
		s.root.Remove(tmp)
		return err
	}
	committed = true
	res, _ := json.Marshal(PutResult{Path: name, Rows: rows})
	if err := stream.Send(&flight.PutResult{AppMetadata: res}); err != nil {
		// The file is complete and in place; the client only missed the
		// acknowledgement.
		return streamStatus(ctx, "send", err)
	}
	return nil
}

// putOptions returns the client's write options within the server's
// limits: row groups the server holds in memory until they are complete.
func (s *Server) putOptions(o *arrowpq.WriteOptions, schema *arrow.Schema) (*arrowpq.WriteOptions, error) {
	var w arrowpq.WriteOptions
	if o != nil {
		w = *o
	}
	if w.RowGroupRows > s.maxRGRows {
		return nil, status.Errorf(codes.InvalidArgument, "pqflight: RowGroupRows %d is above the server's limit of %d", w.RowGroupRows, s.maxRGRows)
	}
	if w.RowGroupBytes > s.maxRGBytes {
		return nil, status.Errorf(codes.InvalidArgument, "pqflight: RowGroupBytes %d is above the server's limit of %d", w.RowGroupBytes, s.maxRGBytes)
	}
	if w.RowGroupRows <= 0 {
		w.RowGroupRows = min(arrowpq.DefaultRowGroupRows, s.maxRGRows)
	}
	if w.RowGroupBytes <= 0 {
		w.RowGroupBytes = min(arrowpq.DefaultRowGroupBytes, s.maxRGBytes)
	}
	// Bloom filters are allocated whole when the writer starts, one per
	// leaf column a ColumnOptions key covers (a top-level name covers
	// every leaf under it): they count against the row group bytes.
	var bloom int64
	for key, co := range w.Columns {
		size := int64(arrowpq.BloomFilterBytes(co.BloomFilterNDV, co.BloomFilterFPP))
		if size == 0 {
			continue
		}
		leaves := int64(1)
		if i := schema.FieldIndices(key); len(i) > 0 {
			leaves = int64(countLeaves(schema.Field(i[0]).Type))
		}
		if bloom += size * leaves; bloom > s.maxRGBytes {
			return nil, status.Errorf(codes.InvalidArgument, "pqflight: bloom filters of %d bytes or more are above the server's limit of %d", bloom, s.maxRGBytes)
		}
	}
	// The writer's memory and CPUs are the server's, whatever the client
	// asked.
	w.Allocator = nil
	if w.Parallelism < 0 || w.Parallelism > runtime.GOMAXPROCS(0) {
		w.Parallelism = 0
	}
	return &w, nil
}

// commit moves the finished temporary file to name. Without
// AllowOverwrite it links, which fails atomically when name appeared in
// the meantime, then removes the temporary name.
func (s *Server) commit(tmp, name string) error {
	if s.opts.AllowOverwrite {
		if err := s.root.Rename(tmp, name); err != nil {
			return fsStatus(name, err)
		}
		return nil
	}
	if err := s.root.Link(tmp, name); err != nil {
		return fsStatus(name, err)
	}
	s.root.Remove(tmp)
	return nil
}

// streamStatusCode is streamStatus with the code for errors that are not
// about the connection.
func streamStatusCode(ctx context.Context, code codes.Code, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return status.FromContextError(cerr).Err()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unknown {
		return err
	}
	return status.Errorf(code, "pqflight: %s: %v", op, err)
}
