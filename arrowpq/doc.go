// Package arrowpq reads Parquet files into Arrow record batches and writes
// Arrow record batches into Parquet files.
//
// It is the only package of the module that does I/O, owns Arrow memory
// buffers or starts goroutines.
package arrowpq
