// Package benchmarks compares arrowpq with arrow-go's pqarrow (and
// parquet-go where it fits) on the same seeded data in the same run.
package benchmarks
