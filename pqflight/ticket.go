package pqflight

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// Ticket says what a DoGet streams: which file, which row groups and which
// columns. It travels as JSON, for example
//
//	{"path":"sales/2024.parquet","row_groups":[2,3],"columns":["id","address.city"],"filter":"id > 100"}
//
// The same JSON in a CMD descriptor asks GetFlightInfo and GetSchema for a
// projection (row groups and columns), and the tickets of the returned
// endpoints carry it on. Tickets are self-describing, so any server of the
// same directory can answer them; the server validates every field.
type Ticket struct {
	// Path is the file, relative to the served root, with "/" separators.
	Path string `json:"path"`
	// RowGroups selects row groups by index, in the order given; empty
	// means all.
	RowGroups []int `json:"row_groups,omitempty"`
	// Columns selects columns by top-level name or dotted path, as
	// arrowpq.ReadOptions.Columns; empty means all.
	Columns []string `json:"columns,omitempty"`
	// Filter keeps only the rows where it is TRUE, in the syntax of
	// arrowpq.ParseFilter ("l_orderkey BETWEEN 100 AND 200"): DoGet reads
	// with it as arrowpq.ReadOptions.Filter, and GetFlightInfo returns only
	// the endpoints of row groups that may match. Empty means every row.
	Filter string `json:"filter,omitempty"`
}

// PutCommand is the JSON of a DoPut CMD descriptor, for example
//
//	{"path":"in/new.parquet","options":{"Compression":"ZSTD","Dictionary":"off","RowGroupRows":100000}}
//
// The keys of "options" are the field names of [arrowpq.WriteOptions] and
// the values what encoding/json makes of them: codecs and encodings are
// their parquet.thrift names (any case), toggles "default", "on", "off" or
// a boolean; the numbers of earlier versions (4 is arrowpq.Zstd) are still
// accepted. Unknown keys are refused. A PATH descriptor is the same as a
// PutCommand with only a path.
type PutCommand struct {
	// Path is the file to create, relative to the served root. Its
	// directory must exist.
	Path string `json:"path"`
	// Options configure the Parquet writer; nil means its defaults.
	Options *arrowpq.WriteOptions `json:"options,omitempty"`
}

// DefaultMaxTicketBytes bounds the JSON of a ticket or command when
// Options.MaxTicketBytes is zero. Real tickets are a path and a few lists
// of numbers and names: well under a kilobyte.
const DefaultMaxTicketBytes = 64 << 10

// decodeStrict decodes one JSON value of at most limit bytes into v,
// refusing unknown fields and trailing data: a ticket is a contract, and a
// misspelt key silently ignored would read the wrong columns.
func decodeStrict(what string, b []byte, v any, limit int) error {
	if len(b) > limit {
		return status.Errorf(codes.InvalidArgument, "pqflight: %s of %d bytes is larger than the server's limit of %d", what, len(b), limit)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return status.Errorf(codes.InvalidArgument, "pqflight: bad %s JSON: %v", what, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return status.Errorf(codes.InvalidArgument, "pqflight: bad %s JSON: data after the value", what)
	}
	return nil
}

// encodeTicket returns the bytes of t.
func encodeTicket(t *Ticket) []byte {
	b, err := json.Marshal(t)
	if err != nil {
		// A Ticket holds strings and ints only.
		panic("pqflight: marshal ticket: " + err.Error())
	}
	return b
}

// decodeTicket parses and checks the shape of a ticket; the file and its
// row groups are checked when it is opened.
func decodeTicket(b []byte) (Ticket, error) { return decodeTicketLimit(b, DefaultMaxTicketBytes) }

func decodeTicketLimit(b []byte, limit int) (Ticket, error) {
	var t Ticket
	if err := decodeStrict("ticket", b, &t, limit); err != nil {
		return t, err
	}
	return t, checkTicket(&t)
}

func checkTicket(t *Ticket) error {
	p, err := cleanPath(t.Path)
	if err != nil {
		return err
	}
	t.Path = p
	// Each row group at most once: a ticket repeating one would make the
	// server read and send it again and again for a few bytes of JSON.
	seen := make(map[int]bool, len(t.RowGroups))
	for _, rg := range t.RowGroups {
		if rg < 0 {
			return status.Errorf(codes.InvalidArgument, "pqflight: row group %d is negative", rg)
		}
		if seen[rg] {
			return status.Errorf(codes.InvalidArgument, "pqflight: row group %d is named twice", rg)
		}
		seen[rg] = true
	}
	for _, c := range t.Columns {
		if c == "" {
			return status.Error(codes.InvalidArgument, "pqflight: empty column name")
		}
	}
	return nil
}

// descriptorPath joins the path of a PATH descriptor. Elements may also
// hold "/" themselves, so ["a", "b.parquet"] and ["a/b.parquet"] are the
// same file.
func descriptorPath(d *flight.FlightDescriptor) string {
	return strings.Join(d.GetPath(), "/")
}

// ticketFromDescriptor reads the request of GetFlightInfo or GetSchema.
func ticketFromDescriptor(d *flight.FlightDescriptor, limit int) (Ticket, error) {
	var t Ticket
	switch d.GetType() {
	case flight.DescriptorPATH:
		t.Path = descriptorPath(d)
	case flight.DescriptorCMD:
		if err := decodeStrict("command", d.GetCmd(), &t, limit); err != nil {
			return t, err
		}
	default:
		return t, status.Error(codes.InvalidArgument, "pqflight: descriptor must be PATH or CMD")
	}
	return t, checkTicket(&t)
}

// putFromDescriptor reads the request of DoPut.
func putFromDescriptor(d *flight.FlightDescriptor, limit int) (PutCommand, error) {
	var c PutCommand
	switch d.GetType() {
	case flight.DescriptorPATH:
		c.Path = descriptorPath(d)
	case flight.DescriptorCMD:
		if err := decodeStrict("put command", d.GetCmd(), &c, limit); err != nil {
			return c, err
		}
	default:
		return c, status.Error(codes.InvalidArgument, "pqflight: DoPut needs a PATH or CMD descriptor in its first message")
	}
	p, err := cleanPath(c.Path)
	c.Path = p
	return c, err
}

// PathDescriptor returns the PATH descriptor of a file path.
func PathDescriptor(path string) *flight.FlightDescriptor {
	return &flight.FlightDescriptor{Type: flight.DescriptorPATH, Path: []string{path}}
}

// CommandDescriptor returns a CMD descriptor holding v as JSON; v is a
// *[Ticket] for GetFlightInfo and GetSchema or a *[PutCommand] for DoPut.
func CommandDescriptor(v any) (*flight.FlightDescriptor, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}, nil
}
