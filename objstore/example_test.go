package objstore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/arrowpq/arrowpq/objstore"
)

// Open an object over HTTP and read two ranges in one planned call: the
// opening request read the last 8 bytes, which hold the second range, so
// one more request (for bytes 0-12: the ranges are closer than Gap, and
// the tail is not fetched again) serves both.
func ExampleOpen() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "hello.txt", time.Time{}, strings.NewReader("hello, object storage"))
	}))
	defer srv.Close()
	src, err := objstore.Open(context.Background(), srv.URL+"/hello.txt", &objstore.Options{TailSize: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer src.Close()
	bufs, err := src.ReadRanges(context.Background(), []objstore.Range{{Off: 0, Len: 5}, {Off: 14, Len: 7}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes: %q %q in %d requests\n", src.Size(), bufs[0], bufs[1], src.Requests())
	// Output: 21 bytes: "hello" "storage" in 2 requests
}
