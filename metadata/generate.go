package metadata

//go:generate sh -c "thrift --gen go:package_prefix=github.com/arrowpq/arrowpq/metadata/,package=format -out . thrift/parquet.thrift && rm -rf format/parquet-remote && gofmt -w format"
