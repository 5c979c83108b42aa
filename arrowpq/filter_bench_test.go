package arrowpq_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/benchmarks"
)

// BenchmarkFilterEvaluate evaluates predicates over one lineitem batch of
// 65,536 rows (Evaluate), and applies the selection (FilterBatch: the
// "read everything, then filter" baseline's second half). Metric rows/s
// counts input rows.
func BenchmarkFilterEvaluate(b *testing.B) {
	ds, _ := benchmarks.DatasetByName("lineitem")
	rec := ds.Build(memory.DefaultAllocator, 1<<16)
	defer rec.Release()
	for _, tc := range []struct{ name, filter string }{
		{"between", "l_orderkey BETWEEN 1000 AND 2000"},
		{"half", "l_orderkey < 32768"},
		{"in-strings", "l_shipmode IN ('AIR', 'MAIL')"},
		{"date-and-decimal", "l_shipdate >= DATE '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"},
		{"like", "l_comment LIKE 'furiously%'"},
		{"or-not", "NOT (l_returnflag = 'R' OR l_linestatus = 'F')"},
	} {
		p, err := arrowpq.ParseFilter(tc.filter)
		if err != nil {
			b.Fatal(err)
		}
		bp, err := p.Bind(rec.Schema(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("op=evaluate/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bp.Evaluate(rec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
		sel, _ := bp.Evaluate(rec)
		b.Run("op=filterbatch/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := arrowpq.FilterBatch(context.Background(), nil, rec, sel)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(rec.NumRows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
