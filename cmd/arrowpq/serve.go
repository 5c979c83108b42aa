package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/arrowpq/arrowpq/objstore"
	"github.com/arrowpq/arrowpq/pqflight"
)

// tokenEnv names the environment variable that gives the bearer token when
// --token is not set, which keeps it out of the process list.
const tokenEnv = "ARROWPQ_FLIGHT_TOKEN"

// maxUploadMessage is the largest Flight message serve accepts.
const maxUploadMessage = 256 << 20

// listFlag collects a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// serveConfig is what the serve command's flags say.
type serveConfig struct {
	addr           string
	token          string
	certFile       string
	keyFile        string
	readOnly       bool
	allowOverwrite bool
	endpointBytes  int64
	batchSize      int
	locations      []string
	grace          time.Duration
}

func init() {
	register(&command{
		name:    "serve",
		summary: "serve the Parquet files of a directory over Arrow Flight (list, get, put)",
		usage:   "[--addr 127.0.0.1:8815] [--token T] [--tls-cert FILE --tls-key FILE] [--read-only] [--allow-overwrite] DIR",
		setup: func(fs *flag.FlagSet) func([]string, io.Writer) error {
			var cfg serveConfig
			var locs listFlag
			fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8815", "address to listen on (port 0 picks a free port)")
			fs.StringVar(&cfg.token, "token", "", "require this bearer token on every call (default $"+tokenEnv+"; empty: no authentication)")
			fs.StringVar(&cfg.certFile, "tls-cert", "", "serve TLS with this PEM certificate (needs --tls-key)")
			fs.StringVar(&cfg.keyFile, "tls-key", "", "PEM private key of --tls-cert")
			fs.BoolVar(&cfg.readOnly, "read-only", false, "refuse uploads (DoPut)")
			fs.BoolVar(&cfg.allowOverwrite, "allow-overwrite", false, "let uploads replace existing files")
			fs.Int64Var(&cfg.endpointBytes, "endpoint-bytes", 0, "group row groups into endpoints of up to this many uncompressed bytes (0: one endpoint per row group)")
			fs.IntVar(&cfg.batchSize, "batch-size", 0, "rows per record batch sent (0: the reader's default)")
			fs.Var(&locs, "location", "URI of a server of the same directory to put on every endpoint (repeatable)")
			fs.DurationVar(&cfg.grace, "grace", 10*time.Second, "on Ctrl-C or SIGTERM, how long streams in flight may finish before they are cancelled")
			return func(args []string, out io.Writer) error {
				if len(args) != 1 {
					return &usageError{fmt.Sprintf("want one DIR, got %d arguments", len(args))}
				}
				if (cfg.certFile == "") != (cfg.keyFile == "") {
					return &usageError{"--tls-cert and --tls-key go together"}
				}
				if cfg.token == "" {
					cfg.token = os.Getenv(tokenEnv)
				}
				cfg.locations = locs
				sigs := make(chan os.Signal, 2)
				signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
				defer signal.Stop(sigs)
				return serveDir(args[0], &cfg, out, sigs)
			}
		},
	})
}

// serveDir serves dir until the first value on stop, prints the address
// it listens on once it accepts connections, and shuts down gracefully: on
// the first stop it lets streams in flight finish for cfg.grace, then (or
// on a second stop) cancels them. Handlers always run to their end, so an
// upload cut short removes its temporary file before serveDir returns.
func serveDir(dir string, cfg *serveConfig, out io.Writer, stop <-chan os.Signal) error {
	if objstore.IsURL(dir) {
		// s3://bucket/prefix, read-only (url.go)
	} else if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	srv, err := newFlightServer(dir, &pqflight.Options{
		Token:          cfg.token,
		ReadOnly:       cfg.readOnly,
		AllowOverwrite: cfg.allowOverwrite,
		EndpointBytes:  cfg.endpointBytes,
		BatchSize:      cfg.batchSize,
		Locations:      cfg.locations,
		Decryption:     cliCrypt.decryption(), // cryptflags.go
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	// Uploads from other Flight clients may come as large batches; ours
	// split them at pqflight.DefaultMaxBatchBytes.
	opts := []grpc.ServerOption{grpc.WaitForHandlers(true), grpc.MaxRecvMsgSize(maxUploadMessage)}
	scheme := "grpc+tcp"
	if cfg.certFile != "" {
		creds, err := credentials.NewServerTLSFromFile(cfg.certFile, cfg.keyFile)
		if err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		opts = append(opts, grpc.Creds(creds))
		scheme = "grpc+tls"
	}
	for _, m := range srv.Middleware() {
		opts = append(opts, grpc.ChainUnaryInterceptor(m.Unary), grpc.ChainStreamInterceptor(m.Stream))
	}
	gs := grpc.NewServer(opts...)
	flight.RegisterFlightServiceServer(gs, srv)
	lis, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- gs.Serve(lis) }()
	fmt.Fprintf(out, "serving %s on %s://%s\n", dir, scheme, lis.Addr())
	select {
	case err := <-served:
		return err
	case <-stop:
	}
	fmt.Fprintf(out, "stopping: streams in flight have %v to finish\n", cfg.grace)
	stopped := make(chan struct{})
	go func() {
		gs.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(cfg.grace):
		gs.Stop()
	case <-stop:
		gs.Stop()
	}
	<-stopped
	if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	fmt.Fprintln(out, "stopped")
	return nil
}
