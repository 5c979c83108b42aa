package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/status"

	"github.com/arrowpq/arrowpq/arrowpq"
	"github.com/arrowpq/arrowpq/pqflight"
)

// flightConfig is what the flight command's flags say; each subcommand
// uses the flags that apply to it.
type flightConfig struct {
	token       string
	useTLS      bool
	tlsCA       string
	columns     string
	rowGroups   string
	output      string
	format      string
	limit       int64
	parallel    int
	pattern     string
	compression string
	read        readFlags // put: how to read the local file
	progress    progressFlags
}

func init() {
	register(&command{
		name:    "flight",
		summary: "talk to an Arrow Flight server: list its files, get one (to a Parquet file or the terminal), put a local file",
		usage: "list ADDR [--pattern GLOB]\n" +
			"       arrowpq flight get ADDR PATH [--columns a,b.c] [--row-groups 0,2] [-o FILE.parquet | --format table|jsonl|csv --limit N]\n" +
			"       arrowpq flight put ADDR LOCAL.parquet [REMOTE_PATH] [--compression zstd] [--int96-unit us] [--skip-checksums] [--max-page-size SIZE]\n" +
			"       (all: [--token T] [--tls] [--tls-ca FILE]; ADDR is host:port, grpc+tcp://host:port or grpc+tls://host:port)",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			var cfg flightConfig
			fs.StringVar(&cfg.token, "token", "", "bearer token (default $"+tokenEnv+")")
			fs.BoolVar(&cfg.useTLS, "tls", false, "connect with TLS (implied by grpc+tls:// and --tls-ca)")
			fs.StringVar(&cfg.tlsCA, "tls-ca", "", "PEM file of the certificate authority (or self-signed certificate) to trust")
			fs.StringVar(&cfg.columns, "columns", "", "get: comma-separated columns, top-level names or dotted paths")
			fs.StringVar(&cfg.rowGroups, "row-groups", "", "get: comma-separated row group indices")
			fs.StringVar(&cfg.output, "o", "", "get: write a Parquet file instead of printing rows")
			fs.StringVar(&cfg.format, "format", "table", "get: output format when printing: table, jsonl or csv")
			fs.Int64Var(&cfg.limit, "limit", -1, "get: print at most N rows (-1: all)")
			fs.IntVar(&cfg.parallel, "parallel", pqflight.DefaultParallelism, "get: endpoints fetched at once")
			fs.StringVar(&cfg.pattern, "pattern", "", "list: only paths matching this glob (path.Match syntax)")
			fs.StringVar(&cfg.compression, "compression", "", "put, get -o: codec of the written file (snappy, zstd, gzip, brotli, lz4raw, none)")
			cfg.read.register(fs)
			cfg.progress.register(fs)
			return func(args []string, out io.Writer) error {
				if len(args) < 2 {
					return &usageError{"want a subcommand (list, get or put) and ADDR"}
				}
				sub, addr, rest := args[0], args[1], args[2:]
				if cfg.token == "" {
					cfg.token = os.Getenv(tokenEnv)
				}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				switch sub {
				case "list":
					if len(rest) != 0 {
						return &usageError{"list takes only ADDR"}
					}
				case "get":
					if len(rest) != 1 {
						return &usageError{"get wants ADDR and one PATH"}
					}
					if cfg.output == "" && cfg.format != "table" && cfg.format != "jsonl" && cfg.format != "csv" {
						return &usageError{fmt.Sprintf("unknown --format %q: want table, jsonl or csv", cfg.format)}
					}
				case "put":
					if len(rest) != 1 && len(rest) != 2 {
						return &usageError{"put wants ADDR, LOCAL.parquet and an optional REMOTE_PATH"}
					}
				default:
					return &usageError{fmt.Sprintf("unknown subcommand %q: want list, get or put", sub)}
				}
				c, err := cfg.dial(addr)
				if err != nil {
					return err
				}
				defer c.Close()
				switch sub {
				case "list":
					err = flightList(ctx, c, &cfg, out)
				case "get":
					err = flightGet(ctx, c, rest[0], &cfg, out)
				default:
					remote := filepath.Base(rest[0])
					if len(rest) == 2 {
						remote = rest[1]
					}
					err = flightPut(ctx, c, rest[0], remote, &cfg, out)
				}
				return plainStatus(err)
			}
		},
	})
}

// dial connects to addr with the TLS and token settings of cfg; the same
// settings dial the other servers that endpoints name.
func (cfg *flightConfig) dial(addr string) (flight.Client, error) {
	opts := &pqflight.DialOptions{Token: cfg.token}
	if cfg.useTLS || cfg.tlsCA != "" {
		opts.TLS = &tls.Config{}
	}
	if cfg.tlsCA != "" {
		pem, err := os.ReadFile(cfg.tlsCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", cfg.tlsCA)
		}
		opts.TLS.RootCAs = pool
	}
	return pqflight.Dial(addr, opts)
}

func flightList(ctx context.Context, c flight.Client, cfg *flightConfig, out io.Writer) error {
	infos, err := pqflight.List(ctx, c, cfg.pattern)
	if err != nil {
		return err
	}
	t := &table{
		header:     []string{"path", "rows", "bytes", "endpoints", "columns"},
		rightAlign: []bool{false, true, true, true, false},
		shrink:     []int{1, 0, 0, 0, 2},
	}
	for _, info := range infos {
		var cols []string
		if sc, err := flight.DeserializeSchema(info.GetSchema(), memory.DefaultAllocator); err == nil {
			for _, f := range sc.Fields() {
				cols = append(cols, f.Name)
			}
		}
		t.add(strings.Join(info.GetFlightDescriptor().GetPath(), "/"),
			strconv.FormatInt(info.GetTotalRecords(), 10),
			strconv.FormatInt(info.GetTotalBytes(), 10),
			strconv.Itoa(len(info.GetEndpoint())),
			strings.Join(cols, ", "))
	}
	return t.write(out, "", outputWidth(out))
}

func flightGet(ctx context.Context, c flight.Client, path string, cfg *flightConfig, out io.Writer) error {
	opts := &pqflight.ClientOptions{Parallelism: cfg.parallel, Dial: cfg.dial}
	for _, col := range strings.Split(cfg.columns, ",") {
		if col = strings.TrimSpace(col); col != "" {
			opts.Columns = append(opts.Columns, col)
		}
	}
	for _, s := range strings.Split(cfg.rowGroups, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		rg, err := strconv.Atoi(s)
		if err != nil || rg < 0 {
			return &usageError{fmt.Sprintf("bad --row-groups entry %q", s)}
		}
		opts.RowGroups = append(opts.RowGroups, rg)
	}
	r, err := pqflight.NewReader(ctx, c, path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	if cfg.output != "" {
		return getToFile(r, cfg, out)
	}
	total := r.Info().GetTotalRecords() // of the whole file
	if opts.RowGroups != nil {
		total = -1
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	if err := printRows(r, opts.Columns, total, cfg.limit, cfg.format, outputWidth(out), bw); err != nil {
		return err
	}
	return bw.Flush()
}

// getToFile writes the stream to cfg.output through createOutput: a
// temporary file renamed at the end, so that an interrupted download
// leaves no partial file (a FIFO or device is written straight through).
func getToFile(r *pqflight.Reader, cfg *flightConfig, out io.Writer) (err error) {
	var wopts arrowpq.WriteOptions
	if cfg.compression != "" {
		if wopts.Compression, err = arrowpq.ParseCompression(cfg.compression); err != nil {
			return &usageError{err.Error()}
		}
	}
	o, err := createOutput(cfg.output)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			o.Abort()
		}
	}()
	bw := bufio.NewWriterSize(o, 1<<20)
	w, err := arrowpq.NewWriter(bw, r.Schema(), &wopts)
	if err != nil {
		return err
	}
	var rows int64
	p := cfg.progress.open(os.Stderr, false)
	p.start(-1, -1)
	for r.Next() {
		if err := w.Write(r.RecordBatch()); err != nil {
			p.finish()
			w.Abort()
			return err
		}
		rows += r.RecordBatch().NumRows()
		p.update(rows, 0)
	}
	p.finish()
	if err := r.Err(); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := o.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %d rows to %s\n", rows, cfg.output)
	return nil
}

func flightPut(ctx context.Context, c flight.Client, local, remote string, cfg *flightConfig, out io.Writer) error {
	ropts := &arrowpq.ReadOptions{Context: ctx}
	cfg.read.apply(ropts)
	r, closeR, err := openReader(ctx, local, ropts)
	if err != nil {
		return err
	}
	defer closeR()
	opts := &pqflight.ClientOptions{}
	if cfg.compression != "" {
		comp, err := arrowpq.ParseCompression(cfg.compression)
		if err != nil {
			return &usageError{err.Error()}
		}
		opts.WriteOptions = &arrowpq.WriteOptions{Compression: comp}
	}
	p := cfg.progress.open(os.Stderr, false)
	p.start(r.NumRows(), -1)
	res, err := pqflight.Upload(ctx, c, remote, &progressReader{RecordReader: r, p: p}, opts)
	p.finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "put %d rows to %s\n", res.Rows, res.Path)
	return nil
}

// plainStatus renders a gRPC status error as "Code: message", without
// the "rpc error: code = ... desc = ..." wrapping, however deep it is
// wrapped.
func plainStatus(err error) error {
	if err == nil {
		return nil
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		st := se.GRPCStatus()
		msg := strings.Replace(err.Error(), st.Err().Error(), st.Code().String()+": "+st.Message(), 1)
		return errors.New(msg)
	}
	return err
}

// progressReader draws progress as batches are read from a RecordReader.
type progressReader struct {
	array.RecordReader
	p    *progress
	rows int64
}

func (r *progressReader) Next() bool {
	if !r.RecordReader.Next() {
		return false
	}
	r.rows += r.RecordReader.RecordBatch().NumRows()
	r.p.update(r.rows, 0)
	return true
}
