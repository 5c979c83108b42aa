package pqflight

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/status"
)

// FuzzDecodeTicket feeds hostile ticket bytes to the decoder: it must
// return a status error or a ticket whose path is confined to the root, and
// an accepted ticket must survive encoding and decoding unchanged.
func FuzzDecodeTicket(f *testing.F) {
	for _, seed := range []string{
		`{"path":"a.parquet"}`,
		`{"path":"sub/b.parquet","row_groups":[0,2],"columns":["id","a.b"]}`,
		`{"path":"../x.parquet"}`,
		`{"path":"/etc/passwd"}`,
		`{"path":"a/./b/../c.parquet"}`,
		`{"path":"C:/x.parquet"}`,
		`{"path":"a\\b"}`,
		`{"path":"x.parquet","row_groups":[-1]}`,
		`{"path":"x.parquet","columns":[""]}`,
		`{"path":"x.parquet"} trailing`,
		`{"path":".x.parquet.pqflight-00.tmp"}`,
		`[]`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tk, err := decodeTicket(b)
		if err != nil {
			if _, ok := status.FromError(err); !ok {
				t.Fatalf("error %v is not a gRPC status", err)
			}
			return
		}
		if !fs.ValidPath(tk.Path) || tk.Path == "." || strings.HasPrefix(tk.Path, "/") || slices.Contains(strings.Split(tk.Path, "/"), "..") || strings.ContainsAny(tk.Path, "\\\x00") {
			t.Fatalf("accepted path %q leaves the root", tk.Path)
		}
		again, err := decodeTicket(encodeTicket(&tk))
		if err != nil {
			t.Fatalf("re-decoding %+v: %v", tk, err)
		}
		if again.Path != tk.Path || !slices.Equal(again.RowGroups, tk.RowGroups) || !slices.Equal(again.Columns, tk.Columns) {
			t.Fatalf("round trip %+v -> %+v", tk, again)
		}
	})
}

// FuzzCleanPath checks the path rules on raw strings.
func FuzzCleanPath(f *testing.F) {
	for _, seed := range []string{"a.parquet", "a//b", "./a", "a/..", "..", "/", "c:", "a:b", "\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		c, err := cleanPath(p)
		if err != nil {
			return
		}
		if !fs.ValidPath(c) || c == "." || slices.Contains(strings.Split(c, "/"), "..") {
			t.Fatalf("cleanPath(%q) = %q, not confined", p, c)
		}
		if c2, err := cleanPath(c); err != nil || c2 != c {
			t.Fatalf("cleanPath not idempotent: %q -> %q -> %q, %v", p, c, c2, err)
		}
	})
}
