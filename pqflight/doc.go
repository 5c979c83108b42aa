// Package pqflight serves a directory of Parquet files over Arrow Flight
// and ingests Flight streams into new Parquet files, on top of the
// [arrowpq] reader and writer and arrow-go's [flight] package.
//
// # Server
//
// [NewServer] returns a [Server], a flight.FlightServer that users register
// into their own gRPC or Flight server:
//
//	srv, _ := pqflight.NewServer("/data", nil)
//	fs := flight.NewServerWithMiddleware(srv.Middleware())
//	fs.RegisterFlightService(srv)
//
// The Server answers these Flight calls:
//
//   - ListFlights: one FlightInfo per Parquet file (name ending in
//     ".parquet") under the root, the descriptor being the path relative to
//     the root with "/" separators. Criteria.Expression, when not empty, is a
//     [path.Match] pattern the relative path must match.
//   - GetFlightInfo and GetSchema: a PATH descriptor names a file; a CMD
//     descriptor holds a JSON [Ticket] that also selects columns and row
//     groups. The FlightInfo has one endpoint per row group, or per run of
//     consecutive row groups up to Options.EndpointBytes, each with a
//     [Ticket] naming file, row groups and columns, so that clients fetch
//     endpoints in parallel and from several servers (Options.Locations).
//   - DoGet: a JSON [Ticket]; streams the record batches of the
//     [arrowpq.Reader] with the ticket's projection.
//   - DoPut: writes the stream to a new Parquet file with the
//     [arrowpq.Writer]. The descriptor of the first message is a PATH
//     descriptor or a CMD descriptor holding a JSON [PutCommand]. The file
//     appears (by an atomic link or rename) only when the whole stream was
//     received and written; otherwise the temporary file is removed.
//
// # Paths
//
// Every path is relative to the root, uses "/" separators, and is confined
// to the root: absolute paths and ".." elements are refused with
// InvalidArgument, symbolic links that leave the root with
// PermissionDenied (the files are opened through an [os.Root]).
//
// # Errors
//
// Errors are gRPC status errors: InvalidArgument for a malformed request,
// NotFound for a missing file or row group, PermissionDenied for a path that
// leaves the root or a refused write, AlreadyExists for DoPut on an existing
// file, Unauthenticated for a missing or wrong token, Canceled when the
// client went away, and Internal for files that cannot be read.
//
// # Client
//
// [Download], [NewReader] and [Upload] are client helpers over a
// flight.Client: they fetch the endpoints of a file in parallel (from other
// servers too when a Dial function is given), and upload a record stream
// into a file on the server. [Dial] connects to "host:port",
// "grpc+tcp://host:port" or "grpc+tls://host:port" with an optional bearer
// token.
//
// # Non-goals
//
// Flight SQL, DoExchange, DoAction and PollFlightInfo are not implemented
// (they answer Unimplemented).
package pqflight
