package pqflight

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GetFlightInfo describes a file, or a projection of it, with one endpoint
// per row group or per run of row groups (see [Options.EndpointBytes]).
func (s *Server) GetFlightInfo(ctx context.Context, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if err := s.authorize(ctx); err != nil {
		return nil, err
	}
	t, err := ticketFromDescriptor(d, s.maxTicket)
	if err != nil {
		return nil, err
	}
	return s.info(ctx, &t, d)
}

// GetSchema returns the Arrow schema of a file or of a projection of it.
func (s *Server) GetSchema(ctx context.Context, d *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	if err := s.authorize(ctx); err != nil {
		return nil, err
	}
	t, err := ticketFromDescriptor(d, s.maxTicket)
	if err != nil {
		return nil, err
	}
	r, f, err := s.openReader(ctx, &t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer r.Close()
	return &flight.SchemaResult{Schema: flight.SerializeSchema(r.Schema(), s.alloc)}, nil
}

// ListFlights sends one FlightInfo per Parquet file under the root, in
// lexical order. A non-empty Criteria.Expression is a path.Match pattern on
// the relative path. Files that cannot be read as Parquet, and symbolic
// links that leave the root, are skipped.
func (s *Server) ListFlights(c *flight.Criteria, stream flight.FlightService_ListFlightsServer) error {
	ctx := stream.Context()
	if err := s.authorize(ctx); err != nil {
		return err
	}
	pattern := string(c.GetExpression())
	if pattern != "" {
		if _, err := path.Match(pattern, ""); err != nil {
			return status.Errorf(codes.InvalidArgument, "pqflight: bad pattern %q: %v", pattern, err)
		}
	}
	return fs.WalkDir(s.fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			// An unreadable directory is skipped, not fatal to the listing.
			if d != nil && d.IsDir() && name != "." {
				return fs.SkipDir
			}
			if name == "." {
				return fsStatus(name, err)
			}
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return status.FromContextError(cerr).Err()
		}
		if d.IsDir() || !strings.HasSuffix(name, parquetExt) || strings.Contains(path.Base(name), tempMarker) {
			return nil
		}
		if pattern != "" {
			if ok, _ := path.Match(pattern, name); !ok {
				return nil
			}
		}
		t := Ticket{Path: name}
		info, ierr := s.info(ctx, &t, PathDescriptor(name))
		if ierr != nil {
			if status.Code(ierr) == codes.Canceled {
				return ierr
			}
			return nil
		}
		return stream.Send(info)
	})
}

// info builds the FlightInfo of a checked ticket.
func (s *Server) info(ctx context.Context, t *Ticket, d *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	r, f, err := s.openReader(ctx, t)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer r.Close()
	meta := r.Metadata().Meta
	rowGroups := t.RowGroups
	if len(rowGroups) == 0 {
		rowGroups = make([]int, len(meta.RowGroups))
		for i := range rowGroups {
			rowGroups[i] = i
		}
	}
	if t.Filter != "" {
		// Only the row groups that may match, as the read would prune them.
		plans, err := r.Explain()
		if err != nil {
			return nil, status.Errorf(codes.Internal, "pqflight: %s: %v", t.Path, err)
		}
		rowGroups = rowGroups[:0:0]
		for _, p := range plans {
			if len(p.Read) > 0 {
				rowGroups = append(rowGroups, p.RowGroup)
			}
		}
	}
	info := &flight.FlightInfo{
		Schema:           flight.SerializeSchema(r.Schema(), s.alloc),
		FlightDescriptor: d,
		Ordered:          true,
	}
	var group []int
	var groupBytes int64
	flush := func() {
		if len(group) == 0 {
			return
		}
		et := Ticket{Path: t.Path, RowGroups: group, Columns: t.Columns, Filter: t.Filter}
		ep := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: encodeTicket(&et)}}
		locs := s.opts.Locations
		if s.opts.EndpointLocations != nil {
			locs = s.opts.EndpointLocations(t.Path, group)
		}
		for _, uri := range locs {
			ep.Location = append(ep.Location, &flight.Location{Uri: uri})
		}
		info.Endpoint = append(info.Endpoint, ep)
		group, groupBytes = nil, 0
	}
	for _, rg := range rowGroups {
		g := meta.RowGroups[rg]
		info.TotalRecords += g.NumRows
		info.TotalBytes += g.TotalByteSize
		if len(group) > 0 && (s.opts.EndpointBytes == 0 || groupBytes+g.TotalByteSize > s.opts.EndpointBytes) {
			flush()
		}
		group = append(group, rg)
		groupBytes += g.TotalByteSize
	}
	flush()
	if t.Filter != "" {
		info.TotalRecords = -1 // unknown before the rows are evaluated
	}
	return info, nil
}
