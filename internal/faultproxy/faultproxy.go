// Package faultproxy is an HTTP reverse proxy on 127.0.0.1 for tests and
// benchmarks of remote reads: it adds latency to every request, injects
// faults (connection resets, 503 Slow Down, bodies cut short) chosen per
// request, and counts requests and bytes. The Host header is passed on
// unchanged, so that S3 signatures made for the proxy's address verify at
// the server behind it.
package faultproxy

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is what the proxy does to one request.
type Fault int

const (
	// None forwards the request.
	None Fault = iota
	// Reset closes the client's connection with a TCP reset, before any
	// answer, without forwarding the request.
	Reset
	// SlowDown answers 503 with S3's SlowDown error, without forwarding.
	SlowDown
	// Truncate forwards the request and sends the answer's headers (its
	// Content-Length included) and half its body, then resets the
	// connection.
	Truncate
	// TruncateClean is Truncate with the Content-Length rewritten to the
	// half sent, so that only a reader that checks the length against
	// the range it asked for sees the cut.
	TruncateClean
)

func (f Fault) String() string {
	switch f {
	case None:
		return "none"
	case Reset:
		return "reset"
	case SlowDown:
		return "slowdown"
	case Truncate:
		return "truncate"
	case TruncateClean:
		return "truncate-clean"
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Stats are the proxy's counters.
type Stats struct {
	Requests int64 // requests received, faulted ones included
	Faults   int64 // requests given a fault
	BytesOut int64 // response body bytes sent to clients
	BytesIn  int64 // request body bytes forwarded to the server
	Gets     int64 // GET requests
}

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	// URL is the proxy's base URL, http://127.0.0.1:PORT.
	URL string

	target    *url.URL
	srv       *httptest.Server
	transport *http.Transport
	latency   atomic.Int64
	mu        sync.Mutex
	fault     func(n int64, r *http.Request) Fault

	requests, faults, bytesOut, bytesIn, gets atomic.Int64
}

// New starts a proxy in front of target (such as http://127.0.0.1:9000).
func New(target string) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	t.DisableCompression = true
	p := &Proxy{target: u, transport: t}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p, nil
}

// Close stops the proxy and closes its connections.
func (p *Proxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.transport.CloseIdleConnections()
}

// SetLatency sets the delay added before each request is handled.
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// SetFault sets the function choosing each request's fault; n counts
// requests from 1 since the proxy started (or since ResetStats). nil
// forwards everything.
func (p *Proxy) SetFault(f func(n int64, r *http.Request) Fault) {
	p.mu.Lock()
	p.fault = f
	p.mu.Unlock()
}

// Stats returns the counters.
func (p *Proxy) Stats() Stats {
	return Stats{Requests: p.requests.Load(), Faults: p.faults.Load(), BytesOut: p.bytesOut.Load(),
		BytesIn: p.bytesIn.Load(), Gets: p.gets.Load()}
}

// ResetStats sets the counters to zero.
func (p *Proxy) ResetStats() {
	p.requests.Store(0)
	p.faults.Store(0)
	p.bytesOut.Store(0)
	p.bytesIn.Store(0)
	p.gets.Store(0)
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	n := p.requests.Add(1)
	if r.Method == http.MethodGet {
		p.gets.Add(1)
	}
	if d := time.Duration(p.latency.Load()); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	p.mu.Lock()
	pick := p.fault
	p.mu.Unlock()
	fault := None
	if pick != nil {
		fault = pick(n, r)
	}
	if fault != None {
		p.faults.Add(1)
	}
	switch fault {
	case Reset:
		io.Copy(io.Discard, r.Body)
		reset(w)
		return
	case SlowDown:
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/xml")
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate (injected by faultproxy).</Message></Error>`)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = r.Host
	for _, h := range []string{"Connection", "Proxy-Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	if r.Body != nil {
		out.Body = &countingReader{r: r.Body, n: &p.bytesIn}
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		if strings.EqualFold(k, "Connection") || strings.EqualFold(k, "Keep-Alive") {
			continue
		}
		w.Header()[k] = v
	}
	if fault == Truncate || fault == TruncateClean {
		half := resp.ContentLength / 2
		if fault == TruncateClean {
			w.Header().Set("Content-Length", strconv.FormatInt(half, 10))
		}
		w.WriteHeader(resp.StatusCode)
		m, _ := io.CopyN(w, resp.Body, half)
		p.bytesOut.Add(m)
		if fault == TruncateClean {
			return
		}
		w.(http.Flusher).Flush()
		reset(w)
		return
	}
	w.WriteHeader(resp.StatusCode)
	m, _ := io.Copy(w, resp.Body)
	p.bytesOut.Add(m)
}

// reset closes the connection under w with a TCP RST (linger 0).
func reset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

type countingReader struct {
	r io.ReadCloser
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }
