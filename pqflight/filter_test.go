package pqflight_test

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/pqflight"
)

// TestFilterTicket: a CMD descriptor with a filter gets endpoints only for
// the row groups that may match (gen.parquet: ids 0…999 in row groups of
// 200, so statistics decide), their tickets carry the filter, and DoGet
// returns only the matching rows.
func TestFilterTicket(t *testing.T) {
	root := newRoot(t)
	ts := startServer(t, root, nil)
	ctx := context.Background()
	desc, err := pqflight.CommandDescriptor(&pqflight.Ticket{Path: "gen.parquet", Columns: []string{"id", "name"},
		Filter: "id BETWEEN 450 AND 460 OR id = 999"})
	must(t, err)
	info, err := ts.client.GetFlightInfo(ctx, desc)
	must(t, err)
	var tickets []string
	for _, ep := range info.GetEndpoint() {
		tickets = append(tickets, string(ep.GetTicket().GetTicket()))
	}
	want := []string{
		`{"path":"gen.parquet","row_groups":[2],"columns":["id","name"],"filter":"id BETWEEN 450 AND 460 OR id = 999"}`,
		`{"path":"gen.parquet","row_groups":[4],"columns":["id","name"],"filter":"id BETWEEN 450 AND 460 OR id = 999"}`,
	}
	if !slices.Equal(tickets, want) || info.GetTotalRecords() != -1 {
		t.Fatalf("tickets %q, total records %d; want %q, -1", tickets, info.GetTotalRecords(), want)
	}
	var ids []int64
	for _, ep := range info.GetEndpoint() {
		tbl, err := doGet(t, ts.client, ep.GetTicket())
		must(t, err)
		if tbl.NumCols() != 2 {
			t.Fatalf("%d columns", tbl.NumCols())
		}
		for _, c := range tbl.Column(0).Data().Chunks() {
			ids = append(ids, c.(*array.Int64).Int64Values()...)
		}
		tbl.Release()
	}
	wantIDs := []int64{450, 451, 452, 453, 454, 455, 456, 457, 458, 459, 460, 999}
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("ids %v, want %v", ids, wantIDs)
	}
	// Bad filters are the request's fault.
	for _, f := range []string{"id BETWEEN", "nope = 1", "name = 5"} {
		desc, err := pqflight.CommandDescriptor(&pqflight.Ticket{Path: "gen.parquet", Filter: f})
		must(t, err)
		if _, err := ts.client.GetFlightInfo(ctx, desc); status.Code(err) != codes.InvalidArgument {
			t.Errorf("filter %q: %v, want InvalidArgument", f, err)
		}
	}
}
