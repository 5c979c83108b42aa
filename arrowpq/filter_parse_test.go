package arrowpq_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/arrowpq/arrowpq/arrowpq"
)

func TestParseFilter(t *testing.T) {
	col := arrowpq.Col
	for _, tc := range []struct {
		text string
		want *arrowpq.Predicate
	}{
		{"a = 1", col("a").EQ(1)},
		{"a <> -2", col("a").NE(-2)},
		{"a != 2.50", col("a").NE(big.NewRat(5, 2))},
		{"a < 1e3", col("a").LT(1000.0)},
		{"a <= 'x''y'", col("a").LE("x'y")},
		{"a > DATE '1969-12-31'", col("a").GT(arrow.Date32(-1))},
		{"größe = 1", col("größe").EQ(1)},
		{"a >= TIMESTAMP '2001-02-03 04:05:06.5'", col("a").GE(time.Date(2001, 2, 3, 4, 5, 6, 5e8, time.UTC))},
		{"a BETWEEN 1 AND 2", col("a").Between(1, 2)},
		{"a NOT BETWEEN 1 AND 2", arrowpq.Not(col("a").Between(1, 2))},
		{"a IN (1, 2, NULL)", col("a").In(1, 2, nil)},
		{"a NOT IN ('x')", arrowpq.Not(col("a").In("x"))},
		{"a IN ()", col("a").In()},
		{"a IS NULL", col("a").IsNull()},
		{"a is not null", col("a").IsNotNull()},
		{"a LIKE 'ab%'", col("a").StartsWith("ab")},
		{`a LIKE 'a\%b\_%'`, col("a").StartsWith("a%b_")},
		{"a NOT LIKE 'ab%'", arrowpq.Not(col("a").StartsWith("ab"))},
		{`"my col".x = TRUE`, col("my col.x").EQ(true)},
		{`s.a = FALSE`, col("s.a").EQ(false)},
		{"a = X'00ff'", col("a").EQ([]byte{0, 0xff})},
		// SQL precedence: NOT > AND > OR.
		{"a = 1 OR b = 2 AND c = 3", arrowpq.Or(col("a").EQ(1), arrowpq.And(col("b").EQ(2), col("c").EQ(3)))},
		{"(a = 1 OR b = 2) AND c = 3", arrowpq.And(arrowpq.Or(col("a").EQ(1), col("b").EQ(2)), col("c").EQ(3))},
		{"NOT a = 1 AND b = 2", arrowpq.And(arrowpq.Not(col("a").EQ(1)), col("b").EQ(2))},
		{"NOT (a = 1 AND b = 2)", arrowpq.Not(arrowpq.And(col("a").EQ(1), col("b").EQ(2)))},
		{"TRUE AND date = 1", arrowpq.And(arrowpq.And(), col("date").EQ(1))},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := arrowpq.ParseFilter(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() {
				t.Fatalf("ParseFilter(%q) = %s, want %s", tc.text, got, tc.want)
			}
			// The rendering reads back to the same predicate.
			again, err := arrowpq.ParseFilter(got.String())
			if err != nil || again.String() != got.String() {
				t.Fatalf("re-parse of %s: %v, %v", got, again, err)
			}
		})
	}
}

func TestParseFilterErrors(t *testing.T) {
	for _, tc := range []struct {
		text   string
		offset int // byte offset of the caret
		msg    string
	}{
		{"a = ", 4, "expected a value after '=', found the end of the filter"},
		{"a = 1 AND", 9, "expected a column name, found the end"},
		{"a == 1", 3, "expected a value after '='"},
		{"a = 'abc", 4, "unterminated string"},
		{"(a = 1", 6, "expected ')' to close the '(' at column 1"},
		{"a = 1)", 5, "unexpected ')' after a complete filter"},
		{"a LIKE '%x'", 7, "only LIKE 'prefix%' (starts with) is supported"},
		{"a LIKE 'a_b%'", 7, "only LIKE 'prefix%' (starts with) is supported"},
		{"a IN (1, )", 9, "expected a value after ','"},
		{"a BETWEEN 1 OR 2", 12, "expected AND in BETWEEN"},
		{"a = DATE '2020-13-01'", 9, "is not a date"},
		{"a IS 1", 5, "expected NULL after IS"},
		{"a = 1 # b", 6, "unexpected character '#'"},
		{"a = 12abc", 4, "malformed number"},
		{"é = 1 AND ü = §", 16, "expected a value after '=', found identifier"},
		{"a NOT = 1", 6, "expected BETWEEN, IN or LIKE after NOT"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			_, err := arrowpq.ParseFilter(tc.text)
			var se *arrowpq.FilterSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseFilter(%q) error = %v, want a *FilterSyntaxError", tc.text, err)
			}
			if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.msg) {
				t.Fatalf("ParseFilter(%q): offset %d %q, want offset %d %q", tc.text, se.Offset, se.Msg, tc.offset, tc.msg)
			}
		})
	}
	// The rendering: a 1-based character column and a caret under the token.
	_, err := arrowpq.ParseFilter("é = 1 AND b ==")
	want := "arrowpq: filter: column 14: expected a value after '=', found '='\n\té = 1 AND b ==\n\t             ^"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %q, want %q", err, want)
	}
}

func TestParseFilterDeepNesting(t *testing.T) {
	text := strings.Repeat("(", 100000) + "a = 1" + strings.Repeat(")", 100000)
	if _, err := arrowpq.ParseFilter(text); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("error = %v, want a nesting limit", err)
	}
	text = strings.Repeat("NOT ", 100000) + "a = 1"
	if _, err := arrowpq.ParseFilter(text); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("error = %v, want a nesting limit", err)
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"a = 1", "l_orderkey BETWEEN 100 AND 200 AND l_shipmode IN ('AIR','MAIL')",
		"NOT (a IS NULL OR b LIKE 'x%')", `"q""x".y <> X'00ff'`, "a >= TIMESTAMP '2020-01-01 00:00:00+02:00'",
		"a < -1.5e-3", "a = 'NaN'", "((a=1))", "a NOT IN (1,2,3)", "d = DATE '1900-01-01'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p, err := arrowpq.ParseFilter(text)
		if err != nil {
			var se *arrowpq.FilterSyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *FilterSyntaxError", err)
			}
			if se.Offset < 0 || se.Offset > len(text) {
				t.Fatalf("offset %d outside the text of %d bytes", se.Offset, len(text))
			}
			_ = err.Error()
			return
		}
		// A parsed filter renders to text that parses to the same filter.
		s := p.String()
		q, err := arrowpq.ParseFilter(s)
		if err != nil {
			t.Fatalf("rendering %q of %q does not parse: %v", s, text, err)
		}
		if q.String() != s {
			t.Fatalf("rendering %q re-renders as %q", s, q.String())
		}
	})
}
