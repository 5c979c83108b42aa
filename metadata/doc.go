// Package metadata owns the Parquet file metadata: the Thrift structures of
// the format, the footer (read and write), the schema tree with the definition
// and repetition levels of every leaf column, typed statistics and the page
// index.
//
// The format structures live in the generated package
// [github.com/arrowpq/arrowpq/metadata/format], produced by the Debian
// thrift-compiler from thrift/parquet.thrift (see that file for the exact
// command, or run go generate). They follow apache/parquet-format
// src/main/thrift/parquet.thrift at commit
// 010f49b89eab98b498986709be5fedaaf2ea916f.
//
// Glossary:
//   - footer: the serialized FileMetaData, its 4-byte little-endian length and
//     the magic "PAR1" at the end of the file.
//   - schema tree: the depth-first flattened list of SchemaElement turned into
//     nodes with parents and children; a leaf is a column.
//   - max definition level: the number of optional or repeated nodes on the
//     path from the root to a leaf; max repetition level: the number of
//     repeated nodes on it.
//
// The package reads only from byte slices and [io.ReaderAt]; it does no other
// I/O and starts no goroutines. It imports nothing of arrowpq and nothing of
// Arrow. Every length read from a file is checked against the bytes that are
// there before anything is allocated for it.
//
// Non-goals: decryption, which package encryption does on top of this one
// (without it an encrypted footer or column chunk is reported as
// [ErrEncrypted]), page contents (package pagecodec).
package metadata
