package arrowpq_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/arrowpq/arrowpq/arrowpq"
)

// TestWriteOptionsJSON: the enumerations of the write options are names in
// JSON (parquet.thrift's for codecs and encodings), parse
// case-insensitively, and still accept the numbers earlier versions wrote.
func TestWriteOptionsJSON(t *testing.T) {
	gz := arrowpq.Gzip
	o := arrowpq.WriteOptions{
		Compression: arrowpq.Zstd, Dictionary: arrowpq.Off, Encoding: arrowpq.DeltaBinaryPacked,
		PageIndex: arrowpq.On,
		Columns:   map[string]arrowpq.ColumnOptions{"a": {Compression: &gz, Statistics: arrowpq.Off, Encoding: arrowpq.ByteStreamSplit}},
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"Compression":"ZSTD"`, `"Dictionary":"off"`, `"Encoding":"DELTA_BINARY_PACKED"`, `"PageIndex":"on"`, `"Statistics":"default"`,
		`"a":{"Compression":"GZIP","CompressionLevel":0,"Dictionary":"default","Encoding":"BYTE_STREAM_SPLIT","Statistics":"off"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s\nlacks %s", b, want)
		}
	}
	var back arrowpq.WriteOptions
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Compression != o.Compression || back.Dictionary != o.Dictionary || back.Encoding != o.Encoding || back.PageIndex != o.PageIndex ||
		*back.Columns["a"].Compression != gz || back.Columns["a"].Statistics != arrowpq.Off || back.Columns["a"].Encoding != arrowpq.ByteStreamSplit {
		t.Errorf("round trip: %+v", back)
	}

	for _, c := range []struct {
		in   string
		want arrowpq.WriteOptions
	}{
		{`{"Compression":"zstd","Dictionary":"OFF","Encoding":"delta_length_byte_array"}`, arrowpq.WriteOptions{Compression: arrowpq.Zstd, Dictionary: arrowpq.Off, Encoding: arrowpq.DeltaLengthByteArray}},
		{`{"Compression":"lz4_raw","Statistics":"On"}`, arrowpq.WriteOptions{Compression: arrowpq.LZ4Raw, Statistics: arrowpq.On}},
		{`{"Compression":"none","PageChecksums":false,"ArrowSchema":true}`, arrowpq.WriteOptions{Compression: arrowpq.Uncompressed, PageChecksums: arrowpq.Off, ArrowSchema: arrowpq.On}},
		// Numbers, as earlier versions wrote: 4 is ZSTD, 2 is off, 5 BYTE_STREAM_SPLIT.
		{`{"Compression":4,"Dictionary":2,"Encoding":5}`, arrowpq.WriteOptions{Compression: arrowpq.Zstd, Dictionary: arrowpq.Off, Encoding: arrowpq.ByteStreamSplit}},
		{`{"Compression":"1","SizeStatistics":null}`, arrowpq.WriteOptions{Compression: arrowpq.Uncompressed}},
	} {
		var got arrowpq.WriteOptions
		if err := json.Unmarshal([]byte(c.in), &got); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got.Compression != c.want.Compression || got.Dictionary != c.want.Dictionary || got.Encoding != c.want.Encoding ||
			got.Statistics != c.want.Statistics || got.PageChecksums != c.want.PageChecksums || got.ArrowSchema != c.want.ArrowSchema {
			t.Errorf("%s: got %+v", c.in, got)
		}
	}
	for _, bad := range []string{
		`{"Compression":"zip"}`, `{"Compression":256}`, `{"Compression":-1}`, `{"Compression":1.5}`, `{"Compression":true}`,
		`{"Encoding":"RLE_DICTIONARY"}`, `{"Dictionary":"maybe"}`, `{"Dictionary":3.0}`,
	} {
		var got arrowpq.WriteOptions
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s accepted: %+v", bad, got)
		}
	}
	// Text form, as flags and YAML use it.
	var c arrowpq.Compression
	if err := c.UnmarshalText([]byte("Brotli")); err != nil || c != arrowpq.Brotli {
		t.Errorf("UnmarshalText(Brotli): %v, %v", c, err)
	}
	if b, _ := arrowpq.Compression(200).MarshalText(); string(b) != "200" {
		t.Errorf("a codec without a name marshals as %q, want its number", b)
	}
}
