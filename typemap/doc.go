// Package typemap maps a Parquet schema tree to an Arrow schema and back,
// including the LIST and MAP backward-compatibility rules of the spec and the
// ARROW:schema footer key written by Arrow implementations.
package typemap
