package arrowjson

import (
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDateText compares the fast date text with time's formatting for
// every day from year 0 to 10000 and a few beyond.
func TestDateText(t *testing.T) {
	from := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
	to := time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400
	for d := from - 3; d < to; d++ {
		want := time.Unix(d*86400, 0).UTC().Format("2006-01-02")
		if got := dateText(d); got != want {
			t.Fatalf("dateText(%d) = %s, want %s", d, got, want)
		}
	}
}

// TestStyles renders the same values in both styles; expectations are
// written by hand from the oracle README (Canonical) and RFC 8259 /
// ISO 8601 (Readable).
func TestStyles(t *testing.T) {
	mem := memory.DefaultAllocator
	ints := array.NewInt64Builder(mem)
	ints.AppendValues([]int64{-9223372036854775808}, nil)
	dur := array.NewDurationBuilder(mem, &arrow.DurationType{Unit: arrow.Millisecond})
	dur.Append(5)
	str := array.NewStringBuilder(mem)
	str.Append("a\"\n\x01é")
	bin := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	bin.Append([]byte{0xde, 0xad})
	date := array.NewDate32Builder(mem)
	date.Append(-719162)
	f32 := array.NewFloat32Builder(mem)
	f32.Append(0.1)
	for _, c := range []struct {
		arr                 arrow.Array
		canonical, readable string
	}{
		{ints.NewArray(), `"-9223372036854775808"`, `-9223372036854775808`},
		{dur.NewArray(), `"5"`, `5`},
		{str.NewArray(), `"a\"\n\x01é"`, `"a\"\n\u0001é"`},
		{bin.NewArray(), `"0xdead"`, `"3q0="`},
		{date.NewArray(), `"date:-719162"`, `"0001-01-01"`},
		{f32.NewArray(), `0.10000000149011612`, `0.1`},
	} {
		got, err := AppendValue(nil, c.arr, 0, Canonical)
		if err != nil || string(got) != c.canonical {
			t.Errorf("%s canonical = %s %v, want %s", c.arr.DataType(), got, err, c.canonical)
		}
		got, _ = AppendValue(nil, c.arr, 0, Readable)
		if string(got) != c.readable {
			t.Errorf("%s readable = %s, want %s", c.arr.DataType(), got, c.readable)
		}
	}
	if got := DecimalText(big.NewInt(-5), 3); got != "-0.005" {
		t.Errorf("DecimalText = %s", got)
	}
}
